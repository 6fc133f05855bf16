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
    ResponseRows,
    reduce_response_rows,
    response_logits,
    response_targets,
    student_batch,
    teacher_batch,
)
from training.ema import ema_update_
from training.losses import (
    KLDirection,
    chunked_feedback_distillation_loss,
    feedback_distillation_loss,
    teacher_top_k,
)
from training.metrics import EXTRA_HEDGING_WORDS, hedging_frequency, mean_token_entropy
from training.rollouts import assistant_text, attach_feedback
from training.session import (
    Session,
    agreed_micro_batches,
    global_totals,
    optimizer_step,
    sample,
    token_weight,
)
from tutor.prover.trajectory import Trajectory


def fd_loss_on(
    session: Session, trajectories: Sequence[Trajectory], feedbacks: Sequence[str]
) -> tuple[torch.Tensor, dict[str, float]]:
    """The FD loss of one micro-batch (token mean within it) and its statistics.

    By default (model.loss_chunk_tokens > 0) no [B, L, V] logits are held: the teacher is
    reduced to its top-k log-probs and tail log-prob under no_grad, chunk by chunk, then
    the student's KL is computed chunk by chunk with the output projection recomputed in
    backward (training.losses.chunked_feedback_distillation_loss). 0 is the reference path."""
    cfg = session.config
    teacher = session.ensure_teacher()
    student_in = student_batch(trajectories, session.pad_id, session.device)
    teacher_in = teacher_batch(
        trajectories, feedbacks, session.tokenizer, session.pad_id, session.device
    )
    targets = response_targets(trajectories, session.device)
    chunk = cfg.model.loss_chunk_tokens
    if chunk == 0:
        return _fd_loss_full_logits(session, teacher, student_in, teacher_in, targets)
    with torch.no_grad(), session.autocast():
        top = reduce_response_rows(
            teacher,
            teacher_in,
            targets.mask,
            lambda rows: teacher_top_k(rows.rows, cfg.fd.top_k, head=rows.head, chunk=chunk),
        )
    if distributed.is_sharded(teacher):
        distributed.reshard(teacher)

    def student_loss(rows: ResponseRows) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        loss, entropy = chunked_feedback_distillation_loss(
            rows.rows,
            top,
            rows.weights,
            head=rows.head,
            tail=cfg.fd.tail,
            direction=cast(KLDirection, cfg.fd.kl_direction),
            chunk=chunk,
        )
        return loss, entropy, rows.weights

    with session.autocast():
        loss, entropy, weights = reduce_response_rows(
            session.model, student_in, targets.mask, student_loss
        )
    n = float(weights.sum())
    stats = {
        "tokens": n,
        "entropy": float((entropy * weights).sum()) / n if n else 0.0,
        "teacher_entropy": float((top.entropy * weights).sum()) / n if n else 0.0,
    }
    return loss, stats


def _fd_loss_full_logits(
    session: Session, teacher: Any, student_in: Any, teacher_in: Any, targets: Any
) -> tuple[torch.Tensor, dict[str, float]]:
    """The reference path: full [B, R, V] logits of teacher and student."""
    cfg = session.config.fd
    width = targets.mask.shape[1]
    with torch.no_grad(), session.autocast():
        teacher_logits = response_logits(teacher, teacher_in, width)
    if distributed.is_sharded(teacher):
        distributed.reshard(teacher)
    with session.autocast():
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
    """Backward over micro-batches (weighted to one token mean over all ranks' tokens), one
    optimizer step, EMA. Ranks agree on the number of micro-batches (a rank with fewer runs
    zero-weight placeholders) and skip the update together when no rank has a token."""
    cfg = session.config
    [global_tokens] = global_totals(sum(sum(t.mask) for t in trajectories))
    if global_tokens == 0:
        # Nothing to learn from on any rank (every coach call failed): no update, the log says so.
        return {"skipped": True}
    pairs = list(zip(trajectories, feedbacks, strict=True))
    loss_sum = entropy_sum = teacher_entropy_sum = 0.0
    placeholders = 0
    for chunk in agreed_micro_batches(pairs, cfg.optimizer.micro_batch_size):
        padding = not chunk
        if padding:
            placeholders += 1
            chunk = [(session.placeholder(), "")]
        loss, stats = fd_loss_on(session, [t for t, _ in chunk], [f for _, f in chunk])
        tokens = 0.0 if padding else stats["tokens"]
        (loss * token_weight(tokens, global_tokens)).backward()
        share = tokens / global_tokens
        loss_sum += loss.item() * share
        entropy_sum += stats["entropy"] * share
        teacher_entropy_sum += stats["teacher_entropy"] * share
    grad_norm, ema_applied = step_and_ema(session)
    # Each figure is this rank's share of the global token mean: reduce_metrics sums them.
    return {
        "loss": loss_sum,
        "fd_loss": loss_sum,
        "fd_kl": loss_sum,  # the loss is the student-teacher KL on the teacher's top-k
        "entropy": entropy_sum,
        "teacher_entropy": teacher_entropy_sum,
        "grad_norm": grad_norm,
        "ema_applied": ema_applied,
        "tokens": float(sum(sum(t.mask) for t in trajectories)),
        "placeholder_micro_batches": placeholders,
    }


def rollout_stats(session: Session, trajectories: Sequence[Trajectory]) -> dict[str, Any]:
    """Reward, verdict counts, response length, hedging and lemma discovery of a batch."""
    from training.evaluate import trajectory_lemmas

    rewards = [t.reward for t in trajectories]
    could_not_check = sum(1 for r in rewards if r is None)
    for t in trajectories:
        if t.reward == 1.0 and t.final_proof:
            session.lemmas_seen.update(trajectory_lemmas(t))
    session.trajectories_seen += len(trajectories)
    return {
        "reward": sum(r or 0.0 for r in rewards) / max(len(rewards), 1),
        "could_not_check": could_not_check,
        "trajectories": len(trajectories),
        "response_length": sum(t.n_generated_tokens for t in trajectories)
        / max(len(trajectories), 1),
        "hedging_per_1k_words": hedging_frequency(assistant_text(t) for t in trajectories),
        "hedging_extra_per_1k_words": hedging_frequency(
            (assistant_text(t) for t in trajectories), EXTRA_HEDGING_WORDS
        ),
        "lemmas_discovered": len(session.lemmas_seen),
    }


def fd_batch(
    session: Session,
) -> tuple[dict[str, Any], list[tuple[Trajectory, str]], list[Trajectory]]:
    """This rank's FD batch: fresh rollouts plus replayed trajectories, with feedback.

    Returns (metrics, the (trajectory, feedback text) pairs with sampled tokens, the
    replayed trajectories). Shared by FD and continual distillation."""
    cfg = session.config
    # fd.batch_size is global (paper: 128 per step, whatever the number of GPUs).
    batch_size = distributed.per_rank(cfg.fd.batch_size, "fd.batch_size")
    # Continual distillation replays snapshot trajectories with teacher-approved feedback
    # for up to half the batch (all of it when there are no problems to roll out).
    replayed = session.take_replay(batch_size if session.cursor is None else batch_size // 2)
    fresh = batch_size - len(replayed)
    problems = session.cursor.take(fresh) if session.cursor is not None and fresh else []
    trajectories = sample(session, problems, 1) if problems else []
    metrics = rollout_stats(session, trajectories)
    metrics["replayed"] = len(replayed)
    metrics["batch_global"] = cfg.fd.batch_size
    metrics["batch_per_rank"] = batch_size
    outcome = attach_feedback(
        session.coach,
        [*trajectories, *replayed],
        session.problems_by_id,
        max_workers=cfg.coach.concurrency,
        drop_fallback=cfg.coach.drop_fallback,
    )
    metrics.update(outcome.metrics())
    usable = [
        (t, f) for t, f in zip(outcome.with_feedback, outcome.texts, strict=True) if sum(t.mask) > 0
    ]
    return metrics, usable, replayed


def step_and_ema(session: Session) -> tuple[float, bool]:
    """The optimizer step, then the EMA teacher update every fd.ema_every steps.
    Returns (pre-clip gradient norm, whether the EMA was applied)."""
    cfg = session.config.fd
    grad_norm = optimizer_step(session)
    # session.step counts completed steps; this one is step + 1.
    ema_applied = (session.step + 1) % cfg.ema_every == 0
    if ema_applied:
        ema_update_(session.ensure_teacher(), session.model, cfg.ema_alpha)
    return grad_norm, ema_applied


def fd_step(session: Session) -> dict[str, Any]:
    if session.cursor is None and not session.replay:
        raise ValueError("FD needs training problems: set data.train")
    if session.coach is None:
        raise ValueError("FD needs a coach: set coach.source (fixed needs no API key)")
    metrics, usable, _ = fd_batch(session)
    metrics.update(fd_update(session, [t for t, _ in usable], [f for _, f in usable]))
    return metrics


def train_fd(session: Session) -> Any:
    from training.session import run_loop

    return run_loop(session, fd_step, session.config.training.reinforce.total_steps)
