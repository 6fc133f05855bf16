"""The sweeper: every attempt and prover run reaches an end state the user sees, even when the
broker lost its message or the worker died. Run by Celery beat (lean.sweep_stale) and, for one
user's prover runs, before "Ask the prover" decides whether a run is still going.

Work past its deadline is first re-queued (the broker may have lost the message: a flushed or
restarted Redis, a worker that died after its redelivery was lost), at most *_MAX_REQUEUES
times; after that it ends with the reason. A re-queued copy never runs twice: the task claims
its object for one message and any other copy steps aside (webapp.attempts.tasks._claim).

Deadlines are settings (webapp/settings/resilience.py); each ended object says why.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone

from webapp.attempts.actions import do_fail_attempt, do_requeue_attempt
from webapp.attempts.models import Attempt
from webapp.provers.actions import sweep_prover_runs
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
