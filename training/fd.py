"""Feedback Distillation: on-policy self-distillation from an EMA teacher that saw the coach.

Run: `python -m training fd --config FILE` (see docs/TRAINING.md). One step:
  1. the student samples one trajectory per problem in the Lean tool environment (the
     prover's rollout, shared with GRPO);
  2. the coach reads each (statement, attempt, Lean's messages) and writes feedback;
  3. the teacher (EMA copy of the student) reads the prompt with that feedback appended to
     the user turn, followed by the *same* tokens y; no gradient flows through it;
  4. loss = token-mean over generated tokens of the top-25 KL with tail bucket
     (training.losses.feedback_distillation_loss);
  5. every fd.ema_every optimizer steps: theta_T <- alpha theta_T + (1 - alpha) theta.
Departures from the paper: none in the loss; the tail=False variant renormalises over the
top-k (the paper does not describe one). Trajectories whose coach call failed are dropped
from the step (counted in coach_failures), never given invented feedback.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import torch

from training import distributed
from training.batches import (
    micro_batches,
    response_logits,
    response_targets,
    student_batch,
    teacher_batch,
)
from training.ema import ema_update_
from training.losses import KLDirection, feedback_distillation_loss
from training.metrics import hedging_frequency, mean_token_entropy
from training.rollouts import assistant_text, attach_feedback
from training.session import Session, optimizer_step, sample, token_share
from tutor.prover.trajectory import Trajectory


def fd_loss_on(
    session: Session, trajectories: Sequence[Trajectory], feedbacks: Sequence[str]
) -> tuple[torch.Tensor, dict[str, float]]:
    """The FD loss of one micro-batch (token mean within it) and its statistics."""
    cfg = session.config.fd
    teacher = session.ensure_teacher()
    student_in = student_batch(trajectories, session.pad_id, session.device)
    teacher_in = teacher_batch(
        trajectories, feedbacks, session.tokenizer, session.pad_id, session.device
    )
    targets = response_targets(trajectories, session.device)
    width = targets.mask.shape[1]
    with torch.no_grad():
        teacher_logits = response_logits(teacher, teacher_in, width)
    if distributed.is_sharded(teacher):
        distributed.reshard(teacher)
    student_logits = response_logits(session.model, student_in, width)
    loss = feedback_distillation_loss(
        student_logits,
        teacher_logits,
        targets.mask,
        top_k=cfg.top_k,
        tail=cfg.tail,
        direction=cast(KLDirection, cfg.kl_direction),
    )
    stats = {
        "tokens": float(targets.mask.sum()),
        "entropy": mean_token_entropy(student_logits.detach(), targets.mask),
        "teacher_entropy": mean_token_entropy(teacher_logits, targets.mask),
    }
    return loss, stats


def fd_update(
    session: Session, trajectories: Sequence[Trajectory], feedbacks: Sequence[str]
) -> dict[str, Any]:
    """Backward over micro-batches (weighted to one token mean), one optimizer step, EMA."""
    cfg = session.config
    total_tokens = float(sum(sum(t.mask) for t in trajectories))
    pairs = list(zip(trajectories, feedbacks, strict=True))
    loss_sum = entropy_sum = teacher_entropy_sum = 0.0
    for chunk in micro_batches(pairs, cfg.optimizer.micro_batch_size):
        trajs = [t for t, _ in chunk]
        loss, stats = fd_loss_on(session, trajs, [f for _, f in chunk])
        share = token_share(stats["tokens"], total_tokens)
        (loss * share).backward()
        weight = stats["tokens"] / total_tokens if total_tokens else 0.0
        loss_sum += loss.item() * weight
        entropy_sum += stats["entropy"] * weight
        teacher_entropy_sum += stats["teacher_entropy"] * weight
    grad_norm = optimizer_step(session)
    # session.step counts completed steps; this one is step + 1.
    ema_applied = (session.step + 1) % cfg.fd.ema_every == 0
    if ema_applied:
        ema_update_(session.ensure_teacher(), session.model, cfg.fd.ema_alpha)
    return {
        "loss": loss_sum,
        "fd_loss": loss_sum,
        "fd_kl": loss_sum,  # the loss is the student-teacher KL on the teacher's top-k
        "entropy": entropy_sum,
        "teacher_entropy": teacher_entropy_sum,
        "grad_norm": grad_norm,
        "ema_applied": ema_applied,
        "tokens": total_tokens,
    }


def rollout_stats(session: Session, trajectories: Sequence[Trajectory]) -> dict[str, Any]:
    """Reward, verdict counts, response length, hedging and lemma discovery of a batch."""
    from training.evaluate import library_lemmas

    rewards = [t.reward for t in trajectories]
    could_not_check = sum(1 for r in rewards if r is None)
    for t in trajectories:
        if t.reward == 1.0 and t.final_proof:
            session.lemmas_seen.update(library_lemmas(t.final_proof))
    session.trajectories_seen += len(trajectories)
    return {
        "reward": sum(r or 0.0 for r in rewards) / max(len(rewards), 1),
        "could_not_check": could_not_check,
        "trajectories": len(trajectories),
        "response_length": sum(t.n_generated_tokens for t in trajectories)
        / max(len(trajectories), 1),
        "hedging_per_1k_words": hedging_frequency(assistant_text(t) for t in trajectories),
        "lemmas_discovered": len(session.lemmas_seen),
    }


def fd_step(session: Session) -> dict[str, Any]:
    if session.cursor is None and not session.replay:
        raise ValueError("FD needs training problems: set data.train")
    if session.coach is None:
        raise ValueError("FD needs a coach: set coach.source (fixed needs no API key)")
    cfg = session.config
    # Continual distillation replays snapshot trajectories with teacher-approved feedback
    # for up to half the batch (all of it when there are no problems to roll out).
    replayed = session.take_replay(
        cfg.fd.batch_size if session.cursor is None else cfg.fd.batch_size // 2
    )
    fresh = cfg.fd.batch_size - len(replayed)
    problems = session.cursor.take(fresh) if session.cursor is not None and fresh else []
    trajectories = sample(session, problems, 1) if problems else []
    metrics = rollout_stats(session, trajectories)
    metrics["replayed"] = len(replayed)
    outcome = attach_feedback(session.coach, [*trajectories, *replayed], session.problems_by_id)
    metrics["coach_failures"] = len(outcome.failures)
    usable = [
        (t, f) for t, f in zip(outcome.with_feedback, outcome.texts, strict=True) if sum(t.mask) > 0
    ]
    if not usable:
        # Nothing to learn from (every coach call failed): no update, and the log says so.
        metrics["skipped"] = True
        return metrics
    metrics.update(fd_update(session, [t for t, _ in usable], [f for _, f in usable]))
    return metrics


def train_fd(session: Session) -> Any:
    from training.session import run_loop

    return run_loop(session, fd_step, session.config.training.reinforce.total_steps)
