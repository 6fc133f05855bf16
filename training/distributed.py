"""Multi-process training: torchrun / accelerate launch + FSDP (torch's fully_shard).

No home-made distribution layer: the launcher sets RANK / WORLD_SIZE / LOCAL_RANK /
MASTER_ADDR, we join the process group (nccl on GPUs, gloo on CPU) and shard each decoder
layer plus the root with FSDP. Rollouts run on an unsharded replica per rank, in the compute
dtype, refilled from the shards after every optimizer step one tensor at a time (no whole
fp32 model is ever gathered on a GPU; training/memory.py has the arithmetic). Outside a
launcher every helper is a no-op for one process.

    torchrun --nproc_per_node 8 -m training fd --config run.yaml        # run.distributed: fsdp
    accelerate launch --num_processes 8 -m training fd --config run.yaml
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, TypeVar, cast

import torch
import torch.distributed as dist
from torch import nn

T = TypeVar("T")


def is_distributed() -> bool:
    return dist.is_available() and dist.is_initialized()


def rank() -> int:
    return dist.get_rank() if is_distributed() else 0


def world_size() -> int:
    return dist.get_world_size() if is_distributed() else 1


def local_rank() -> int:
    return int(os.environ.get("LOCAL_RANK", "0"))


def is_main() -> bool:
    return rank() == 0


def launched_by_torchrun() -> bool:
    return "RANK" in os.environ and "WORLD_SIZE" in os.environ


def rank_share(items: Sequence[T]) -> list[T]:
    """This rank's share of a pool every rank holds alike (items rank::world), so a
    distributed step does not take the same example on every rank."""
    return list(items[rank() :: world_size()])


def per_rank(global_size: int, key: str, world: int | None = None) -> int:
    """A global batch size (the paper's 128 FD trajectories, 64 GRPO problems) split evenly
    over the ranks; gradients are token-averaged across ranks, so the step is the same as one
    process taking the whole batch. Refuses sizes that do not divide: silently rounding would
    change the batch the config promises."""
    world = world_size() if world is None else world
    if global_size % world != 0:
        raise ValueError(
            f"{key} = {global_size} is the global batch and must divide by the {world} ranks: "
            f"use a multiple of {world} (e.g. {(global_size // world + 1) * world}) or change "
            "--nproc_per_node"
        )
    return global_size // world


def init_process_group(backend: str | None = None) -> None:
    """Join the group the launcher set up (no-op if already joined or not launched)."""
    if is_distributed() or not launched_by_torchrun():
        return
    if backend is None:
        backend = "nccl" if torch.cuda.is_available() else "gloo"
    if backend == "nccl":
        torch.cuda.set_device(local_rank())
    dist.init_process_group(backend=backend)


def barrier() -> None:
    if is_distributed():
        dist.barrier()


def leave_process_group() -> None:
    """Every rank reaches here before any tears down: a rank that destroys its group while a
    peer still sends (rank 0 writing results after a gather) aborts gloo's threads with
    "terminate called without an active exception"."""
    if not is_distributed():
        return
    dist.barrier()
    dist.destroy_process_group()


def all_reduce_sums(values: list[float]) -> list[float]:
    """Elementwise sums over ranks, in one collective (float64: token counts stay exact)."""
    if not is_distributed():
        return [float(v) for v in values]
    tensor = torch.tensor([float(v) for v in values], dtype=torch.float64)
    if dist.get_backend() == "nccl":
        tensor = tensor.cuda()
    dist.all_reduce(tensor)
    return [float(v) for v in tensor.tolist()]


def all_reduce_sum(value: float) -> float:
    return all_reduce_sums([value])[0]


def all_reduce_max(value: float) -> float:
    if not is_distributed():
        return float(value)
    tensor = torch.tensor([float(value)], dtype=torch.float64)
    if dist.get_backend() == "nccl":
        tensor = tensor.cuda()
    dist.all_reduce(tensor, op=dist.ReduceOp.MAX)
    return float(tensor.item())


def gather_objects(value: Any) -> list[Any]:
    """Every rank's value, in rank order, on every rank (pickled; for small results)."""
    if not is_distributed():
        return [value]
    out: list[Any] = [None] * world_size()
    dist.all_gather_object(out, value)
    return out


def all_reduce_mean(value: float) -> float:
    return all_reduce_sum(value) / world_size()


# How a step's metrics combine over ranks (reduce_metrics). The loss-like figures are each
# rank's share of the step's token mean (its micro-batches' loss x tokens / the *global*
# token count; training.session.token_weight), so their sum over ranks is exactly the loss
# that was optimised, not a mean of per-rank means.
SUM_METRICS = (
    "loss",
    "fd_loss",
    "fd_kl",
    "grpo_loss",
    "sft_loss",
    "model_fd_loss",
    "human_fd_loss",
    "entropy",
    "teacher_entropy",
    "clip_fraction",
    "is_weight_mean",
    "is_truncated_fraction",
    "trajectories",
    "tokens",
    "sft_tokens",
    "human_tokens",
    "human_trajectories",
    "human_over_cap",
    "sft_examples",
    "could_not_check",
    "coach_failures",
    "coach_calls",
    "coach_fallbacks",
    "coach_dropped_fallbacks",
    "replayed",
    "zero_advantage_groups",
    "placeholder_micro_batches",
)
SUM_PREFIXES = ("coach_source/",)
# Per-trajectory means, weighted by each rank's number of trajectories.
TRAJECTORY_MEANS = ("reward", "response_length")


def reduce_metrics(metrics: dict[str, Any]) -> dict[str, Any]:
    """Across ranks: sums of the counts and of the token-mean shares, trajectory-weighted
    reward and length, plain means of the other figures. One all_gather of the small
    dicts, so ranks whose metrics differ in keys (a skipped update, a rank without
    replayed data) cannot desynchronise the collectives."""
    if not is_distributed():
        return metrics
    parts = gather_objects(metrics)
    out = dict(parts[0])
    keys = {k for part in parts for k, v in part.items() if _number(v)}
    for key in keys:
        values = [part[key] for part in parts if _number(part.get(key))]
        if key in SUM_METRICS or key.startswith(SUM_PREFIXES):
            out[key] = float(sum(values))
        elif key in TRAJECTORY_MEANS:
            weights = [
                float(part.get("trajectories", 0)) for part in parts if _number(part.get(key))
            ]
            total = sum(weights)
            out[key] = (
                sum(v * w for v, w in zip(values, weights, strict=True)) / total if total else 0.0
            )
        else:
            out[key] = float(sum(values)) / len(values)
    return out


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _decoder_layers(model: nn.Module) -> list[nn.Module]:
    inner = getattr(model, "model", model)
    layers = getattr(inner, "layers", None)
    return list(layers) if layers is not None else []


def wrap_model(model: nn.Module, config: Any = None) -> nn.Module:
    """Shard with FSDP (fully_shard): each decoder layer, then the root (embeddings + head).

    With a bf16 compute dtype over fp32 master weights (training.precision), each unit gets
    MixedPrecisionPolicy(param_dtype=bf16, reduce_dtype=fp32): shards and optimizer state
    stay fp32, layers are gathered in bf16, gradients are reduced in fp32."""
    if not is_distributed():
        raise RuntimeError(
            "run.distributed is fsdp but no process group: launch with torchrun or accelerate (see docs/TRAINING.md)"
        )
    from torch.distributed.fsdp import fully_shard

    from training.precision import mixed_precision_policy

    policy = mixed_precision_policy(getattr(config, "model", None))
    options: dict[str, Any] = {"mp_policy": policy} if policy is not None else {}
    for layer in _decoder_layers(model):
        fully_shard(layer, **options)
    fully_shard(model, **options)
    _register_rows_method(model)
    return model


def _register_rows_method(model: nn.Module) -> None:
    """Give the sharded model the chunked-loss entry point (training.batches.ROWS_METHOD)
    as an FSDP forward method, so the losses use the same hidden-state path as on one
    process instead of the full [B, L, V] logits."""
    import types

    from torch.distributed.fsdp import register_fsdp_forward_method

    from training.batches import ROWS_METHOD, _reduce_rows_method

    setattr(model, ROWS_METHOD, types.MethodType(_reduce_rows_method, model))
    register_fsdp_forward_method(model, ROWS_METHOD)


def reshard(model: nn.Module) -> None:
    """Put FSDP parameters back into their shards. Needed after a no_grad forward: the
    root module keeps its gathered parameters until a backward that never comes."""
    from torch.distributed.fsdp import FSDPModule

    for module in model.modules():
        if isinstance(module, FSDPModule):
            module.reshard()


def is_sharded(model: nn.Module) -> bool:
    from torch.distributed.tensor import DTensor

    return any(isinstance(p, DTensor) for p in model.parameters())


def full_state_dict(
    model: nn.Module | None, *, to_rank0_cpu: bool = False
) -> dict[str, torch.Tensor] | None:
    """The whole state dict (detached); the plain one for unsharded models. Sharded:
    to_rank0_cpu gathers one tensor at a time into rank 0's host memory (the other ranks
    get an empty dict), so no GPU ever holds a whole model (torch's StateDictOptions:
    full_state_dict + cpu_offload); without it every rank gets every tensor on its device
    (small models and tests only)."""
    if model is None:
        return None
    if not is_sharded(model):
        return {k: v.detach() for k, v in model.state_dict().items()}
    from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict

    state = get_model_state_dict(
        model, options=StateDictOptions(full_state_dict=True, cpu_offload=to_rank0_cpu)
    )
    return cast(dict[str, torch.Tensor], state)


def load_full_state_dict(model: nn.Module, state: dict[str, torch.Tensor]) -> None:
    """Load a full state dict into a plain or sharded model. Tied weights that the file
    omits (transformers drops lm_head.weight when it is tied) are the only keys allowed
    to be missing."""
    if is_sharded(model):
        from torch.distributed.checkpoint.state_dict import StateDictOptions, set_model_state_dict

        set_model_state_dict(
            model, cast(Any, state), options=StateDictOptions(full_state_dict=True, strict=False)
        )
        return
    result = model.load_state_dict(state, strict=False)
    tied = _tied_keys(model)
    missing = [k for k in result.missing_keys if k not in tied]
    if missing or result.unexpected_keys:
        raise ValueError(
            f"checkpoint does not match the model: missing {missing[:5]}, unexpected {result.unexpected_keys[:5]}"
        )
    tie_weights = getattr(model, "tie_weights", None)
    if callable(tie_weights):
        tie_weights()


def _tied_keys(model: nn.Module) -> set[str]:
    seen: dict[int, str] = {}
    tied = set()
    for name, param in model.named_parameters(remove_duplicate=False):
        if id(param) in seen:
            tied.add(name)
            tied.add(seen[id(param)])
        seen[id(param)] = name
    return tied


def make_replica(sharded: nn.Module, dtype: torch.dtype, device: torch.device) -> nn.Module:
    """The unsharded model each rank samples rollouts from, in the compute dtype (bf16 on
    GPUs: half the bytes of an fp32 copy; it only generates). Built from the model's
    config (torch's generator is left as it was) and filled from the shards by
    sync_replica, one tensor at a time."""
    from transformers import AutoModelForCausalLM

    forked = [device] if device.type == "cuda" else []
    with torch.random.fork_rng(devices=forked), torch.device(device):
        replica: Any = AutoModelForCausalLM.from_config(sharded.config, dtype=dtype)
    replica.requires_grad_(False)
    replica.eval()
    sync_replica(sharded, replica)
    return cast(nn.Module, replica)


def sync_replica(sharded: nn.Module, replica: nn.Module) -> None:
    """Copy the sharded model's weights into the replica parameter by parameter: each
    DTensor is gathered (full_tensor(), a collective every rank runs in the same order),
    cast into place and dropped before the next, so the transient is one tensor, never a
    whole fp32 model (training.memory). Buffers are replicated and copied as they are."""
    if not is_sharded(sharded):
        with torch.no_grad():
            load_full_state_dict(replica, full_state_dict(sharded) or {})
        return
    from torch.distributed.tensor import DTensor

    targets = dict(replica.named_parameters())
    with torch.no_grad():
        for name, param in sharded.named_parameters():
            full = param.full_tensor() if isinstance(param, DTensor) else param
            targets[name].copy_(full)
            del full
        buffers = dict(replica.named_buffers())
        for name, buffer in sharded.named_buffers():
            if name in buffers:
                local = buffer.to_local() if isinstance(buffer, DTensor) else buffer
                buffers[name].copy_(local)
