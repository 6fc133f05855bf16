"""GRPO: RL from Lean-verified binary rewards with group-normalised advantages.

Run: `python -m training grpo --config FILE`. One step:
  1. grpo.problems_per_step problems, grpo.group_size samples each (the same prover rollout
     as FD), grouped consecutively;
  2. reward = the checker's verdict (1 valid, 0 otherwise); "could not check" (timeout,
     crash, Lean unavailable: reward None) counts as 0 and is logged as could_not_check;
  3. A_i = (r_i - mean) / (std + 1e-6) within each group (training.losses.group_advantages);
  4. clipped objective, token mean over the batch (training.losses.grpo_loss), optional
     beta * KL to the initial policy (beta = 0 by default, as in the paper).
The ratio's denominator is recomputed by the training model before the first update (not
taken from the sampler), so sampler numerics (vLLM, bf16, top-p) never bias the ratio; with
updates_per_batch = 1 the ratio is exactly 1 and the gradient is the plain policy gradient.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from training.batches import (
    micro_batches,
    response_logits,
    response_targets,
    student_batch,
    token_logprobs,
)
from training.ema import make_teacher
from training.fd import rollout_stats
from training.losses import group_advantages, grpo_loss
from training.metrics import mean_token_entropy
from training.session import Session, optimizer_step, sample, token_share
from tutor.prover.trajectory import Trajectory


def rewards_of(trajectories: Sequence[Trajectory]) -> torch.Tensor:
    """None ("could not check") becomes 0 here; rollout_stats counts it separately."""
    return torch.tensor(
        [t.reward if t.reward is not None else 0.0 for t in trajectories], dtype=torch.float32
    )


def _reference(session: Session) -> Any:
    """The frozen initial policy for the beta KL term (made on first use, only if beta > 0)."""
    if session.reference is None:
        session.reference = make_teacher(session.rollout_model)
    return session.reference


def grpo_loss_on(
    session: Session,
    trajectories: Sequence[Trajectory],
    advantages: torch.Tensor,
    old: torch.Tensor | None,
) -> tuple[torch.Tensor, torch.Tensor, dict[str, float]]:
    """GRPO loss of one micro-batch; returns (loss, the detached log-probs, stats)."""
    cfg = session.config
    batch = student_batch(trajectories, session.pad_id, session.device)
    targets = response_targets(trajectories, session.device)
    width = targets.mask.shape[1]
    logits = response_logits(session.model, batch, width)
    logprobs = token_logprobs(logits, targets.token_ids, cfg.model.temperature)
    old_logprobs = logprobs.detach() if old is None else old
    ref_logprobs = None
    if cfg.grpo.beta > 0:
        with torch.no_grad():
            ref_logprobs = token_logprobs(
                response_logits(_reference(session), batch, width),
                targets.token_ids,
                cfg.model.temperature,
            )
    loss = grpo_loss(
        logprobs,
        old_logprobs,
        advantages.to(session.device),
        targets.mask,
        clip_eps=cfg.grpo.clip_eps,
        ref_logprobs=ref_logprobs,
        beta=cfg.grpo.beta,
    )
    ratio = torch.exp(logprobs.detach() - old_logprobs)
    clipped = ((ratio - 1).abs() > cfg.grpo.clip_eps).float()
    n = float(targets.mask.sum())
    stats = {
        "tokens": n,
        "entropy": mean_token_entropy(logits.detach(), targets.mask),
        "clip_fraction": float((clipped * targets.mask).sum() / n) if n else 0.0,
    }
    return loss, old_logprobs, stats


def grpo_update(
    session: Session,
    trajectories: Sequence[Trajectory],
    advantages: torch.Tensor,
    weight: float = 1.0,
) -> dict[str, Any]:
    """updates_per_batch optimizer passes over the rollouts (1 by default)."""
    cfg = session.config
    total_tokens = float(sum(sum(t.mask) for t in trajectories))
    chunks = micro_batches(list(range(len(trajectories))), cfg.optimizer.micro_batch_size)
    old_by_chunk: list[torch.Tensor | None] = [None] * len(chunks)
    loss_sum = entropy_sum = clip_sum = grad_norm = 0.0
    for _ in range(cfg.grpo.updates_per_batch):
        loss_sum = entropy_sum = clip_sum = 0.0
        for i, idx in enumerate(chunks):
            trajs = [trajectories[j] for j in idx]
            loss, old, stats = grpo_loss_on(session, trajs, advantages[list(idx)], old_by_chunk[i])
            old_by_chunk[i] = old
            share = token_share(stats["tokens"], total_tokens)
            (loss * share * weight).backward()
            w = stats["tokens"] / total_tokens if total_tokens else 0.0
            loss_sum += loss.item() * w
            entropy_sum += stats["entropy"] * w
            clip_sum += stats["clip_fraction"] * w
        grad_norm = optimizer_step(session)
    return {
        "loss": loss_sum,
        "grpo_loss": loss_sum,
        "entropy": entropy_sum,
        "clip_fraction": clip_sum,
        "grad_norm": grad_norm,
        "tokens": total_tokens,
    }


def sample_groups(session: Session) -> list[Trajectory]:
    if session.cursor is None:
        raise ValueError("GRPO needs training problems: set data.train")
    cfg = session.config
    problems = session.cursor.take(cfg.grpo.problems_per_step)
    return sample(session, problems, cfg.grpo.group_size)


def grpo_step(session: Session) -> dict[str, Any]:
    cfg = session.config
    trajectories = sample_groups(session)
    metrics = rollout_stats(session, trajectories)
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
