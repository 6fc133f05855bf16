"""/metrics: Prometheus text with check latency by outcome, coach sources, attempts by status,
queue depth, prover outcomes, training progress and the serving checkpoint; staff or token."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

from tests.webapp.cast import Cast
from webapp.attempts.models import Attempt, Progress
from webapp.attempts.tasks import check_attempt
from webapp.console.models import TrainingMetric, TrainingRun
from webapp.core import metrics
from webapp.provers.models import ProverRun


@pytest.fixture
def fresh_metrics() -> Iterator[None]:
    def clear() -> None:
        client = metrics._redis()
        for key in client.scan_iter(metrics.PREFIX + "*"):
            client.delete(key)

    clear()
    yield
    clear()


def _samples(body: bytes) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(body.decode())
        for s in family.samples
    }


def _scrape(client: Client, cast: Cast) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    cast.admin.is_staff = True
    cast.admin.save()
    client.force_login(cast.admin)
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    return _samples(response.content)


def test_checks_show_as_latency_by_outcome_and_coach_source(
    cast: Cast, client: Client, fake_lean: Any, fresh_metrics: None
) -> None:
    for proof in ["  rfl", "  intro h\n  simp -- fake: error unsolved_goals"]:
        Progress.objects.get_or_create(student=cast.student, exercise=cast.exercise)
        attempt = Attempt.objects.create(student=cast.student, exercise=cast.exercise, proof=proof)
        check_attempt(attempt.pk)
    got = _scrape(client, cast)
    assert got[("leancoach_check_latency_seconds_count", (("outcome", "valid"),))] == 1
    assert got[("leancoach_check_latency_seconds_count", (("outcome", "invalid"),))] == 1
    assert (
        got[("leancoach_check_latency_seconds_bucket", (("le", "+Inf"), ("outcome", "valid")))] == 1
    )
    assert got[("leancoach_check_latency_seconds_sum", (("outcome", "valid"),))] > 0
    assert got[("leancoach_attempts", (("status", "done"),))] == 2
    assert got[("leancoach_attempts", (("status", "queued"),))] == 0
    coach = {k: v for k, v in got.items() if k[0] == "leancoach_coach_answers_total"}
    assert sum(coach.values()) >= 1  # the invalid proof got the compiler coach's advice
    assert all(dict(labels)["fallback"] in {"true", "false"} for _, labels in coach)


def test_states_queues_prover_training_and_serving(
    cast: Cast, client: Client, fresh_metrics: None
) -> None:
    ProverRun.objects.create(user=cast.student, exercise=cast.exercise,
                             status="finished", verdict="valid")  # fmt: skip
    run = TrainingRun.objects.create(status=TrainingRun.Status.RUNNING, steps=10, step=3)
    TrainingMetric.objects.create(run=run, step=3, stage="sft", values={"loss": 1.25})
    got = _scrape(client, cast)
    assert got[("leancoach_prover_runs", (("status", "finished"), ("verdict", "valid")))] == 1
    assert got[("leancoach_training_step", (("run", run.run_name),))] == 3
    assert got[("leancoach_training_steps", (("run", run.run_name),))] == 10
    assert got[("leancoach_training_loss", (("run", run.run_name),))] == 1.25
    for queue in ("lean", "prover", "train"):
        assert ("leancoach_queue_depth", (("queue", queue),)) in got
    assert not any(name == "leancoach_serving_checkpoint" for name, _ in got)  # none serves


def test_only_staff_or_the_token_may_read_it(
    cast: Cast, client: Client, settings: Any, fresh_metrics: None
) -> None:
    assert client.get("/metrics").status_code == 403
    client.force_login(cast.student)
    assert client.get("/metrics").status_code == 403
    client.logout()
    settings.METRICS_TOKEN = "s3cret-token"
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 403
    response = client.get("/metrics", HTTP_AUTHORIZATION="Bearer s3cret-token")
    assert response.status_code == 200 and b"leancoach_attempts" in response.content


def test_celery_task_ends_are_counted(fresh_metrics: None) -> None:
    class Task:
        name = "lean.check_attempt"

    metrics._task_prerun(task_id="t1")
    metrics._task_postrun(task_id="t1", task=Task(), state="SUCCESS")
    counts = metrics._hash("tasks")
    assert counts == {"lean.check_attempt|SUCCESS": "1"}
    assert metrics._hash("task_runtime:count") == {"lean.check_attempt": "1"}
