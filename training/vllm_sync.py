"""vLLM colocated with the trainer, weights loaded in place after each optimizer step.

How the field does it (TRL's colocate mode at v1.9.0, trl/generation/vllm_generation.py
~315-370; verl): each training process owns a vLLM engine on its own GPU, started once with
`distributed_executor_backend="external_launcher"`, on any number of GPUs; after optimizer
steps the trainer streams its weights into the running engine with the model's
`load_weights`, one tensor at a time (no file, no restart); the engine sleeps (frees its KV
cache and offloads its weights) while the trainer computes, and wakes for rollouts.

Why external_launcher on one GPU too: it is vLLM's executor that runs the engine inside the
launching process. Any other choice runs the V1 engine core in a subprocess
(VLLM_ENABLE_V1_MULTIPROCESSING defaults to 1), where this process cannot reach the model
to load weights in place; external_launcher turns that off itself
(vllm/config/parallel.py:962-964 at v0.30.0) and takes its rank from RANK / LOCAL_RANK with
an env:// rendezvous (vllm/v1/executor/uniproc_executor.py:186-197), which torchrun sets
and ensure_launcher_env sets for a single process. (The engine config is built, and the
variable set, before LLMEngine decides on a subprocess: vllm/v1/engine/llm_engine.py:176-190.)

Every vLLM call here is checked against vLLM 0.30.0 (the pinned `gpu` extra; the wheel's
sources, commit ced6857af), file and line in each comment. This module is the training
side's boundary to that engine:
- `engine_options(...)`: the vllm.LLM(...) keyword arguments;
- `stream_weights(model, dtype)`: (name, tensor) pairs of the trainer's weights, full
  tensors even under FSDP (each gathered with DTensor.full_tensor(), a collective all ranks
  call in the same order), cast to the engine's dtype;
- `InPlaceSync`: the sleep / wake / load_weights protocol around rollouts;
- `VLLMEngine`: the adapter from a real vllm.LLM to that protocol (public API only).
Tested on CPU against a fake LLM that enforces what vLLM 0.30.0 enforces
(tests/training/fake_vllm.py, each rule cited); not run against a real vLLM here (no GPU).
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Iterable, Iterator
from typing import Any, Protocol

import torch
from torch import nn

log = logging.getLogger(__name__)


class RolloutEngine(Protocol):
    def load_weights(self, weights: Iterable[tuple[str, torch.Tensor]]) -> None: ...
    def sleep(self) -> None: ...
    def wake_up(self, tags: list[str] | None = None) -> None: ...


def engine_options(model_config: Any, *, world_size: int, rank: int, seed: int) -> dict[str, Any]:
    """Keyword arguments of vllm.LLM for an engine colocated with one training rank.

    All are vllm.LLM / EngineArgs fields at 0.30.0 (vllm/entrypoints/llm.py:179-225 takes
    model, tokenizer, tensor_parallel_size, dtype, seed, gpu_memory_utilization; the rest go
    through **kwargs to EngineArgs: vllm/engine/arg_utils.py:461 max_model_len, 472
    distributed_executor_backend, 538 enable_prefix_caching, 563 logprobs_mode, 724
    enable_sleep_mode)."""
    del world_size  # the same options on 1 GPU and on 8 (TRL: always external_launcher)
    return {
        "model": model_config.path,
        "tokenizer": model_config.path,
        "dtype": model_config.dtype,
        "gpu_memory_utilization": model_config.vllm_gpu_memory_utilization,
        "max_model_len": model_config.max_total_tokens,
        "tensor_parallel_size": 1,
        "enable_sleep_mode": True,
        "enable_prefix_caching": True,
        # After temperature / top-p (vllm/config/model.py:259-267): what GRPO's truncated
        # importance weights divide by.
        "logprobs_mode": "processed_logprobs",
        "seed": seed + rank,  # each rank samples different rollouts
        # The engine runs in this process, on this rank, any world size (module docstring).
        "distributed_executor_backend": "external_launcher",
    }


def ensure_launcher_env(rank: int = 0, local_rank: int = 0, world_size: int = 1) -> None:
    """The variables external_launcher's env:// rendezvous reads (RANK, LOCAL_RANK,
    MASTER_ADDR, MASTER_PORT: vllm/v1/executor/uniproc_executor.py:186-197), set only where
    the launcher did not set them (one process without torchrun), as TRL's colocate mode
    does. With a process group already up vLLM reuses it
    (vllm/distributed/parallel_state.py:1826)."""
    os.environ.setdefault("RANK", str(rank))
    os.environ.setdefault("LOCAL_RANK", str(local_rank))
    os.environ.setdefault("WORLD_SIZE", str(world_size))
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    if "MASTER_PORT" not in os.environ:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            os.environ["MASTER_PORT"] = str(sock.getsockname()[1])


def stream_weights(model: nn.Module, dtype: torch.dtype) -> Iterator[tuple[str, torch.Tensor]]:
    """The trainer's weights by Hugging Face name, one full tensor at a time."""
    from torch.distributed.tensor import DTensor

    for name, tensor in model.state_dict().items():
        if isinstance(tensor, DTensor):
            tensor = tensor.full_tensor()
        yield name, tensor.detach().to(dtype)


class InPlaceSync:
    """Keeps a colocated engine's weights equal to the trainer's, without restarts.

    before_rollout(): wake the engine's weights, stream the live weights in if the trainer
    stepped model.vllm_sync_every times since the last load, then wake its KV cache (TRL's
    order: weights resident before load_weights writes them, the KV cache allocated only
    after); after_rollout(): put it to sleep so training has the memory. mark_stale() is
    called after every optimizer step (training.session.optimizer_step); resync() forces a
    load (weights replaced outside a step, e.g. a checkpoint loaded for evaluation)."""

    def __init__(
        self, engine: RolloutEngine, model: nn.Module, dtype: torch.dtype, every: int = 1
    ) -> None:
        self.engine = engine
        self.model = model
        self.dtype = dtype
        self.every = every  # model.vllm_sync_every: load after this many optimizer steps
        self.steps_behind = 0
        self.stale = True  # the engine started from the checkpoint on disk; load once anyway
        self.loads = 0
        # Asleep until the first rollout: the trainer has the GPU while it loads and resumes.
        self.engine.sleep()
        self.asleep = True

    def mark_stale(self) -> None:
        """One optimizer step was taken."""
        self.steps_behind += 1
        if self.steps_behind >= self.every:
            self.stale = True

    def resync(self) -> None:
        self.stale = True

    def before_rollout(self) -> None:
        if self.asleep:
            self.engine.wake_up(["weights"])
        if self.stale:
            self.engine.load_weights(stream_weights(self.model, self.dtype))
            self.stale = False
            self.steps_behind = 0
            self.loads += 1
        if self.asleep:
            self.engine.wake_up(["kv_cache"])
            self.asleep = False

    def after_rollout(self) -> None:
        if not self.asleep:
            self.engine.sleep()
            self.asleep = True


class VLLMEngine:
    """A running vllm.LLM seen through RolloutEngine, by its public API only. With
    external_launcher the engine core and its worker live in this process, so
    `LLM.apply_model` (vllm/entrypoints/llm.py:599-610 -> collective_rpc("apply_model"),
    run in-process by the uni-process executor: vllm/v1/executor/uniproc_executor.py:90-103,
    vllm/v1/worker/worker_base.py:152-154 `fn(self.get_model())`) hands the model to a
    function here: its `load_weights(weights)` (e.g. vllm/model_executor/models/qwen3.py:337)
    reads the tensors one at a time, nothing is copied through a file or pickled."""

    def __init__(self, llm: Any) -> None:
        self.llm = llm

    def load_weights(self, weights: Iterable[tuple[str, torch.Tensor]]) -> None:
        self.llm.apply_model(lambda model: model.load_weights(weights))
        # Cached prefixes were computed with the old weights (vllm/entrypoints/llm.py:796).
        self.llm.reset_prefix_cache()

    def sleep(self) -> None:
        # Level 1: weights offloaded to host memory, KV cache discarded
        # (vllm/entrypoints/llm.py:803-826; vllm/device_allocator/sleep_mode_backend.py:120-125).
        # Level 2 would discard the weights, which a load after every N > 1 steps needs.
        self.llm.sleep(level=1)

    def wake_up(self, tags: list[str] | None = None) -> None:
        # Tags in ("weights", "kv_cache", "scheduling"); the scheduler resumes once every
        # tag is awake (vllm/entrypoints/llm.py:828-841; vllm/v1/engine/core.py:917-933).
        self.llm.wake_up(tags)


def start_colocated_engine(model_config: Any, *, world_size: int, rank: int, seed: int) -> Any:
    """Start vllm.LLM for this rank (GPU hosts with the `gpu` extra only)."""
    from training import distributed
    from tutor.prover.policy.vllm import import_vllm

    if not torch.cuda.is_available():
        raise RuntimeError(
            "model.rollout_backend is vllm but no CUDA device is visible: use rollout_backend: hf"
        )
    vllm = import_vllm()  # raises VLLMUnavailable with the install command
    ensure_launcher_env(rank, distributed.local_rank(), world_size)
    options = engine_options(model_config, world_size=world_size, rank=rank, seed=seed)
    log.info("starting a colocated vLLM engine on rank %d (%s)", rank, options)
    return vllm.LLM(**options)
