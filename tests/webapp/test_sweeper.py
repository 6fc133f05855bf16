"""Issue 14: nothing stuck, nothing lost. The sweeper re-queues work whose message was lost (a
bounded number of times, then ends it with the reason); a re-queued copy never runs twice; one
unfinished check per student and exercise, whether it is queued or being checked."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from unittest import mock

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from tests.webapp.cast import Cast
from webapp.attempts.models import Attempt
from webapp.attempts.sweeper import sweep
from webapp.attempts.tasks import check_attempt
from webapp.provers.models import ProverRun
from webapp.provers.tasks import run_prover

HTMX: dict[str, Any] = {"HTTP_HX_REQUEST": "true"}  # extra WSGI keys for Client.post


def _age(model: Any, pk: int, seconds: int, field: str) -> None:
    model.objects.filter(pk=pk).update(**{field: timezone.now() - timedelta(seconds=seconds)})


def _sweep_with_queue(capture: Any) -> tuple[dict[str, int], mock.MagicMock]:
    """One sweep, with the broker replaced by a mock that records what was sent."""
    with mock.patch("webapp.attempts.actions.enqueue") as delay, capture(execute=True):
        counts = sweep()
    return counts, delay


def test_a_queued_attempt_whose_message_was_lost_is_requeued_then_checked(
    cast: Cast, settings: Any, fake_lean: Any, django_capture_on_commit_callbacks: Any
) -> None:
    attempt = Attempt.objects.create(student=cast.student, exercise=cast.exercise, proof="  rfl")
    fresh = Attempt.objects.create(student=cast.other_student, exercise=cast.exercise, proof="  x")
    _age(Attempt, attempt.pk, settings.ATTEMPT_QUEUED_DEADLINE_S + 5, "queued_at")
    counts, delay = _sweep_with_queue(django_capture_on_commit_callbacks)
    assert counts["attempts_requeued"] == 1 and counts["attempts_failed"] == 0
    # Only the stale one went back on the queue.
    delay.assert_called_once_with("lean.check_attempt", attempt.pk)
    attempt.refresh_from_db()
    fresh.refresh_from_db()
    assert (attempt.status, attempt.requeues, fresh.requeues) == ("queued", 1, 0)
    assert (timezone.now() - attempt.queued_at).total_seconds() < 60  # its deadline restarts
    assert "sent to the checkers again" in attempt.status_detail.lower()
    # The new message is checked as usual and ends with Lean's verdict.
    assert check_attempt.apply((attempt.pk,), task_id="requeued-copy").get() == "done"
    attempt.refresh_from_db()
    assert attempt.valid is True and attempt.status_detail == ""


def test_requeues_are_bounded_then_the_attempt_ends_with_the_reason(
    cast: Cast, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.ATTEMPT_MAX_REQUEUES = 2
    attempt = Attempt.objects.create(student=cast.student, exercise=cast.exercise, proof="  a")
    sent = 0
    for _ in range(3):
        _age(Attempt, attempt.pk, settings.ATTEMPT_QUEUED_DEADLINE_S + 5, "queued_at")
        counts, delay = _sweep_with_queue(django_capture_on_commit_callbacks)
        sent += delay.call_count
    attempt.refresh_from_db()
    assert sent == 2 and attempt.requeues == 2
    assert attempt.status == "failed" and attempt.finished_at is not None
    assert "no checker took this attempt in 3 tries" in attempt.status_detail
    assert (counts["attempts_failed"], counts["attempts_requeued"]) == (1, 0)
    assert sweep()["attempts_failed"] == 0  # ended ones stay as they are


def test_a_check_whose_worker_vanished_is_requeued_then_ended(
    cast: Cast, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.ATTEMPT_MAX_REQUEUES = 1
    attempt = Attempt.objects.create(
        student=cast.student, exercise=cast.exercise, proof="  b", status="checking",
        started_at=timezone.now(), claimed_by="lost-message",
    )  # fmt: skip
    live = Attempt.objects.create(
        student=cast.other_student, exercise=cast.exercise, proof="  c", status="coaching",
        started_at=timezone.now(),
    )  # fmt: skip
    _age(Attempt, attempt.pk, settings.ATTEMPT_CHECKING_DEADLINE_S + 5, "started_at")
    counts, delay = _sweep_with_queue(django_capture_on_commit_callbacks)
    attempt.refresh_from_db()
    assert counts["attempts_requeued"] == 1 and delay.call_count == 1
    assert (attempt.status, attempt.claimed_by, attempt.started_at) == ("queued", "", None)
    # Taken again and lost again: past the bound it ends with the reason.
    Attempt.objects.filter(pk=attempt.pk).update(status="checking", claimed_by="second")
    _age(Attempt, attempt.pk, settings.ATTEMPT_CHECKING_DEADLINE_S + 5, "started_at")
    counts, delay = _sweep_with_queue(django_capture_on_commit_callbacks)
    attempt.refresh_from_db()
    live.refresh_from_db()
    assert counts["attempts_failed"] == 1 and delay.call_count == 0
    assert attempt.status == "failed" and "did not finish" in attempt.status_detail
    assert live.status == "coaching"  # a check within its deadline is left alone


def test_a_second_copy_of_a_check_steps_aside_and_a_redelivery_runs(
    cast: Cast, fake_lean: Any
) -> None:
    attempt = Attempt.objects.create(
        student=cast.student, exercise=cast.exercise, proof="  rfl", status="checking",
        started_at=timezone.now(), claimed_by="first-message",
    )  # fmt: skip
    assert check_attempt.apply((attempt.pk,), task_id="second-message").get() == "duplicate"
    attempt.refresh_from_db()
    assert attempt.status == "checking" and attempt.claimed_by == "first-message"
    # The message that took it, delivered again after its worker was lost, checks it.
    assert check_attempt.apply((attempt.pk,), task_id="first-message").get() == "done"
    assert check_attempt.apply((attempt.pk,), task_id="second-message").get() == "done"


def test_two_copies_of_a_queued_check_run_it_once(cast: Cast, fake_lean: Any) -> None:
    attempt = Attempt.objects.create(student=cast.student, exercise=cast.exercise, proof="  rfl")
    assert check_attempt.apply((attempt.pk,), task_id="original").get() == "done"
    checked = list(attempt.diagnostics.values_list("pk", flat=True))
    assert check_attempt.apply((attempt.pk,), task_id="requeued").get() == "done"
    assert list(attempt.diagnostics.values_list("pk", flat=True)) == checked
    attempt.refresh_from_db()
    assert attempt.claimed_by == "original"


# Prover runs ------------------------------------------------------------------------------


def _run(cast: Cast, **fields: Any) -> ProverRun:
    return ProverRun.objects.create(exercise=cast.exercise, user=cast.student, **fields)


def test_a_queued_prover_run_whose_message_was_lost_is_requeued_then_ended(
    cast: Cast, settings: Any
) -> None:
    settings.PROVER_MAX_REQUEUES = 1
    run = _run(cast)
    _age(ProverRun, run.pk, settings.PROVER_QUEUED_DEADLINE_S + 5, "queued_at")
    with mock.patch("webapp.provers.actions.enqueue") as delay:
        counts = sweep()
        assert counts["prover_runs_requeued"] == 1 and counts["prover_runs_ended"] == 0
        delay.assert_called_once_with("prover.run_prover", run.pk)
        run.refresh_from_db()
        assert (run.status, run.requeues) == ("queued", 1)
        assert sweep()["prover_runs_requeued"] == 0  # its deadline restarted
        _age(ProverRun, run.pk, settings.PROVER_QUEUED_DEADLINE_S + 5, "queued_at")
        counts = sweep()
    run.refresh_from_db()
    assert counts["prover_runs_ended"] == 1 and delay.call_count == 1
    assert run.status == "failed" and "in 2 tries" in run.error and run.finished_at


def test_a_running_prover_run_past_its_deadline_starts_over_once(cast: Cast, settings: Any) -> None:
    settings.PROVER_MAX_REQUEUES = 1
    run = _run(
        cast, status="running", started_at=timezone.now(), claimed_by="gone",
        events=[{"kind": "token", "text": "half a proof"}],
    )  # fmt: skip
    _age(ProverRun, run.pk, settings.PROVER_RUNNING_DEADLINE_S + 5, "started_at")
    with mock.patch("webapp.provers.actions.enqueue") as delay:
        assert sweep()["prover_runs_requeued"] == 1
    run.refresh_from_db()
    assert (run.status, run.events, run.claimed_by, delay.call_count) == ("queued", [], "", 1)
    # A copy of the old message finding it taken by the new one steps aside.
    ProverRun.objects.filter(pk=run.pk).update(
        status="running", started_at=timezone.now(), claimed_by="new"
    )
    assert run_prover.apply((run.pk,), task_id="old").get() == "duplicate"
    _age(ProverRun, run.pk, settings.PROVER_RUNNING_DEADLINE_S + 5, "started_at")
    assert sweep()["prover_runs_ended"] == 1
    run.refresh_from_db()
    assert run.status == "failed" and "did not finish within" in run.error


def test_a_prover_requeue_with_the_broker_down_ends_the_run(cast: Cast, settings: Any) -> None:
    run = _run(cast)
    _age(ProverRun, run.pk, settings.PROVER_QUEUED_DEADLINE_S + 5, "queued_at")
    with mock.patch("webapp.provers.actions.enqueue", side_effect=OSError("refused")):
        assert sweep()["prover_runs_requeued"] == 0
    run.refresh_from_db()
    assert run.status == "failed" and "queue is unreachable" in run.error


def test_a_cancelled_stale_run_is_not_started_again(cast: Cast, settings: Any) -> None:
    run = _run(cast, status="running", started_at=timezone.now(), cancel_requested=True)
    _age(ProverRun, run.pk, settings.PROVER_RUNNING_DEADLINE_S + 5, "started_at")
    with mock.patch("webapp.provers.actions.enqueue") as delay:
        assert sweep()["prover_runs_ended"] == 1
    run.refresh_from_db()
    assert run.status == "cancelled" and delay.call_count == 0


# One unfinished check per student and exercise --------------------------------------------


def _submit(client: Client, cast: Cast, proof: str) -> Any:
    url = reverse("attempts:submit", args=[cast.exercise.pk])
    with mock.patch("webapp.attempts.actions.enqueue"):
        return client.post(url, {"proof": proof}, **HTMX)


@pytest.mark.parametrize("state", ["checking", "coaching"])
def test_a_submit_while_the_previous_one_is_being_checked_is_refused(
    cast: Cast, client: Client, state: str
) -> None:
    busy = Attempt.objects.create(
        student=cast.student, exercise=cast.exercise, proof="  first", status=state,
        started_at=timezone.now(),
    )  # fmt: skip
    client.force_login(cast.student)
    response = _submit(client, cast, "  second")
    body = response.content.decode()
    assert response["HX-Retarget"] == "#form-errors"
    assert f"previous proof (attempt {busy.pk}) is being checked" in body
    assert Attempt.objects.count() == 1  # nothing queued behind it
    busy.refresh_from_db()
    assert busy.status == state
    # Another exercise, or another student, is not held up by it.
    client.force_login(cast.other_student)
    assert _submit(client, cast, "  mine").status_code == 200
    assert Attempt.objects.filter(student=cast.other_student, status="queued").count() == 1


def test_a_submit_supersedes_the_queued_one_so_one_stays_unfinished(
    cast: Cast, client: Client, django_capture_on_commit_callbacks: Any
) -> None:
    client.force_login(cast.student)
    with django_capture_on_commit_callbacks(execute=True):
        for i in range(5):
            assert _submit(client, cast, f"  try {i}").status_code == 200
    unfinished = Attempt.objects.filter(status__in=Attempt.UNFINISHED)
    assert list(unfinished.values_list("proof", flat=True)) == ["  try 4"]
    assert Attempt.objects.filter(status="superseded").count() == 4


def test_a_check_past_the_hard_time_limit_does_not_block_the_next_submit(
    cast: Cast, client: Client, settings: Any
) -> None:
    dead = Attempt.objects.create(
        student=cast.student, exercise=cast.exercise, proof="  first", status="checking",
        started_at=timezone.now(),
    )  # fmt: skip
    _age(Attempt, dead.pk, settings.CELERY_QUEUE_TIME_LIMITS["lean"][1] + 5, "started_at")
    client.force_login(cast.student)
    assert _submit(client, cast, "  second").status_code == 200
    dead.refresh_from_db()
    new = Attempt.objects.exclude(pk=dead.pk).get()
    assert dead.status == "superseded" and f"attempt {new.pk}" in dead.status_detail
    assert new.status == "queued"


def test_a_database_error_at_submit_is_shown_next_to_the_editor(cast: Cast, client: Client) -> None:
    from django.db import OperationalError

    client.force_login(cast.student)
    lost = OperationalError("terminating connection due to administrator command")
    with mock.patch("webapp.attempts.views.do_submit_attempt", side_effect=lost):
        response = _submit(client, cast, "  kept")
    assert response.status_code == 200 and response["HX-Retarget"] == "#form-errors"
    assert "the database did not answer" in response.content.decode()
    with mock.patch("webapp.attempts.views.do_submit_attempt", side_effect=lost):
        url = reverse("attempts:submit", args=[cast.exercise.pk])
        plain = client.post(url, {"proof": "  kept"})
    assert plain.status_code == 503 and "did not answer" in plain.content.decode()
