"""Seed 000's monitoring: success rate over the window, the 60% alert (shown and logged),
feedback latency percentiles and exploration paths."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from tests.webapp.cast import Cast, make_cast
from webapp.attempts.models import Attempt
from webapp.console import monitoring
from webapp.provers.models import ProverRun


@pytest.fixture
def cast(db: None) -> Cast:
    return make_cast()


def _runs(
    cast: Cast, verdicts: list[str], mode: str = "agent", hours_ago: int = 0, **fields
) -> None:
    now = timezone.now() - timedelta(hours=hours_ago)
    for i, verdict in enumerate(verdicts):
        ProverRun.objects.create(exercise=cast.exercise, user=cast.student, status="finished",
                                 verdict=verdict, mode=mode, finished_at=now + timedelta(seconds=i),
                                 **fields)  # fmt: skip


def test_the_rate_counts_only_checked_verdicts_in_the_window(cast: Cast) -> None:
    _runs(cast, ["invalid"] * 10, hours_ago=1)  # older: they fall out of the 50-run window
    _runs(cast, ["valid"] * 30 + ["no_proof"] * 20)
    ProverRun.objects.create(exercise=cast.exercise, user=cast.student, status="failed",
                             error="Lean is unavailable")  # fmt: skip
    ProverRun.objects.create(exercise=cast.exercise, user=cast.student, status="finished",
                             verdict="could_not_check")  # fmt: skip
    rate = monitoring.prover_success_rate()
    assert (rate.valid, rate.total, rate.percent, rate.alert) == (30, 50, 60, False)


def test_under_60_percent_raises_the_alert_on_console_pages(client: Client, cast: Cast) -> None:
    _runs(cast, ["valid"] * 5 + ["invalid"] * 6)
    client.force_login(cast.admin)
    html = client.get(reverse("console:index")).content.decode()
    assert 'id="success-alert"' in html and "45%" in html and "under the 60% threshold" in html


def test_too_few_runs_raise_no_alert(client: Client, cast: Cast) -> None:
    _runs(cast, ["invalid"] * 9)
    assert not monitoring.prover_success_rate().alert
    client.force_login(cast.admin)
    assert 'id="success-alert"' not in client.get(reverse("console:index")).content.decode()


def test_the_alert_is_logged_at_warning(cast: Cast, caplog: pytest.LogCaptureFixture) -> None:
    _runs(cast, ["valid"] * 2 + ["invalid"] * 8)
    with caplog.at_level(logging.WARNING, logger="webapp.console.monitoring"):
        monitoring.log_success_alert()
    assert [r.levelname for r in caplog.records] == ["WARNING"]
    assert "proof success rate 20%" in caplog.records[0].getMessage()


def test_a_healthy_rate_logs_nothing(cast: Cast, caplog: pytest.LogCaptureFixture) -> None:
    _runs(cast, ["valid"] * 10)
    with caplog.at_level(logging.WARNING, logger="webapp.console.monitoring"):
        monitoring.log_success_alert()
    assert caplog.records == []


def test_feedback_latency_percentiles(cast: Cast) -> None:
    start = timezone.now()
    for ms in [100, 200, 300, 400, 2000]:
        attempt = Attempt.objects.create(student=cast.student, exercise=cast.exercise, proof="rfl",
                                         status="done")  # fmt: skip
        Attempt.objects.filter(pk=attempt.pk).update(
            created_at=start, finished_at=start + timedelta(milliseconds=ms)
        )
    latency = monitoring.feedback_latency()
    assert (latency.n, latency.p50_ms, latency.p95_ms, latency.over_target) == (5, 300, 2000, True)


def test_exploration_paths_compare_recent_search_runs_with_the_first(cast: Cast) -> None:
    now = timezone.now()
    for i, expansions in enumerate([2] * 50 + [8] * 50):
        ProverRun.objects.create(exercise=cast.exercise, user=cast.student, status="finished",
                                 verdict="valid", mode="search", result={"expansions": expansions},
                                 finished_at=now + timedelta(seconds=i))  # fmt: skip
    exploration = monitoring.exploration_paths()
    assert (exploration.recent_mean, exploration.initial_mean, exploration.ratio) == (8, 2, 4)


def test_the_monitoring_panel_says_when_there_is_no_data(client: Client, cast: Cast) -> None:
    client.force_login(cast.admin)
    html = client.get(reverse("console:monitoring")).content.decode()
    for text in (
        "no checked prover runs yet",
        "no finished attempts yet",
        "no search-mode prover runs yet",
    ):
        assert text in html
