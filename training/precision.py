"""Mixed precision done so that small updates survive: fp32 master weights, bf16 compute.

Why: AdamW's step at lr 1e-6 is about 1e-6 per weight, far below half a bf16 ulp of a
typical weight (bf16 keeps 8 significant bits: the ulp of 0.02 is about 1.2e-4), so
`w - 1e-6` rounds back to w for most weights when the weights themselves are bf16. On the
tiny test model one step at lr 1e-6 changes only a few percent of bf16 weights and all of
them in fp32 (tests/training/test_precision.py asserts both).

So, by default (model.master_weights: float32):
- the parameters, the gradients, the AdamW state and the EMA teacher are float32;
- the forward and backward run in model.dtype (bf16 on GPUs) through torch.autocast on a
  single device, or FSDP2's MixedPrecisionPolicy(param_dtype=bf16, reduce_dtype=fp32) under
  run.distributed: fsdp (shards stay fp32; each layer is gathered in bf16 for compute and
  gradients are reduce-scattered in fp32).
model.master_weights: model_dtype keeps the old behaviour (weights stored in model.dtype), for
comparison only; it is lossy at small learning rates.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import torch

MASTER_WEIGHTS = ("float32", "model_dtype")


def compute_dtype(model_config: Any) -> torch.dtype:
    return getattr(torch, str(model_config.dtype))


def param_dtype(model_config: Any) -> torch.dtype:
    """The dtype the trained parameters (and so AdamW's state) are stored in."""
    if model_config.master_weights == "float32":
        return torch.float32
    return compute_dtype(model_config)


def needs_autocast(model_config: Any) -> bool:
    return compute_dtype(model_config) != param_dtype(model_config)


@contextlib.contextmanager
def autocast(
    model_config: Any, device: torch.device | str, sharded: bool = False
) -> Iterator[None]:
    """Forward (and its backward) in model.dtype over fp32 parameters; a no-op when the two
    agree, and under FSDP (sharded=True), where the MixedPrecisionPolicy casts instead."""
    if sharded or not needs_autocast(model_config):
        yield
        return
    with torch.autocast(device_type=torch.device(device).type, dtype=compute_dtype(model_config)):
        yield


def mixed_precision_policy(model_config: Any) -> Any:
    """FSDP2's policy: gather parameters in model.dtype for compute, reduce gradients in fp32.
    None when the model computes in fp32 (nothing to cast)."""
    if model_config is None or not needs_autocast(model_config):
        return None
    from torch.distributed.fsdp import MixedPrecisionPolicy

    return MixedPrecisionPolicy(param_dtype=compute_dtype(model_config), reduce_dtype=torch.float32)
