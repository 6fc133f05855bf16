"""GRPO: RL from Lean-verified binary rewards with group-normalised advantages.

Run: `python -m training grpo --config FILE`. One step:
  1. grpo.problems_per_step problems, grpo.group_size samples each (the same prover rollout
     as FD), grouped consecutively;
  2. reward = the checker's verdict (1 valid, 0 otherwise); "could not check" (timeout,
     crash, Lean unavailable: reward None) counts as 0 and is logged as could_not_check;
  3. A_i = (r_i - mean) / (std + 1e-6) within each group (training.losses.group_advantages);
  4. clipped objective, token mean over the batch (training.losses.grpo_loss), optional
     beta * KL to the initial policy (beta = 0 by default, as in the paper).
The ratio's denominator is the training model's log-prob before the first update; with
updates_per_batch = 1 the ratio is exactly 1. The sampler's own log-probs (stored per token
by the rollout) correct for sampler/trainer mismatch (vLLM kernels, bf16) through truncated
importance weights min(pi_trainer / pi_sampler, grpo.is_cap) (grpo.sampler_correction), and
every log-prob is taken at the temperature the trajectory was sampled at (exploration
rollouts: reinforce.exploration_temperature).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from training import distributed
from training.batches import (
    ResponseRows,
    reduce_response_rows,
    response_logits,
    response_targets,
    scatter_rows,
    student_batch,
    token_logprobs,
    trajectory_temperatures,
)
from training.ema import make_teacher
from training.fd import rollout_stats
from training.losses import (
    chunked_token_logprobs,
    group_advantages,
    grpo_loss,
    truncated_importance_weights,
)
from training.metrics import mean_token_entropy
from training.session import (
    Session,
    agreed_micro_batches,
    global_totals,
    optimizer_step,
    sample,
    token_weight,
)
from tutor.prover.trajectory import Trajectory


def rewards_of(trajectories: Sequence[Trajectory]) -> torch.Tensor:
    """None ("could not check") becomes 0 here; rollout_stats counts it separately."""
    return torch.tensor(
        [t.reward if t.reward is not None else 0.0 for t in trajectories], dtype=torch.float32
    )


def _reference(session: Session) -> Any:
    """The frozen initial policy for the beta KL term (made on first use, only if beta > 0;
    under FSDP open_session makes it, sharded like the student)."""
    if session.reference is None:
        session.reference = make_teacher(session.model)
    return session.reference


def policy_logprobs(
    session: Session, model: Any, batch: Any, targets: Any, temperatures: torch.Tensor
) -> tuple[torch.Tensor, float]:
    """log pi(y_t) at each trajectory's sampling temperature, [B, R] (0 off the mask), and
    the policy's mean token entropy; chunked over positions unless model.loss_chunk_tokens=0."""
    chunk = session.config.model.loss_chunk_tokens
    mask = targets.mask
    with session.autocast():
        if chunk == 0:
            logits = response_logits(model, batch, mask.shape[1])
            logprobs = token_logprobs(logits, targets.token_ids, temperatures.view(-1, 1, 1))
            return logprobs * (mask != 0), mean_token_entropy(logits.detach(), mask)

        def reduce(rows: ResponseRows) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
            row_temps = temperatures.unsqueeze(-1).expand_as(mask)[rows.selected]
            values, entropy = chunked_token_logprobs(
                rows.rows, targets.token_ids[rows.selected], row_temps, head=rows.head, chunk=chunk
            )
            return values, entropy, rows.weights

        values, entropy, weights = reduce_response_rows(model, batch, mask, reduce)
    total = float(weights.sum())
    mean_entropy = float((entropy * weights).sum()) / total if total else 0.0
    return scatter_rows(values, mask != 0), mean_entropy


def sampler_weights(
    session: Session, trajectories: Sequence[Trajectory], old: torch.Tensor, targets: Any
) -> torch.Tensor | None:
    """Truncated importance weights trainer/sampler per token (grpo.sampler_correction).
    Trajectories that carry no sampler log-probs (replayed or human data) get weight 1."""
    cfg = session.config.grpo
    if cfg.sampler_correction == "none":
        return None
    has_sampler = torch.tensor(
        [any(lp != 0.0 for lp in t.logprobs) for t in trajectories], device=old.device
    )
    mask = targets.mask * has_sampler.unsqueeze(-1)
    return truncated_importance_weights(old, targets.sampled_logprobs, mask, cfg.is_cap)


def grpo_loss_on(
    session: Session,
    trajectories: Sequence[Trajectory],
    advantages: torch.Tensor,
    old: torch.Tensor | None,
) -> tuple[torch.Tensor, torch.Tensor, dict[str, float]]:
    """GRPO loss of one micro-batch; returns (loss, the detached old log-probs, stats).

    The ratio's denominator is the trainer's own log-prob before the first update (so the
    PPO clip measures how far the updates moved); the sampler/trainer mismatch is corrected
    separately by truncated importance weights from the sampler's stored log-probs. Both use
    each trajectory's sampling temperature."""
    cfg = session.config
    batch = student_batch(trajectories, session.pad_id, session.device)
    targets = response_targets(trajectories, session.device)
    temps = trajectory_temperatures(trajectories, cfg.model.temperature, session.device)
    logprobs, entropy = policy_logprobs(session, session.model, batch, targets, temps)
    old_logprobs = logprobs.detach() if old is None else old
    is_weights = sampler_weights(session, trajectories, old_logprobs, targets)
    ref_logprobs = None
    if cfg.grpo.beta > 0:
        reference = _reference(session)
        with torch.no_grad():
            ref_logprobs, _ = policy_logprobs(session, reference, batch, targets, temps)
        if distributed.is_sharded(reference):
            distributed.reshard(reference)  # a no_grad forward leaves the root gathered
    loss = grpo_loss(
        logprobs,
        old_logprobs,
        advantages.to(session.device),
        targets.mask,
        clip_eps=cfg.grpo.clip_eps,
        ref_logprobs=ref_logprobs,
        beta=cfg.grpo.beta,
        is_weights=is_weights,
    )
    mask = targets.mask
    n = float(mask.sum())
    clipped = clipped_tokens(
        logprobs.detach(), old_logprobs, advantages.to(session.device), cfg.grpo.clip_eps
    )
    stats = {
        "tokens": n,
        "entropy": entropy,
        "clip_fraction": float((clipped * mask).sum() / n) if n else 0.0,
    }
    if is_weights is not None and n:
        stats["is_weight_mean"] = float((is_weights * mask).sum() / n)
        stats["is_truncated_fraction"] = float(((is_weights >= cfg.grpo.is_cap) * mask).sum() / n)
    return loss, old_logprobs, stats


def clipped_tokens(
    logprobs: torch.Tensor, old_logprobs: torch.Tensor, advantages: torch.Tensor, clip_eps: float
) -> torch.Tensor:
    """[B, T] 1.0 where the PPO clip is active, i.e. where min(rho A, clip(rho) A) takes the
    clipped branch and the token's gradient is zero: rho > 1 + eps with A > 0, or
    rho < 1 - eps with A < 0. A ratio outside the band on the other side of 1 is not
    clipped (the unclipped term is the smaller one and keeps its gradient)."""
    ratio = torch.exp(logprobs - old_logprobs)
    adv = advantages.view(-1, 1)
    return (((ratio > 1 + clip_eps) & (adv > 0)) | ((ratio < 1 - clip_eps) & (adv < 0))).float()


def grpo_update(
    session: Session,
    trajectories: Sequence[Trajectory],
    advantages: torch.Tensor,
    weight: float = 1.0,
) -> dict[str, Any]:
    """updates_per_batch optimizer passes over the rollouts (1 by default). Ranks agree on
    the number of micro-batches (zero-weight placeholders pad the short ones) and skip the
    update together when no rank has a token."""
    cfg = session.config
    [global_tokens] = global_totals(sum(sum(t.mask) for t in trajectories))
    if global_tokens == 0:
        return {"skipped": True}
    chunks = agreed_micro_batches(list(range(len(trajectories))), cfg.optimizer.micro_batch_size)
    old_by_chunk: list[torch.Tensor | None] = [None] * len(chunks)
    sums: dict[str, float] = {}
    grad_norm = 0.0
    for _ in range(cfg.grpo.updates_per_batch):
        sums = dict.fromkeys(("loss", "entropy", "clip_fraction", "is", "truncated"), 0.0)
        for i, idx in enumerate(chunks):
            if idx:
                trajs, adv = [trajectories[j] for j in idx], advantages[list(idx)]
            else:
                trajs, adv = [session.placeholder()], torch.zeros(1)
            loss, old, stats = grpo_loss_on(session, trajs, adv, old_by_chunk[i])
            old_by_chunk[i] = old
            tokens = stats["tokens"] if idx else 0.0
            (loss * token_weight(tokens, global_tokens) * weight).backward()
            share = tokens / global_tokens
            sums["loss"] += loss.item() * share
            sums["entropy"] += stats["entropy"] * share
            sums["clip_fraction"] += stats["clip_fraction"] * share
            sums["is"] += stats.get("is_weight_mean", 1.0) * share
            sums["truncated"] += stats.get("is_truncated_fraction", 0.0) * share
        grad_norm = optimizer_step(session)
    # Each figure is this rank's share of the global token mean: reduce_metrics sums them.
    return {
        "loss": sums["loss"],
        "grpo_loss": sums["loss"],
        "entropy": sums["entropy"],
        "clip_fraction": sums["clip_fraction"],
        "is_weight_mean": sums["is"],
        "is_truncated_fraction": sums["truncated"],
        "grad_norm": grad_norm,
        "tokens": float(sum(sum(t.mask) for t in trajectories)),
        "placeholder_micro_batches": sum(1 for idx in chunks if not idx),
    }


def sample_groups(session: Session) -> list[Trajectory]:
    if session.cursor is None:
        raise ValueError("GRPO needs training problems: set data.train")
    cfg = session.config
    # grpo.problems_per_step is global (paper: 64 problems x 10 = 640 trajectories per step).
    problems = session.cursor.take(
        distributed.per_rank(cfg.grpo.problems_per_step, "grpo.problems_per_step")
    )
    return sample(session, problems, cfg.grpo.group_size)


def grpo_step(session: Session) -> dict[str, Any]:
    cfg = session.config
    trajectories = sample_groups(session)
    metrics = rollout_stats(session, trajectories)
    metrics["batch_global"] = cfg.grpo.trajectories_per_step
    metrics["batch_per_rank"] = len(trajectories)
    advantages = group_advantages(
        rewards_of(trajectories), cfg.grpo.group_size, cfg.grpo.scale_advantages
    )
    metrics["zero_advantage_groups"] = int(
        (advantages.view(-1, cfg.grpo.group_size).abs().sum(1) == 0).sum()
    )
    metrics.update(grpo_update(session, trajectories, advantages))
    return metrics


def train_grpo(session: Session) -> Any:
    from training.session import run_loop

    return run_loop(session, grpo_step, session.config.training.reinforce.total_steps)
