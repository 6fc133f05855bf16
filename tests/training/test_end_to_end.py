"""End to end on CPU: the tiny Qwen3, the prover's rollout in the tool environment, a
LeanChecker on the REPL protocol double, the fixed coach. FD steps, then GRPO steps; then
resume. Shrinks against the paper are those of training.config.tiny_cpu_config."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch
from safetensors.torch import load_file

from training.api import run_stage
from training.checkpoints import CheckpointRegistry
from training.config import Config, tiny_cpu_config
from training.runlog import StopFlag, read_metrics
from tutor.coach.fixed import FixedCoach


def _config(tiny_model_dir: Path, problems_file: Path, tmp_path: Path, total: int) -> Config:
    config = tiny_cpu_config(str(tiny_model_dir), str(problems_file), name="e2e")
    config.run.output_dir = str(tmp_path / "runs")
    config.checkpoints.registry = str(tmp_path / "registry")
    config.training.reinforce.total_steps = total
    config.training.reinforce.switch_step = 2
    return config


def _weights(path: Path) -> dict[str, torch.Tensor]:
    return load_file(str(path / "model.safetensors"))


def _differs(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> bool:
    return any(not torch.equal(a[k], b[k]) for k in a if k in b)


def test_fd_then_grpo_trains_checkpoints_logs_and_resumes(
    tiny_model_dir: Path, problems_file: Path, tmp_path: Path, rollout_factory: Any
) -> None:
    records: list[dict[str, Any]] = []
    config = _config(tiny_model_dir, problems_file, tmp_path, total=4)
    initial = load_file(str(tiny_model_dir / "model.safetensors"))

    result = run_stage(
        "fd-grpo",
        config,
        callback=records.append,
        coach=FixedCoach(),
        rollout_factory=lambda model, tok: rollout_factory(model, tok, config.model),
    )

    assert result.error is None and result.steps_done == 4
    assert result.metrics_path is not None
    # Metrics: one record per step, to the callback and the JSONL file, FD then GRPO.
    logged = read_metrics(result.metrics_path)
    assert (
        [r["stage"] for r in logged]
        == ["fd", "fd", "grpo", "grpo"]
        == [r["stage"] for r in records]
    )
    assert all(r["fd_kl"] >= 0 for r in logged[:2])
    assert all("grpo_loss" in r and "reward" in r for r in logged[2:])
    # The scripted half of each GRPO group proves add_zero_t / two_mul_t through the real
    # agent loop and the checker double, the live tiny model does not: rewards vary.
    assert any(r["zero_advantage_groups"] == 0 and r["grad_norm"] > 0 for r in logged[2:])
    assert result.plots and all(p.exists() and p.suffix == ".png" for p in result.plots)

    # Checkpoints every 2 steps: FD's (step 2, with its EMA teacher) and GRPO's (step 4).
    registry = CheckpointRegistry(config.checkpoints.registry)
    steps = [info.step for info in registry.list("e2e")]
    assert steps == [2, 4]
    after_fd = _weights(registry.run_dir("e2e") / "step-000002")
    after_grpo = _weights(registry.run_dir("e2e") / "step-000004")
    assert _differs(initial, after_fd), "FD steps must change the parameters"
    assert _differs(after_fd, after_grpo), "GRPO steps must change the parameters"
    assert (registry.run_dir("e2e") / "step-000002" / "teacher.safetensors").exists()
    meta = registry.read_meta(registry.run_dir("e2e") / "step-000004")
    assert meta["step"] == 4 and meta["stage"] == "fd-grpo" and meta["config"]["fd"]["top_k"] == 25

    # Resume: the same run with 6 steps starts at step 5, from step 4's weights.
    config = _config(tiny_model_dir, problems_file, tmp_path, total=6)
    resumed = run_stage(
        "fd-grpo",
        config,
        coach=FixedCoach(),
        rollout_factory=lambda model, tok: rollout_factory(model, tok, config.model),
    )
    assert resumed.metrics_path is not None
    logged = read_metrics(resumed.metrics_path)
    assert [r["step"] for r in logged] == [1, 2, 3, 4, 5, 6]
    assert resumed.steps_done == 6
    assert [info.step for info in registry.list("e2e")] == [2, 4, 6]


def test_a_set_stop_flag_ends_the_run_before_the_first_step(
    tiny_model_dir: Path, problems_file: Path, tmp_path: Path, rollout_factory: Any
) -> None:
    config = _config(tiny_model_dir, problems_file, tmp_path, total=4)
    stop = StopFlag()
    stop.set()
    result = run_stage(
        "fd",
        _with_algorithm(config, "FD"),
        stop=stop,
        coach=FixedCoach(),
        rollout_factory=lambda model, tok: rollout_factory(model, tok, config.model),
    )
    assert result.stopped_early and result.steps_done == 0


def _with_algorithm(config: Config, algorithm: str) -> Config:
    config.training.reinforce.algorithm = algorithm
    return config
