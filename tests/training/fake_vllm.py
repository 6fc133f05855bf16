"""A fake vllm.LLM for CPU tests of the colocated engine (training.vllm_sync.VLLMEngine drives
it exactly as it drives the real one). Test double: never imported by product code.

It enforces what vLLM 0.30.0 enforces (sources of the released wheel, commit ced6857af):
- constructor: only keyword arguments vllm.LLM / EngineArgs have
  (vllm/entrypoints/llm.py:179-225; vllm/engine/arg_utils.py:435-724, 556 and 559 for the
  batch limits);
  distributed_executor_backend in ("ray", "mp", "uni", "external_launcher")
  (vllm/config/parallel.py:37); logprobs_mode one of raw/processed logits/logprobs
  (vllm/config/model.py:101-103); external_launcher reads RANK and LOCAL_RANK from the
  environment and rendezvous through env:// (MASTER_ADDR, MASTER_PORT)
  (vllm/v1/executor/uniproc_executor.py:186-197): missing ones are a KeyError / a failed
  rendezvous there, an error here;
- in place only with external_launcher: any other backend runs the engine core in a
  subprocess (VLLM_ENABLE_V1_MULTIPROCESSING defaults to 1, vllm/envs.py:1382-1384;
  external_launcher turns it off, vllm/config/parallel.py:962-964), where apply_model's
  function is pickled to another process and `model` is not this process's object
  (vllm/v1/engine/core_client.py:1031-1038 call_utility): this fake refuses apply_model
  then, as loading in place cannot work there;
- sleep: level 1 offloads the weights and discards the KV cache
  (vllm/device_allocator/sleep_mode_backend.py:120-125); a second sleep only warns
  (vllm/v1/executor/abstract.py:337-340) and level 0 only pauses scheduling
  (vllm/v1/engine/core.py:892-896); requests are not scheduled while any tag sleeps
  (vllm/v1/engine/core.py:892-894, 930-933), so generating asleep would wait forever: an
  error here;
- wake_up(tags): tags among "weights", "kv_cache", "scheduling"
  (vllm/entrypoints/llm.py:833-837); "scheduling" is taken out first
  (vllm/v1/engine/core.py:923-925), then a tag that is not asleep (an unknown one
  included) makes the executor warn and wake nothing (vllm/v1/executor/abstract.py:350-360);
- load_weights while the weights are offloaded writes to memory that is not mapped (TRL
  wakes "weights" first for this reason: trl v1.9.0 trl/generation/vllm_generation.py
  ~449-454): an error here.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Any

import torch

LLM_OPTIONS = {  # vllm.LLM's parameters and the EngineArgs fields training passes through
    "model", "tokenizer", "dtype", "gpu_memory_utilization", "max_model_len",
    "tensor_parallel_size", "enable_sleep_mode", "enable_prefix_caching", "logprobs_mode",
    "seed", "distributed_executor_backend", "max_num_seqs", "max_num_batched_tokens",
}  # fmt: skip
BACKENDS = ("ray", "mp", "uni", "external_launcher")
LOGPROBS_MODES = ("raw_logits", "raw_logprobs", "processed_logits", "processed_logprobs")


class FakeModel:
    """The engine's model object: keeps the tensors load_weights was given."""

    def __init__(self, owner: FakeLLM) -> None:
        self.owner = owner
        self.weights: dict[str, torch.Tensor] = {}

    def load_weights(self, weights: Iterable[tuple[str, torch.Tensor]]) -> set[str]:
        if "weights" in self.owner.sleeping:
            raise RuntimeError("load_weights while the weights are offloaded (asleep)")
        loaded = set()
        for name, tensor in weights:
            self.weights[name] = tensor.clone()
            loaded.add(name)
        self.owner.events.append(f"load:{len(loaded)}")
        return loaded


class FakeLLM:
    def __init__(self, model: str, **options: Any) -> None:
        unknown = set(options) - LLM_OPTIONS
        if unknown:
            raise TypeError(f"vllm.LLM got unexpected keyword arguments {sorted(unknown)}")
        backend = options.get("distributed_executor_backend")
        if backend is not None and backend not in BACKENDS:
            raise ValueError(f"distributed_executor_backend {backend!r} not in {BACKENDS}")
        if options.get("logprobs_mode", "raw_logprobs") not in LOGPROBS_MODES:
            raise ValueError(f"logprobs_mode {options['logprobs_mode']!r}")
        if backend == "external_launcher":
            missing = [v for v in ("RANK", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT")
                       if v not in os.environ]  # fmt: skip
            if missing:
                raise KeyError(f"external_launcher needs {missing} in the environment")
        self.model_path = model
        self.options = options
        self.in_process = backend == "external_launcher"
        self.model = FakeModel(self)
        self.sleeping: set[str] = set()
        self.events: list[str] = []

    def apply_model(self, func: Callable[[Any], Any]) -> list[Any]:
        if not self.in_process:
            raise RuntimeError(
                "the engine core runs in a subprocess (not external_launcher): the model is "
                "not in this process"
            )
        return [func(self.model)]

    def reset_prefix_cache(
        self, reset_running_requests: bool = False, reset_connector: bool = False
    ) -> bool:
        self.events.append("reset_prefix_cache")
        return True

    def sleep(self, level: int = 1, mode: str = "abort") -> None:
        if self.sleeping:
            return  # "Executor is already sleeping." (a warning)
        self.sleeping = {"weights", "kv_cache"} if level >= 1 else {"scheduling"}
        self.events.append(f"sleep:{level}")

    def wake_up(self, tags: list[str] | None = None) -> None:
        if not self.sleeping:
            return  # "Executor is not sleeping." (a warning)
        if tags is None:
            wanted = set(self.sleeping)
        else:
            wanted = {t for t in tags if t != "scheduling"}
            if any(t not in self.sleeping for t in wanted):
                return  # "Tag ... is not in sleeping tags" (a warning): nothing wakes
            if "scheduling" in tags and self.sleeping == {"scheduling"}:
                wanted = {"scheduling"}
        self.sleeping -= wanted
        self.events.append("wake:" + ",".join(sorted(wanted)))

    def check_can_generate(self) -> None:
        """What a request would meet: a paused scheduler while anything sleeps."""
        if self.sleeping:
            raise RuntimeError(f"generate while asleep ({sorted(self.sleeping)}): would hang")
