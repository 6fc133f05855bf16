"""Writes of "Ask the prover". Each runs in a transaction; the task is enqueued on commit."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, QuerySet
from django.utils import timezone

from webapp.celery import enqueue
from webapp.console.default_model import preparing_message
from webapp.provers.live import push_prover_state
from webapp.provers.models import ProverRun

logger = logging.getLogger(__name__)


class ProverRunRefused(Exception):
    """The request was not taken; the message tells the user why (nothing was lost).
    `link`: where she can act on it (her run that is going), when there is one."""

    def __init__(self, message: str, link: str = "") -> None:
        super().__init__(message)
        self.link = link


def do_request_prover_run(
    user: Any, exercise: Any, mode: str, algorithm: str = ProverRun.Algorithm.MCTS
) -> ProverRun:
    if mode not in ProverRun.Mode.values:
        raise ProverRunRefused(f"Unknown prover mode {mode!r}: choose agent or search.")
    if mode == ProverRun.Mode.SEARCH and algorithm not in ProverRun.Algorithm.values:
        raise ProverRunRefused(f"Unknown search {algorithm!r}: choose mcts or best_first.")
    # A run whose worker died must not block this user forever: end stale ones first.
    sweep_prover_runs(ProverRun.objects.filter(user=user), requeue=False)
    preparing = preparing_message()
    if preparing and mode == ProverRun.Mode.AGENT:
        # The search prover works meanwhile: it also tries standard tactics (the portfolio,
        # tutor/prover/search.py), not only the model's.
        raise ProverRunRefused(
            f"{preparing}: the agent prover can be asked once it is ready. Meanwhile, ask the "
            "search prover, which tries standard tactics one step at a time."
        )
    with transaction.atomic():
        active = ProverRun.objects.select_for_update().filter(
            user=user, status__in=ProverRun.ACTIVE
        )
        going = active.first()
        if going is not None:
            # One at a time per user: prover workers are the scarcest resource.
            raise ProverRunRefused(
                "You already have a prover run going; wait for it or cancel it first.",
                link=going.get_absolute_url(),
            )
        cap = settings.PROVER_MAX_ACTIVE
        if cap and ProverRun.objects.filter(status__in=ProverRun.ACTIVE).count() >= cap:
            # Site-wide: the prover's pool keeps room for other work (settings).
            raise ProverRunRefused(
                f"The prover is busy: {cap} run{'s are' if cap > 1 else ' is'} going, the "
                "most this server takes at once. Ask again in a few minutes."
            )
        run = ProverRun.objects.create(
            user=user,
            exercise=exercise,
            mode=mode,
            algorithm=algorithm if mode == ProverRun.Mode.SEARCH else "",
        )
        pk = run.pk
        transaction.on_commit(lambda: enqueue("prover.run_prover", pk))
    return run


def do_cancel_prover_run(run: ProverRun) -> ProverRun:
    """A queued run is cancelled at once; a running one stops at its next check. Cancelling
    again while the first request is pending ends the run here: its worker may have died."""
    with transaction.atomic():
        run = ProverRun.objects.select_for_update().get(pk=run.pk)
        if not run.is_active:
            return run
        final = run.status == ProverRun.Status.QUEUED or run.cancel_requested
        if run.status == ProverRun.Status.RUNNING and run.cancel_requested:
            run.error = "Stopped here: the prover's worker did not answer the first cancel."
        run.cancel_requested = True
        if final:
            run.status = ProverRun.Status.CANCELLED
            run.finished_at = timezone.now()
        run.save(update_fields=["cancel_requested", "status", "finished_at", "error"])
        pk = run.pk
        transaction.on_commit(lambda: push_prover_state(pk, final=final))
    return run


def do_end_stale_prover_run(run: ProverRun, reason: str) -> int:
    """End a run no worker will finish (failed, or cancelled if that was asked), with the
    reason shown; 0 when it ended meanwhile."""
    status = ProverRun.Status.CANCELLED if run.cancel_requested else ProverRun.Status.FAILED
    ended = ProverRun.objects.filter(pk=run.pk, status__in=ProverRun.ACTIVE).update(
        status=status, error=reason, finished_at=timezone.now()
    )
    if ended:
        try:
            push_prover_state(run.pk, final=True)
        except Exception:  # noqa: BLE001 - the page shows the stored state on reload
            logger.warning("could not push the end of prover run %s", run.pk)
    return ended


def do_requeue_prover_run(run: ProverRun) -> int:
    """Put a run that no worker took or finished back on the queue (the sweeper, up to
    PROVER_MAX_REQUEUES times), from a clean slate; 0 when it moved on meanwhile or the
    broker could not take it (then the run ends with that reason)."""
    with transaction.atomic():
        moved = ProverRun.objects.filter(
            pk=run.pk, status=run.status, requeues=run.requeues, cancel_requested=False
        ).update(
            status=ProverRun.Status.QUEUED,
            queued_at=timezone.now(),
            requeues=F("requeues") + 1,
            started_at=None,
            claimed_by="",
            events=[],
            error="",
        )
    if not moved:
        return 0
    logger.warning("re-queued prover run %s (was %s)", run.pk, run.status)
    try:
        enqueue("prover.run_prover", run.pk)
    except Exception as exc:  # noqa: BLE001 - kombu/redis raise many types: "not queued"
        do_end_stale_prover_run(
            run, f"Could not queue the run again: the prover queue is unreachable ({exc})."
        )
        return 0
    try:
        push_prover_state(run.pk)
    except Exception:  # noqa: BLE001 - the page shows the stored state on reload
        logger.warning("could not push the re-queue of prover run %s", run.pk)
    return moved


def sweep_prover_runs(runs: QuerySet[ProverRun], *, requeue: bool = True) -> dict[str, int]:
    """Re-queue (a bounded number of times), then end, queued runs no worker took and running
    runs past their deadline. Without `requeue` (the user is asking for a new run) stale runs
    are ended at once, so a lost run never blocks asking."""
    queued = runs.filter(
        status=ProverRun.Status.QUEUED,
        queued_at__lt=timezone.now() - timedelta(seconds=settings.PROVER_QUEUED_DEADLINE_S),
    )
    running = runs.filter(
        status=ProverRun.Status.RUNNING,
        started_at__lt=timezone.now() - timedelta(seconds=settings.PROVER_RUNNING_DEADLINE_S),
    )
    tries = settings.PROVER_MAX_REQUEUES + 1
    reasons = (
        (
            queued,
            f"No prover worker took this run in {tries} tries over about "
            f"{settings.PROVER_QUEUED_DEADLINE_S * tries // 60} min; ask again later.",
        ),
        (
            running,
            f"The run did not finish within {settings.PROVER_RUNNING_DEADLINE_S // 60} min, "
            f"{tries} times (its worker stopped or hung).",
        ),
    )
    counts = {"prover_runs_requeued": 0, "prover_runs_ended": 0}
    for query, reason in reasons:
        for run in query:
            if requeue and run.requeues < settings.PROVER_MAX_REQUEUES and not run.cancel_requested:
                counts["prover_runs_requeued"] += do_requeue_prover_run(run)
            else:
                counts["prover_runs_ended"] += do_end_stale_prover_run(run, reason)
    return counts
