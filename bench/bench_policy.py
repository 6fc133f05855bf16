"""Policy throughput: generated tokens per second, batched against one prompt at a time.

    .venv/bin/python bench/bench_policy.py                 # tiny model, CPU (seconds)
    .venv/bin/python bench/bench_policy.py --smollm2       # + SmolLM2-135M GGUF (minutes)
    .venv/bin/python bench/bench_policy.py --model DIR --device cuda --vllm --out bench.json
                                                            # GPU: HF vs vLLM on one checkpoint

Figures are ratios against a baseline measured in the same run: batched / unbatched for
HFPolicy, and vLLM / HF (both batched, same prompts, same sampling) with --vllm. Every
prompt is the agent's real first prompt for a different problem, so lengths differ and
left padding is exercised. Sampling: temperature 1.0; tokens counted as actually generated.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import md_table  # noqa: E402
from tutor.prover.agent import AgentConfig, initial_messages  # noqa: E402
from tutor.prover.policy.base import ChatPolicyBase, SamplingConfig  # noqa: E402
from tutor.prover.problem import Problem  # noqa: E402
from tutor.prover.tools import TOOL_SCHEMAS  # noqa: E402

STATEMENTS = [
    "theorem a (n : Nat) : n + 0 = n := by",
    "theorem b : 2 + 2 = 4 := by",
    "theorem c (a b : Nat) (h : a < b) : a ≤ b := by",
    "theorem d (p q : Prop) (hp : p) (hq : q) : p ∧ q := by",
    "theorem e (x : Nat) (hx : x = 2 ^ 9 + 1) : x = 513 := by",
    "theorem f (a b c : Nat) : a + b + c = c + b + a := by",
    "theorem g (n : Nat) (h : 0 < n) : 1 ≤ n := by",
    "theorem h (xs : List Nat) : xs.reverse.reverse = xs := by",
]


def prompts(policy: ChatPolicyBase, count: int) -> list[list[int]]:
    config = AgentConfig()
    out = []
    for i in range(count):
        problem = Problem(f"p{i}", STATEMENTS[i % len(STATEMENTS)])
        out.append(
            policy.encode(policy.render_chat(initial_messages(problem, config), tools=TOOL_SCHEMAS))
        )
    return out


def tokens_per_s(
    policy: ChatPolicyBase, batch: list[list[int]], max_tokens: int, batched: bool
) -> float:
    sampling = SamplingConfig(temperature=1.0, max_tokens=max_tokens, seed=0)
    policy.generate_ids(batch[:1], SamplingConfig(max_tokens=2))  # warm-up
    started = time.perf_counter()
    if batched:
        outputs = policy.generate_ids(batch, sampling)
    else:
        outputs = [policy.generate_ids([ids], sampling)[0] for ids in batch]
    elapsed = time.perf_counter() - started
    generated = sum(len(c.token_ids) for group in outputs for c in group)
    return generated / elapsed


def bench_hf(label: str, spec: str, device: str, count: int, max_tokens: int) -> dict[str, Any]:
    from tutor.prover.policy.hf import HFPolicy, HFPolicyConfig

    policy = HFPolicy.load(spec, HFPolicyConfig(device=device))
    batch = prompts(policy, count)
    one = tokens_per_s(policy, batch, max_tokens, batched=False)
    many = tokens_per_s(policy, batch, max_tokens, batched=True)
    row = {
        "model": label,
        "backend": "hf",
        "device": device,
        "prompts": count,
        "max_tokens": max_tokens,
        "unbatched_tok_s": round(one, 1),
        "batched_tok_s": round(many, 1),
        "batched_over_unbatched": round(many / one, 2),
    }
    print(json.dumps(row), flush=True)
    return row


def bench_vllm(spec: str, count: int, max_tokens: int, hf_row: dict[str, Any]) -> dict[str, Any]:
    from tutor.prover.policy.vllm import VLLMPolicy

    policy = VLLMPolicy.load(spec)
    batch = prompts(policy, count)
    rate = tokens_per_s(policy, batch, max_tokens, batched=True)
    row = {
        "model": spec,
        "backend": "vllm",
        "prompts": count,
        "max_tokens": max_tokens,
        "batched_tok_s": round(rate, 1),
        "vllm_over_hf_batched": round(rate / hf_row["batched_tok_s"], 2),
    }
    print(json.dumps(row), flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", help="a model directory (default: a freshly built tiny model)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--prompts", type=int, default=8)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--smollm2", action="store_true", help="also bench the GGUF CPU default")
    parser.add_argument("--vllm", action="store_true", help="also bench vLLM on --model (GPU)")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    parser.add_argument("--out", help="write the rows as JSON here")
    parser.add_argument(
        "--markdown", action="store_true", help="also print bench/README.md's table"
    )
    args = parser.parse_args()
    machine = md_table.machine()

    import torch

    torch.set_num_threads(args.threads)
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        spec, label = args.model, args.model
        if spec is None:
            from tests.support.tiny_model import build_tiny_model

            spec, label = str(build_tiny_model(Path(scratch) / "tiny")), "tiny-qwen3-1.3M"
        rows.append(bench_hf(label, spec, args.device, args.prompts, args.max_tokens))
        if args.smollm2:
            rows.append(
                bench_hf("smollm2-135m-gguf", "smollm2", args.device, args.prompts, args.max_tokens)
            )
        if args.vllm:
            if args.model is None:
                parser.error("--vllm needs --model DIR (a Hugging Face model directory)")
            rows.append(bench_vllm(args.model, args.prompts, args.max_tokens, rows[0]))
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=2))
    if args.markdown:
        md_table.print_table(
            [
                "model",
                "backend",
                "device",
                "prompts x new tokens",
                "unbatched tok/s",
                "batched tok/s",
                "ratio (same run)",
            ],
            [markdown_row(row, args.threads) for row in rows],
            machine,
        )


def markdown_row(row: dict[str, Any], threads: int) -> tuple[str, ...]:
    device = row.get("device", "cuda")
    if device == "cpu":
        device = f"cpu, {threads} torch thread{'s' if threads > 1 else ''}"
    if row["backend"] == "vllm":
        ratio = f"{row['vllm_over_hf_batched']:.2f}x vLLM / HF batched"
        unbatched = ""
    else:
        ratio = f"{row['batched_over_unbatched']:.2f}x batched / unbatched"
        unbatched = f"{row['unbatched_tok_s']:.1f}"
    return (str(row["model"]), row["backend"], device, f"{row['prompts']} x {row['max_tokens']}",
            unbatched, f"{row['batched_tok_s']:.1f}", ratio)  # fmt: skip


if __name__ == "__main__":
    main()
