"""bench/bench_fd_vs_grpo.py times the trainer's default loss path: the output head only
ever sees chunks of at most model.loss_chunk_tokens hidden-state rows, never the [B, L, H]
activations of a full-logits forward (which the bench used to time)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[2]


def _bench():
    spec = importlib.util.spec_from_file_location(
        "bench_fd_vs_grpo", ROOT / "bench" / "bench_fd_vs_grpo.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_bench_times_the_chunked_loss_path(monkeypatch: pytest.MonkeyPatch):
    bench = _bench()
    vocab = bench.TINY["vocab_size"]
    head_inputs: list[tuple[int, ...]] = []
    linear = torch.nn.functional.linear

    def recording_linear(x, weight, bias=None):
        if weight.shape[0] == vocab:  # the output head (tied to the embeddings)
            head_inputs.append(tuple(x.shape))
        return linear(x, weight, bias)

    monkeypatch.setattr(torch.nn.functional, "linear", recording_linear)
    figures = bench.run(["--steps", "1", "--batch", "2", "--response", "96", "--chunk", "16"])
    assert figures["fd_s"] > 0 and figures["grpo_s"] > 0
    assert head_inputs, "the head was never applied"
    assert all(len(shape) == 2 and shape[0] <= 16 for shape in head_inputs), head_inputs[:5]
