"""GPU evidence for the scale paths of training (docs/TRAINING.md, "GPU smoke check").

One command on a CUDA host with torch + transformers (no vLLM, no downloads):

    PYTHONPATH=$PWD python bench/gpu_smoke.py --out var/gpu_smoke.json

A randomly initialised Qwen2-style model of a real shape (0.5B: 24 layers, hidden 896,
152k vocabulary) with fp32 master weights and bf16 autocast, on one batch of random
"trajectories":
  - precision: share of touched weights one AdamW step at lr 1e-6 changes, fp32 master
    weights vs the old bf16-weights path (baseline in the same run);
  - one FD step (chunked top-25 KL against an fp32 EMA teacher) and one GRPO step
    (chunked log-probs at per-trajectory temperatures, truncated IS weights) on the same
    batch: losses, step times, peak GPU memory;
  - the chunked FD loss against the full-logits reference on a shorter batch: value
    difference and the peak-memory ratio;
  - tokens/s of batched sampling with model.generate.
Sized to finish in well under 5 minutes on one H200. `--tiny` runs the same code on a
tiny config on CPU (what CI can check); its figures mean nothing about speed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from training.batches import SequenceBatch, response_rows  # noqa: E402
from training.config import ModelConfig  # noqa: E402
from training.ema import ema_update_, make_teacher  # noqa: E402
from training.losses import (  # noqa: E402
    chunked_feedback_distillation_loss,
    chunked_token_logprobs,
    feedback_distillation_loss,
    grpo_loss,
    teacher_top_k,
    truncated_importance_weights,
)
from training.precision import autocast  # noqa: E402

REAL = dict(
    hidden_size=896, intermediate_size=4864, num_hidden_layers=24, num_attention_heads=14,
    num_key_value_heads=2, vocab_size=151936, max_position_embeddings=32768,
    tie_word_embeddings=True,
)  # fmt: skip
TINY = dict(
    hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
    num_key_value_heads=2, vocab_size=1024, max_position_embeddings=4096,
    tie_word_embeddings=True,
)  # fmt: skip


def build(shape: dict[str, Any], device: torch.device, dtype: torch.dtype) -> Any:
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(0)
    config = Qwen2Config(**shape)
    config._attn_implementation = "sdpa"
    model: Any = Qwen2ForCausalLM(config)
    return model.to(device=device, dtype=dtype).train()


def batch_of(
    batch: int, prompt: int, response: int, vocab: int, device: torch.device, seed: int
) -> tuple[SequenceBatch, torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, vocab, (batch, prompt + response), generator=g)
    mask = torch.ones(batch, response)
    mask[:, response // 3 : response // 3 + 16] = 0  # a tool output inside the response
    seq = SequenceBatch(
        ids.to(device), torch.ones_like(ids).to(device), [prompt] * batch, [response] * batch
    )
    return seq, ids[:, prompt:].to(device), mask.to(device)


def with_prompt(seq: SequenceBatch, extra: int, vocab: int, seed: int) -> SequenceBatch:
    """The teacher's view: a longer prompt (the feedback), the same response."""
    g = torch.Generator().manual_seed(seed)
    b = seq.input_ids.shape[0]
    feedback = torch.randint(0, vocab, (b, extra), generator=g).to(seq.input_ids.device)
    start = seq.starts[0]
    ids = torch.cat([seq.input_ids[:, :start], feedback, seq.input_ids[:, start:]], dim=1)
    return SequenceBatch(ids, torch.ones_like(ids), [start + extra] * b, seq.lengths)


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def peak_reset(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats()


def peak_gb(device: torch.device) -> float | None:
    return torch.cuda.max_memory_allocated() / 1e9 if device.type == "cuda" else None


def changed_share(model: Any, lr: float, device: torch.device, mc: ModelConfig) -> float:
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    ids = torch.randint(0, model.config.vocab_size, (2, 256), device=device)
    with autocast(mc, device):
        model(input_ids=ids, labels=ids).loss.backward()
    touched = {n: p.grad != 0 for n, p in model.named_parameters() if p.grad is not None}
    optimizer.step()
    changed = total = 0
    for n, p in model.named_parameters():
        if n in touched:
            changed += int(((p.detach() != before[n]) & touched[n]).sum())
            total += int(touched[n].sum())
    optimizer.zero_grad(set_to_none=True)
    return changed / max(total, 1)


def fd_step(
    model, teacher, optimizer, seq, t_seq, mask, mc, chunk, device
) -> dict[str, float | None]:
    sync(device)
    peak_reset(device)
    started = time.perf_counter()
    with torch.no_grad(), autocast(mc, device):
        t_rows = response_rows(teacher, t_seq, mask)
        top = teacher_top_k(t_rows.rows, 25, head=t_rows.head, chunk=chunk)
    del t_rows
    with autocast(mc, device):
        rows = response_rows(model, seq, mask)
        loss, _ = chunked_feedback_distillation_loss(
            rows.rows, top, rows.weights, head=rows.head, chunk=chunk
        )
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    ema_update_(teacher, model, 0.9)
    sync(device)
    return {
        "loss": float(loss),
        "seconds": time.perf_counter() - started,
        "peak_gb": peak_gb(device),
    }


def grpo_step(model, optimizer, seq, targets, mask, mc, chunk, device) -> dict[str, float | None]:
    sync(device)
    peak_reset(device)
    started = time.perf_counter()
    b = targets.shape[0]
    temps = torch.tensor([1.5 if i % 4 == 0 else 1.0 for i in range(b)], device=device)
    with autocast(mc, device):
        rows = response_rows(model, seq, mask)
        row_t = temps.unsqueeze(-1).expand_as(mask)[rows.selected]
        values, _ = chunked_token_logprobs(
            rows.rows, targets[rows.selected], row_t, head=rows.head, chunk=chunk
        )
    logprobs = torch.zeros_like(mask).masked_scatter(rows.selected, values)
    old = logprobs.detach()
    sampler = old + 0.05 * torch.randn_like(old)  # a sampler that differs a little
    weights = truncated_importance_weights(old, sampler, mask, cap=2.0)
    advantages = torch.linspace(-1, 1, b, device=device)
    loss = grpo_loss(logprobs, old, advantages, mask, is_weights=weights)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    sync(device)
    return {"loss": float(loss), "seconds": time.perf_counter() - started, "peak_gb": peak_gb(device),
            "is_weight_mean": float((weights * mask).sum() / mask.sum())}  # fmt: skip


def reference_vs_chunked(model, teacher, seq, t_seq, mask, mc, chunk, device) -> dict[str, Any]:
    """The same FD loss by the full-logits reference and by the chunked path."""
    out: dict[str, Any] = {}
    for name in ("reference", "chunked"):
        model.zero_grad(set_to_none=True)
        sync(device)
        peak_reset(device)
        base = torch.cuda.memory_allocated() if device.type == "cuda" else 0
        with autocast(mc, device):
            if name == "reference":
                from training.batches import response_logits

                with torch.no_grad():
                    t_logits = response_logits(teacher, t_seq, mask.shape[1])
                loss = feedback_distillation_loss(
                    response_logits(model, seq, mask.shape[1]), t_logits, mask
                )
            else:
                with torch.no_grad():
                    t_rows = response_rows(teacher, t_seq, mask)
                    top = teacher_top_k(t_rows.rows, 25, head=t_rows.head, chunk=chunk)
                rows = response_rows(model, seq, mask)
                loss, _ = chunked_feedback_distillation_loss(
                    rows.rows, top, rows.weights, head=rows.head, chunk=chunk
                )
        loss.backward()
        sync(device)
        extra = (torch.cuda.max_memory_allocated() - base) / 1e9 if device.type == "cuda" else None
        out[name] = {"loss": float(loss), "extra_peak_gb": extra}
        del loss
    model.zero_grad(set_to_none=True)
    out["abs_diff"] = abs(out["reference"]["loss"] - out["chunked"]["loss"])
    if device.type == "cuda":
        out["peak_ratio_chunked_over_reference"] = (
            out["chunked"]["extra_peak_gb"] / out["reference"]["extra_peak_gb"]
        )
    return out


def generate_rate(model, batch, prompt, new, mc, device) -> dict[str, float]:
    ids = torch.randint(0, model.config.vocab_size, (batch, prompt), device=device)
    model.eval()
    sync(device)
    started = time.perf_counter()
    with torch.no_grad(), autocast(mc, device):
        out = model.generate(
            input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=new,
            min_new_tokens=new, do_sample=True, temperature=1.0, pad_token_id=0,
        )  # fmt: skip
    sync(device)
    seconds = time.perf_counter() - started
    model.train()
    tokens = (out.shape[1] - prompt) * batch
    return {"tokens": tokens, "seconds": seconds, "tokens_per_s": tokens / seconds}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tiny", action="store_true", help="tiny config on CPU (a code check)")
    parser.add_argument("--out", default="var/gpu_smoke.json")
    args = parser.parse_args()
    if not args.tiny and not torch.cuda.is_available():
        print(
            "gpu_smoke: no CUDA device here; run it on a GPU host, or --tiny for a CPU code check"
        )
        return 2
    device = torch.device("cpu" if args.tiny else "cuda")
    shape = TINY if args.tiny else REAL
    # Shapes: batch x (prompt + response) tokens; real: 8 x (512 + 3584) = 32k tokens.
    b, prompt, resp, chunk = (2, 16, 48, 16) if args.tiny else (8, 512, 3584, 1024)
    mc = ModelConfig(dtype="bfloat16")  # compute dtype; master weights stay fp32
    started = time.perf_counter()
    result: dict[str, Any] = {"device": torch.cuda.get_device_name() if device.type == "cuda" else "cpu",
                              "shape": shape, "batch": [b, prompt, resp], "chunk": chunk}  # fmt: skip

    old = build(shape, device, torch.bfloat16)
    result["precision"] = {"bf16_weights_changed": changed_share(old, 1e-6, device, mc)}
    del old
    model = build(shape, device, torch.float32)
    result["params"] = sum(p.numel() for p in model.parameters())
    result["precision"]["fp32_master_changed"] = changed_share(model, 1e-6, device, mc)

    teacher = make_teacher(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-6)
    vocab = shape["vocab_size"]
    seq, targets, mask = batch_of(b, prompt, resp, vocab, device, 1)
    t_seq = with_prompt(seq, 64 if not args.tiny else 8, vocab, 2)
    result["fd_step"] = fd_step(model, teacher, optimizer, seq, t_seq, mask, mc, chunk, device)
    result["grpo_step"] = grpo_step(model, optimizer, seq, targets, mask, mc, chunk, device)
    result["tokens_per_step"] = int(mask.sum())
    short = (
        batch_of(2, prompt, resp // 2, vocab, device, 3) if not args.tiny else (seq, targets, mask)
    )
    short_t = with_prompt(short[0], 64 if not args.tiny else 8, vocab, 4)
    result["fd_reference_vs_chunked"] = reference_vs_chunked(
        model, teacher, short[0], short_t, short[2], mc, chunk, device
    )
    result["generate"] = generate_rate(model, 4 if args.tiny else 64, 32 if args.tiny else 256,
                                       8 if args.tiny else 256, mc, device)  # fmt: skip
    result["total_seconds"] = time.perf_counter() - started
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
