"""Writes of the admin console. Each runs in a transaction; tasks and pushes fire on commit."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from webapp.celery import enqueue
from webapp.console import training_bridge
from webapp.console.live import push_run_state
from webapp.console.models import LineageItem, RunLineage, TrainingRun

logger = logging.getLogger(__name__)


class TrainingRefused(Exception):
    """The run was not launched; the message says why (shown to the admin)."""


def training_busy() -> str:
    """Why no training run may start now ("" when one may): settings.TRAIN_MAX_ACTIVE runs
    are already queued or running (the pool they share keeps room for prover runs)."""
    cap = settings.TRAIN_MAX_ACTIVE
    if cap and TrainingRun.objects.filter(status__in=TrainingRun.ACTIVE).count() >= cap:
        return (
            f"{cap} training run{'s are' if cap > 1 else ' is'} already going, the most this "
            "server runs at once: wait for it to end, or stop it."
        )
    return ""


def do_launch_training_run(user: Any, fields: dict[str, Any]) -> TrainingRun:
    """Create a queued run from validated form fields and enqueue it once committed."""
    with transaction.atomic():
        busy = training_busy()
        if busy:
            raise TrainingRefused(busy)
        run = TrainingRun.objects.create(created_by=user, **fields)
        pk = run.pk
        transaction.on_commit(lambda: enqueue("train.run_training", pk))
    logger.info("training run %s launched by %s", run.pk, user)
    return run


def do_request_stop(run: TrainingRun) -> TrainingRun:
    """Cooperative stop: the trainer ends between steps. A queued run stops before it starts."""
    with transaction.atomic():
        run = TrainingRun.objects.select_for_update().get(pk=run.pk)
        if not run.is_active:
            return run
        run.stop_requested = True
        if run.status == TrainingRun.Status.QUEUED:
            run.status = TrainingRun.Status.STOPPED
            run.finished_at = timezone.now()
            final = True
        else:
            run.status = TrainingRun.Status.STOPPING
            final = False
        run.save(update_fields=["stop_requested", "status", "finished_at"])
        pk = run.pk
        transaction.on_commit(lambda: push_run_state(pk, final=final))
    return run


def do_promote_checkpoint(user: Any, rel_path: str) -> training_bridge.SlotChange:
    change = training_bridge.promote(rel_path, reason=f"promoted by {user} from the console")
    logger.info("promote %s by %s: %s", rel_path, user, change.message)
    return change


def do_rollback_serving(user: Any) -> training_bridge.SlotChange:
    change = training_bridge.rollback(reason=f"rolled back by {user} from the console")
    logger.info("rollback by %s: %s", user, change.message)
    return change


LINEAGE_KINDS = {
    "attempts": LineageItem.Kind.ATTEMPT,
    "reviews": LineageItem.Kind.REVIEW,
    "trajectories": LineageItem.Kind.TRAJECTORY,
    "students": LineageItem.Kind.STUDENT,
    "problems": LineageItem.Kind.PROBLEM,
}


def do_record_run_lineage(
    run: TrainingRun, lineage: dict[str, Any], gate: dict[str, Any], promoted: bool, reason: str
) -> RunLineage:
    """Index what a run used (a continual run: the ids of its lineage.json; any other run:
    the problems it was given) and how its gate decided (empty: not gated)."""
    counts = dict(lineage.get("counts", {}))
    # The held-out split, counted once with what each part is for (the page shows all three).
    for key in ("selection_problems", "gate_problems"):
        if key in lineage:
            counts[key] = len(lineage[key])
    with transaction.atomic():
        record, _ = RunLineage.objects.update_or_create(
            run=run,
            defaults={
                "counts": counts,
                "gate": gate,
                "promoted": promoted,
                "reason": reason,
            },
        )
        record.items.all().delete()
        LineageItem.objects.bulk_create(
            LineageItem(lineage=record, kind=kind, ref=str(ref))
            for key, kind in LINEAGE_KINDS.items()
            for ref in lineage.get(key, [])
        )
    logger.info("run %s lineage: %s (promoted %s)", run.pk, record.counts, promoted)
    return record
