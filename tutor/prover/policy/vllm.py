"""VLLMPolicy: the GPU backend, the project's one boundary to the vLLM engine.

vLLM is imported lazily (it is the optional `gpu` extra: `pip install -e '.[gpu]'`), so
this module imports anywhere and fails with a clear message only when used without it.

Calls used (vLLM's offline API): `LLM(model=..., tokenizer=..., logprobs_mode=
"processed_logprobs", ...)`, `SamplingParams(n, temperature, top_p, max_tokens, stop,
logprobs=0, seed, skip_special_tokens=False)` and `LLM.generate([TokensPrompt(
prompt_token_ids=...)], sampling_params)`. `logprobs=0` returns the sampled token's
log-probability only; `processed_logprobs` makes it the log-probability after temperature
and top-p, the same quantity HFPolicy records (base.py). The prompt is rendered with our
own copy of the model's tokenizer so both backends produce identical prompt ids.
Checked against vLLM 0.30.0 (the pinned `gpu` extra): vllm/entrypoints/llm.py:179-225
(LLM), 418-427 (generate); vllm/sampling_params.py:229-313 (the fields above; flat_logprobs
off by default, 302, so `output.logprobs` is a list of {token id: Logprob}:
vllm/logprobs.py:13-19, 164); vllm/inputs/llm.py:112-116 (TokensPrompt).

Promotion: `reload_if_changed()` (called by the agent between rollouts) compares the
serving slot's target with the loaded one and, if it changed, shuts the engine down and
starts a new one on the new checkpoint; the worker process keeps running.
"""

from __future__ import annotations

import gc
import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tutor.prover.policy.base import ChatPolicyBase, Completion, SamplingConfig
from tutor.prover.policy.models import ModelSource, resolve_model_source

log = logging.getLogger(__name__)

INSTALL_HINT = (
    "vLLM is not installed: on a CUDA host run `.venv/bin/pip install -e '.[gpu]'` "
    "(vllm==0.30.0), or use the transformers backend (LEANCOACH_PROVER_BACKEND=hf)"
)


class VLLMUnavailable(ImportError):
    """vllm cannot be imported here; the message says how to install it."""


@dataclass(frozen=True)
class VLLMPolicyConfig:
    gpu_memory_utilization: float = 0.85
    max_model_len: int | None = 16384
    tensor_parallel_size: int = 1
    dtype: str = "auto"
    enable_prefix_caching: bool = True  # agent turns share long prefixes
    seed: int = 0

    def __post_init__(self) -> None:
        if not 0.05 <= self.gpu_memory_utilization <= 0.99:
            raise ValueError("gpu_memory_utilization must be in [0.05, 0.99]")
        if self.tensor_parallel_size < 1:
            raise ValueError("tensor_parallel_size must be >= 1 (GPUs per engine)")


def import_vllm() -> Any:
    try:
        import vllm
    except ImportError as exc:
        raise VLLMUnavailable(INSTALL_HINT) from exc
    return vllm


class VLLMPolicy(ChatPolicyBase):
    def __init__(self, source: ModelSource, config: VLLMPolicyConfig) -> None:
        self._vllm = import_vllm()
        self.config = config
        self.source = source
        self.name = source.label
        self._lock = threading.Lock()
        self._tokenizer = _load_tokenizer(source)
        self._llm = self._start_engine(source)

    @classmethod
    def load(
        cls, spec: str | Path | None = None, config: VLLMPolicyConfig | None = None
    ) -> VLLMPolicy:
        source = resolve_model_source(spec)
        if source.gguf_file:
            raise ValueError(
                "the vLLM backend serves Hugging Face model directories; for a GGUF file "
                "use the transformers backend (LEANCOACH_PROVER_BACKEND=hf)"
            )
        return cls(source, config or VLLMPolicyConfig())

    @classmethod
    def around(cls, llm: Any, tokenizer: Any, name: str = "training-policy") -> VLLMPolicy:
        """A policy over an engine someone else started and keeps (training's colocated
        engine, whose weights are loaded in place): no slot, no reloads, no shutdown."""
        policy = cls.__new__(cls)
        policy._vllm = import_vllm()
        policy.config = VLLMPolicyConfig()
        policy.source = None  # type: ignore[assignment]
        policy.name = name
        policy._lock = threading.Lock()
        policy._tokenizer = tokenizer
        policy._llm = llm
        return policy

    @property
    def tokenizer(self) -> Any:
        return self._tokenizer

    def _start_engine(self, source: ModelSource) -> Any:
        log.info("starting vLLM engine on %s", source.directory)
        return self._vllm.LLM(
            model=source.directory,
            tokenizer=source.directory,
            dtype=self.config.dtype,
            gpu_memory_utilization=self.config.gpu_memory_utilization,
            max_model_len=self.config.max_model_len,
            tensor_parallel_size=self.config.tensor_parallel_size,
            enable_prefix_caching=self.config.enable_prefix_caching,
            logprobs_mode="processed_logprobs",
            seed=self.config.seed,
        )

    def reload_if_changed(self) -> bool:
        if self.source is None or not self.source.from_slot:
            return False
        current = resolve_model_source(self.source.spec)
        if current.fingerprint == self.source.fingerprint:
            return False
        with self._lock:
            self._shutdown()
            self._tokenizer = _load_tokenizer(current)
            self._llm = self._start_engine(current)
            self.source, self.name = current, current.label
        return True

    def _shutdown(self) -> None:
        llm, self._llm = self._llm, None
        engine = getattr(getattr(llm, "llm_engine", None), "engine_core", None)
        shutdown = getattr(engine, "shutdown", None)
        if callable(shutdown):
            try:
                shutdown()
            except Exception:  # best effort: the engine may already be gone
                log.exception("vLLM engine shutdown failed")
        del llm
        gc.collect()
        try:
            import torch

            if torch.cuda.is_available():
                torch.cuda.empty_cache()
        except ImportError:
            pass

    def generate_ids(
        self, prompt_ids: Sequence[Sequence[int]], sampling: SamplingConfig
    ) -> list[list[Completion]]:
        # One SamplingParams per prompt, seeded seed + i: a GRPO group sends the same prompt G
        # times, and vLLM seeds each request's generator from its own seed, so one shared seed
        # would give G identical samples (no reward variance in the group).
        params = [
            self._vllm.SamplingParams(
                n=sampling.n,
                temperature=sampling.temperature,
                top_p=sampling.top_p,
                max_tokens=sampling.max_tokens,
                stop=list(sampling.stop) or None,
                logprobs=0,
                seed=None if sampling.seed is None else sampling.seed + i,
                skip_special_tokens=False,
            )
            for i in range(len(prompt_ids))
        ]
        prompts = [{"prompt_token_ids": list(ids)} for ids in prompt_ids]  # TokensPrompt
        with self._lock:
            outputs = self._llm.generate(prompts, sampling_params=params, use_tqdm=False)
        end_ids = self.end_token_ids()
        return [[self._completion(c, end_ids) for c in output.outputs] for output in outputs]

    def _completion(self, output: Any, end_ids: set[int]) -> Completion:
        ids = [int(t) for t in output.token_ids]
        logprobs = [
            _sampled_logprob(step, token)
            for step, token in zip(output.logprobs or [], ids, strict=False)
        ]
        if len(logprobs) != len(ids):
            raise RuntimeError(
                "vLLM returned no log-probability for some sampled tokens; is SamplingParams.logprobs set?"
            )
        finish = "length" if output.finish_reason == "length" else "stop"
        text_ids = ids[:-1] if ids and ids[-1] in end_ids else ids
        return Completion(self.decode(text_ids), ids, logprobs, finish)


def _sampled_logprob(step: dict[int, Any], token: int) -> float:
    entry = step[token]
    return float(getattr(entry, "logprob", entry))


def _load_tokenizer(source: ModelSource) -> Any:
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(source.directory, local_files_only=True)
