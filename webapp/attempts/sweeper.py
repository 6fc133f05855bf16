"""The sweeper: every attempt and prover run reaches an end state the user sees, even when the
broker lost its message or the worker died. Run by Celery beat (lean.sweep_stale) and, for one
user's prover runs, before "Ask the prover" decides whether a run is still going.

Work past its deadline is first re-queued (the broker may have lost the message: a flushed or
restarted Redis, a worker that died after its redelivery was lost), at most *_MAX_REQUEUES
times; after that it ends with the reason. A re-queued copy never runs twice: the task claims
its object for one message and any other copy steps aside (webapp.attempts.tasks._claim).

Deadlines are settings (webapp/settings/resilience.py); each ended object says why.

`sweep_cut_off` is the fast path for work cut off mid-run: each worker's consumer calls it
when it (re)connects to the broker (CutOffWork, below). What is marked started but
runs on no live worker (asked over the broker) is re-queued at once, instead of waiting for
the deadline above or the broker's redelivery of an unacknowledged message (kombu's Redis
transport redelivers only after its visibility timeout, an hour by default, and a shorter
one would redeliver prover and training runs still running).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from celery import bootsteps
from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone

from webapp.attempts.actions import do_fail_attempt, do_requeue_attempt
from webapp.attempts.models import Attempt
from webapp.provers.actions import (
    do_end_stale_prover_run,
    do_requeue_prover_run,
    sweep_prover_runs,
)
from webapp.provers.models import ProverRun

log = logging.getLogger(__name__)


def _before(seconds: int) -> datetime:
    return timezone.now() - timedelta(seconds=seconds)


def sweep() -> dict[str, int]:
    counts = {**sweep_attempts(), **sweep_prover_runs(ProverRun.objects.all())}
    if any(counts.values()):
        log.warning("sweeper moved stale work: %s", counts)
    return counts


def stale_attempts() -> tuple[QuerySet[Attempt], QuerySet[Attempt]]:
    """(queued ones no worker took in time, checking ones no worker finished in time)."""
    queued = Attempt.objects.filter(
        status=Attempt.Status.QUEUED,
        queued_at__lt=_before(settings.ATTEMPT_QUEUED_DEADLINE_S),
    )
    # Redeliveries after a worker loss restart the check; this catches the rest.
    checking = Attempt.objects.filter(
        status__in=(Attempt.Status.CHECKING, Attempt.Status.COACHING),
        started_at__lt=_before(settings.ATTEMPT_CHECKING_DEADLINE_S),
    )
    return queued, checking


def sweep_attempts() -> dict[str, int]:
    queued, checking = stale_attempts()
    tries = settings.ATTEMPT_MAX_REQUEUES + 1
    queued_min = settings.ATTEMPT_QUEUED_DEADLINE_S * tries // 60
    checking_min = settings.ATTEMPT_CHECKING_DEADLINE_S // 60
    reasons = (
        (
            queued,
            f"Could not check: no checker took this attempt in {tries} tries over about "
            f"{queued_min} min (the queue was lost or is overloaded). Your proof is saved: "
            "submit it again.",
        ),
        (
            checking,
            f"Could not check: the check did not finish within {checking_min} min, "
            f"{tries} times (its worker stopped). Your proof is saved: submit it again.",
        ),
    )
    counts = {"attempts_requeued": 0, "attempts_failed": 0}
    for query, reason in reasons:
        for attempt in query.select_related("exercise"):
            if attempt.requeues < settings.ATTEMPT_MAX_REQUEUES:
                counts["attempts_requeued"] += do_requeue_attempt(attempt)
            else:
                counts["attempts_failed"] += do_fail_attempt(attempt, reason)
    return counts


CUT_OFF_ASK_S = 2.0  # how long the live workers get to say what they run


def live_task_ids(timeout_s: float = CUT_OFF_ASK_S) -> set[str] | None:
    """The ids of the tasks every live worker is running (Celery's remote control `active`,
    over the broker); None when no worker answered, so nothing can be told apart."""
    from webapp.celery import app

    replies = app.control.inspect(timeout=timeout_s).active()
    if not replies:
        return None
    return {str(task.get("id")) for tasks in replies.values() for task in tasks or []}


def sweep_cut_off(queues: Iterable[str], *, settle_s: float = 0.0) -> dict[str, int]:
    """Re-queue (or end, past their re-queues) the checks and prover runs, of these queues,
    that a worker started before now and no live worker runs any more: its worker or pool
    process died, or the whole stack stopped, mid-run."""
    queues = set(queues)
    since = timezone.now()
    time.sleep(settle_s)  # the broker connection settles; a worker just up answers too
    running = live_task_ids()
    counts = {"attempts_requeued": 0, "attempts_failed": 0,
              "prover_runs_requeued": 0, "prover_runs_ended": 0}  # fmt: skip
    if running is None:
        log.warning("no worker answered: cut-off work is left to the periodic sweeper")
        return counts
    if "lean" in queues:
        cut_off = Attempt.objects.filter(
            status__in=(Attempt.Status.CHECKING, Attempt.Status.COACHING), started_at__lt=since
        ).exclude(claimed_by__in=running)
        reason = (
            "Could not check: the check was cut off {n} times (its worker stopped). Your proof "
            "is saved: submit it again."
        )
        for attempt in cut_off.select_related("exercise"):
            if attempt.requeues < settings.ATTEMPT_MAX_REQUEUES:
                counts["attempts_requeued"] += do_requeue_attempt(attempt)
            else:
                n = attempt.requeues + 1
                counts["attempts_failed"] += do_fail_attempt(attempt, reason.format(n=n))
    if "prover" in queues:
        runs = ProverRun.objects.filter(status=ProverRun.Status.RUNNING, started_at__lt=since)
        for run in runs.exclude(claimed_by__in=running):
            if run.requeues < settings.PROVER_MAX_REQUEUES and not run.cancel_requested:
                counts["prover_runs_requeued"] += do_requeue_prover_run(run)
            else:
                counts["prover_runs_ended"] += do_end_stale_prover_run(
                    run, "The prover's worker stopped during this run; ask again."
                )
    if any(counts.values()):
        log.warning("re-queued work cut off mid-run: %s", counts)
    return counts


class CutOffWork(bootsteps.StartStopStep):
    """A consumer bootstep (Celery's documented extension point, "Extensions and Bootsteps":
    `start` runs each time the consumer starts, at worker start and after every reconnection
    to the broker). In a thread, after CUT_OFF_SETTLE_S: the broker must answer the question
    of which tasks the live workers run (webapp.attempts.sweeper.sweep_cut_off)."""

    requires = ("celery.worker.consumer.tasks:Tasks",)

    def start(self, c: Any) -> None:
        queues = set(c.app.amqp.queues.consume_from)
        if not queues & {"lean", "prover"}:
            return

        def sweep() -> None:
            try:
                sweep_cut_off(queues, settle_s=CUT_OFF_SETTLE_S)
            except Exception:  # noqa: BLE001 - the periodic sweeper still ends them later
                log.exception("sweep of cut-off work failed")

        threading.Thread(target=sweep, name="cut-off-sweep", daemon=True).start()


CUT_OFF_SETTLE_S = 2.0
