"""Verified hints: the compiler coach tries its concrete step on the REPL's proof state at the
failing line (the protocol double tests/fakes/fake_repl.py, a real subprocess) and offers only
steps that close or advance the goal."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.tutor.coach.helpers import diag
from tutor.coach import make_coach
from tutor.coach.verify import HintVerifier, VerifyConfig, candidates_in, cut_document
from tutor.lean import DiagnosticKind, LeanChecker

FAKE_REPL = Path(__file__).resolve().parents[2] / "fakes" / "fake_repl.py"

STATEMENT = "theorem t1 (p q : Prop) (hq : q) : p → q := by"
ATTEMPT = STATEMENT + "\n  exact hq"
MISMATCH = "Type mismatch\n  hq\nhas type\n  q : Prop\nbut is expected to have type\n  p → q : Prop"


@pytest.fixture
def checker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LeanChecker]:
    table = tmp_path / "tactics.json"
    goal = "p q : Prop\nhq : q\n⊢ p → q"
    table.write_text(
        json.dumps([{"goal": goal, "tactic": "omega", "error": "omega could not prove the goal"}])
    )
    monkeypatch.setenv("LEANCOACH_LEAN_HOME", str(tmp_path / "home"))
    env = {"FAKE_REPL_TACTICS": str(table)}
    made = LeanChecker(
        [sys.executable, str(FAKE_REPL)],
        timeout_s=5.0,
        memory_mb=512,
        max_processes=1,
        acquire_timeout_s=5.0,
        header_timeout_s=10.0,
        sandbox=False,
        extra_env=env,
    )
    yield made
    made.close()


def test_candidates_are_one_step_tactics_not_skeletons() -> None:
    text = "Do write `intro hp` then `exact hq`; or `induction n with | zero => ...`, `hq`."
    assert candidates_in(text) == ["intro hp", "exact hq"]


def test_the_cut_document_ends_with_sorry_at_the_failing_line() -> None:
    assert cut_document(ATTEMPT, 2) == STATEMENT + "\n  sorry"
    assert cut_document(ATTEMPT + "\n  rfl", 2, after=True) == ATTEMPT + "\n  sorry"
    assert cut_document(ATTEMPT, 1) is None  # nothing to cut inside the statement


def test_a_step_that_advances_is_kept_and_one_that_fails_is_not(checker: LeanChecker) -> None:
    verifier = HintVerifier(checker.session, VerifyConfig(budget_s=5.0))
    verdicts = verifier.check(ATTEMPT, 2, ["intro hp", "omega"])
    assert [(v.candidate, v.ok) for v in verdicts] == [("intro hp", True), ("omega", False)]
    assert verdicts[0].why == "advances the goal"


def test_the_coach_offers_intro_only_after_lean_accepted_it(checker: LeanChecker) -> None:
    verifier = HintVerifier(checker.session, VerifyConfig(budget_s=5.0))
    coach = make_coach("compiler", verifier=verifier)
    d = diag(2, 8, MISMATCH, DiagnosticKind.TYPE_MISMATCH)
    feedback = coach.advise(STATEMENT, ATTEMPT, [d])
    assert "`intro hp`" in feedback.suggestions[0].text


def test_a_step_lean_rejects_becomes_a_conceptual_hint(checker: LeanChecker) -> None:
    # The same mistake on a goal where the coach's step cannot work: the double's table says
    # omega fails here, so the coach must not offer it.
    statement = "theorem t2 (a b : Nat) (h : a < b) : a ≤ b := by"
    attempt = statement + "\n  exact h"
    message = (
        "Type mismatch\n  h\nhas type\n  a < b : Prop\nbut is expected to have type\n  a ≤ b : Prop"
    )
    verifier = HintVerifier(checker.session, VerifyConfig(budget_s=5.0))
    unverified = make_coach("compiler").advise(
        statement, attempt, [diag(2, 8, message, DiagnosticKind.TYPE_MISMATCH)]
    )
    assert candidates_in(unverified.suggestions[0].text)  # it names a concrete step
    verified = make_coach("compiler", verifier=verifier).advise(
        statement, attempt, [diag(2, 8, message, DiagnosticKind.TYPE_MISMATCH)]
    )
    # The double knows no `exact Nat.le_of_lt h` for this goal, so it fails like Lean would.
    text = verified.suggestions[0].text
    assert "did not check in Lean" in text and "Nat.le_of_lt" not in text


def test_the_verified_path_keeps_to_its_budget(checker: LeanChecker) -> None:
    verifier = HintVerifier(checker.session, VerifyConfig(budget_s=0.3))
    with checker.session():
        pass  # start the pooled process first: the budget covers a check, not a Lean start
    started = time.perf_counter()
    verifier.check(ATTEMPT, 2, ["intro hp", "omega"])
    assert time.perf_counter() - started < 0.6


def test_unchecked_steps_are_worded_as_something_to_try(checker: LeanChecker) -> None:
    """Without Lean the concrete step is "Do try to ..."; once Lean accepted it, it is the fix."""
    d = diag(2, 8, MISMATCH, DiagnosticKind.TYPE_MISMATCH)
    unchecked = make_coach("compiler").advise(STATEMENT, ATTEMPT, [d]).suggestions[0].text
    assert unchecked.startswith("Do try to ") and "`intro hp`" in unchecked
    verifier = HintVerifier(checker.session, VerifyConfig(budget_s=5.0))
    checked = make_coach("compiler", verifier=verifier).advise(STATEMENT, ATTEMPT, [d])
    text = checked.suggestions[0].text
    assert "`intro hp`" in text and not text.startswith("Do try")
