"""vLLM colocated with the trainer, weights loaded in place after each optimizer step.

How the field does it (TRL's colocate mode, verl): each training process owns a vLLM
engine on its own GPU, started once; after every optimizer step the trainer streams its
weights into the running engine with the model's `load_weights`, one tensor at a time (no
file, no restart); the engine sleeps (frees its KV cache and offloads weights) while the
trainer computes, and wakes up for rollouts. Under torchrun the engine must run inside the
launched process: `distributed_executor_backend="external_launcher"` (vLLM's own executor
would spawn workers that wait on a process group that never forms: the known hang).

This module is the training side's boundary to that engine:
- `engine_options(...)`: the LLM(...) keyword arguments (memory share, sleep mode,
  external_launcher under torchrun, per-rank seed, processed log-probs for the IS
  correction);
- `stream_weights(model, dtype)`: (name, tensor) pairs of the trainer's weights, full
  tensors even under FSDP (each gathered with DTensor.full_tensor(), a collective all ranks
  call in the same order), cast to the engine's dtype;
- `InPlaceSync`: the sleep / wake / load_weights protocol around rollouts;
- `VLLMEngine`: the adapter from a real vllm.LLM to that protocol.
Tested on CPU with a fake engine that obeys the protocol (tests/training/fake_vllm.py);
the real engine needs a CUDA host with `pip install -e '.[gpu]'` (bench/gpu_smoke.py
checks the trainer side of the scale paths; vLLM itself is not on the GPU test machine).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from typing import Any, Protocol

import torch
from torch import nn

log = logging.getLogger(__name__)


class RolloutEngine(Protocol):
    def load_weights(self, weights: Iterable[tuple[str, torch.Tensor]]) -> None: ...
    def sleep(self) -> None: ...
    def wake_up(self) -> None: ...


def engine_options(model_config: Any, *, world_size: int, rank: int, seed: int) -> dict[str, Any]:
    """Keyword arguments of vllm.LLM for an engine colocated with one training rank."""
    options: dict[str, Any] = {
        "model": model_config.path,
        "tokenizer": model_config.path,
        "dtype": model_config.dtype,
        "gpu_memory_utilization": model_config.vllm_gpu_memory_utilization,
        "max_model_len": model_config.max_total_tokens,
        "tensor_parallel_size": 1,
        "enable_sleep_mode": True,
        "enable_prefix_caching": True,
        "logprobs_mode": "processed_logprobs",  # after temperature / top-p: what IS needs
        "seed": seed + rank,  # each rank samples different rollouts
    }
    if world_size > 1:
        options["distributed_executor_backend"] = "external_launcher"
    return options


def stream_weights(model: nn.Module, dtype: torch.dtype) -> Iterator[tuple[str, torch.Tensor]]:
    """The trainer's weights by Hugging Face name, one full tensor at a time."""
    from torch.distributed.tensor import DTensor

    for name, tensor in model.state_dict().items():
        if isinstance(tensor, DTensor):
            tensor = tensor.full_tensor()
        yield name, tensor.detach().to(dtype)


class InPlaceSync:
    """Keeps a colocated engine's weights equal to the trainer's, without restarts.

    before_rollout(): wake the engine and, if the trainer stepped since the last load,
    stream the weights in; after_rollout(): put it to sleep so training has the memory.
    mark_stale() is called after every optimizer step (training.session.optimizer_step)."""

    def __init__(
        self, engine: RolloutEngine, model: nn.Module, dtype: torch.dtype, every: int = 1
    ) -> None:
        self.engine = engine
        self.model = model
        self.dtype = dtype
        self.every = every  # model.vllm_sync_every: load after this many optimizer steps
        self.steps_behind = 0
        self.stale = True  # the engine started from the checkpoint on disk; load once anyway
        self.asleep = False
        self.loads = 0

    def mark_stale(self) -> None:
        """One optimizer step was taken."""
        self.steps_behind += 1
        if self.steps_behind >= self.every:
            self.stale = True

    def before_rollout(self) -> None:
        if self.asleep:
            self.engine.wake_up()
            self.asleep = False
        if self.stale:
            self.engine.load_weights(stream_weights(self.model, self.dtype))
            self.stale = False
            self.steps_behind = 0
            self.loads += 1

    def after_rollout(self) -> None:
        if not self.asleep:
            self.engine.sleep()
            self.asleep = True


class VLLMEngine:
    """A running vllm.LLM seen through RolloutEngine. The model object lives in the engine's
    worker; with external_launcher (and in single-process mode) that worker is this
    process, so load_weights is a direct call (no RPC, no copy through a file)."""

    def __init__(self, llm: Any) -> None:
        self.llm = llm

    def _model(self) -> Any:
        engine = self.llm.llm_engine
        executor = getattr(engine, "model_executor", None)
        worker = getattr(executor, "driver_worker", None)
        for path in (("worker", "model_runner", "model"), ("model_runner", "model")):
            target = worker
            for attr in path:
                target = getattr(target, attr, None)
            if target is not None and hasattr(target, "load_weights"):
                return target
        raise RuntimeError(
            "cannot reach the vLLM model in this process: in-place weight loading needs "
            "vLLM's in-process executor (external_launcher under torchrun, or "
            "VLLM_ENABLE_V1_MULTIPROCESSING=0 in one process)"
        )

    def load_weights(self, weights: Iterable[tuple[str, torch.Tensor]]) -> None:
        self._model().load_weights(weights=weights)
        reset = getattr(self.llm, "reset_prefix_cache", None)
        if callable(reset):
            reset()  # cached prefixes were computed with the old weights

    def sleep(self) -> None:
        self.llm.sleep(level=1)

    def wake_up(self) -> None:
        self.llm.wake_up()


def start_colocated_engine(model_config: Any, *, world_size: int, rank: int, seed: int) -> Any:
    """Start vllm.LLM for this rank (GPU hosts with the `gpu` extra only)."""
    from tutor.prover.policy.vllm import import_vllm

    if not torch.cuda.is_available():
        raise RuntimeError(
            "model.rollout_backend is vllm but no CUDA device is visible: use rollout_backend: hf"
        )
    vllm = import_vllm()  # raises VLLMUnavailable with the install command
    options = engine_options(model_config, world_size=world_size, rank=rank, seed=seed)
    log.info("starting a colocated vLLM engine on rank %d (%s)", rank, options)
    return vllm.LLM(**options)
