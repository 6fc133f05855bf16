"""Celery tasks of the `train` queue: one training run, and continual distillation.

`train.run_training(run_pk)` re-fetches the TrainingRun, runs training through
webapp.console.training_bridge, stores each metrics record as a TrainingMetric row and pushes
the run's fragments to the group `training_run.<pk>` after every record; it always sends a
final message, and marks the run failed with the error when anything raises.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from celery import Task, shared_task
from django.conf import settings
from django.db.models import F
from django.db.models.functions import Greatest
from django.utils import timezone

from webapp.attempts.export import export_training_snapshot
from webapp.console import continual, training_bridge
from webapp.console.actions import do_record_run_lineage
from webapp.console.live import RunHeartbeat, push_run_state
from webapp.console.models import TrainingMetric, TrainingRun
from webapp.embedded import usable_cores

logger = logging.getLogger(__name__)


def _metrics_callback(run: TrainingRun, stop_flag: Any) -> Any:
    def on_metrics(record: dict[str, Any]) -> None:
        step = int(record.get("step", 0))
        values = {k: v for k, v in record.items() if k not in ("step", "stage")}
        TrainingMetric.objects.create(
            run=run, step=step, stage=str(record.get("stage", "")), values=values
        )
        TrainingRun.objects.filter(pk=run.pk).update(
            step=Greatest(F("step"), min(step, run.steps)),
            phase=f"training ({record.get('stage') or 'step'} steps)",
        )
        # The console sets stop_requested in the database; the trainer only sees the flag.
        if TrainingRun.objects.filter(pk=run.pk, stop_requested=True).exists():
            stop_flag.set()
        push_run_state(run.pk)

    return on_metrics


def _phase(run: TrainingRun, text: str) -> None:
    """Say what the run is doing now, to everyone watching it (never silent for minutes)."""
    TrainingRun.objects.filter(pk=run.pk).update(phase=text[:300])
    push_run_state(run.pk)


def _mark(run: TrainingRun, **fields: Any) -> None:
    for name, value in fields.items():
        setattr(run, name, value)
    run.save(update_fields=list(fields))


@shared_task(name="train.run_training", bind=True)
def run_training(self: Task, run_pk: int) -> str:
    run = TrainingRun.objects.filter(pk=run_pk).first()
    if run is None:
        return "missing"
    # Stopped before it started, or a redelivery of a run a worker took: left as it is.
    if not run.claim(TrainingRun.Status.RUNNING, str(self.request.id or "")):
        push_run_state(run.pk, final=not run.is_active)
        return run.status
    directory = training_bridge.run_dir(run)
    _mark(run, output_dir=str(directory), phase="exporting the problem set")
    push_run_state(run.pk)
    try:
        with RunHeartbeat(run):
            outcome = _train(run, directory)
    except Exception as exc:  # noqa: BLE001 - any failure ends the run visibly, with its reason
        logger.exception("training run %s failed", run.pk)
        run.refresh_from_db()
        _mark(run, status=TrainingRun.Status.FAILED, error=f"{type(exc).__name__}: {exc}",
              finished_at=timezone.now(), phase="")  # fmt: skip
    else:
        run.refresh_from_db()
        status = TrainingRun.Status.STOPPED if outcome.stopped else TrainingRun.Status.FINISHED
        _mark(run, status=status, checkpoint=outcome.checkpoint, finished_at=timezone.now(),
              phase="")  # fmt: skip
    finally:
        _plots_quietly(directory)
        push_run_state(run.pk, final=True)
    return run.status


def _train(run: TrainingRun, directory: Path) -> training_bridge.TrainingOutcome:
    problems = directory / "problems.jsonl"
    exported = training_bridge.export_problems(run, problems)
    _phase(run, "checking the base model")
    config = training_bridge.build_config(run, problems, lambda text: _phase(run, text))
    stage = training_bridge.stage_for(run)
    _phase(run, "loading the model and running the first step")
    if stage == "continual":
        return _continual(run, directory, config)
    # Not gated: the lineage is the problems it trains on and the held-out split.
    lineage = exported.lineage(config.data.max_problems, config.evaluation.max_problems)
    do_record_run_lineage(run, lineage, {}, False, "")
    if stage == "sft":
        _mark(run, steps=training_bridge.expected_sft_steps(config, exported.with_proof))
    stop_flag = training_bridge.new_stop_flag()
    return training_bridge.train(stage, config, _metrics_callback(run, stop_flag), stop_flag)


def _continual(run: TrainingRun, directory: Path, config: Any) -> training_bridge.TrainingOutcome:
    """Export the consented classroom data, train on it, gate, and record the lineage."""
    snapshot = directory / "snapshot.jsonl"
    export_training_snapshot(snapshot)
    stop_flag = training_bridge.new_stop_flag()
    outcome = training_bridge.continual(
        snapshot, config, _metrics_callback(run, stop_flag), stop_flag
    )
    do_record_run_lineage(run, outcome.lineage, outcome.gate, outcome.promoted, outcome.reason)
    return outcome


def _plots_quietly(directory: Path) -> None:
    try:
        training_bridge.write_plots(directory)
    except Exception:  # noqa: BLE001 - plots are a convenience; the charts still show metrics
        logger.exception("could not draw plots in %s", directory)


@shared_task(name="train.prepare_default_model", bind=True)
def prepare_default_model(self: Task, run_pk: int) -> str:
    """The first-run fine-tune of the CPU default prover (webapp.console.default_model)."""
    from training.default_model import (
        DefaultModelConfig,
        prepare_default_prover,
        selected_problems,
        serve_if_unserved,
        starter_problems,
    )

    run = TrainingRun.objects.filter(pk=run_pk).first()
    if run is None:
        return "missing"
    if not run.claim(TrainingRun.Status.RUNNING, str(self.request.id or "")):
        return run.status
    push_run_state(run.pk)

    def on_progress(step: int, total: int, loss: float) -> None:
        TrainingMetric.objects.create(run=run, step=step, stage="sft", values={"loss": loss})
        TrainingRun.objects.filter(pk=run.pk).update(
            step=step, steps=max(total, 1), phase="fine-tuning the default prover (sft steps)"
        )
        push_run_state(run.pk)

    try:
        # Half the cores at most: the web answers students while this trains.
        config = DefaultModelConfig(threads=max(1, usable_cores() // 2))
        problems = starter_problems()
        do_record_run_lineage(run, _starter_lineage(selected_problems(problems, config)), {},
                              False, "")  # fmt: skip
        _phase(run, "loading SmolLM2 (dequantising its GGUF) and the starter exercises")
        with RunHeartbeat(run):
            path = prepare_default_prover(
                problems, run.output_dir, config=config, on_progress=on_progress
            )
        result = serve_if_unserved(path, settings.CHECKPOINT_ROOT)
    except Exception as exc:  # noqa: BLE001 - the job ends visibly, with its reason
        logger.exception("preparing the default prover model failed")
        run.refresh_from_db()
        _mark(run, status=TrainingRun.Status.FAILED, error=f"{type(exc).__name__}: {exc}",
              finished_at=timezone.now(), phase="")  # fmt: skip
    else:
        run.refresh_from_db()
        served = str(result.serving.path) if result.serving is not None else str(path)
        _mark(run, status=TrainingRun.Status.FINISHED, step=run.steps, checkpoint=served,
              finished_at=timezone.now(), phase="")  # fmt: skip
    finally:
        push_run_state(run.pk, final=True)
    return run.status


def _starter_lineage(problems: list[Any]) -> dict[str, Any]:
    """The default prover's lineage: the starter exercises it is fine-tuned on (by name, as
    the starter course's exercises in the database; it holds nothing out)."""
    from webapp.courses.models import Exercise

    names = [p.id for p in problems]
    pks = dict(Exercise.objects.filter(name__in=names).values_list("name", "pk"))
    refs = [f"exercise-{pks[n]}" if n in pks else n for n in names]
    return {"problems": refs, "counts": {"problems": len(refs), "held_out_problems": 0}}


@shared_task(name="train.snapshot")
def snapshot() -> str:
    """The scheduled database + checkpoint-registry snapshot (webapp.core.snapshots). On the
    `train` queue: its hosts mount the checkpoint registry."""
    from webapp.core.snapshots import take_snapshot

    return str(take_snapshot())


@shared_task(name="train.continual_distill")
def continual_distill(snapshot_path: str = "", config_path: str = "") -> dict[str, Any]:
    """One round of continual distillation (see webapp.console.continual and docs/CONSOLE.md);
    with no snapshot path, a fresh snapshot is exported first."""
    return continual.run_continual_distillation(snapshot_path or None, config_path or None)
