"""What students and teachers see of the coach (issue 30): nothing on an accepted proof, no
Mathlib in a course without it, an answer only after the exercise's own hints and counted as a
hint, and Lean's message beside each suggestion in the review queue."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tests.webapp.cast import Cast
from tutor.coach.compiler import CompilerCoach
from tutor.lean.types import CheckResult, Diagnostic, DiagnosticKind
from webapp.attempts import checking, tasks
from webapp.attempts.models import Attempt, LineDiagnostic, Suggestion
from webapp.courses.lessons import COACH_HINT_INDEX, do_open_hint, hint_state
from webapp.courses.models import HintOpening

STATEMENT = "theorem t (p q : Prop) (h : p ∧ q) : q ∧ p := by"
SORRY = Diagnostic(1, 8, 1, 9, "warning", "declaration uses `sorry`", DiagnosticKind.SORRY)


@pytest.fixture(autouse=True)
def compiler_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """The product's default coach, without trying steps in Lean (no REPL in these tests)."""
    monkeypatch.delenv("LEANCOACH_COACH_SOURCE", raising=False)
    monkeypatch.setenv("LEANCOACH_VERIFY_HINTS", "0")


def _sorry_outcome(cast: Cast) -> checking.CoachOutcome:
    result = CheckResult(valid=False, diagnostics=[SORRY])
    return checking.ask_coach(
        STATEMENT,
        "  sorry",
        "",
        result,
        "",
        exercise_id=cast.exercise.pk,
        student_id=cast.student.pk,
    )


def test_an_accepted_proof_gets_no_suggestion(cast: Cast) -> None:
    warning = Diagnostic(2, 2, 2, 6, "warning", "unused variable `h`", DiagnosticKind.OTHER)
    for diagnostics in ([], [warning]):
        outcome = checking.ask_coach(
            STATEMENT,
            "  exact ⟨h.2, h.1⟩",
            "",
            CheckResult(valid=True, diagnostics=diagnostics),
            "",
        )
        assert outcome.suggestions == [] and outcome.detail == ""


def test_the_coach_knows_whether_the_course_has_mathlib() -> None:
    core = checking._for_course(CompilerCoach(), "", "theorem t : 1 = 1 := by")
    mathlib = checking._for_course(CompilerCoach(), "import Mathlib\n", "theorem t : 1 = 1 := by")
    assert core.config.mathlib is False and mathlib.config.mathlib is True


def test_a_core_course_hears_core_tactics_only(cast: Cast) -> None:
    statement = "theorem t : ∃ n : Nat, n + 2 = 5 := by"
    unknown = Diagnostic(2, 2, 2, 5, "error", "unknown tactic", DiagnosticKind.UNKNOWN_TACTIC)
    outcome = checking.ask_coach(
        statement, "  use 3", "", CheckResult(valid=False, diagnostics=[unknown]), ""
    )
    text = " ".join(s[1] for s in outcome.suggestions)
    assert "`exists 3`" in text and "Mathlib" not in text and "rg_in_mathlib" not in text


def test_the_answer_waits_for_the_exercise_hints_and_then_counts_as_one(cast: Cast) -> None:
    cast.exercise.hints = ["Split the goal into its two halves."]
    cast.exercise.save(update_fields=["hints"])
    before = _sorry_outcome(cast)
    assert before.suggestions and not before.gives_hint
    assert not any(extra.get("reveals") for *_, extra in before.suggestions)
    assert "`constructor`" in before.suggestions[0][1]

    do_open_hint(cast.student, cast.exercise, 0)
    after = _sorry_outcome(cast)
    revealing = [s for s in after.suggestions if s[3].get("reveals")]
    assert after.gives_hint and len(revealing) == 1 and "⟨h.2, h.1⟩" in revealing[0][1]

    attempt = Attempt.objects.create(
        student=cast.student, exercise=cast.exercise, proof="  sorry", status="coaching"
    )
    tasks._finish(attempt, Attempt.Status.DONE, "", after)
    stored = Suggestion.objects.get(attempt=attempt, extra__reveals=True)
    assert stored.reveals
    assert HintOpening.objects.filter(
        student=cast.student, exercise=cast.exercise, index=COACH_HINT_INDEX
    ).exists()
    # It never shows as one of the exercise's own hints.
    assert [i for i, _ in hint_state(cast.student, cast.exercise).opened] == [0]


def test_teachers_see_the_coach_hint_as_a_hint(cast: Cast, client: Client) -> None:
    attempt = Attempt.objects.create(
        student=cast.student, exercise=cast.exercise, proof="  sorry", status="done", valid=False
    )
    Suggestion.objects.create(
        attempt=attempt, line=1, text="Do close it with `rfl`.", extra={"reveals": True}
    )
    HintOpening.objects.create(student=cast.student, exercise=cast.exercise, index=COACH_HINT_INDEX)
    client.force_login(cast.teacher)
    queue = client.get(reverse("attempts:review")).content.decode()
    assert "Hint: gives a step away (counted as a hint)" in queue
    page = client.get(reverse("attempts:detail", args=[attempt.pk])).content.decode()
    assert "a coach hint (advice that gave a step away)" in page
    client.force_login(cast.student)
    mine = client.get(reverse("attempts:detail", args=[attempt.pk])).content.decode()
    assert 'class="suggestion coach-hint' in mine and "Coach's hint" in mine
    # Folded in the panel, and never drawn inline by the editor (its data has no hint).
    assert "close it with `rfl`" not in mine.split('data-lean-result="', 1)[1].split('">', 1)[0]


def test_the_review_queue_shows_lean_s_message_beside_the_suggestion(
    cast: Cast, client: Client
) -> None:
    attempt = Attempt.objects.create(
        student=cast.student, exercise=cast.exercise, proof="  simp", status="done", valid=False
    )
    LineDiagnostic.objects.create(
        attempt=attempt, line=1, severity="error", message="simp made no progress", kind="x"
    )
    Suggestion.objects.create(attempt=attempt, line=1, text="Do use `rfl` on line 2 instead.")
    client.force_login(cast.teacher)
    body = client.get(reverse("attempts:review")).content.decode()
    assert "Lean said, line 2:" in body and "simp made no progress" in body


def test_advice_naming_an_agent_tool_is_not_shown(
    cast: Cast, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tutor.coach import Feedback
    from tutor.coach import Suggestion as Said

    class ToolCoach:
        source = "llm"

        def advise(self, *args: object, **kwargs: object) -> Feedback:
            return Feedback(
                [
                    Said(2, "Do search for the lemma with rg_in_mathlib before you use it here."),
                    Said(2, "Do split the goal with `constructor` and prove each side apart."),
                ],
                source="llm",
            )

    monkeypatch.setattr(checking, "coach_factory", lambda source: ToolCoach())
    outcome = _sorry_outcome(cast)
    assert [s[1] for s in outcome.suggestions] == [
        "Do split the goal with `constructor` and prove each side apart."
    ]


def test_suggestions_and_hints_render_their_code_spans(cast: Cast, client: Client) -> None:
    """Backquoted code in a suggestion (attempt page, review queue) and in an opened hint is
    shown as code, never as raw backticks; raw HTML in the text stays escaped."""
    cast.exercise.hints = ["Try `omega` here."]
    cast.exercise.save(update_fields=["hints"])
    do_open_hint(cast.student, cast.exercise, 0)
    attempt = Attempt.objects.create(
        student=cast.student, exercise=cast.exercise, proof="  simp", status="done", valid=False
    )
    Suggestion.objects.create(
        attempt=attempt, line=1, text="Do use `rfl` on line 2 <b>instead</b>."
    )
    client.force_login(cast.student)
    page = client.get(reverse("attempts:detail", args=[attempt.pk])).content.decode()
    panel = (
        page.split('data-lean-result="', 1)[0]
        + page.split('data-lean-result="', 1)[1].split('">', 1)[1]
    )
    assert "Do use <code>rfl</code> on line 2" in panel and "`rfl`" not in panel
    assert "<b>instead</b>" not in page and "&lt;b&gt;instead&lt;/b&gt;" in page
    exercise = reverse("courses:exercise", args=[cast.course.slug, cast.exercise.name])
    assert "Try <code>omega</code> here." in client.get(exercise).content.decode()
    client.force_login(cast.teacher)
    queue = client.get(reverse("attempts:review")).content.decode()
    assert '<span class="who">Coach said:</span> Do use <code>rfl</code>' in queue


def test_a_core_course_is_shown_no_mathlib_advice_from_any_coach(
    cast: Cast, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A model coach may name Mathlib or its tactics; in a course without Mathlib that advice
    is not shown (unless the student's own attempt already uses the name); with Mathlib it is."""
    from tutor.coach import Feedback
    from tutor.coach import Suggestion as Said

    class MathlibCoach:
        source = "llm"

        def advise(self, *args: object, **kwargs: object) -> Feedback:
            return Feedback(
                [
                    Said(2, "Do close the goal with `linarith` after the split on line 2."),
                    Said(2, "Do look up the lemma in Mathlib before you use it on line 2."),
                    Said(2, "Do split the goal with `constructor` and prove each side apart."),
                ],
                source="llm",
            )

    monkeypatch.setattr(checking, "coach_factory", lambda source: MathlibCoach())
    core = _sorry_outcome(cast)
    assert [s[1] for s in core.suggestions] == [
        "Do split the goal with `constructor` and prove each side apart."
    ]
    result = CheckResult(valid=False, diagnostics=[SORRY])
    with_mathlib = checking.ask_coach(STATEMENT, "  sorry", "import Mathlib\n", result, "")
    assert len(with_mathlib.suggestions) == 3
    uses_it = checking.ask_coach(STATEMENT, "  linarith", "", result, "")
    assert "Do close the goal with `linarith` after the split on line 2." in [
        s[1] for s in uses_it.suggestions
    ]
