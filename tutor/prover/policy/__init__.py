"""Policy backends behind one interface (see base.Policy)."""

from __future__ import annotations

from typing import Any

from tutor.prover.policy.base import ChatPolicyBase, Completion, Policy, SamplingConfig
from tutor.prover.policy.models import (
    SERVING_ENV,
    SMOLLM2,
    ModelNotFound,
    ModelSource,
    resolve_model_source,
    smollm2_gguf_path,
)

__all__ = [
    "SERVING_ENV",
    "SMOLLM2",
    "ChatPolicyBase",
    "Completion",
    "ModelNotFound",
    "ModelSource",
    "Policy",
    "SamplingConfig",
    "load_policy",
    "resolve_model_source",
    "smollm2_gguf_path",
]


def load_policy(spec: str | None = None, backend: str = "hf", **options: Any) -> Policy:
    """Load a policy: backend "hf" (transformers) or "vllm". Heavy imports happen here."""
    if backend == "hf":
        from tutor.prover.policy.hf import HFPolicy, HFPolicyConfig

        return HFPolicy.load(spec, HFPolicyConfig(**options))
    if backend == "vllm":
        from tutor.prover.policy.vllm import VLLMPolicy, VLLMPolicyConfig

        return VLLMPolicy.load(spec, VLLMPolicyConfig(**options))
    raise ValueError(f"unknown policy backend {backend!r}: use 'hf' or 'vllm'")
