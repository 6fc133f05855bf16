"""Synthetic inputs for the training benchmarks (bench/gpu_smoke.py, bench/bench_fd_vs_grpo.py):
a word-level tokenizer with a chat template built here, a randomly initialised Qwen3 of a
given shape, and trajectories of a given length. Nothing is downloaded."""

from __future__ import annotations

from typing import Any

import torch

from training.batches import render_prompt_ids
from tutor.prover.trajectory import Trajectory

CHAT_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def make_tokenizer() -> Any:
    """A word-level tokenizer with a chat template, built here (nothing is downloaded)."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    words = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<unk>", "user", "assistant",
             "system", "prove", "theorem", "use", "simp", ".", ":", "\n"]  # fmt: skip
    core = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core, eos_token="<|im_end|>", pad_token="<|endoftext|>",
        unk_token="<unk>",
    )  # fmt: skip
    tokenizer.chat_template = CHAT_TEMPLATE
    return tokenizer


def build_model(widths: dict[str, Any], layers: int, device: torch.device, seed: int) -> Any:
    from transformers import AutoModelForCausalLM, Qwen3Config

    torch.manual_seed(seed)
    config = Qwen3Config(**widths, num_hidden_layers=layers)
    with device:
        model: Any = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    return model.train()


def trajectories(
    tokenizer: Any, count: int, tokens: int, vocab: int, seed: int
) -> list[Trajectory]:
    """count trajectories of `tokens` tokens: a chat prompt, then random response tokens
    with a tool output (mask 0) in the middle and sampler log-probs on the sampled ones."""
    g = torch.Generator().manual_seed(seed)
    out = []
    for i in range(count):
        messages = [{"role": "user", "content": f"prove theorem {i} : use simp ."}]
        prompt = render_prompt_ids(tokenizer, messages, [])
        n = tokens - len(prompt)
        response = torch.randint(0, vocab, (n,), generator=g).tolist()
        mask = [1] * n
        for j in range(n // 3, n // 3 + min(64, n // 8)):
            mask[j] = 0
        logprobs = [-1.0 - 0.1 * (j % 7) if m else 0.0 for j, m in enumerate(mask)]
        out.append(
            Trajectory(
                problem_id=f"p{i}", statement="", mode="agent", prompt_messages=messages,
                tools=[], token_ids=prompt + response, mask=[0] * len(prompt) + mask,
                logprobs=[0.0] * len(prompt) + logprobs, prompt_length=len(prompt),
                reward=float(i % 2), sampling={"temperature": 1.0},
            )
        )  # fmt: skip
    return out
