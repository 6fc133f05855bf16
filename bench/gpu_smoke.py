"""GPU acceptance check for the scale paths of training (docs/TRAINING.md, "GPU smoke check").

    PYTHONPATH=$PWD python bench/gpu_smoke.py --out var/gpu_smoke.json      # one CUDA GPU
    PYTHONPATH=$PWD python bench/gpu_smoke.py --tiny --out /tmp/smoke.json  # CPU code check

Needs torch and transformers only: no vLLM, nothing downloaded (the model is randomly
initialised from a config, the tokenizer is built here). Sized for well under 10 minutes on
one H200. Every line prints PASS or FAIL with its threshold; the exit code is 0 when all
pass, 1 when one fails, 2 when there is no GPU (without --tiny).

What runs, all through the trainer's own code (training.session.open_session, fd_update,
grpo_update, fd_loss_on, save_checkpoint / resume):
  1. a real-shape slice: Qwen3-8B widths (hidden 4096, MLP 12288, 32/8 heads of 128, a
     151,936-token vocabulary, untied head) with 4 decoder layers, fp32 master weights and
     bf16 autocast, gradient checkpointing; one FD step (fp32 EMA teacher, top-25 KL with
     the chunked head) and one GRPO step on 2 trajectories of 8,192 tokens: losses finite,
     weights moved, step times, and the peak GPU memory against training.memory's
     prediction for this slice (the 8B arithmetic's model, checked on a real GPU);
  2. the chunked FD loss and its gradients against the full-logits reference
     (model.loss_chunk_tokens 0) on 2 x 2,048 tokens;
  3. a one-rank FSDP run (8B widths, 1 layer, 32k vocabulary to keep the files small): an
     FD step, a checkpoint through save_checkpoint (the published weights gathered to the
     host, the sharded state through torch.distributed.checkpoint), a fresh session from
     other weights resumed from it: weights, teacher, AdamW state and the next step's loss
     must equal the original's.
`--tiny` runs the same code at a tiny shape on CPU (tests/training/test_gpu_smoke_script.py):
there thresholds on memory and time do not apply and say so.

Status: it has not run on a GPU yet (none is reachable where LeanCoach is developed; --tiny
runs on CPU in the suite), so its GPU thresholds are first estimates for the first GPU run
to confirm.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import tempfile
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.synthetic import build_model, make_tokenizer, trajectories  # noqa: E402
from training import distributed  # noqa: E402
from training.config import tiny_cpu_config  # noqa: E402
from training.memory import ModelShape, RunShape, budget  # noqa: E402

WIDTHS_8B = dict(
    hidden_size=4096, intermediate_size=12288, num_attention_heads=32, num_key_value_heads=8,
    head_dim=128, vocab_size=151936, tie_word_embeddings=False, max_position_embeddings=32768,
)  # fmt: skip
TINY = dict(
    hidden_size=64, intermediate_size=128, num_attention_heads=4, num_key_value_heads=2,
    head_dim=16, vocab_size=1024, tie_word_embeddings=False, max_position_embeddings=4096,
)  # fmt: skip


@dataclass
class Report:
    lines: list[dict[str, Any]] = field(default_factory=list)
    figures: dict[str, Any] = field(default_factory=dict)

    def check(self, name: str, value: Any, passed: bool | None, threshold: str) -> None:
        """passed None: the threshold does not apply here (said, not hidden)."""
        verdict = "PASS" if passed else ("n/a " if passed is None else "FAIL")
        shown = f"{value:.4g}" if isinstance(value, float) else str(value)
        print(f"{verdict} {name}: {shown}   [{threshold}]", flush=True)
        self.lines.append({"check": name, "value": value, "passed": passed, "threshold": threshold})

    @property
    def failed(self) -> bool:
        return any(line["passed"] is False for line in self.lines)


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def peak_bytes(device: torch.device) -> float | None:
    return float(torch.cuda.max_memory_allocated()) if device.type == "cuda" else None


def config_for(tmp: Path, device: torch.device, name: str, *, fsdp: bool = False) -> Any:
    config = tiny_cpu_config("", "", name=name)
    config.run.device = device.type
    config.run.output_dir = str(tmp / "runs")
    config.run.distributed = "fsdp" if fsdp else "none"
    config.checkpoints.registry = str(tmp / "registry")
    config.checkpoints.resume = False
    config.model.dtype = "bfloat16" if device.type == "cuda" else "float32"
    config.model.gradient_checkpointing = True
    config.model.loss_chunk_tokens = 1024 if device.type == "cuda" else 16
    config.optimizer.micro_batch_size = 1
    config.optimizer.lr = 1e-5
    config.resources.gpu_allocation = 0.95
    config.fd.ema_every = 1
    return config


def open_trainer(config: Any, model: Any, tokenizer: Any) -> Any:
    from training.session import open_session

    model.activation_checkpointing_enable()  # as load_model_and_tokenizer does
    return open_session(config, "fd", model_and_tokenizer=(model, tokenizer))


def timed(device: torch.device, fn: Any) -> tuple[Any, float]:
    sync(device)
    started = time.perf_counter()
    result = fn()
    sync(device)
    return result, time.perf_counter() - started


def slice_steps(report: Report, device: torch.device, tiny: bool, tmp: Path) -> None:
    """1 and 2: the FD and GRPO steps at 8k tokens, and chunked vs full logits."""
    from training.fd import fd_loss_on, fd_update
    from training.grpo import grpo_update

    widths, layers = (TINY, 2) if tiny else (WIDTHS_8B, 4)
    tokens = 256 if tiny else 8192
    tokenizer = make_tokenizer()
    model = build_model(widths, layers, device, seed=0)
    config = config_for(tmp, device, "slice")
    session = open_trainer(config, model, tokenizer)
    batch = trajectories(tokenizer, 2, tokens, widths["vocab_size"], seed=1)
    feedback = ["Use simp."] * len(batch)
    before = next(iter(model.parameters())).detach().clone()
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats()
    fd, fd_s = timed(device, partial(fd_update, session, batch, feedback))
    fd_peak = peak_bytes(device)
    report.figures["fd_step"] = {**fd, "seconds": fd_s, "peak_bytes": fd_peak}
    report.check(
        "FD step loss is finite and > 0",
        fd["loss"],
        0 < fd["loss"] < float("inf"),
        "0 < loss < inf",
    )
    moved = not torch.equal(before, next(iter(model.parameters())).detach())
    report.check("FD step moved the fp32 master weights", moved, moved, "weights changed")
    report.check("FD step time (s)", fd_s, None if tiny else fd_s < 120, "< 120 s on one H200")
    grpo, grpo_s = timed(device, partial(grpo_update, session, batch, torch.tensor([1.0, -1.0])))
    report.figures["grpo_step"] = {**grpo, "seconds": grpo_s}
    report.check(
        "GRPO step loss is finite", grpo["loss"], abs(grpo["loss"]) < float("inf"), "finite"
    )
    report.check(
        "GRPO step time (s)", grpo_s, None if tiny else grpo_s < 120, "< 120 s on one H200"
    )
    shape = ModelShape.from_config(model.config)
    run = RunShape(ranks=1, micro_batch=1, tokens=tokens, chunk=config.model.loss_chunk_tokens,
                   replica=False, gpu_allocation=1.0)  # fmt: skip
    predicted = sum(budget(shape, run)["step"].values())
    report.figures["predicted_step_bytes"] = predicted
    if fd_peak is None:
        report.check("FD peak memory vs training.memory", "cpu", None, "GPU only")
    else:
        ratio = fd_peak / predicted
        report.check("FD peak memory / training.memory's prediction", ratio, 0.3 < ratio <= 1.0,
                     "0.3 < ratio <= 1.0: the model is an upper bound, and not a loose one")  # fmt: skip

    # 2. chunked vs full-logits FD loss and gradients on a shorter batch.
    short = trajectories(tokenizer, 2, 64 if tiny else 2048, widths["vocab_size"], seed=2)
    grads: dict[int, list[torch.Tensor]] = {}
    losses: dict[int, float] = {}
    size = config.model.loss_chunk_tokens
    for chunk in (size, 0):
        config.model.loss_chunk_tokens = chunk
        model.zero_grad(set_to_none=True)
        loss, _ = fd_loss_on(session, short, ["Use simp."] * 2)
        loss.backward()
        losses[chunk] = float(loss.detach())
        grads[chunk] = [
            p.grad.detach().float().clone() for p in model.parameters() if p.grad is not None
        ]
        model.zero_grad(set_to_none=True)
    chunked, full = losses[size], losses[0]
    relative = abs(chunked - full) / max(abs(full), 1e-12)
    limit = 1e-6 if tiny else 2e-3
    report.check(
        "chunked vs full FD loss, relative difference", relative, relative < limit, f"< {limit:g}"
    )
    a = torch.cat([g.flatten() for g in grads[size]])
    b = torch.cat([g.flatten() for g in grads[0]])
    cosine = float(torch.nn.functional.cosine_similarity(a, b, dim=0))
    rel_err = float((a - b).norm() / b.norm().clamp_min(1e-30))
    report.check("chunked vs full gradients, cosine", cosine, cosine > (1 - 1e-9 if tiny else 0.999),
                 "> 1 - 1e-9 (fp32) / > 0.999 (bf16)")  # fmt: skip
    report.check("chunked vs full gradients, relative L2 error", rel_err,
                 rel_err < (1e-5 if tiny else 3e-2), "< 1e-5 (fp32) / < 3e-2 (bf16)")  # fmt: skip
    del session, model, grads, a, b
    if device.type == "cuda":
        torch.cuda.empty_cache()


def join_one_rank_group(device: torch.device) -> None:
    if distributed.is_distributed():
        return
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    os.environ.update(RANK="0", WORLD_SIZE="1", LOCAL_RANK="0", MASTER_ADDR="127.0.0.1",
                      MASTER_PORT=str(port))  # fmt: skip
    torch.distributed.init_process_group("nccl" if device.type == "cuda" else "gloo")


def fsdp_round_trip(report: Report, device: torch.device, tiny: bool, tmp: Path) -> None:
    """3: one-rank FSDP: a step, a checkpoint, a resumed session equal to the original."""
    from torch.distributed.tensor import DTensor

    from training.fd import fd_loss_on, fd_update
    from training.session import save_checkpoint

    join_one_rank_group(device)
    widths = TINY if tiny else {**WIDTHS_8B, "vocab_size": 32768}
    tokens = 128 if tiny else 2048
    tokenizer = make_tokenizer()
    config = config_for(tmp, device, "fsdp", fsdp=True)
    session = open_trainer(config, build_model(widths, 1, device, seed=0), tokenizer)
    batch = trajectories(tokenizer, 2, tokens, widths["vocab_size"], seed=3)
    metrics = fd_update(session, batch, ["Use simp."] * 2)
    session.step += 1
    info = save_checkpoint(session, metrics)
    report.check("FSDP step + checkpoint written", str(info.path.name) if info else None,
                 info is not None, "a stable checkpoint")  # fmt: skip
    probe = trajectories(tokenizer, 1, tokens, widths["vocab_size"], seed=4)
    with torch.no_grad():
        next_loss = float(fd_loss_on(session, probe, ["Use simp."])[0])
    config.checkpoints.resume = True
    resumed = open_trainer(config, build_model(widths, 1, device, seed=99), tokenizer)

    def local(tensor: torch.Tensor) -> torch.Tensor:
        return tensor.to_local() if isinstance(tensor, DTensor) else tensor

    def same(a: Any, b: Any) -> bool:
        return all(torch.equal(local(x), local(y)) for x, y in zip(a, b, strict=True))

    weights = same(session.model.parameters(), resumed.model.parameters())
    report.check("resumed weights equal", weights, weights, "bit for bit")
    teacher = same(session.teacher.parameters(), resumed.teacher.parameters())
    report.check("resumed EMA teacher equal", teacher, teacher, "bit for bit")
    moments = [
        v for s in session.optimizer.state.values() for k, v in sorted(s.items()) if k != "step"
    ]
    moments2 = [
        v for s in resumed.optimizer.state.values() for k, v in sorted(s.items()) if k != "step"
    ]
    adam = bool(moments) and same(moments, moments2)
    report.check("resumed AdamW moments equal", adam, adam, "bit for bit")
    with torch.no_grad():
        again = float(fd_loss_on(resumed, probe, ["Use simp."])[0])
    report.check("next loss after resume", again, again == next_loss, f"== {next_loss:.6g}")
    report.check("resumed step", resumed.step, resumed.step == 1, "== 1")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tiny", action="store_true", help="tiny shapes on CPU (a code check)")
    parser.add_argument("--out", default="var/gpu_smoke.json")
    args = parser.parse_args()
    if not args.tiny and not torch.cuda.is_available():
        print(
            "gpu_smoke: no CUDA device here; run it on a GPU host, or --tiny for a CPU code check"
        )
        return 2
    device = torch.device("cpu" if args.tiny else "cuda")
    report = Report()
    started = time.perf_counter()
    report.figures["device"] = torch.cuda.get_device_name() if device.type == "cuda" else "cpu"
    with tempfile.TemporaryDirectory(prefix="gpu-smoke-") as tmp:
        slice_steps(report, device, args.tiny, Path(tmp))
        fsdp_round_trip(report, device, args.tiny, Path(tmp))
    total = time.perf_counter() - started
    report.check("total time (s)", total, None if args.tiny else total < 600, "< 600 s on one H200")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(
        json.dumps(
            {"lines": report.lines, "figures": report.figures, "seconds": total},
            indent=2,
            default=str,
        )  # fmt: skip
    )
    print("gpu_smoke:", "FAILED" if report.failed else "all checks passed", f"({total:.0f} s)")
    if distributed.is_distributed():
        distributed.leave_process_group()
    return 1 if report.failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
