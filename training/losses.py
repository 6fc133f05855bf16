"""The training losses. Names, shapes and semantics are a contract
(docs/TRAINING.md, "Contract functions"); tests and checks call them.

- feedback_distillation_loss: per-token KL between the EMA teacher (which saw the coach's
  feedback) and the student, on the teacher's top-k tokens plus one tail bucket.
- grpo_loss: the clipped policy-gradient objective with group-normalised advantages.
- group_advantages: (r - mean) / (std + 1e-6) within consecutive groups.

All reductions are token means over the whole batch: sum(mask * L_t) / sum(mask), so long
trajectories weigh more than short ones, as in the paper's description.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import torch
from torch import Tensor
from torch.utils.checkpoint import checkpoint

KLDirection = Literal["forward", "reverse"]

GROUP_STD_EPS = 1e-6


def _as_weights(mask: Tensor) -> Tensor:
    """Bool or 0/1 masks both become float weights (a 0/1 float mask multiplies as-is)."""
    return mask.to(torch.float32)


def _masked_token_mean(per_token: Tensor, weights: Tensor) -> Tensor:
    """sum(weights * per_token) / sum(weights); an all-zero mask gives 0 (still in the graph)."""
    total = weights.sum()
    if total.item() == 0:
        return (per_token * weights).sum()
    return (per_token * weights).sum() / total


def _bucketed_log_probs(logits: Tensor, top_idx: Tensor) -> tuple[Tensor, Tensor]:
    """Log-probabilities of the chosen tokens and of the tail bucket (everything else).

    logits: [N, V] (float32); top_idx: [N, K]. Returns (log p on top_idx [N, K], log p(R) [N]).
    log p(R) is computed as logsumexp over the complement minus logsumexp over all, which stays
    accurate when p(R) is tiny (log1p(-sum p) would lose it in float32).
    """
    log_norm = torch.logsumexp(logits, dim=-1)
    top_log_probs = logits.gather(-1, top_idx) - log_norm.unsqueeze(-1)
    complement = logits.scatter(-1, top_idx, float("-inf"))
    tail_log_prob = torch.logsumexp(complement, dim=-1) - log_norm
    return top_log_probs, tail_log_prob


def _kl_terms(log_p: Tensor, log_q: Tensor) -> Tensor:
    """p * (log p - log q) elementwise, with 0 where p = 0 (0 log 0 = 0, no NaN gradients)."""
    p_is_zero = torch.isneginf(log_p)
    safe_log_p = torch.where(p_is_zero, torch.zeros_like(log_p), log_p)
    safe_log_q = torch.where(p_is_zero, torch.zeros_like(log_q), log_q)
    terms = safe_log_p.exp() * (safe_log_p - safe_log_q)
    return torch.where(p_is_zero, torch.zeros_like(terms), terms)


def feedback_distillation_loss(
    student_logits: Tensor,
    teacher_logits: Tensor,
    mask: Tensor,
    top_k: int = 25,
    tail: bool = True,
    *,
    direction: KLDirection = "forward",
) -> Tensor:
    """Token-mean top-k KL between the teacher (with feedback) and the student.

    student_logits, teacher_logits: float [B, T, V], aligned so that position t of both
    predicts the same token of y. mask: [B, T], bool or 0/1 (1 on model-generated tokens).

    S_t = the top_k tokens of the *teacher's* distribution at t. With tail=True the rest of
    the vocabulary is one bucket R, p(R) = 1 - sum_{S_t} p, and
        forward: L_t = sum_{v in S_t} p_T(v) (log p_T(v) - log p_S(v)) + p_T(R) (log p_T(R) - log p_S(R))
        reverse: the same with the roles of p_S and p_T swapped (still on the teacher's S_t).
    With tail=False (our choice; the paper does not say) both distributions are renormalised
    over S_t, so the loss is still a proper KL (>= 0, zero iff they agree on S_t).
    Returns sum_t mask_t L_t / sum_t mask_t. No gradient reaches teacher_logits.
    """
    if student_logits.shape != teacher_logits.shape:
        raise ValueError(
            f"student and teacher logits must have the same shape [B, T, V], got "
            f"{tuple(student_logits.shape)} and {tuple(teacher_logits.shape)}"
        )
    if mask.shape != student_logits.shape[:2]:
        raise ValueError(
            f"mask must be [B, T] = {tuple(student_logits.shape[:2])}, got {tuple(mask.shape)}"
        )
    if top_k < 1:
        raise ValueError(f"top_k must be >= 1 (the paper uses 25), got {top_k}")
    if direction not in ("forward", "reverse"):
        raise ValueError(f"direction must be 'forward' or 'reverse', got {direction!r}")

    weights = _as_weights(mask)
    selected = weights != 0
    # Only the positions that count are expanded to float32 [N, V]: saves memory on long
    # prompts and tool outputs, which are masked out anyway.
    student = student_logits[selected].float()
    teacher = teacher_logits.detach()[selected].float()
    token_weights = weights[selected]
    if student.shape[0] == 0:
        return student_logits.sum() * 0.0

    k = min(top_k, student.shape[-1])
    top_idx = teacher.topk(k, dim=-1).indices
    log_t_top, log_t_tail = _bucketed_log_probs(teacher, top_idx)
    log_s_top, log_s_tail = _bucketed_log_probs(student, top_idx)

    if tail:
        log_t = torch.cat([log_t_top, log_t_tail.unsqueeze(-1)], dim=-1)
        log_s = torch.cat([log_s_top, log_s_tail.unsqueeze(-1)], dim=-1)
    else:
        log_t = log_t_top - torch.logsumexp(log_t_top, dim=-1, keepdim=True)
        log_s = log_s_top - torch.logsumexp(log_s_top, dim=-1, keepdim=True)

    if direction == "forward":
        per_token = _kl_terms(log_t, log_s).sum(-1)
    else:
        per_token = _kl_terms(log_s, log_t).sum(-1)
    return (per_token * token_weights).sum() / token_weights.sum()


def group_advantages(rewards: Tensor, group_size: int, scale: bool = True) -> Tensor:
    """A_i = (r_i - mean(group)) / (std(group) + 1e-6) over consecutive groups of group_size.

    std is torch.std's default (unbiased, n - 1). With scale=False: A_i = r_i - mean(group).
    rewards: [B] with B a multiple of group_size. Returns float [B].
    """
    if rewards.dim() != 1:
        raise ValueError(f"rewards must be 1-D [B], got shape {tuple(rewards.shape)}")
    if group_size < 1 or rewards.shape[0] % group_size != 0:
        raise ValueError(
            f"rewards ({rewards.shape[0]}) must split into whole groups of group_size "
            f"({group_size}): sample G completions per problem, consecutively"
        )
    if scale and group_size < 2:
        raise ValueError(
            "group_size must be >= 2 to divide by the group std (unbiased std of one sample is "
            "undefined); use group_size >= 2 or scale=False"
        )
    groups = rewards.float().view(-1, group_size)
    centred = groups - groups.mean(dim=1, keepdim=True)
    if scale:
        centred = centred / (groups.std(dim=1, keepdim=True) + GROUP_STD_EPS)
    return centred.reshape(-1)


def grpo_loss(
    logprobs: Tensor,
    old_logprobs: Tensor,
    advantages: Tensor,
    mask: Tensor,
    clip_eps: float = 0.2,
    ref_logprobs: Tensor | None = None,
    beta: float = 0.0,
    *,
    is_weights: Tensor | None = None,
) -> Tensor:
    """Clipped GRPO objective, token mean over the batch (to minimise).

    rho = exp(logprobs - old_logprobs);
    L = -sum mask * min(rho A, clip(rho, 1 - eps, 1 + eps) A) / sum mask
        + beta * sum mask * k3 / sum mask,
    where k3 = exp(ref - logp) - (ref - logp) - 1 is the per-token estimator of
    KL(pi_theta || pi_ref) (non-negative, unbiased), used only when beta > 0 and ref_logprobs
    is given. logprobs, old_logprobs, ref_logprobs, mask: [B, T]; advantages: [B].
    is_weights [B, T] (optional, no gradient): per-token importance weights correcting for
    the sampler not being the trainer (truncated_importance_weights); they multiply the
    clipped objective, not the KL term.
    """
    if logprobs.shape != old_logprobs.shape or logprobs.shape != mask.shape:
        raise ValueError(
            f"logprobs {tuple(logprobs.shape)}, old_logprobs {tuple(old_logprobs.shape)} and "
            f"mask {tuple(mask.shape)} must all be [B, T]"
        )
    if advantages.shape != logprobs.shape[:1]:
        raise ValueError(
            f"advantages must be [B] = {tuple(logprobs.shape[:1])}, got {tuple(advantages.shape)}"
        )
    if clip_eps < 0:
        raise ValueError(f"clip_eps must be >= 0 (the paper uses 0.2), got {clip_eps}")
    if beta > 0 and ref_logprobs is None:
        raise ValueError("beta > 0 needs ref_logprobs (log-probs of the reference policy)")

    weights = _as_weights(mask)
    adv = advantages.detach().float().unsqueeze(-1)
    ratio = torch.exp(logprobs.float() - old_logprobs.detach().float())
    unclipped = ratio * adv
    clipped = torch.clamp(ratio, 1.0 - clip_eps, 1.0 + clip_eps) * adv
    objective = torch.minimum(unclipped, clipped)
    if is_weights is not None:
        if is_weights.shape != logprobs.shape:
            raise ValueError(f"is_weights must be [B, T] = {tuple(logprobs.shape)}")
        objective = objective * is_weights.detach().float()
    loss = -_masked_token_mean(objective, weights)
    if beta > 0 and ref_logprobs is not None:
        delta = ref_logprobs.detach().float() - logprobs.float()
        k3 = torch.exp(delta) - delta - 1.0
        loss = loss + beta * _masked_token_mean(k3, weights)
    return loss


def truncated_importance_weights(
    trainer_logprobs: Tensor, sampler_logprobs: Tensor, mask: Tensor, cap: float = 2.0
) -> Tensor:
    """w_t = min(exp(log pi_trainer(y_t) - log pi_sampler(y_t)), cap) on masked tokens, 1 elsewhere.

    The sampler (vLLM, bf16 kernels, another batch shape) and the trainer give slightly
    different probabilities for the same weights; the tokens came from the sampler, so the
    trainer's objective is reweighted by the ratio, truncated at `cap` so one token the
    sampler found unlikely cannot dominate the step (truncated importance sampling, as in
    TRL's vLLM mode). Both log-probs must be at the sampling temperature. No gradient.
    """
    if cap < 1:
        raise ValueError(f"cap must be >= 1 (2 is usual), got {cap}")
    with torch.no_grad():
        ratio = torch.exp(trainer_logprobs.float() - sampler_logprobs.float()).clamp(max=cap)
        return torch.where(mask != 0, ratio, torch.ones_like(ratio))


# --- the same losses without [N, V] logits for the whole batch --------------------------
#
# At the paper's scale (8k-token trajectories, a 152k vocabulary) one micro-batch's logits
# are tens of GB in fp32, and the reference path above holds several copies (student and
# teacher, the float32 casts, the scattered complement). The functions below take *rows*
# (one per masked position: final hidden states [N, H] plus the output head, or logits
# [N, V] when head is None) and work through them `chunk` rows at a time:
#   - the teacher is reduced at once, under no_grad, to its top-k log-probs and tail
#     log-prob ([N, K + 1] floats, from its logsumexp), so its [N, V] never coexists;
#   - each student chunk's logits are recomputed in backward (activation checkpointing),
#     so the autograd graph keeps [chunk, V] at a time, never [N, V].
# Peak extra memory: about N*(H + 2K + 4)*4 bytes kept + c*V*4*m for the live chunk
# (m ~ 4: logits, log-softmax, complement, its gradient), instead of N*V*4*m.
# docs/TRAINING.md ("Memory") states the formula; tests/training/test_chunked_losses.py
# checks the values against the reference to 1e-6 and the measured peak.

Head = Callable[[Tensor], Tensor] | None


@dataclass
class TeacherTopK:
    """The teacher's distribution at N positions, reduced to what the FD loss needs."""

    index: Tensor  # [N, K] long: the teacher's top-k tokens
    log_probs: Tensor  # [N, K] float32: their log-probabilities
    tail_log_prob: Tensor  # [N] float32: log p(R), everything outside the top-k
    entropy: Tensor  # [N] float32: the teacher's full-vocabulary entropy (a metric)


def _logits_of(rows: Tensor, head: Head) -> Tensor:
    return (head(rows) if head is not None else rows).float()


@torch.no_grad()
def teacher_top_k(
    rows: Tensor, top_k: int = 25, head: Head = None, chunk: int = 1024
) -> TeacherTopK:
    """Teacher rows [N, H] (with head) or logits [N, V] -> TeacherTopK, chunk rows at a time."""
    parts = []
    for start in range(0, rows.shape[0], max(chunk, 1)):
        logits = _logits_of(rows[start : start + chunk], head)
        index = logits.topk(min(top_k, logits.shape[-1]), dim=-1).indices
        top, tail = _bucketed_log_probs(logits, index)
        log_p = torch.log_softmax(logits, dim=-1)
        parts.append((index, top, tail, -(log_p.exp() * log_p).sum(-1)))
    if not parts:
        empty = rows.new_zeros((0, top_k))
        nothing = rows.new_zeros((0,)).float()
        return TeacherTopK(empty.long(), empty.float(), nothing, nothing)
    return TeacherTopK(*(torch.cat([p[i] for p in parts]) for i in range(4)))


def _fd_chunk(
    rows: Tensor,
    index: Tensor,
    t_top: Tensor,
    t_tail: Tensor,
    head: Head,
    tail: bool,
    direction: str,
) -> tuple[Tensor, Tensor]:
    """Per-token KL [c] and (detached) full-vocabulary student entropy [c] of one chunk."""
    logits = _logits_of(rows, head)
    s_top, s_tail = _bucketed_log_probs(logits, index)
    if tail:
        log_t = torch.cat([t_top, t_tail.unsqueeze(-1)], dim=-1)
        log_s = torch.cat([s_top, s_tail.unsqueeze(-1)], dim=-1)
    else:
        log_t = t_top - torch.logsumexp(t_top, dim=-1, keepdim=True)
        log_s = s_top - torch.logsumexp(s_top, dim=-1, keepdim=True)
    per_token = (
        _kl_terms(log_t, log_s) if direction == "forward" else _kl_terms(log_s, log_t)
    ).sum(-1)
    with torch.no_grad():
        log_p = torch.log_softmax(logits.detach(), dim=-1)
        entropy = -(log_p.exp() * log_p).sum(-1)
    return per_token, entropy


def chunked_feedback_distillation_loss(
    student_rows: Tensor,
    teacher: TeacherTopK,
    weights: Tensor,
    *,
    head: Head = None,
    tail: bool = True,
    direction: KLDirection = "forward",
    chunk: int = 1024,
) -> tuple[Tensor, Tensor]:
    """feedback_distillation_loss over N masked positions, chunk rows at a time.

    student_rows: [N, H] final hidden states (head maps them to logits) or [N, V] logits.
    weights: [N] (the mask's values at those positions). Returns (token-mean loss, per-token
    student entropy [N], detached). Equal to the reference on the same positions.
    """
    if direction not in ("forward", "reverse"):
        raise ValueError(f"direction must be 'forward' or 'reverse', got {direction!r}")
    n = student_rows.shape[0]
    if n == 0:
        return student_rows.sum() * 0.0, student_rows.new_zeros((0,)).float()
    losses, entropies = [], []
    for start in range(0, n, max(chunk, 1)):
        part = slice(start, start + chunk)
        per_token, entropy = checkpoint(
            _fd_chunk,
            student_rows[part],
            teacher.index[part],
            teacher.log_probs[part],
            teacher.tail_log_prob[part],
            head,
            tail,
            direction,
            use_reentrant=False,
        )
        losses.append((per_token * weights[part].float()).sum())
        entropies.append(entropy)
    return torch.stack(losses).sum() / weights.float().sum(), torch.cat(entropies)


def _logprob_chunk(
    rows: Tensor, targets: Tensor, temperature: Tensor, head: Head
) -> tuple[Tensor, Tensor]:
    logits = _logits_of(rows, head)
    scaled = logits / temperature.unsqueeze(-1)
    logprobs = scaled.gather(-1, targets.unsqueeze(-1)).squeeze(-1) - torch.logsumexp(
        scaled, dim=-1
    )
    with torch.no_grad():
        log_p = torch.log_softmax(logits.detach(), dim=-1)
        entropy = -(log_p.exp() * log_p).sum(-1)
    return logprobs, entropy


def chunked_token_logprobs(
    rows: Tensor,
    targets: Tensor,
    temperature: Tensor | float = 1.0,
    *,
    head: Head = None,
    chunk: int = 1024,
) -> tuple[Tensor, Tensor]:
    """log softmax(logits / T)[target] per row, [N], chunk rows at a time (GRPO, SFT), and
    the detached full-vocabulary entropy at T = 1 [N]. temperature: a float or [N] (each
    trajectory's own sampling temperature)."""
    n = rows.shape[0]
    temps = torch.as_tensor(temperature, dtype=torch.float32, device=rows.device).expand(n)
    if n == 0:
        return rows.sum() * 0.0 + rows.new_zeros((0,)).float(), rows.new_zeros((0,)).float()
    out, entropies = [], []
    for start in range(0, n, max(chunk, 1)):
        part = slice(start, start + chunk)
        logprobs, entropy = checkpoint(
            _logprob_chunk, rows[part], targets[part], temps[part], head, use_reentrant=False
        )
        out.append(logprobs)
        entropies.append(entropy)
    return torch.cat(out), torch.cat(entropies)


def chunked_fd_peak_bytes(n: int, hidden: int, vocab: int, top_k: int, chunk: int) -> int:
    """Upper bound on the extra memory of one chunked FD loss + backward (fp32): the kept
    rows and teacher top-k, the head's gradient, and one chunk's [c, V] temporaries (logits,
    log-softmax, complement, exp, gradient: at most 6 of them alive at once). The reference
    path's peak is about 7 x 4NV bytes; at N = 8k, V = 152k that is 35 GB against ~2.7 GB
    (c = 512) plus the head gradient. Checked on a small vocabulary in
    tests/training/test_chunked_losses.py."""
    kept = 4 * n * (hidden + 2 * top_k + 2)
    head_grad = 4 * hidden * vocab
    return kept + head_grad + 6 * 4 * min(chunk, n) * vocab
