"""Exact resume through the trainer's own resume path: 4 FD steps straight and 2 steps, a
new process-like session resumed from the checkpoint, 2 more steps give the same losses and
the same weights and teacher, bit for bit.

Everything that shapes a step is real: rollouts sampled by the live tiny model through the
prover's HF policy (tutor.prover.policy.hf, seeded per step: training.session.rollout_seed),
the agent loop and the checker double, dropout in the model's attention (torch's global
generator: saved and restored, training.session.capture_rng), an evaluation in between (its
own seed; the training generators are given back), the EMA teacher on a period that
crosses the interruption, the data cursor, AdamW's state. Before, the rollout seed came
from a call counter that restarted at 0 in every process: the resumed losses diverged
from step 3."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import torch
from safetensors.torch import load_file

from tests.training.conftest import PROBLEMS
from training.api import run_stage
from training.config import tiny_cpu_config
from training.rollouts import prover_rollout
from tutor.coach.fixed import FixedCoach


def _dropout_model(tiny_model_dir: Path, target: Path) -> Path:
    """The tiny model with attention dropout on, so training forwards draw from torch's
    global generator, as real models with dropout do."""
    shutil.copytree(tiny_model_dir, target)
    config = json.loads((target / "config.json").read_text())
    config["attention_dropout"] = 0.2
    (target / "config.json").write_text(json.dumps(config))
    return target


def _config(model: Path, problems: Path, tmp_path: Path, name: str, steps: int) -> Any:
    config = tiny_cpu_config(str(model), str(problems), eval_path=str(problems), name=name)
    config.run.output_dir = str(tmp_path / "runs")
    config.run.seed = 11
    config.checkpoints.registry = str(tmp_path / "registry")
    config.checkpoints.every = 2
    config.training.reinforce.total_steps = steps
    config.training.reinforce.algorithm = "FD"
    config.fd.batch_size = 2
    config.fd.ema_every = 3  # the EMA's period crosses the interruption at step 2
    config.evaluation.every = 2
    config.evaluation.max_problems = 1
    config.model.temperature = 1.0
    return config


def _losses(tmp_path: Path, name: str) -> dict[int, float]:
    records = [json.loads(line) for line in (tmp_path / "runs" / name / "metrics.jsonl").open()]
    return {int(r["step"]): float(r["loss"]) for r in records if "loss" in r}


@pytest.mark.slow
def test_fd_resumed_halfway_matches_the_uninterrupted_run_exactly(
    tiny_model_dir: Path, tmp_path: Path, fake_checker: Any, tools_factory: Any
) -> None:
    model = _dropout_model(tiny_model_dir, tmp_path / "model")
    problems = tmp_path / "problems.jsonl"
    problems.write_text("".join(json.dumps(p) + "\n" for p in PROBLEMS))

    def factory(model_: Any, tokenizer: Any, config: Any) -> Any:
        return prover_rollout(
            model_, tokenizer, checker=fake_checker, tools_factory=tools_factory,
            model_config=config.model,
        )  # fmt: skip

    def run(name: str, steps: int) -> Any:
        config = _config(model, problems, tmp_path, name, steps)
        return run_stage(
            "fd", config, coach=FixedCoach(), rollout_factory=lambda m, t: factory(m, t, config)
        )

    straight = run("straight", 4)
    first = run("resumed", 2)
    assert first.steps_done == 2
    second = run("resumed", 4)  # same run name: the trainer resumes from step 2
    assert straight.error is None and second.error is None and second.steps_done == 4

    expected, got = _losses(tmp_path, "straight"), _losses(tmp_path, "resumed")
    assert sorted(expected) == sorted(got) == [1, 2, 3, 4]
    assert got == expected, "the resumed run must reproduce every loss exactly"
    assert len(set(expected.values())) == 4  # the steps differ: it does train and sample
    last = "step-000004"
    for file in ("model.safetensors", "teacher.safetensors"):
        a = load_file(str(tmp_path / "registry/runs/straight" / last / file))
        b = load_file(str(tmp_path / "registry/runs/resumed" / last / file))
        assert a.keys() == b.keys()
        for key in a:
            assert torch.equal(a[key], b[key]), f"{file}: {key} differs"
