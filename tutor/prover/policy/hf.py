"""HFPolicy: sampling with transformers on CPU or GPU.

Our own decoding loop (not model.generate) so that the log-probability we record is
exactly that of the distribution we sampled from (see base.py) and so that several
prompts x n samples decode together as one left-padded batch sharing a KV cache.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tutor.prover.policy.base import ChatPolicyBase, Completion, SamplingConfig
from tutor.prover.policy.models import ModelSource, resolve_model_source


@dataclass(frozen=True)
class HFPolicyConfig:
    device: str = "cpu"  # "cpu", "cuda", "cuda:1", or "auto" (cuda when available)
    # "auto" (float32 on CPU, bfloat16 on GPU), "float32", "bfloat16" or "float16"
    dtype: str = "auto"
    max_batch: int = 32  # sequences decoded together; larger requests are split

    def __post_init__(self) -> None:
        if self.dtype not in ("auto", "float32", "bfloat16", "float16"):
            raise ValueError("dtype must be one of auto, float32, bfloat16, float16")
        if self.max_batch < 1:
            raise ValueError("max_batch must be at least 1")


class HFPolicy(ChatPolicyBase):
    def __init__(self, model: Any, tokenizer: Any, name: str, source: ModelSource | None = None):
        self.model = model
        self._tokenizer = tokenizer
        self.name = name
        self.source = source
        self.config = HFPolicyConfig()
        self._lock = threading.Lock()  # one decode at a time per loaded model

    @property
    def tokenizer(self) -> Any:
        return self._tokenizer

    @classmethod
    def load(cls, spec: str | Path | None = None, config: HFPolicyConfig | None = None) -> HFPolicy:
        """Load from a model directory, a GGUF file, a serving-slot file, or (None) the
        serving slot named by LEANCOACH_SERVING_CHECKPOINT. Never downloads."""
        config = config or HFPolicyConfig()
        source = resolve_model_source(spec)
        model, tokenizer = _load_model_and_tokenizer(source, config)
        policy = cls(model, tokenizer, name=source.label, source=source)
        policy.config = config
        return policy

    def reload_if_changed(self) -> bool:
        """Reload when the serving slot now points at another checkpoint; True if reloaded."""
        if self.source is None or not self.source.from_slot:
            return False
        current = resolve_model_source(self.source.spec)
        if current.fingerprint == self.source.fingerprint:
            return False
        model, tokenizer = _load_model_and_tokenizer(current, self.config)
        with self._lock:
            self.model, self._tokenizer, self.source = model, tokenizer, current
            self.name = current.label
        return True

    def generate_ids(
        self, prompt_ids: Sequence[Sequence[int]], sampling: SamplingConfig
    ) -> list[list[Completion]]:
        # Each prompt is repeated n times; the flat batch is decoded in chunks.
        flat = [list(ids) for ids in prompt_ids for _ in range(sampling.n)]
        results: list[Completion] = []
        with self._lock:
            for start in range(0, len(flat), self.config.max_batch):
                chunk = flat[start : start + self.config.max_batch]
                results.extend(self._decode_batch(chunk, sampling, seed_offset=start))
        return [results[i * sampling.n : (i + 1) * sampling.n] for i in range(len(prompt_ids))]

    def _decode_batch(
        self, prompts: list[list[int]], sampling: SamplingConfig, seed_offset: int
    ) -> list[Completion]:
        import torch

        if any(len(p) == 0 for p in prompts):
            raise ValueError("every prompt needs at least one token")
        device = next(self.model.parameters()).device
        generator = None
        if sampling.seed is not None:
            generator = torch.Generator(device=device)
            generator.manual_seed(sampling.seed + seed_offset)
        pad_id = _pad_id(self._tokenizer)
        end_ids = self.end_token_ids()
        batch = len(prompts)
        width = max(len(p) for p in prompts)
        # Left padding keeps every sequence's next token at the last position.
        input_ids = torch.full((batch, width), pad_id, dtype=torch.long, device=device)
        attention = torch.zeros((batch, width), dtype=torch.long, device=device)
        for row, ids in enumerate(prompts):
            input_ids[row, width - len(ids) :] = torch.tensor(ids, device=device)
            attention[row, width - len(ids) :] = 1
        positions = (attention.cumsum(-1) - 1).clamp(min=0)

        generated: list[list[int]] = [[] for _ in range(batch)]
        logprobs: list[list[float]] = [[] for _ in range(batch)]
        finish: list[str | None] = [None] * batch
        past = None
        step_ids, step_pos = input_ids, positions
        with torch.inference_mode():
            for _ in range(sampling.max_tokens):
                out = self.model(
                    input_ids=step_ids,
                    attention_mask=attention,
                    position_ids=step_pos,
                    cache=past,  # transformers 5.x name (was past_key_values)
                    use_cache=True,
                    logits_to_keep=1,
                )
                past = out.cache
                logits = out.logits[:, -1, :].float()
                tokens, token_logprobs = sample_next(logits, sampling, generator)
                token_list, logprob_list = tokens.tolist(), token_logprobs.tolist()
                for row in range(batch):
                    if finish[row] is not None:
                        continue
                    token = int(token_list[row])
                    generated[row].append(token)
                    logprobs[row].append(float(logprob_list[row]))
                    if token in end_ids or self._hit_stop(generated[row], sampling.stop):
                        finish[row] = "stop"
                if all(f is not None for f in finish):
                    break
                # Finished rows keep decoding pad tokens (discarded) so the batch stays rectangular.
                next_ids = torch.tensor(
                    [pad_id if finish[r] is not None else token_list[r] for r in range(batch)],
                    device=device,
                ).unsqueeze(-1)
                attention = torch.cat([attention, torch.ones_like(next_ids)], dim=-1)
                step_pos = step_pos[:, -1:] + 1
                step_ids = next_ids
        return [
            self._completion(generated[row], logprobs[row], finish[row] or "length", end_ids)
            for row in range(batch)
        ]

    def _hit_stop(self, generated: list[int], stop: tuple[str, ...]) -> bool:
        if not stop:
            return False
        # Decode only the tail: a stop string is short, so the last tokens suffice.
        tail = self.decode(generated[-32:])
        return any(s in tail for s in stop)

    def _completion(
        self, ids: list[int], logprobs: list[float], finish: str, end_ids: set[int]
    ) -> Completion:
        text_ids = ids[:-1] if ids and ids[-1] in end_ids else ids
        return Completion(
            text=self.decode(text_ids), token_ids=ids, logprobs=logprobs, finish_reason=finish
        )


def sample_next(logits: Any, sampling: SamplingConfig, generator: Any = None) -> tuple[Any, Any]:
    """Sample one token per row; return (tokens, log-prob under the sampling distribution)."""
    import torch

    if sampling.temperature == 0:
        logp = torch.log_softmax(logits, dim=-1)
        tokens = logp.argmax(dim=-1)
        return tokens, logp.gather(-1, tokens.unsqueeze(-1)).squeeze(-1)
    logp = torch.log_softmax(logits / sampling.temperature, dim=-1)
    if sampling.top_p < 1.0:
        logp = _nucleus(logp, sampling.top_p)
    probs = logp.exp()
    tokens = torch.multinomial(probs, num_samples=1, generator=generator).squeeze(-1)
    return tokens, logp.gather(-1, tokens.unsqueeze(-1)).squeeze(-1)


def _nucleus(logp: Any, top_p: float) -> Any:
    """Keep the smallest set of tokens whose mass reaches top_p; renormalise."""
    import torch

    sorted_logp, order = logp.sort(dim=-1, descending=True)
    cumulative = sorted_logp.exp().cumsum(dim=-1)
    # A token is kept when the mass before it is still below top_p (the first always is).
    keep_sorted = (cumulative - sorted_logp.exp()) < top_p
    keep = torch.zeros_like(keep_sorted).scatter(-1, order, keep_sorted)
    masked = logp.masked_fill(~keep, float("-inf"))
    return torch.log_softmax(masked, dim=-1)


def _pad_id(tokenizer: Any) -> int:
    for candidate in (tokenizer.pad_token_id, tokenizer.eos_token_id):
        if candidate is not None:
            return int(candidate)
    return 0


def _load_model_and_tokenizer(source: ModelSource, config: HFPolicyConfig) -> tuple[Any, Any]:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    device = config.device
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    dtype_name = config.dtype
    if dtype_name == "auto":
        dtype_name = "float32" if device == "cpu" else "bfloat16"
    kwargs: dict[str, Any] = {"local_files_only": True}
    if source.gguf_file:
        kwargs["gguf_file"] = source.gguf_file
    tokenizer = AutoTokenizer.from_pretrained(source.directory, **kwargs)
    model = AutoModelForCausalLM.from_pretrained(
        source.directory, dtype=getattr(torch, dtype_name), **kwargs
    )
    model.to(torch.device(device))  # type: ignore[arg-type]  # transformers stubs mistype .to
    model.eval()
    return model, tokenizer
