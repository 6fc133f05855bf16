"""Step time and tokens/s of a Feedback Distillation step vs a GRPO step on the same batch.

    .venv/bin/python bench/bench_fd_vs_grpo.py                 # tiny random Qwen3 on CPU
    .venv/bin/python bench/bench_fd_vs_grpo.py --model DIR --device cuda --batch 16 --response 1024

Both steps are the trainer's own (training.fd.fd_update, training.grpo.grpo_update on a
session from training.session.open_session), on identical trajectories, with the default
memory-bounded loss path (model.loss_chunk_tokens, 1024: the output head applied chunk by
chunk, never [B, L, V] logits; --chunk 0 times the full-logits reference instead): GRPO =
student forward + backward + AdamW; FD = the same plus a no-grad teacher forward over the
longer teacher context (the feedback appended to the prompt) reduced to its top-25, and
the EMA every 5 steps. Rollout time is not included (the same path for both). Prints the
measured figures and FD's cost as a ratio of GRPO's, measured in the same run. The paper's
per-step batches differ (FD 128, GRPO 640 trajectories), so the per-trajectory ratio is
what compares sample costs.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import md_table  # noqa: E402
from bench.synthetic import build_model, make_tokenizer, trajectories  # noqa: E402
from training.config import tiny_cpu_config  # noqa: E402

TINY = dict(
    hidden_size=256, intermediate_size=512, num_attention_heads=4, num_key_value_heads=2,
    head_dim=64, vocab_size=4096, tie_word_embeddings=True, max_position_embeddings=8192,
)  # fmt: skip


def sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def time_steps(step: Callable[[], Any], n: int, device: str) -> list[float]:
    times = []
    for _ in range(n):
        sync(device)
        start = time.perf_counter()
        step()
        sync(device)
        times.append(time.perf_counter() - start)
    return times


def run(argv: Sequence[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", help="local model directory (default: a tiny random Qwen3)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--response", type=int, default=512, help="tokens per trajectory")
    parser.add_argument("--chunk", type=int, default=1024, help="model.loss_chunk_tokens")
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument(
        "--markdown", action="store_true", help="also print bench/README.md's table"
    )
    args = parser.parse_args(argv)
    machine = md_table.machine()
    torch.set_num_threads(args.threads)
    from training.fd import fd_update
    from training.grpo import grpo_update
    from training.session import open_session

    device = torch.device(args.device)
    if args.model:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        model: Any = AutoModelForCausalLM.from_pretrained(args.model, dtype=torch.float32)
        tokenizer = AutoTokenizer.from_pretrained(args.model)
        model.to(device).train()
    else:
        model, tokenizer = build_model(TINY, 2, device, seed=0), make_tokenizer()
    with tempfile.TemporaryDirectory(prefix="bench-fd-grpo-") as tmp:
        config = tiny_cpu_config(args.model or "", "", name="bench")
        config.run.device = device.type
        config.run.output_dir, config.checkpoints.registry = tmp, tmp
        config.checkpoints.resume = False
        config.model.dtype = "bfloat16" if device.type == "cuda" else "float32"
        config.model.loss_chunk_tokens = args.chunk
        config.optimizer.micro_batch_size = args.batch
        config.optimizer.lr = 1e-6
        config.fd.ema_every = 5
        session = open_session(config, "fd", model_and_tokenizer=(model, tokenizer))
        batch = trajectories(tokenizer, args.batch, args.response, model.config.vocab_size, 0)
        feedback = ["Use simp."] * len(batch)
        advantages = torch.tensor([1.0, -1.0] * (args.batch // 2) + [0.0] * (args.batch % 2))

        def grpo_step() -> None:
            grpo_update(session, batch, advantages)

        def fd_step() -> None:
            fd_update(session, batch, feedback)
            session.step += 1  # the EMA's period counts steps, as run_loop does

        grpo_step()  # warm-up (allocations, kernels)
        fd_step()
        grpo_times = time_steps(grpo_step, args.steps, args.device)
        fd_times = time_steps(fd_step, args.steps, args.device)
    tokens = float(sum(sum(t.mask) for t in batch))
    grpo_s, fd_s = statistics.median(grpo_times), statistics.median(fd_times)
    params = sum(p.numel() for p in model.parameters())
    path = f"chunked, {args.chunk} rows" if args.chunk else "full logits (reference)"
    print(f"model: {args.model or 'tiny random Qwen3'} ({params / 1e6:.2f}M params), "
          f"device {args.device}, threads {args.threads}, loss path: {path}")  # fmt: skip
    print(f"batch: {args.batch} trajectories x {args.response} tokens, {tokens:.0f} sampled tokens")
    print(
        f"GRPO step: {grpo_s * 1000:8.1f} ms  {tokens / grpo_s:10.0f} tokens/s  (median of {args.steps})"
    )
    print(
        f"FD step:   {fd_s * 1000:8.1f} ms  {tokens / fd_s:10.0f} tokens/s  (median of {args.steps})"
    )
    print(
        f"ratio FD/GRPO step time: {fd_s / grpo_s:.2f}x   tokens/s: {grpo_s / fd_s:.2f}x of GRPO's"
    )
    print(f"per step at the paper's batches (FD 128, GRPO 640 trajectories): "
          f"FD/GRPO = {fd_s / grpo_s * 128 / 640:.2f}x")  # fmt: skip
    if args.markdown:
        where = f"{args.model or 'tiny random Qwen3'} ({params / 1e6:.2f}M), {args.device}"
        shape = f"{args.batch} x {args.response} tokens, loss {path}"
        md_table.print_table(
            ["step", "model, device", "batch", "median step", "sampled tokens/s", "x GRPO"],
            [
                (
                    "GRPO",
                    where,
                    shape,
                    f"{grpo_s * 1000:.1f} ms",
                    f"{tokens / grpo_s:.0f}",
                    "1.00x",
                ),
                (
                    "FD",
                    where,
                    shape,
                    f"{fd_s * 1000:.1f} ms",
                    f"{tokens / fd_s:.0f}",
                    f"{fd_s / grpo_s:.2f}x",
                ),
                (
                    "FD at the paper's batch (128 vs 640 trajectories)",
                    where,
                    "",
                    "",
                    "",
                    f"{fd_s / grpo_s * 128 / 640:.2f}x",
                ),
            ],
            machine,
        )
    return {"grpo_s": grpo_s, "fd_s": fd_s, "ratio": fd_s / grpo_s, "tokens": tokens}


if __name__ == "__main__":
    run()
