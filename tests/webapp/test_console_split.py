"""The console's runs leave out the problems continual distillation holds out, by the same
split: continual's configured seed and fractions (LEANCOACH_CONTINUAL_CONFIG), selection
problems in the run's eval file, gate problems nowhere. Before, the console split with seed
0 and 20% whatever continual was configured with, so console runs could train on the
gate's problems."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.webapp.cast import Cast
from training.classroom import held_out_split
from training.config import ClassroomConfig
from tutor.prover.problem import Problem
from webapp.attempts.export import problem_id
from webapp.console import training_bridge
from webapp.console.models import TrainingRun
from webapp.courses.models import Exercise


@pytest.fixture
def var_dirs(settings, tmp_path: Path) -> Path:
    settings.VAR_DIR = tmp_path / "var"
    settings.CHECKPOINT_ROOT = tmp_path / "var" / "checkpoints"
    return tmp_path / "var"


def test_console_runs_use_continuals_configured_split(
    cast: Cast, var_dirs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(19):
        Exercise.objects.create(
            world=cast.exercise.world, order=10 + i, name=f"cast_refl_{i}",
            formal_statement=f"theorem cast_refl_{i} (n : Nat) : n + {i} = n + {i} := by",
            reference_proof="  rfl",
        )  # fmt: skip
    config = tmp_path / "continual.yaml"
    config.write_text("run:\n  seed: 7\nclassroom:\n  eval_fraction: 0.4\n  gate_fraction: 0.5\n")
    monkeypatch.setenv("LEANCOACH_CONTINUAL_CONFIG", str(config))
    run = TrainingRun.objects.create(algorithm="FD", course=cast.course, created_by=cast.admin)
    problems_file = tmp_path / "run" / "problems.jsonl"
    training_bridge.export_problems(run, problems_file)

    exercises = list(Exercise.objects.all())
    problems = [Problem(id=problem_id(e), statement=e.formal_statement) for e in exercises]
    split = held_out_split(problems, ClassroomConfig(eval_fraction=0.4, gate_fraction=0.5), 7)
    name = {problem_id(e): e.name for e in exercises}
    trained = {json.loads(line)["name"] for line in problems_file.read_text().splitlines()}
    evaluated = {
        json.loads(line)["name"]
        for line in training_bridge.eval_file(problems_file).read_text().splitlines()
    }
    assert len(split.held_out) == 8 and len(split.gate) == 4
    assert trained == {e.name for e in exercises} - {name[p] for p in split.held_out}
    assert evaluated == {name[p] for p in split.selection}
    # The default split (seed 0, 20%) is another one: the old console split left problems
    # of this gate in training.
    default = held_out_split(problems, ClassroomConfig(), 0)
    assert default.held_out != split.held_out
