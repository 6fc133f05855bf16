"""Optimizer, model and EMA-teacher state for a true resume, sharded or not.

Under FSDP every rank holds a shard of the parameters and of AdamW's moments; the weights a
checkpoint publishes (model.safetensors, gathered to rank 0) are not enough to resume: the
moments would restart from zero. torch.distributed.checkpoint (DCP) writes each rank's
shards in parallel to one directory and reads them back into the same (or another) world
size. All ranks must call these functions together (they are collectives under FSDP);
outside a process group they work in one process.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch
from torch import nn


def _states(
    model: nn.Module, optimizer: torch.optim.Optimizer, teacher: nn.Module | None
) -> dict[str, Any]:
    from torch.distributed.checkpoint.state_dict import get_model_state_dict, get_state_dict

    model_state, optim_state = get_state_dict(model, optimizer)
    state: dict[str, Any] = {"model": model_state, "optimizer": optim_state}
    if teacher is not None:
        state["teacher"] = get_model_state_dict(teacher)
    return state


def save_train_state(
    path: str | Path,
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    teacher: nn.Module | None = None,
) -> None:
    import torch.distributed.checkpoint as dcp

    dcp.save(_states(model, optimizer, teacher), checkpoint_id=str(path))


def load_train_state(
    path: str | Path,
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    teacher: nn.Module | None = None,
) -> None:
    """Load in place (model shards, AdamW moments and step counts, teacher shards)."""
    import torch.distributed.checkpoint as dcp
    from torch.distributed.checkpoint.state_dict import set_model_state_dict, set_state_dict

    if not Path(path).is_dir():
        raise FileNotFoundError(f"no training state at {path}: cannot resume the optimizer")
    state = _states(model, optimizer, teacher)
    dcp.load(state, checkpoint_id=str(path))
    set_state_dict(
        model, optimizer, model_state_dict=state["model"], optim_state_dict=state["optimizer"]
    )
    if teacher is not None:
        set_model_state_dict(teacher, state["teacher"])
