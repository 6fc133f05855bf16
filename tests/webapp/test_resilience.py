"""Issue 14 part A: every attempt and prover run reaches an end state the user sees, and one
user cannot stall a class (supersede, rate limits, login and join-code throttling)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from unittest import mock

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from kombu.exceptions import OperationalError

from tests.webapp.cast import PASSWORD, Cast
from tutor import redis_boundary
from webapp.attempts.models import Attempt
from webapp.attempts.sweeper import sweep
from webapp.attempts.tasks import sweep_stale
from webapp.celery import app
from webapp.provers.models import ProverRun
from webapp.provers.tasks import run_prover

HTMX: dict[str, Any] = {"HTTP_HX_REQUEST": "true"}  # extra WSGI keys for Client.post


def _submit(client: Client, cast: Cast, proof: str = "  rfl", **extra: Any) -> Any:
    return client.post(
        reverse("attempts:submit", args=[cast.exercise.pk]), {"proof": proof}, **extra
    )


def _age(model: Any, pk: int, seconds: int, field: str = "created_at") -> None:
    model.objects.filter(pk=pk).update(**{field: timezone.now() - timedelta(seconds=seconds)})


def test_a_broker_outage_at_submit_ends_the_attempt_with_the_reason(
    cast: Cast, client: Client, django_capture_on_commit_callbacks: Any
) -> None:
    client.force_login(cast.student)
    refused = OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
    with (
        mock.patch("webapp.attempts.actions.enqueue", side_effect=refused),
        django_capture_on_commit_callbacks(execute=True),
    ):
        response = _submit(client, cast, "  exact rfl", **HTMX)
    assert response.status_code == 200  # not a 500: the page shows what happened
    attempt = Attempt.objects.get()
    assert attempt.status == "failed" and attempt.proof == "  exact rfl"  # nothing lost
    assert "queue is unreachable" in attempt.status_detail
    assert response.status_code == 200 and "Traceback" not in response.content.decode()
    body = client.get(reverse("attempts:live", args=[attempt.pk])).content.decode()
    assert "queue is unreachable" in body and 'hx-trigger="every 5s"' not in body


def test_each_broker_connect_and_command_is_bounded() -> None:
    """kombu's Redis transport connects and waits for answers without a timeout of its own:
    a Redis host that drops packets held a submit for the kernel's ~2 minutes, one that
    stalls for as long as it stalled. The boundary's timeouts reach redis-py's pool (a name
    kombu did not read would leave it None)."""
    with app.connection_for_write() as connection:
        kwargs = connection.default_channel.pool.connection_kwargs  # type: ignore[attr-defined]
    assert kwargs["socket_connect_timeout"] == redis_boundary.CONNECT_TIMEOUT_S
    assert kwargs["socket_timeout"] == 2 * redis_boundary.TIMEOUT_S


def test_submits_past_the_rate_limit_are_refused_with_a_message(
    cast: Cast, client: Client, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "submit": "2/m"}
    client.force_login(cast.student)
    with (
        mock.patch("webapp.attempts.actions.enqueue"),
        django_capture_on_commit_callbacks(execute=True),
    ):
        statuses = [_submit(client, cast, f"  try {i}", **HTMX) for i in range(3)]
    refused = statuses[2]
    assert refused["HX-Retarget"] == "#form-errors"
    assert "Too many submissions" in refused.content.decode()
    assert Attempt.objects.count() == 2


def test_prover_requests_past_the_rate_limit_are_refused(
    cast: Cast, client: Client, settings: Any
) -> None:
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "prover": "1/h"}
    client.force_login(cast.student)
    url = reverse("provers:ask", args=[cast.exercise.pk])
    with mock.patch("webapp.provers.actions.enqueue"):
        client.post(url, {"mode": "agent"}, **HTMX)
        ProverRun.objects.update(status=ProverRun.Status.FINISHED)
        response = client.post(url, {"mode": "agent"}, **HTMX)
    assert "Too many prover requests" in response.content.decode()
    assert ProverRun.objects.count() == 1


def test_logins_are_throttled_after_failed_tries(cast: Cast, client: Client, settings: Any) -> None:
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "login": "2/m"}
    url = reverse("login")
    for _ in range(2):
        response = client.post(url, {"username": cast.student.username, "password": "wrong"})
        assert response.status_code == 200
    response = client.post(url, {"username": cast.student.username, "password": PASSWORD})
    assert response.status_code == 429 and "Too many failed logins" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_a_good_login_is_not_counted(cast: Cast, client: Client, settings: Any) -> None:
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "login": "1/m"}
    for _ in range(2):
        response = client.post(
            reverse("login"), {"username": cast.student.username, "password": PASSWORD}
        )
        assert response.status_code == 302
        client.logout()


def test_join_code_tries_are_throttled(cast: Cast, client: Client, settings: Any) -> None:
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "join": "2/m"}
    client.force_login(cast.other_student)
    for _ in range(2):
        client.post(reverse("accounts:join"), {"code": "NOPE-NOPE"})
    response = client.post(
        reverse("accounts:join"), {"code": cast.classroom.join_code}, follow=True
    )
    assert "Too many join-code tries" in response.content.decode()
    assert not cast.classroom.students.filter(pk=cast.other_student.pk).exists()


def test_the_sweeper_ends_stale_attempts_with_the_reason(cast: Cast, settings: Any) -> None:
    settings.ATTEMPT_MAX_REQUEUES = 0  # re-queueing first: tests/webapp/test_sweeper.py
    queued = Attempt.objects.create(student=cast.student, exercise=cast.exercise, proof="  a")
    checking = Attempt.objects.create(
        student=cast.student, exercise=cast.exercise, proof="  b", status="checking",
        started_at=timezone.now(),
    )  # fmt: skip
    fresh = Attempt.objects.create(student=cast.student, exercise=cast.exercise, proof="  c")
    _age(Attempt, queued.pk, settings.ATTEMPT_QUEUED_DEADLINE_S + 5, "queued_at")
    _age(Attempt, checking.pk, settings.ATTEMPT_CHECKING_DEADLINE_S + 5, "started_at")
    assert sweep_stale()["attempts_failed"] == 2
    for attempt in (queued, checking, fresh):
        attempt.refresh_from_db()
    assert queued.status == checking.status == "failed"
    assert "no checker took this attempt" in queued.status_detail
    assert "did not finish" in checking.status_detail
    assert fresh.status == "queued"
    assert sweep()["attempts_failed"] == 0  # ended ones stay as they are


def test_the_page_stops_polling_after_its_deadline(
    cast: Cast, client: Client, settings: Any
) -> None:
    attempt = Attempt.objects.create(student=cast.student, exercise=cast.exercise, proof="  a")
    client.force_login(cast.student)
    url = reverse("attempts:live", args=[attempt.pk])
    assert 'hx-trigger="every 5s"' in client.get(url).content.decode()
    _age(Attempt, attempt.pk, settings.ATTEMPT_POLL_DEADLINE_S + 5)
    body = client.get(url).content.decode()
    assert 'hx-trigger="every 5s"' not in body and "this page stopped waiting" in body


def test_a_dead_prover_run_does_not_block_asking_forever(
    cast: Cast, client: Client, settings: Any
) -> None:
    run = ProverRun.objects.create(
        exercise=cast.exercise, user=cast.student, status="running", started_at=timezone.now()
    )
    _age(ProverRun, run.pk, settings.PROVER_RUNNING_DEADLINE_S + 5, "started_at")
    client.force_login(cast.student)
    response = client.post(reverse("provers:ask", args=[cast.exercise.pk]), {"mode": "agent"})
    assert response.status_code == 302 and ProverRun.objects.filter(status="queued").exists()
    run.refresh_from_db()
    assert run.status == "failed" and "did not finish within" in run.error


def test_cancelling_twice_ends_a_run_whose_worker_died(cast: Cast, client: Client) -> None:
    run = ProverRun.objects.create(
        exercise=cast.exercise, user=cast.student, status="running", started_at=timezone.now()
    )
    client.force_login(cast.student)
    url = reverse("provers:cancel", args=[run.pk])
    body = client.post(url, **HTMX).content.decode()
    run.refresh_from_db()
    assert run.status == "running" and run.cancel_requested and "Force stop" in body
    client.post(url, **HTMX)
    run.refresh_from_db()
    assert run.status == "cancelled" and "did not answer" in run.error


def test_a_redelivered_running_prover_run_ends_failed(cast: Cast) -> None:
    run = ProverRun.objects.create(
        exercise=cast.exercise, user=cast.student, status="running", started_at=timezone.now()
    )
    assert run_prover(run.pk) == "failed"
    run.refresh_from_db()
    assert "worker stopped" in run.error and run.finished_at is not None


def test_celery_requeues_on_worker_loss_and_limits_each_queue(settings: Any) -> None:
    assert app.conf.task_acks_late and app.conf.task_reject_on_worker_lost
    task = app.tasks["lean.check_attempt"]
    soft, hard = settings.CELERY_QUEUE_TIME_LIMITS["lean"]
    assert (task.soft_time_limit, task.time_limit) == (soft, hard) and soft < hard
    prover = app.tasks["prover.run_prover"]
    assert prover.time_limit == settings.CELERY_QUEUE_TIME_LIMITS["prover"][1]
    assert "sweep-stale" in settings.CELERY_BEAT_SCHEDULE


@pytest.fixture
def cast(db: None) -> Cast:
    from tests.webapp.cast import make_cast

    return make_cast()
