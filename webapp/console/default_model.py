"""The first-run prover fine-tune as a background job of the `train` queue.

`make run` serves at once and queues this job (webapp.launch); the job is an ordinary
TrainingRun (algorithm SFT on the starter course), so the console lists it with its progress,
the status page shows its percentage, and "Ask the prover" says "preparing the model, N%"
until a checkpoint serves. The training itself is training.default_model's.
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.db import transaction

from webapp.celery import enqueue
from webapp.console.models import TrainingRun


def default_model_dir() -> Path:
    return Path(settings.VAR_DIR) / "models" / "smollm2-sft"


def is_serving() -> bool:
    return (Path(settings.CHECKPOINT_ROOT) / "serving.json").exists()


def preparing_run() -> TrainingRun | None:
    """The default-model job still going while nothing serves, else None."""
    if is_serving():
        return None
    runs = TrainingRun.objects.filter(
        output_dir=str(default_model_dir()), status__in=TrainingRun.ACTIVE
    )
    return runs.order_by("-pk").first()


def preparing_message() -> str | None:
    # On every exercise page: only the two columns the percentage needs.
    if is_serving():
        return None
    runs = TrainingRun.objects.filter(
        output_dir=str(default_model_dir()), status__in=TrainingRun.ACTIVE
    )
    run = runs.order_by("-pk").only("pk", "step", "steps").first()
    return None if run is None else f"Preparing the model, {run.progress_percent}%"


def do_queue_default_model(*, interrupted: bool = False) -> TrainingRun | None:
    """Queue the job unless a checkpoint serves or the job is already queued or running.

    interrupted=True (`make run` at start-up, when no worker runs yet): a row still active is
    from a run that stopped before the job ended (its queued message went with the embedded
    Redis), so it is marked failed with that reason and the job is queued again."""
    from django.utils import timezone

    if is_serving():
        return None
    with transaction.atomic():
        if interrupted:
            TrainingRun.objects.filter(
                output_dir=str(default_model_dir()), status__in=TrainingRun.ACTIVE
            ).update(
                status=TrainingRun.Status.FAILED,
                error="interrupted: the app stopped before the fine-tune ended",
                finished_at=timezone.now(),
            )
        if preparing_run() is not None:
            return None
        run = TrainingRun.objects.create(
            algorithm=TrainingRun.Algorithm.SFT,
            preset=TrainingRun.Preset.TINY,
            steps=1,  # the job sets the real count when training starts
            feedback_source="fixed",
            base_model="smollm2",
            output_dir=str(default_model_dir()),
        )
        pk = run.pk
        transaction.on_commit(lambda: enqueue("train.prepare_default_model", pk))
    return run
