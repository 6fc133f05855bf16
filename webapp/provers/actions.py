"""Writes of "Ask the prover". Each runs in a transaction; the task is enqueued on commit."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from webapp.provers.models import ProverRun


class ProverRunRefused(Exception):
    """The request was not taken; the message tells the user why (nothing was lost)."""


def do_request_prover_run(user: Any, exercise: Any, mode: str) -> ProverRun:
    from webapp.provers.tasks import run_prover

    if mode not in ProverRun.Mode.values:
        raise ProverRunRefused(f"Unknown prover mode {mode!r}: choose agent or search.")
    with transaction.atomic():
        active = ProverRun.objects.select_for_update().filter(
            user=user, status__in=ProverRun.ACTIVE
        )
        if active.exists():
            # One at a time per user: prover workers are the scarcest resource.
            raise ProverRunRefused(
                "You already have a prover run going; wait for it or cancel it first."
            )
        run = ProverRun.objects.create(user=user, exercise=exercise, mode=mode)
        run_prover.delay_on_commit(run.pk)  # type: ignore[attr-defined]  # celery-types lags
    return run


def do_cancel_prover_run(run: ProverRun) -> ProverRun:
    """A queued run is cancelled at once; a running one stops at its next check."""
    from webapp.provers.tasks import push_prover_state

    with transaction.atomic():
        run = ProverRun.objects.select_for_update().get(pk=run.pk)
        if not run.is_active:
            return run
        run.cancel_requested = True
        final = run.status == ProverRun.Status.QUEUED
        if final:
            run.status = ProverRun.Status.CANCELLED
            run.finished_at = timezone.now()
        run.save(update_fields=["cancel_requested", "status", "finished_at"])
        pk = run.pk
        transaction.on_commit(lambda: push_prover_state(pk, final=final))
    return run
