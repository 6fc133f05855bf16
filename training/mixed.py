"""Mixed mode: one loss w * L_FD + (1 - w) * L_GRPO per step, on the same rollouts.

Run: `python -m training mixed --config FILE`. w follows seed 000's feedback-weight schedule
(0.3 before 50% of total_steps, 0.6 from 50% to 80%, 0.9 after) or a constant
(training.reinforce.feedback_weight). Each step samples GRPO groups (problems_per_step x
group_size), asks the coach about every rollout, and backpropagates both losses before a
single optimizer step; the EMA teacher updates every fd.ema_every steps as in FD. A rollout
whose coach call failed still counts for GRPO but not for FD.
"""

from __future__ import annotations

from typing import Any

import torch

from training.config import feedback_weight
from training.fd import fd_loss_on, rollout_stats, step_and_ema
from training.grpo import grpo_loss_on, rewards_of, sample_groups
from training.losses import group_advantages
from training.rollouts import attach_feedback
from training.session import (
    Session,
    TrainResult,
    agreed_micro_batches,
    global_totals,
    run_loop,
    token_weight,
)


def mixed_step(session: Session) -> dict[str, Any]:
    cfg = session.config
    if session.coach is None:
        raise ValueError("mixed mode needs a coach: set coach.source (fixed needs no API key)")
    w = feedback_weight(cfg.training.reinforce, session.step)
    trajectories = sample_groups(session)
    metrics = rollout_stats(session, trajectories)
    advantages = group_advantages(
        rewards_of(trajectories), cfg.grpo.group_size, cfg.grpo.scale_advantages
    )

    metrics["zero_advantage_groups"] = int(
        (advantages.view(-1, cfg.grpo.group_size).abs().sum(1) == 0).sum()
    )

    outcome = attach_feedback(
        session.coach,
        trajectories,
        session.problems_by_id,
        max_workers=cfg.coach.concurrency,
        drop_fallback=cfg.coach.drop_fallback,
    )
    metrics.update(outcome.metrics())
    pairs = [
        (t, f) for t, f in zip(outcome.with_feedback, outcome.texts, strict=True) if sum(t.mask) > 0
    ]
    # One collective for both token totals; every loss figure below is this rank's share of
    # the global token mean (reduce_metrics sums them), and the micro-batch loops are padded
    # to the same length on every rank.
    grpo_tokens, fd_tokens = global_totals(
        sum(sum(t.mask) for t in trajectories), sum(sum(t.mask) for t, _ in pairs)
    )
    grpo_sum = 0.0
    grpo_stats = {"entropy": 0.0, "clip_fraction": 0.0, "is_weight_mean": 0.0}
    indices = list(range(len(trajectories)))
    for idx in agreed_micro_batches(indices, cfg.optimizer.micro_batch_size):
        trajs = [trajectories[j] for j in idx] or [session.placeholder()]
        adv = advantages[list(idx)] if idx else torch.zeros(1)
        loss, _, stats = grpo_loss_on(session, trajs, adv, None)
        tokens = stats["tokens"] if idx else 0.0
        ((1.0 - w) * token_weight(tokens, grpo_tokens) * loss).backward()
        share = tokens / grpo_tokens if grpo_tokens else 0.0
        grpo_sum += loss.item() * share
        for key in grpo_stats:
            grpo_stats[key] += stats.get(key, 1.0 if key == "is_weight_mean" else 0.0) * share
    metrics.update(grpo_stats)

    fd_sum = 0.0
    for chunk in agreed_micro_batches(pairs, cfg.optimizer.micro_batch_size):
        trajs = [t for t, _ in chunk] or [session.placeholder()]
        texts = [f for _, f in chunk] or [""]
        loss, stats = fd_loss_on(session, trajs, texts)
        tokens = stats["tokens"] if chunk else 0.0
        (w * token_weight(tokens, fd_tokens) * loss).backward()
        fd_sum += loss.item() * (tokens / fd_tokens if fd_tokens else 0.0)

    grad_norm, ema_applied = step_and_ema(session)
    metrics.update(
        {
            "loss": w * fd_sum + (1.0 - w) * grpo_sum,
            "fd_loss": fd_sum,
            "fd_kl": fd_sum,
            "grpo_loss": grpo_sum,
            "feedback_weight": w,
            "grad_norm": grad_norm,
            "ema_applied": ema_applied,
            "tokens": float(sum(sum(t.mask) for t in trajectories)),
        }
    )
    return metrics


def train_mixed(session: Session) -> TrainResult:
    return run_loop(session, mixed_step, session.config.training.reinforce.total_steps)
