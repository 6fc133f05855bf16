"""train.run_training end to end on a tiny model (SFT on the cast's course, CPU, seconds), its
failure and stop paths, the messages it pushes, and train.continual_distill's honest refusal."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from tests.webapp.cast import Cast, make_cast
from webapp.console import tasks
from webapp.console.models import RunLineage, TrainingRun
from webapp.courses.models import Exercise


@pytest.fixture
def cast(db: None) -> Cast:
    return make_cast()


pytestmark = pytest.mark.django_db


def listen(group: str) -> tuple[Any, str]:
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(group, channel)
    return layer, channel


def drain(layer: Any, channel: str) -> list[dict[str, Any]]:
    async def collect() -> list[dict[str, Any]]:
        out = []
        while True:
            try:
                out.append(await asyncio.wait_for(layer.receive(channel), timeout=0.05))
            except TimeoutError:
                return out

    return async_to_sync(collect)()


@pytest.fixture
def var_dirs(settings, tmp_path: Path) -> Path:
    settings.VAR_DIR = tmp_path / "var"
    settings.CHECKPOINT_ROOT = tmp_path / "var" / "checkpoints"
    return tmp_path / "var"


def _more_exercises(cast: Cast, n: int) -> None:
    for i in range(n):
        Exercise.objects.create(
            world=cast.exercise.world, order=10 + i, name=f"cast_refl_{i}",
            formal_statement=f"theorem cast_refl_{i} (n : Nat) : n + {i} = n + {i} := by",
            reference_proof="  rfl",
        )  # fmt: skip


def _tiny_sft_run(cast: Cast, model_dir: Path, **fields: Any) -> TrainingRun:
    return TrainingRun.objects.create(
        algorithm="SFT", preset="tiny", steps=1, feedback_source="fixed", course=cast.course,
        base_model=str(model_dir), created_by=cast.admin, **fields,
    )  # fmt: skip


def test_a_tiny_sft_run_finishes_with_metrics_checkpoint_plots_and_a_final_push(
    cast: Cast,
    tiny_model_dir: Path,
    var_dirs: Path,
) -> None:
    _more_exercises(cast, 3)  # 4 problems with proofs, batch 2: 2 SFT steps
    run = _tiny_sft_run(cast, tiny_model_dir)
    layer, channel = listen(run.group_name)

    assert tasks.run_training(run.pk) == "finished"

    run.refresh_from_db()
    assert (run.status, run.steps, run.step, run.error) == ("finished", 2, 2, "")
    assert [m.step for m in run.metrics.all()] == [1, 2]
    assert all(isinstance(m.values["loss"], float) for m in run.metrics.all())
    checkpoint = Path(run.checkpoint)
    assert (checkpoint / "meta.json").exists() and checkpoint.is_relative_to(
        var_dirs / "checkpoints"
    )
    assert (Path(run.output_dir) / "metrics.jsonl").exists()
    assert (Path(run.output_dir) / "plots" / "loss.png").exists()
    messages = drain(layer, channel)
    assert messages[-1]["final"] is True and 'data-status="finished"' in messages[-1]["html"]
    assert any("<polyline" in m["html"] for m in messages[:-1])  # live charts while it ran
    assert sum(not m["final"] for m in messages) >= 3  # running + one per step
    # Never silent: each phase before the first step is pushed to the run's group.
    pushed = " ".join(m["html"] for m in messages)
    for phase in ("exporting the problem set", "checking the base model", "loading the model"):
        assert f'id="run-phase">{phase}' in pushed, phase
    # Its lineage: the problems it trained on (with links) and the held-out split, not gated.
    lineage = RunLineage.objects.get(run=run)
    problems = list(lineage.items.filter(kind="problem").values_list("ref", flat=True))
    assert problems and lineage.counts["problems"] == len(problems)
    assert lineage.counts["problems"] + lineage.counts["held_out_problems"] == 4
    assert lineage.gate == {} and 'id="lineage-gate">Gate: <strong>not gated' in pushed
    assert f'href="/courses/{cast.course.slug}/' in messages[-1]["html"]


def test_a_stop_request_ends_the_run_between_steps(
    cast: Cast, tiny_model_dir: Path, var_dirs: Path
) -> None:
    _more_exercises(cast, 7)  # 8 problems, 2 held out, batch 2: 3 steps if nobody stops it
    run = _tiny_sft_run(cast, tiny_model_dir, stop_requested=True)  # seen at the first record
    assert tasks.run_training(run.pk) == "stopped"
    run.refresh_from_db()
    assert run.status == "stopped" and run.step == 1 and run.steps == 3
    assert run.metrics.count() == 1 and run.finished_at is not None


def test_a_missing_model_fails_the_run_with_the_reason(
    cast: Cast, var_dirs: Path, tmp_path: Path
) -> None:
    run = _tiny_sft_run(cast, tmp_path / "no-such-model")
    layer, channel = listen(run.group_name)
    assert tasks.run_training(run.pk) == "failed"
    run.refresh_from_db()
    assert "no-such-model" in run.error and run.finished_at is not None
    final = drain(layer, channel)[-1]
    assert final["final"] and 'id="run-error"' in final["html"]


def test_a_run_without_a_problem_set_fails_with_what_to_do(cast: Cast, var_dirs: Path) -> None:
    run = TrainingRun.objects.create(algorithm="FD", base_model="/m", created_by=cast.admin)
    assert tasks.run_training(run.pk) == "failed"
    run.refresh_from_db()
    assert "choose a problem set" in run.error


def test_no_base_model_and_nothing_serving_says_so(cast: Cast, var_dirs: Path) -> None:
    run = TrainingRun.objects.create(algorithm="FD", course=cast.course, created_by=cast.admin)
    tasks.run_training(run.pk)
    run.refresh_from_db()
    assert run.status == "failed" and "promote a checkpoint to serving first" in run.error


def test_fd_without_lean_fails_honestly(
    cast: Cast, tiny_model_dir: Path, var_dirs: Path, monkeypatch
) -> None:
    monkeypatch.delenv("LEAN_REPL_CMD", raising=False)
    run = _tiny_sft_run(cast, tiny_model_dir)
    TrainingRun.objects.filter(pk=run.pk).update(algorithm="FD", steps=2)
    tasks.run_training(run.pk)
    run.refresh_from_db()
    if run.status != "failed":
        pytest.skip("a Lean REPL is configured on this machine; this test covers its absence")
    assert "Lean" in run.error and run.metrics.count() == 0


def test_a_run_stopped_while_queued_is_not_started(cast: Cast, var_dirs: Path) -> None:
    run = TrainingRun.objects.create(status="stopped", course=cast.course, created_by=cast.admin)
    layer, channel = listen(run.group_name)
    assert tasks.run_training(run.pk) == "stopped"
    run.refresh_from_db()
    assert run.started_at is None
    assert drain(layer, channel)[-1]["final"] is True


def test_continual_distill_reports_what_is_missing(var_dirs: Path, tmp_path: Path) -> None:
    result = tasks.continual_distill(str(tmp_path / "nope.jsonl"))
    assert result["ok"] is False and "does not exist" in result["error"]


def test_continual_distill_without_lean_reports_why(
    cast: Cast, var_dirs: Path, tiny_model_dir: Path, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.delenv("LEAN_REPL_CMD", raising=False)
    monkeypatch.setenv("LEANCOACH_LEAN_HOME", str(tmp_path / "no-lean"))
    from tutor.lean import reset_checker

    reset_checker()
    config = tmp_path / "continual.yaml"
    config.write_text(_tiny_yaml(tiny_model_dir, tmp_path))
    result = tasks.continual_distill("", str(config))  # exports a fresh snapshot first
    assert result["ok"] is False and "Lean" in result["error"]
    assert list((var_dirs / "snapshots").glob("snapshot-*.jsonl"))


def _tiny_yaml(model_dir: Path, tmp_path: Path) -> str:
    import yaml

    from training.config import tiny_cpu_config

    data = tiny_cpu_config(str(model_dir), "").to_dict()
    data["optimizer"]["betas"] = list(data["optimizer"]["betas"])
    data["training"]["reinforce"].update(algorithm="FD", total_steps=1, switch_step=0)
    return yaml.safe_dump(data)


@pytest.mark.slow
def test_continual_distill_runs_a_round_on_the_lean_double(
    cast: Cast, var_dirs: Path, tiny_model_dir: Path, tmp_path: Path, monkeypatch
) -> None:
    import shlex
    import sys

    from tutor.lean import reset_checker

    fake = Path(__file__).resolve().parents[1] / "fakes" / "fake_repl.py"
    monkeypatch.setenv("LEAN_REPL_CMD", shlex.join([sys.executable, str(fake)]))
    reset_checker()
    config = tmp_path / "continual.yaml"
    config.write_text(_tiny_yaml(tiny_model_dir, tmp_path))
    try:
        result = tasks.continual_distill("", str(config))
    finally:
        reset_checker()
    assert result["ok"] is True, result
    assert result["steps_done"] == 1 and result["promoted"] is False
    # One exercise: no held-out problem to judge on, so registered, not promoted.
    assert "no held-out problems" in result["reason"]
    assert Path(result["checkpoint"]).is_relative_to(var_dirs / "checkpoints")
    run = TrainingRun.objects.get(pk=result["run"])  # the round is listed in the console
    assert run.algorithm == "continual" and run.status == "finished"
    assert run.lineage.reason == result["reason"] and not run.lineage.promoted


@pytest.mark.slow
def test_a_tiny_fd_grpo_run_on_the_lean_double_switches_stage(
    cast: Cast, tiny_model_dir: Path, var_dirs: Path, monkeypatch
) -> None:
    import shlex
    import sys

    from tutor.lean import reset_checker

    fake = Path(__file__).resolve().parents[1] / "fakes" / "fake_repl.py"
    monkeypatch.setenv("LEAN_REPL_CMD", shlex.join([sys.executable, str(fake)]))
    reset_checker()
    run = _tiny_sft_run(cast, tiny_model_dir)
    TrainingRun.objects.filter(pk=run.pk).update(algorithm="FD-GRPO", steps=2, switch_step=1)
    try:
        assert tasks.run_training(run.pk) == "finished"
    finally:
        reset_checker()
    stages = list(TrainingRun.objects.get(pk=run.pk).metrics.values_list("stage", flat=True))
    assert stages == ["fd", "grpo"]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("algorithm", "stage"), [("FD", "fd"), ("GRPO", "grpo"), ("mixed", "mixed")]
)
def test_each_reinforcement_trainer_runs_from_the_task_on_the_lean_double(
    cast: Cast, tiny_model_dir: Path, var_dirs: Path, monkeypatch, algorithm: str, stage: str
) -> None:
    import shlex
    import sys

    from tutor.lean import reset_checker

    fake = Path(__file__).resolve().parents[1] / "fakes" / "fake_repl.py"
    monkeypatch.setenv("LEAN_REPL_CMD", shlex.join([sys.executable, str(fake)]))
    reset_checker()
    run = _tiny_sft_run(cast, tiny_model_dir)
    TrainingRun.objects.filter(pk=run.pk).update(algorithm=algorithm, steps=1, switch_step=0)
    try:
        assert tasks.run_training(run.pk) == "finished"
    finally:
        reset_checker()
    finished = TrainingRun.objects.get(pk=run.pk)
    assert list(finished.metrics.values_list("stage", flat=True)) == [stage]
    assert finished.metrics.get().values["trajectories"] > 0


def test_between_pushes_the_elapsed_time_keeps_coming(cast: Cast) -> None:
    import time
    from datetime import timedelta

    from django.utils import timezone

    from webapp.console.live import RunHeartbeat

    run = TrainingRun.objects.create(course=cast.course, created_by=cast.admin, status="running")
    run.started_at = timezone.now() - timedelta(minutes=2)
    layer, channel = listen(run.group_name)
    with RunHeartbeat(run, every_s=0.1):
        time.sleep(0.45)  # a silent stretch of training: no metrics record, no phase change
    beats = [m["html"] for m in drain(layer, channel)]
    assert len(beats) >= 3
    assert all(b.startswith('<dd id="run-elapsed">2 min 0') for b in beats), beats[:1]


def test_the_default_prover_job_records_the_starter_exercises_it_trains_on(
    cast: Cast, var_dirs: Path, monkeypatch
) -> None:
    from types import SimpleNamespace

    from training.default_model import DefaultModelConfig, selected_problems, starter_problems

    wanted = selected_problems(starter_problems(), DefaultModelConfig())
    # The fine-tune itself (minutes of SmolLM2) is not what is tested here: its lineage is.
    monkeypatch.setattr(
        "training.default_model.prepare_default_prover", lambda *a, **kw: var_dirs / "model"
    )
    monkeypatch.setattr(
        "training.default_model.serve_if_unserved", lambda *a: SimpleNamespace(serving=None)
    )
    Exercise.objects.create(
        world=cast.exercise.world, order=99, name=wanted[0].id,
        formal_statement=wanted[0].statement,
    )  # fmt: skip
    run = TrainingRun.objects.create(algorithm="SFT", base_model="smollm2", created_by=cast.admin)
    assert tasks.prepare_default_model(run.pk) == "finished"
    lineage = RunLineage.objects.get(run=run)
    refs = list(lineage.items.filter(kind="problem").values_list("ref", flat=True))
    assert len(refs) == len(wanted) == lineage.counts["problems"]
    linked = Exercise.objects.get(name=wanted[0].id)
    assert refs[0] == f"exercise-{linked.pk}" and lineage.counts["held_out_problems"] == 0
