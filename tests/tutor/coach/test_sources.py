"""ground_truth, fixed, the Feedback contract and make_coach."""

from __future__ import annotations

import pytest

from tests.tutor.coach.helpers import K, diag
from tutor.coach import Feedback, Suggestion, make_coach
from tutor.coach.ground_truth import reference_steps

ATTEMPT = """theorem sumTo_ge (n : Nat) : n ≤ n * n + n := by
  induction n with
  | zero => simp
  | succ k ih =>
    simp"""
UNSOLVED = diag(
    4,
    16,
    "unsolved goals\ncase succ\nk : Nat\nih : k ≤ k * k + k\n⊢ k + 1 ≤ (k + 1) * (k + 1) + (k + 1)",
    K.UNSOLVED_GOALS,
    end=(5, 8),
)
REFERENCE = """induction n with
  | zero => simp
  | succ k ih =>
    simp
    have h2 := Nat.le_add_left (k + 1) ((k + 1) * (k + 1))
    omega"""


def test_ground_truth_points_the_way_without_pasting_the_reference() -> None:
    feedback = make_coach("ground_truth").advise(
        "theorem sumTo_ge ...", ATTEMPT, [UNSOLVED], REFERENCE
    )
    assert feedback.source == "ground_truth" and feedback.fallback_reason is None
    hint = feedback.suggestions[0]
    assert hint.line == 5 and "`have`" in hint.text and "`Nat.le_add_left`" in hint.text
    for line in REFERENCE.splitlines():
        if len(line.split()) > 2:
            assert line.strip() not in hint.text
    assert len(feedback.suggestions) <= 3


def test_ground_truth_without_reference_falls_back_to_compiler() -> None:
    feedback = make_coach("ground_truth").advise("t", ATTEMPT, [UNSOLVED])
    assert feedback.source == "compiler" and feedback.requested_source == "ground_truth"
    assert feedback.fallback_reason == "no reference proof given"


def test_reference_steps_read_bullets_and_alternatives() -> None:
    steps = reference_steps(
        "by\n  constructor\n  · exact ⟨hp, hq⟩\n  | succ k => simp [Nat.add_comm]"
    )
    assert [s.family for s in steps] == ["constructor", "exact", "simp"]
    assert steps[2].lemmas == ("Nat.add_comm",)


def test_fixed_returns_the_constant_text_anchored_nowhere() -> None:
    feedback = make_coach("fixed").advise("t", ATTEMPT, [UNSOLVED])
    assert [s.text for s in feedback.suggestions] == ["Think before you answer."]
    assert feedback.suggestions[0].line is None and feedback.as_text() == "Think before you answer."
    assert (
        make_coach("fixed", text="Be concise.").advise("t", "", []).suggestions[0].text
        == "Be concise."
    )
    with pytest.raises(ValueError, match="empty"):
        make_coach("fixed", text="  ")


def test_feedback_round_trips_and_renders_for_the_teacher() -> None:
    feedback = Feedback(
        suggestions=[
            Suggestion(3, "Do add `exact hp` after line 3."),
            Suggestion(None, "Don't stop.", "dont"),
        ],
        source="llm",
        prompt_version="P4.v1",
        latency_ms=12.5,
        fallback_reason=None,
        model="m",
    )
    again = Feedback.from_dict(feedback.to_dict())
    assert again == feedback
    text = feedback.as_text()
    assert "Line 3: Do add `exact hp`" in text and "- Don't stop." in text


def test_feedback_and_suggestion_reject_bad_values() -> None:
    with pytest.raises(ValueError):
        Feedback(suggestions=[], source="compiler")
    with pytest.raises(ValueError):
        Feedback(suggestions=[Suggestion(1, "Do x.")] * 4, source="compiler")
    with pytest.raises(ValueError):
        Suggestion(0, "Do x.")
    with pytest.raises(ValueError):
        Suggestion(1, "Do x.", "maybe")  # type: ignore[arg-type]


def test_make_coach_knows_every_source() -> None:
    assert make_coach().source == "compiler"
    with pytest.raises(ValueError, match="unknown coach source"):
        make_coach("oracle")


def test_every_source_shares_one_advise_that_records_its_latency() -> None:
    """The public `advise` (signature and latency) is written once, in BaseCoach: a source
    answers a request, and the time the whole call took is on the Feedback."""
    from tutor.coach.llm import LLMCoach
    from tutor.coach.self_coach import SelfCoach
    from tutor.coach.teaching import TaughtCoach
    from tutor.coach.types import BaseCoach

    sources = [type(make_coach(s)) for s in ("compiler", "fixed", "ground_truth")]
    classes: list[type] = [*sources, LLMCoach, SelfCoach, TaughtCoach]
    for cls in classes:
        assert issubclass(cls, BaseCoach), cls
        assert "advise" not in vars(cls), f"{cls.__name__} writes its own advise preamble"

    class Slow(BaseCoach):
        source = "slow"

        def answer(self, request):
            import time

            time.sleep(0.02)
            return Feedback([Suggestion(None, f"Do read {request.attempt} again please.")], "slow")

    feedback = TaughtCoach(Slow()).advise("s", "the attempt", [])
    assert feedback.latency_ms >= 20 and feedback.source == "slow"
