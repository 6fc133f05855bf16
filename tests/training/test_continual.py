"""Continual distillation from a web-app snapshot: FD, evaluate, promote only when better."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from transformers import AutoModelForCausalLM, AutoTokenizer

from tests.training.conftest import PROBLEMS
from training.checkpoints import CheckpointRegistry
from training.config import tiny_cpu_config
from training.continual import continual_distill, read_snapshot
from tutor.coach.fixed import FixedCoach
from tutor.prover.problem import Problem


def _snapshot(tmp_path: Path, tiny_model_dir: Path, rollout_factory: Any, config: Any) -> Path:
    """What the web app exports: problems, an attempt, a prover trajectory and the teacher-
    approved feedback on it (the trajectory is a real rollout of the tiny model)."""
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir)
    tok = AutoTokenizer.from_pretrained(tiny_model_dir)
    problem = Problem.from_dict(PROBLEMS[2])
    trajectory = rollout_factory(model, tok, config.model)([problem], 1, 1.0)[0]
    feedback = {
        "suggestions": [
            {"line": None, "text": "Do use exact with the anonymous constructor.", "kind": "do"}
        ],
        "source": "llm",
    }
    records = [
        {
            "kind": "meta",
            "version": 1,
            "exported_at": "2026-11-29T21:00:00Z",
            "source": "leancoach-webapp",
        },
        *({"kind": "problem", "problem": Problem.from_dict(p).to_dict()} for p in PROBLEMS),
        {
            "kind": "attempt",
            "id": "a1",
            "problem_id": "and_t",
            "code": "theorem and_t ... := by\n  sorry",
            "valid": False,
            "diagnostics": [],
        },
        {"kind": "trajectory", "id": "t1", "trajectory": trajectory.to_dict()},
        {"kind": "feedback", "trajectory_id": "t1", "status": "approved", "feedback": feedback},
        {
            "kind": "feedback",
            "trajectory_id": "t1-other",
            "status": "rejected",
            "feedback": feedback,
        },
    ]
    path = tmp_path / "export.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_read_snapshot_keeps_only_approved_feedback(tmp_path: Path):
    path = tmp_path / "s.jsonl"
    path.write_text(
        json.dumps(
            {"kind": "problem", "problem": {"id": "p", "statement": "theorem p : True := by"}}
        )
        + "\n"
        + json.dumps(
            {"kind": "feedback", "trajectory_id": "x", "status": "rejected", "feedback": {}}
        )
        + "\n"
    )
    snap = read_snapshot(path)
    assert [p.id for p in snap.problems] == ["p"] and snap.approved_feedback == {}
    path.write_text(json.dumps({"kind": "mystery"}) + "\n")
    with pytest.raises(ValueError, match="unknown record kind"):
        read_snapshot(path)


def test_continual_round_trains_registers_and_promotes_only_when_better(
    tiny_model_dir: Path, problems_file: Path, tmp_path: Path, rollout_factory: Any
):
    config = tiny_cpu_config(str(tiny_model_dir), "", eval_path=str(problems_file), name="round1")
    config.run.output_dir = str(tmp_path / "runs")
    config.checkpoints.registry = str(tmp_path / "registry")
    config.training.reinforce.total_steps = 2
    config.evaluation.n_samples, config.evaluation.ks = 2, [1, 2]
    snapshot = _snapshot(tmp_path, tiny_model_dir, rollout_factory, config)
    factory = lambda model, tok: rollout_factory(model, tok, config.model)  # noqa: E731

    # Round 1: any result beats (baseline - 1): promoted, serving.json points at it.
    first = continual_distill(
        snapshot, config, rollout_factory=factory, coach=FixedCoach(), min_improvement=-1.0
    )
    assert first.error is None and first.steps_done == 2
    assert first.replayed_trajectories == 1 and first.skipped_trajectories == 0
    assert first.promoted, first.reason
    registry = CheckpointRegistry(config.checkpoints.registry)
    assert first.checkpoint is not None
    assert registry.serving_path() == first.checkpoint.resolve()
    meta = registry.read_meta(first.checkpoint)
    assert meta["data_snapshot"]["snapshot"]["approved_feedback"] == 1
    assert "pass@1" in first.baseline and "pass@1" in first.candidate
    # After FD the final evaluation also measures the student-teacher KL on coach feedback.
    assert first.candidate["student_teacher_kl"] >= 0

    # Round 2 starts from what serves and must beat it by more than 1.0 pass@1: impossible.
    config.run.name = "round2"
    second = continual_distill(
        snapshot, config, rollout_factory=factory, coach=FixedCoach(), min_improvement=1.0
    )
    assert not second.promoted and "does not beat" in second.reason
    assert second.checkpoint is not None
    assert registry.serving_path() == first.checkpoint.resolve()
    assert registry.read_meta(second.checkpoint)["config"]["model"]["path"] == str(
        first.checkpoint.resolve()
    )
