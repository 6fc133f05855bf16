"""From trajectories to aligned tensors: the student's and the teacher's views of y.

A trajectory is one flat token sequence (tutor/prover/trajectory.py): prompt tokens, then the
response y = token_ids[prompt_length:] (assistant turns interleaved with tool outputs), with
mask = 1 on sampled tokens. The teacher sees the same y after a different prompt (the
feedback appended to the user turn). Both forwards are gathered down to the R positions that
predict y, so the loss sees [B, R, V] tensors that line up token for token.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import torch
from torch import Tensor

from tutor.prover.trajectory import Trajectory

R = TypeVar("R")


@dataclass
class SequenceBatch:
    """Right-padded sequences plus, per row, where the response starts and how long it is."""

    input_ids: Tensor  # [B, L]
    attention_mask: Tensor  # [B, L]
    starts: list[int]  # index of y's first token in each row
    lengths: list[int]  # len(y) per row

    @property
    def response_width(self) -> int:
        return max(self.lengths) if self.lengths else 0


@dataclass
class ResponseTargets:
    """What y is, position by position: [B, R], zero-padded on the right."""

    token_ids: Tensor  # long
    mask: Tensor  # float 0/1: 1 where the policy sampled the token
    sampled_logprobs: Tensor  # float: the rollout's log-probs (0 where mask is 0)


def render_prompt_ids(
    tokenizer: Any, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
) -> list[int]:
    """The prompt as the prover renders it: the chat template with the generation header,
    tokenized without extra special tokens (the template already wrote them)."""
    text = tokenizer.apply_chat_template(
        messages, tools=tools or None, tokenize=False, add_generation_prompt=True
    )
    return list(tokenizer.encode(str(text), add_special_tokens=False))


def feedback_text(feedback: dict[str, Any] | str | None) -> str | None:
    """The text the teacher sees: Feedback.as_text() of the coach's stored Feedback dict."""
    if feedback is None or isinstance(feedback, str):
        return feedback
    from tutor.coach.types import Feedback

    return Feedback.from_dict(feedback).as_text()


def pad_sequences(
    rows: Sequence[Sequence[int]],
    starts: Sequence[int],
    pad_id: int,
    device: torch.device | str = "cpu",
) -> SequenceBatch:
    width = max(len(r) for r in rows)
    ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
    attention = torch.zeros((len(rows), width), dtype=torch.long)
    for i, row in enumerate(rows):
        ids[i, : len(row)] = torch.tensor(list(row), dtype=torch.long)
        attention[i, : len(row)] = 1
    lengths = [len(r) - s for r, s in zip(rows, starts, strict=True)]
    return SequenceBatch(ids.to(device), attention.to(device), list(starts), lengths)


def student_batch(
    trajectories: Sequence[Trajectory], pad_id: int, device: torch.device | str = "cpu"
) -> SequenceBatch:
    for t in trajectories:
        t.check_alignment()
        if t.prompt_length < 1 or t.prompt_length >= len(t.token_ids):
            raise ValueError(
                f"trajectory {t.problem_id}: needs a prompt and a response (prompt_length={t.prompt_length}, tokens={len(t.token_ids)})"
            )
    return pad_sequences(
        [t.token_ids for t in trajectories], [t.prompt_length for t in trajectories], pad_id, device
    )


def teacher_batch(
    trajectories: Sequence[Trajectory],
    feedbacks: Sequence[str],
    tokenizer: Any,
    pad_id: int,
    device: torch.device | str = "cpu",
) -> SequenceBatch:
    """Teacher context: the prompt with feedback appended to the user turn, then the same y."""
    rows, starts = [], []
    for trajectory, text in zip(trajectories, feedbacks, strict=True):
        prompt = render_prompt_ids(tokenizer, trajectory.teacher_messages(text), trajectory.tools)
        rows.append(prompt + list(trajectory.token_ids[trajectory.prompt_length :]))
        starts.append(len(prompt))
    return pad_sequences(rows, starts, pad_id, device)


def response_targets(
    trajectories: Sequence[Trajectory], device: torch.device | str = "cpu"
) -> ResponseTargets:
    width = max(len(t.token_ids) - t.prompt_length for t in trajectories)
    ids = torch.zeros((len(trajectories), width), dtype=torch.long)
    mask = torch.zeros((len(trajectories), width))
    logprobs = torch.zeros((len(trajectories), width))
    for i, t in enumerate(trajectories):
        n = len(t.token_ids) - t.prompt_length
        ids[i, :n] = torch.tensor(t.token_ids[t.prompt_length :])
        mask[i, :n] = torch.tensor(t.mask[t.prompt_length :], dtype=torch.float32)
        logprobs[i, :n] = torch.tensor(t.logprobs[t.prompt_length :], dtype=torch.float32)
    return ResponseTargets(ids.to(device), mask.to(device), logprobs.to(device))


def gather_response_logits(logits: Tensor, batch: SequenceBatch, width: int) -> Tensor:
    """[B, L, V] -> [B, width, V]: row b keeps positions start_b - 1 + r, which predict y_r.

    Positions past a row's response length are clamped (their mask is 0, so they never count).
    """
    offsets = torch.arange(width, device=logits.device)
    starts = torch.tensor(batch.starts, device=logits.device).unsqueeze(-1)
    positions = (starts - 1 + offsets).clamp(max=logits.shape[1] - 1)
    return logits.gather(1, positions.unsqueeze(-1).expand(-1, -1, logits.shape[-1]))


def response_logits(model: Any, batch: SequenceBatch, width: int | None = None) -> Tensor:
    """Forward the model and keep the logits that predict the response tokens: [B, R, V]."""
    out = model(input_ids=batch.input_ids, attention_mask=batch.attention_mask, use_cache=False)
    return gather_response_logits(out.logits, batch, width or batch.response_width)


def token_logprobs(logits: Tensor, targets: Tensor, temperature: float | Tensor = 1.0) -> Tensor:
    """log softmax(logits / T) at the target tokens: [B, R, V], [B, R] -> [B, R] (float32).
    temperature: a float, or a tensor broadcasting against [B, R, V] (per trajectory)."""
    log_p = torch.log_softmax(logits.float() / temperature, dim=-1)
    return log_p.gather(-1, targets.unsqueeze(-1)).squeeze(-1)


def micro_batches(items: Sequence[Any], size: int) -> list[Sequence[Any]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


@dataclass
class ResponseRows:
    """One row per masked response position (row-major over the batch), ready for the
    chunked losses: final hidden states [N, H] with the output head, or logits [N, V]
    (head None) where the hidden-state path does not apply."""

    rows: Tensor
    head: Any  # nn.Module mapping [n, H] -> [n, V] logits, or None
    selected: Tensor  # bool [B, R]: which positions the rows are
    weights: Tensor  # [N]: the mask's values there


def hidden_state_head(model: Any) -> tuple[Any, Any] | None:
    """(base model, output head) when logits = head(base(...).last_hidden_state), as in the
    Llama/Qwen families; None otherwise (logit soft-capping or scaling), in which case
    callers use the model's full logits. An FSDP-sharded model qualifies too, but only
    inside its registered rows method (reduce_response_rows), where the root's parameters
    (embeddings, final norm, head) are gathered."""
    get_head = getattr(model, "get_output_embeddings", None)
    prefix = getattr(model, "base_model_prefix", "")
    base = getattr(model, prefix, None) if prefix else None
    head = get_head() if callable(get_head) else None
    config = getattr(model, "config", None)
    if head is None or base is None:
        return None
    if getattr(config, "final_logit_softcapping", None) or getattr(config, "logit_scale", None):
        return None
    return base, head


def response_rows(model: Any, batch: SequenceBatch, mask: Tensor) -> ResponseRows:
    """The rows of the masked positions of y (see ResponseRows); never [B, L, V] on the
    hidden-state path. Call it through reduce_response_rows: on a sharded model it is only
    valid inside the model's FSDP forward method."""
    width = mask.shape[1]
    selected = mask != 0
    parts = hidden_state_head(model)
    if parts is None:
        logits = response_logits(model, batch, width)
        return ResponseRows(logits[selected], None, selected, mask[selected])
    base, head = parts
    out = base(input_ids=batch.input_ids, attention_mask=batch.attention_mask, use_cache=False)
    hidden = gather_response_logits(out.last_hidden_state, batch, width)
    return ResponseRows(hidden[selected], head, selected, mask[selected])


# The name of the method training.distributed.wrap_model adds to a sharded model and
# registers with FSDP (register_fsdp_forward_method): FSDP gathers the root's parameters
# around it and again for its backward, as it does around forward().
ROWS_METHOD = "leancoach_reduce_response_rows"


def _reduce_rows_method(
    model: Any, batch: SequenceBatch, mask: Tensor, reduce: Callable[[ResponseRows], R]
) -> R:
    return reduce(response_rows(model, batch, mask))


def reduce_response_rows(
    model: Any, batch: SequenceBatch, mask: Tensor, reduce: Callable[[ResponseRows], R]
) -> R:
    """reduce(response_rows(model, batch, mask)), the same memory-bounded path on one
    process and under FSDP.

    Why the indirection: under FSDP2 the root unit owns the embeddings, the final norm and
    the output head, and gathers them only around its forward. Calling the base model and
    the head outside forward() would see sharded parameters, so the sharded model used to
    take the full-logits path ([B, L, V] from forward). Running rows + reduce (the chunked
    loss) inside a registered forward method keeps the head gathered while its chunks run
    and recompute in backward. reduce must return tensors (or tuples of them)."""
    method = getattr(model, ROWS_METHOD, None)
    if callable(method):
        return cast(R, method(batch, mask, reduce))
    return reduce(response_rows(model, batch, mask))


def scatter_rows(values: Tensor, selected: Tensor) -> Tensor:
    """[N] values back to [B, R] (0 at unselected positions), keeping the graph."""
    out = values.new_zeros(selected.shape)
    return out.masked_scatter(selected, values)


def trajectory_temperatures(
    trajectories: Sequence[Trajectory], default: float, device: torch.device | str = "cpu"
) -> Tensor:
    """[B]: the temperature each trajectory was sampled at (exploration rollouts use
    reinforce.exploration_temperature), so the policy gradient differentiates the same
    distribution the tokens came from; `default` where a trajectory does not say."""
    return torch.tensor(
        [float(t.sampling.get("temperature") or default) for t in trajectories],
        dtype=torch.float32,
        device=device,
    )


def placeholder_trajectory(tokenizer: Any) -> Trajectory:
    """A one-token trajectory run at weight 0 where a rank has fewer micro-batches than
    another (training.session.agreed_micro_batches): its forward and backward go through
    every module, so FSDP's collectives match across ranks, and its gradient is exactly 0.
    Its single response token has mask 1 so the chunked losses use the output head too."""
    messages = [{"role": "user", "content": "."}]
    prompt = render_prompt_ids(tokenizer, messages, [])
    end = tokenizer.eos_token_id if tokenizer.eos_token_id is not None else 0
    ids = [*prompt, int(end)]
    return Trajectory(
        problem_id="",
        statement="",
        mode="placeholder",
        prompt_messages=messages,
        tools=[],
        token_ids=ids,
        mask=[0] * len(prompt) + [1],
        logprobs=[0.0] * len(ids),
        prompt_length=len(prompt),
        sampling={"temperature": 1.0},
    )
