"""Teachers improve the coach through the web app: an edit changes the next student's advice
on the same mistake; two rejections switch the advice off for that exercise, visibly and
reversibly (review page -> coach switches)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from tests.webapp.cast import Cast
from tutor.coach import make_coach
from tutor.lean.types import CheckResult, Diagnostic, DiagnosticKind
from webapp.attempts import checking
from webapp.attempts.actions import ReviewInput, do_review_suggestion
from webapp.attempts.models import Attempt, LineDiagnostic, Suggestion

MESSAGE = "Unknown identifier `h`"
EDIT = (
    "Do close `n + 0 = n` with `rfl` on this line: there is no hypothesis `h` here, and "
    "`n + 0` computes to `n` by definition."
)


@pytest.fixture(autouse=True)
def compiler_coach(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(checking, "coach_factory", lambda source: make_coach("compiler"))
    yield


def _attempt_with_advice(cast: Cast, text: str = "Check the name h.") -> Suggestion:
    attempt = Attempt.objects.create(
        student=cast.student, exercise=cast.exercise, proof="  exact h", status="done", valid=False
    )
    LineDiagnostic.objects.create(
        attempt=attempt,
        line=1,
        column=8,
        severity="error",
        kind="unknown_identifier",
        message=MESSAGE,
    )
    return Suggestion.objects.create(attempt=attempt, line=1, text=text, source="compiler")


def _advice(cast: Cast, student: User | None = None) -> list[tuple[int, str, str, dict[str, Any]]]:
    """The coach's advice to `student` (Sam by default, in Tess's class) on the mistake."""
    exercise = cast.exercise
    result = CheckResult(
        valid=False,
        diagnostics=[Diagnostic(2, 8, 2, 9, "error", MESSAGE, DiagnosticKind.UNKNOWN_IDENTIFIER)],
    )
    outcome = checking.ask_coach(
        exercise.formal_statement,
        "  exact h",
        exercise.header,
        result,
        exercise.reference_proof,
        exercise_id=exercise.pk,
        student_id=(student or cast.student).pk,
    )
    return outcome.suggestions


def test_a_teachers_edit_is_the_next_students_advice(cast: Cast) -> None:
    before = _advice(cast)
    assert before and before[0][1] != EDIT
    suggestion = _attempt_with_advice(cast, before[0][1])
    do_review_suggestion(cast.teacher, suggestion, ReviewInput("edited", EDIT))
    after = _advice(cast)
    assert after[0][1] == EDIT and after[0][0] == 1


def test_two_rejections_switch_it_off_and_the_review_page_switches_it_back(
    cast: Cast, client: Client
) -> None:
    for _ in range(2):
        suggestion = _attempt_with_advice(cast)
        do_review_suggestion(cast.teacher, suggestion, ReviewInput("rejected", reason="unhelpful"))
    assert "teachers turned off" in _advice(cast)[0][1]
    client.force_login(cast.teacher)
    page = client.get(reverse("attempts:coach_switches")).content.decode()
    assert "<td>unknown name</td>" in page and "switched off" in page  # the kind in words
    assert "<td>unknown_identifier</td>" not in page
    response = client.post(
        reverse("attempts:set_coach_switch", args=[cast.exercise.pk]),
        {"kind": "unknown_identifier", "enabled": "1"},
    )
    assert response.status_code == 302
    assert "teachers turned off" not in _advice(cast)[0][1]
    page = client.get(reverse("attempts:coach_switches")).content.decode()
    assert "set by a teacher" in page and "Switch off" in page


def test_students_cannot_see_or_flip_switches(cast: Cast, client: Client) -> None:
    client.force_login(cast.student)
    assert client.get(reverse("attempts:coach_switches")).status_code == 403
    response = client.post(
        reverse("attempts:set_coach_switch", args=[cast.exercise.pk]),
        {"kind": "unknown_identifier", "enabled": "0"},
    )
    assert response.status_code == 404


def test_by_default_the_compiler_coach_checks_its_step_on_the_checker(
    cast: Cast, monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    import sys
    from pathlib import Path

    from tutor.lean import LeanChecker

    fake = Path(__file__).resolve().parents[1] / "fakes" / "fake_repl.py"
    checker = LeanChecker(
        [sys.executable, str(fake)],
        timeout_s=5.0,
        memory_mb=512,
        max_processes=1,
        acquire_timeout_s=5.0,
        header_timeout_s=10.0,
        sandbox=False,
    )
    monkeypatch.setenv("LEANCOACH_LEAN_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(checking, "checker_factory", lambda: checker)
    statement = "theorem t (p q : Prop) (hq : q) : p → q := by"
    mismatch = (
        "Type mismatch\n  hq\nhas type\n  q : Prop\nbut is expected to have type\n  p → q : Prop"
    )
    result = CheckResult(
        valid=False,
        diagnostics=[Diagnostic(2, 8, 2, 10, "error", mismatch, DiagnosticKind.TYPE_MISMATCH)],
    )
    try:
        monkeypatch.delenv("LEANCOACH_VERIFY_HINTS", raising=False)  # on by default
        verified = checking.ask_coach(statement, "  exact hq", "", result, "")
        assert "`intro hp`" in verified.suggestions[0][1]  # the double accepted the step
        # A statement the double cannot step (no `→` goal for `intro`): the concrete step goes.
        statement2 = "theorem t (a b : Nat) (h : a < b) : a ≤ b := by"
        lt = "Type mismatch\n  h\nhas type\n  a < b : Prop\nbut is expected to have type\n  a ≤ b : Prop"
        result2 = CheckResult(
            valid=False,
            diagnostics=[Diagnostic(2, 8, 2, 9, "error", lt, DiagnosticKind.TYPE_MISMATCH)],
        )
        rejected = checking.ask_coach(statement2, "  exact h", "", result2, "")
        assert "did not check in Lean" in rejected.suggestions[0][1]
        monkeypatch.setenv("LEANCOACH_VERIFY_HINTS", "0")
        unverified = checking.ask_coach(statement2, "  exact h", "", result2, "")
        assert "Do try to write `exact Nat.le_of_lt h`" in unverified.suggestions[0][1]
    finally:
        checker.close()


def _review_reads(cast: Cast) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        _advice(cast)
    return sum("attempts_curatedfeedback" in q["sql"] for q in queries.captured_queries)


def test_the_reviews_are_read_once_until_a_teacher_changes_one(cast: Cast) -> None:
    from django.core.cache import cache

    from webapp.attempts.teaching import STAMP_KEY

    assert _review_reads(cast) > 0
    assert _review_reads(cast) == 0  # nothing changed: this process's memo
    suggestion = _attempt_with_advice(cast)
    do_review_suggestion(cast.teacher, suggestion, ReviewInput("edited", EDIT))
    assert _review_reads(cast) > 0
    assert _review_reads(cast) == 0
    cache.set(STAMP_KEY, "changed by another process")  # what its signal does
    assert _review_reads(cast) > 0


def test_a_deleted_review_leaves_the_coach_too(cast: Cast) -> None:
    before = _advice(cast)
    suggestion = _attempt_with_advice(cast, before[0][1])
    do_review_suggestion(cast.teacher, suggestion, ReviewInput("edited", EDIT))
    assert _advice(cast)[0][1] == EDIT
    suggestion.attempt.delete()  # the review goes with it (a cascade)
    assert _advice(cast) == before


def test_without_the_cache_every_check_reads_the_reviews(
    cast: Cast, monkeypatch: pytest.MonkeyPatch
) -> None:
    from webapp.attempts import teaching

    def unreachable(*args: object, **kwargs: object) -> None:
        raise ConnectionError("Redis is down")

    monkeypatch.setattr(teaching.cache, "get", unreachable)
    monkeypatch.setattr(teaching.cache, "set", unreachable)
    assert _review_reads(cast) > 0 and _review_reads(cast) > 0
    suggestion = _attempt_with_advice(cast)
    do_review_suggestion(cast.teacher, suggestion, ReviewInput("edited", EDIT))
    assert _advice(cast)[0][1] == EDIT
