"""Continual distillation: FD on what the web app collected, promoted only if it is better.

    from training.continual import continual_distill
    result = continual_distill("export.jsonl", config, callback=..., stop=...)

The web engineer wraps this in a `train`-queue Celery task. One call:
  1. reads the snapshot (format in docs/TRAINING.md, "Snapshot format"): problems, students'
     attempts, prover trajectories and teacher-approved feedback;
  2. starts from the checkpoint that serves now (serving.json), else from model.path;
  3. evaluates that starting model on data.eval (the baseline, same problems and samples);
  4. runs training.reinforce.total_steps FD steps: fresh on-policy rollouts on the
     snapshot's problems with the configured coach, plus the snapshot's trajectories that
     carry teacher-approved feedback (replayed; same tokens y, teacher sees the approved
     text). Trajectories whose prompt does not re-tokenize identically (another tokenizer)
     are skipped and counted;
  5. evaluates again, registers the checkpoint, and promotes it to serving only when
     evaluation.select_metric beats the baseline by more than min_improvement.
No held-out set means no promotion: the result says so.
"""

from __future__ import annotations

import copy
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from training.batches import render_prompt_ids
from training.config import Config
from training.runlog import MetricsCallback, StopFlag
from tutor.prover.problem import Problem
from tutor.prover.trajectory import Trajectory

SNAPSHOT_VERSION = 1
APPROVED = ("approved", "edited")


@dataclass
class Snapshot:
    problems: list[Problem] = field(default_factory=list)
    trajectories: list[Trajectory] = field(default_factory=list)
    attempts: list[dict[str, Any]] = field(default_factory=list)
    approved_feedback: dict[str, dict[str, Any]] = field(
        default_factory=dict
    )  # trajectory id -> Feedback dict
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class ContinualResult:
    """What a continual round did. promoted is True only when the new checkpoint won."""

    promoted: bool
    reason: str
    checkpoint: Path | None = None
    baseline: dict[str, float] = field(default_factory=dict)
    candidate: dict[str, float] = field(default_factory=dict)
    steps_done: int = 0
    replayed_trajectories: int = 0
    skipped_trajectories: int = 0
    error: str | None = None


def read_snapshot(path: str | Path) -> Snapshot:
    """Parse the web app's JSONL export; unknown kinds are an error (a format drift)."""
    snapshot = Snapshot()
    by_id: dict[str, Problem] = {}
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            record = json.loads(line)
            kind = record.get("kind")
            if kind == "meta":
                if int(record.get("version", SNAPSHOT_VERSION)) != SNAPSHOT_VERSION:
                    raise ValueError(
                        f"{path}:{number}: snapshot version {record.get('version')} is not {SNAPSHOT_VERSION}"
                    )
                snapshot.meta = record
            elif kind == "problem":
                problem = Problem.from_dict(record["problem"])
                by_id[problem.id] = problem
            elif kind == "attempt":
                snapshot.attempts.append(record)
            elif kind == "trajectory":
                trajectory = Trajectory.from_dict(record["trajectory"])
                trajectory_id = str(record.get("id", len(snapshot.trajectories)))
                snapshot.trajectories.append(trajectory)
                trajectory.sampling.setdefault("snapshot_id", trajectory_id)
            elif kind == "feedback":
                if record.get("status") in APPROVED and record.get("trajectory_id") is not None:
                    snapshot.approved_feedback[str(record["trajectory_id"])] = record["feedback"]
            else:
                raise ValueError(
                    f"{path}:{number}: unknown record kind {kind!r} (meta, problem, attempt, trajectory, feedback)"
                )
    snapshot.problems = list(by_id.values())
    return snapshot


def replay_pool(snapshot: Snapshot, tokenizer: Any) -> tuple[list[Trajectory], int]:
    """Trajectories with teacher-approved feedback whose prompt re-tokenizes identically."""
    pool, skipped = [], 0
    for trajectory in snapshot.trajectories:
        feedback = snapshot.approved_feedback.get(str(trajectory.sampling.get("snapshot_id")))
        if feedback is None or not sum(trajectory.mask):
            continue
        try:
            trajectory.check_alignment()
            same = (
                render_prompt_ids(tokenizer, trajectory.prompt_messages, trajectory.tools)
                == trajectory.token_ids[: trajectory.prompt_length]
            )
        except (ValueError, TypeError):
            same = False
        if not same:
            skipped += 1
            continue
        trajectory.feedback = feedback  # the teacher's approved (or edited) text wins
        pool.append(trajectory)
    return pool, skipped


def continual_distill(
    snapshot_path: str | Path,
    config: Config,
    *,
    callback: MetricsCallback | None = None,
    stop: StopFlag | None = None,
    rollout_factory: Any = None,
    coach: Any = None,
    min_improvement: float = 0.0,
) -> ContinualResult:
    from training.api import lean_rollout_factory, make_coach_for
    from training.checkpoints import CheckpointRegistry
    from training.fd import train_fd
    from training.session import evaluate_now, open_session

    config = copy.deepcopy(config)
    config.training.reinforce.algorithm = "FD"
    config.checkpoints.resume = False  # every round starts from what serves, not a half run
    if not config.run.name or config.run.name == "run":
        config.run.name = time.strftime("continual-%Y%m%d-%H%M%S")
    registry = CheckpointRegistry(config.checkpoints.registry)
    serving = registry.serving_path()
    if serving is not None:
        config.model.path = str(serving)
    snapshot = read_snapshot(snapshot_path)
    if not snapshot.problems and not snapshot.trajectories:
        return ContinualResult(
            promoted=False, reason="the snapshot holds no problems and no trajectories"
        )
    run_dir = Path(config.run.output_dir) / config.run.name
    run_dir.mkdir(parents=True, exist_ok=True)
    problems_file = run_dir / "snapshot_problems.jsonl"
    problems_file.write_text(
        "".join(json.dumps(p.to_dict()) + "\n" for p in snapshot.problems), encoding="utf-8"
    )
    config.data.train = str(problems_file) if snapshot.problems else ""
    config.data.snapshot = str(snapshot_path)

    rollout_factory = rollout_factory or lean_rollout_factory(config)
    coach = coach or make_coach_for(config)
    session = open_session(
        config, "fd", callback=callback, stop=stop, rollout_factory=rollout_factory, coach=coach
    )
    session.data_snapshot["snapshot"] = {
        "path": str(snapshot_path),
        "meta": snapshot.meta,
        "problems": len(snapshot.problems),
        "trajectories": len(snapshot.trajectories),
        "approved_feedback": len(snapshot.approved_feedback),
    }
    session.replay, skipped = replay_pool(snapshot, session.tokenizer)
    if session.cursor is None and not session.replay:
        return ContinualResult(
            promoted=False,
            reason="nothing to train on: no problems and no replayable approved trajectories",
            skipped_trajectories=skipped,
        )

    baseline = {k.removeprefix("eval/"): v for k, v in evaluate_now(session, None).items()}
    result = train_fd(session)
    outcome = ContinualResult(
        promoted=False,
        reason="",
        checkpoint=result.last_checkpoint,
        baseline=baseline,
        steps_done=result.steps_done,
        replayed_trajectories=len(session.replay),
        skipped_trajectories=skipped,
        error=result.error,
    )
    if result.last_checkpoint is None:
        outcome.reason = "no checkpoint was written (stopped before the first step)"
        return outcome
    meta = registry.read_meta(result.last_checkpoint)
    outcome.candidate = meta.get("eval", {})
    metric = config.evaluation.select_metric
    if metric not in baseline or metric not in outcome.candidate:
        outcome.reason = (
            f"no held-out evaluation of {metric} (set data.eval): registered, not promoted"
        )
        return outcome
    if outcome.candidate[metric] > baseline[metric] + min_improvement:
        promotion = registry.promote(
            result.last_checkpoint,
            reason=f"{metric} {baseline[metric]:.4f} -> {outcome.candidate[metric]:.4f}",
        )
        outcome.promoted = promotion.ok
        outcome.reason = (
            promotion.reason
            or f"{metric} improved from {baseline[metric]:.4f} to {outcome.candidate[metric]:.4f}"
        )
    else:
        outcome.reason = f"{metric} {outcome.candidate[metric]:.4f} does not beat the serving {baseline[metric]:.4f} (+{min_improvement})"
    return outcome
