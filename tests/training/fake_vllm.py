"""A fake colocated vLLM engine obeying training.vllm_sync.RolloutEngine, for CPU tests.

It keeps the weights it was given (like the engine's model after load_weights), and
enforces vLLM's rule that a sleeping engine neither loads weights nor generates."""

from __future__ import annotations

from collections.abc import Iterable

import torch


class FakeEngine:
    def __init__(self) -> None:
        self.weights: dict[str, torch.Tensor] = {}
        self.asleep = False
        self.events: list[str] = []

    def load_weights(self, weights: Iterable[tuple[str, torch.Tensor]]) -> None:
        if self.asleep:
            raise RuntimeError("load_weights on a sleeping engine")
        count = 0
        for name, tensor in weights:
            self.weights[name] = tensor.clone()
            count += 1
        self.events.append(f"load:{count}")

    def sleep(self) -> None:
        self.asleep = True
        self.events.append("sleep")

    def wake_up(self) -> None:
        self.asleep = False
        self.events.append("wake")
