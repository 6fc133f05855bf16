"""The `lean.check_attempt` task, called directly, against the REPL protocol double."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from channels.layers import get_channel_layer

from tests.webapp.cast import Cast
from webapp.attempts import live
from webapp.attempts.models import Attempt, Progress
from webapp.attempts.tasks import check_attempt


def _attempt(cast: Cast, proof: str) -> Attempt:
    Progress.objects.create(student=cast.student, exercise=cast.exercise, attempts=1)
    return Attempt.objects.create(student=cast.student, exercise=cast.exercise, proof=proof)


def test_it_stores_per_line_errors_and_suggestions(cast: Cast, fake_lean: Any) -> None:
    attempt = _attempt(cast, "  intro h\n  simp -- fake: error unsolved_goals")
    assert check_attempt(attempt.pk) == "done"
    attempt.refresh_from_db()
    assert attempt.valid is False
    errors = list(attempt.diagnostics.filter(severity="error"))
    assert [(d.line, d.kind) for d in errors] == [(2, "unsolved_goals")]
    assert "⊢ 0 < x * x" in errors[0].goal
    suggestions = list(attempt.suggestions.all())
    assert 1 <= len(suggestions) <= 3
    assert all(0 <= s.line <= 2 for s in suggestions)
    assert attempt.coach_source == "compiler"
    assert not Progress.objects.get(student=cast.student).solved


def test_it_marks_a_valid_proof_solved(cast: Cast, fake_lean: Any) -> None:
    attempt = _attempt(cast, "  rfl")
    assert check_attempt(attempt.pk) == "done"
    attempt.refresh_from_db()
    assert attempt.valid is True
    assert not attempt.diagnostics.filter(severity="error").exists()
    assert Progress.objects.get(student=cast.student, exercise=cast.exercise).solved


def test_it_shows_the_goal_at_a_sorry(cast: Cast, fake_lean: Any) -> None:
    attempt = _attempt(cast, "  sorry")
    check_attempt(attempt.pk)
    attempt.refresh_from_db()
    assert attempt.valid is False
    goal = attempt.diagnostics.get(kind="sorry_goal")
    assert goal.line == 1
    assert goal.goal == "n : Nat\n⊢ n + 0 = n"


def test_it_ends_honestly_when_lean_is_unavailable(cast: Cast, no_lean: None) -> None:
    attempt = _attempt(cast, "  rfl")
    assert check_attempt(attempt.pk) == "unavailable"
    attempt.refresh_from_db()
    assert attempt.valid is None  # no verdict invented
    assert attempt.status_detail.startswith("Lean unavailable: no Lean REPL")
    assert not attempt.suggestions.exists()
    assert not Progress.objects.get(student=cast.student).solved


def test_a_lean_timeout_is_no_verdict(cast: Cast, fake_lean: Any) -> None:
    fake_lean.config = dataclasses.replace(fake_lean.config, timeout_s=1.0)
    attempt = _attempt(cast, "  rfl -- fake: hang")
    assert check_attempt(attempt.pk) == "failed"
    attempt.refresh_from_db()
    assert attempt.valid is None
    assert attempt.status_detail == "Could not check: Lean ran out of time on this proof"


def _notices_after_check(attempt: Attempt, wait_s: float) -> list[dict[str, Any]]:
    """Runs the check with a channel in the attempt's group; the notices that reach it,
    waiting up to `wait_s` for each."""
    from asgiref.sync import async_to_sync

    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(attempt.group_name, channel)
    check_attempt(attempt.pk)
    received: list[dict[str, Any]] = []
    while True:
        try:
            received.append(async_to_sync(_receive_quick)(layer, channel, wait_s))
        except TimeoutError:
            return received


def test_a_quick_check_sends_only_its_end_notice(
    cast: Cast, fake_lean: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker sends notices, not pages: the watchers render (AttemptConsumer). A step
    overtaken by the next within STEP_NOTICE_DELAY_S is never sent, not even late."""
    # Longer than this check takes with the REPL's start (a busy CI machine included).
    monkeypatch.setattr(live, "STEP_NOTICE_DELAY_S", 1.5)
    attempt = _attempt(cast, "  rfl")
    received = _notices_after_check(attempt, wait_s=2.0)
    assert [m["type"] for m in received] == ["attempt.changed"]
    assert [(m["status"], m["finished"]) for m in received] == [("done", True)]
    assert all("html" not in m for m in received)  # nothing rendered in the worker


def test_a_slow_check_notifies_each_step_then_the_end(
    cast: Cast, fake_lean: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lean and the coach each take longer than the step delay: the page hears "checking",
    then "coaching" (Lean's messages are in), then the end."""
    import time

    from webapp.attempts import checking

    slow = 3 * live.STEP_NOTICE_DELAY_S
    real_coach = checking.ask_coach

    def slow_coach(*args: Any, **kwargs: Any) -> Any:
        time.sleep(slow)
        return real_coach(*args, **kwargs)

    monkeypatch.setattr(checking, "ask_coach", slow_coach)
    attempt = _attempt(cast, f"  rfl -- fake: sleep {slow}")
    received = _notices_after_check(attempt, wait_s=0.2)
    assert [(m["status"], m["finished"]) for m in received] == [
        ("checking", False),
        ("coaching", False),
        ("done", True),
    ]


async def _receive_quick(layer: Any, channel: str, wait_s: float) -> dict[str, Any]:
    import asyncio

    return await asyncio.wait_for(layer.receive(channel), timeout=wait_s)


def test_a_redelivered_task_does_not_check_twice(cast: Cast, fake_lean: Any) -> None:
    attempt = _attempt(cast, "  rfl")
    check_attempt(attempt.pk)
    first = list(attempt.diagnostics.values_list("pk", flat=True))
    assert check_attempt(attempt.pk) == "done"
    assert list(attempt.diagnostics.values_list("pk", flat=True)) == first


@pytest.mark.django_db
def test_a_missing_attempt_is_reported() -> None:
    assert check_attempt(987654) == "missing"


def _messages(attempt: Attempt) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    diagnostics = [(d.line, d.message) for d in attempt.diagnostics.order_by("line", "message")]
    return diagnostics, [(s.line, s.text) for s in attempt.suggestions.order_by("line", "text")]


def test_a_check_stored_before_its_worker_was_lost_is_replaced_not_doubled(
    cast: Cast, fake_lean: Any
) -> None:
    from webapp.attempts.actions import do_requeue_attempt

    attempt = _attempt(cast, "  intro h\n  simp -- fake: error unsolved_goals")
    assert check_attempt(attempt.pk) == "done"
    diagnostics, suggestions = _messages(attempt)
    assert diagnostics and suggestions
    # Lean's answer was stored, then the worker died while the coach worked (no suggestions
    # yet), and the sweeper sent it to the checkers again.
    attempt.suggestions.all().delete()
    Attempt.objects.filter(pk=attempt.pk).update(
        status="coaching", coach_source="", coach_detail="", finished_at=None, claimed_by=""
    )
    attempt.refresh_from_db()
    assert do_requeue_attempt(attempt) == 1
    assert check_attempt.apply((attempt.pk,), task_id="after-the-sweeper").get() == "done"
    assert _messages(attempt) == (diagnostics, suggestions)
    # Put back in the queue with its coach's suggestions stored (by hand): replaced as well.
    Attempt.objects.filter(pk=attempt.pk).update(status="queued", finished_at=None)
    assert check_attempt.apply((attempt.pk,), task_id="by-hand").get() == "done"
    assert _messages(attempt) == (diagnostics, suggestions)
