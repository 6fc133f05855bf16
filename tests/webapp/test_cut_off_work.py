"""Work cut off mid-run is re-queued as soon as a worker (re)connects to the broker
(webapp.attempts.sweeper.sweep_cut_off, called by webapp.attempts.sweeper.CutOffWork), not after the
sweeper's deadline: what is marked started but runs on no live worker. Here the answer of
the live workers is given; tests/webapp/test_fault_injection.py asks real ones."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from unittest import mock

import pytest
from django.utils import timezone

from tests.webapp.cast import Cast
from webapp.attempts import sweeper
from webapp.attempts.models import Attempt
from webapp.provers.models import ProverRun


def _started(cast: Cast, message: str, *, requeues: int = 0, ago_s: int = 30) -> Attempt:
    return Attempt.objects.create(
        student=cast.student, exercise=cast.exercise, proof="  rfl", status="checking",
        claimed_by=message, requeues=requeues, started_at=timezone.now() - timedelta(seconds=ago_s),
    )  # fmt: skip


def _sweep(live: set[str] | None, capture: Any, queues: tuple[str, ...] = ("lean", "prover")):
    with (
        mock.patch.object(sweeper, "live_task_ids", return_value=live),
        mock.patch("webapp.attempts.actions.enqueue") as checks,
        mock.patch("webapp.provers.actions.enqueue") as runs,
        mock.patch("webapp.provers.actions.push_prover_state"),
        capture(execute=True),
    ):
        counts = sweeper.sweep_cut_off(queues)
    return counts, checks, runs


def test_a_check_no_live_worker_runs_is_requeued_at_once(
    cast: Cast, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.ATTEMPT_MAX_REQUEUES = 2
    orphan = _started(cast, "dead-message")
    running = _started(cast, "live-message")
    worn = _started(cast, "dead-too", requeues=2)
    counts, checks, _ = _sweep({"live-message"}, django_capture_on_commit_callbacks)
    assert counts["attempts_requeued"] == 1 and counts["attempts_failed"] == 1
    orphan.refresh_from_db()
    assert orphan.status == "queued" and orphan.requeues == 1 and orphan.claimed_by == ""
    checks.assert_called_once_with("lean.check_attempt", orphan.pk)
    running.refresh_from_db()
    assert running.status == "checking"  # a live worker runs it
    worn.refresh_from_db()
    assert worn.status == "failed" and "cut off 3 times" in worn.status_detail


def test_a_prover_run_no_live_worker_runs_starts_over(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    run = ProverRun.objects.create(
        exercise=cast.exercise, user=cast.student, status="running", claimed_by="dead",
        started_at=timezone.now() - timedelta(seconds=30),
    )  # fmt: skip
    counts, _, runs = _sweep({"other"}, django_capture_on_commit_callbacks)
    assert counts["prover_runs_requeued"] == 1
    runs.assert_called_once_with("prover.run_prover", run.pk)


def test_each_worker_sweeps_only_its_own_kind_of_work(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    orphan = _started(cast, "dead-message")
    counts, checks, _ = _sweep(set(), django_capture_on_commit_callbacks, queues=("prover",))
    assert not checks.called and counts["attempts_requeued"] == 0
    assert Attempt.objects.get(pk=orphan.pk).status == "checking"


@pytest.mark.parametrize("live", [None])
def test_when_no_worker_answers_nothing_is_touched(
    cast: Cast, live: Any, django_capture_on_commit_callbacks: Any
) -> None:
    orphan = _started(cast, "dead-message")
    counts, checks, _ = _sweep(live, django_capture_on_commit_callbacks)
    assert not any(counts.values()) and not checks.called
    assert Attempt.objects.get(pk=orphan.pk).status == "checking"


def test_work_started_after_the_reconnection_is_left_alone(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    fresh = _started(cast, "dead-message", ago_s=-5)  # started after the sweep began
    _sweep(set(), django_capture_on_commit_callbacks)
    assert Attempt.objects.get(pk=fresh.pk).status == "checking"
