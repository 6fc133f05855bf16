"""Continual distillation on the `train` queue (task train.continual_distill).

One round: export a fresh snapshot of what the web app collected (webapp.attempts.export:
attempts, prover trajectories, teacher-approved feedback) unless a snapshot path is given,
then hand it to training.continual.continual_distill, which runs FD steps from the serving
checkpoint (classroom data: see docs/TRAINING.md), and promotes the new checkpoint only when it
beats the serving one significantly on the held-out split (the gate). Each round is also a
TrainingRun row (algorithm continual) with its lineage, so the console lists it.

The training config comes from a YAML file (LEANCOACH_CONTINUAL_CONFIG, or the task's
`config_path`); output folders and the checkpoint registry are always the web app's own.
Without held-out problems (a course needs two or more) nothing is promoted, and training says so.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from django.conf import settings
from django.utils import timezone

from webapp.console.training_bridge import continual_config

logger = logging.getLogger(__name__)


def fresh_snapshot() -> Path:
    from webapp.attempts.export import export_training_snapshot

    target = Path(settings.VAR_DIR) / "snapshots" / f"snapshot-{timezone.now():%Y%m%d-%H%M%S}.jsonl"
    counts = export_training_snapshot(target)
    logger.info("continual distillation snapshot %s: %s", target, counts.as_dict())
    return target


def _console_run(config: Any) -> Any:
    """A TrainingRun row for the round, so the console lists it with its lineage."""
    from webapp.console.models import TrainingRun

    run = TrainingRun.objects.create(
        algorithm=TrainingRun.Algorithm.CONTINUAL,
        preset=TrainingRun.Preset.PAPER,
        steps=config.training.reinforce.total_steps,
        feedback_source=config.coach.source,
        status=TrainingRun.Status.RUNNING,
        started_at=timezone.now(),
    )
    config.run.name = run.run_name
    run.output_dir = str(Path(config.run.output_dir) / run.run_name)
    run.save(update_fields=["output_dir"])
    return run


def run_continual_distillation(
    snapshot_path: str | None, config_path: str | None = None
) -> dict[str, Any]:
    """Returns a JSON-able summary; failures are reported in it (ok False, error), not raised:
    a periodic task must report, not crash-loop. The round is also a console run (algorithm
    continual) whose lineage and gate decision are stored (RunLineage)."""
    from webapp.console.actions import do_record_run_lineage, training_busy
    from webapp.console.models import TrainingRun

    busy = training_busy()
    if busy:  # the next round tries again
        logger.info("continual distillation skipped: %s", busy)
        return {"ok": False, "error": f"skipped: {busy}"}
    run = None
    try:
        snapshot = Path(snapshot_path) if snapshot_path else fresh_snapshot()
        if not snapshot.exists():
            raise FileNotFoundError(f"snapshot {snapshot} does not exist")
        from training.continual import continual_distill

        config = continual_config(config_path)
        run = _console_run(config)
        result = continual_distill(snapshot, config)
    except Exception as exc:  # noqa: BLE001 - see docstring
        logger.warning("continual distillation did not run: %s: %s", type(exc).__name__, exc)
        if run is not None:
            TrainingRun.objects.filter(pk=run.pk).update(
                status=TrainingRun.Status.FAILED,
                error=f"{type(exc).__name__}: {exc}",
                finished_at=timezone.now(),
            )
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
    TrainingRun.objects.filter(pk=run.pk).update(
        status=TrainingRun.Status.FINISHED if result.error is None else TrainingRun.Status.FAILED,
        step=result.steps_done,
        error=result.error or "",
        checkpoint=str(result.checkpoint) if result.checkpoint else "",
        finished_at=timezone.now(),
    )
    if result.lineage:
        do_record_run_lineage(run, result.lineage, result.gate, result.promoted, result.reason)
    summary = {
        "run": run.pk,
        "ok": result.error is None,
        "snapshot": str(snapshot),
        "promoted": result.promoted,
        "reason": result.reason,
        "checkpoint": str(result.checkpoint) if result.checkpoint else None,
        "baseline": result.baseline,
        "candidate": result.candidate,
        "steps_done": result.steps_done,
        "error": result.error,
        "lineage": result.lineage.get("counts", {}),
    }
    logger.info("continual distillation: %s", summary)
    return summary
