"""Message classification survives Lean's wording drift, and goals are extracted."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.fakes.fake_repl import canned_errors
from tutor.lean import DiagnosticKind, LeanChecker
from tutor.lean.messages import classify, extract_goal

EXPECTED = {
    "unsolved_goals": DiagnosticKind.UNSOLVED_GOALS,
    "type_mismatch": DiagnosticKind.TYPE_MISMATCH,
    "app_type_mismatch": DiagnosticKind.TYPE_MISMATCH,
    "unknown_identifier": DiagnosticKind.UNKNOWN_IDENTIFIER,
    "unknown_constant": DiagnosticKind.UNKNOWN_CONSTANT,
    "linarith_failed": DiagnosticKind.LINARITH_FAILED,
    "omega_failed": DiagnosticKind.OMEGA_FAILED,
    "simp_no_progress": DiagnosticKind.SIMP_NO_PROGRESS,
    "rewrite_failed": DiagnosticKind.REWRITE_FAILED,
    "syntax": DiagnosticKind.SYNTAX,
    "timeout": DiagnosticKind.TIMEOUT,
    "no_goals": DiagnosticKind.NO_GOALS,
}


@pytest.mark.parametrize("new", [False, True], ids=["old-wording", "new-wording"])
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_kind_is_recognised_in_both_wordings(name: str, new: bool) -> None:
    assert classify(canned_errors(new)[name]) is EXPECTED[name]


@pytest.mark.parametrize(
    "message, kind",
    [
        ("declaration uses 'sorry'", DiagnosticKind.SORRY),
        ("declaration uses `sorry`", DiagnosticKind.SORRY),
        ("Declaration uses ‘sorry’", DiagnosticKind.SORRY),
        ("UNSOLVED GOALS\n⊢ False", DiagnosticKind.UNSOLVED_GOALS),
        ("unexpected end of input", DiagnosticKind.SYNTAX),
        (
            "Tactic `linarith` failed: linarith failed to find a contradiction",
            DiagnosticKind.LINARITH_FAILED,
        ),
        ("`simp_all` made no progress", DiagnosticKind.SIMP_NO_PROGRESS),
        ("motive is not type correct", DiagnosticKind.REWRITE_FAILED),
        # `decide` on a goal with variables: its precondition, not a parse error.
        (
            "Expected type must not contain free variables\n  n + 1 < 5\n\nHint: Use the "
            "`+revert` option to automatically clean up and revert free variables",
            DiagnosticKind.DECIDE_FAILED,
        ),
        ("expected term", DiagnosticKind.SYNTAX),
        ("something Lean has never said", DiagnosticKind.OTHER),
    ],
)
def test_quote_style_and_capitals_do_not_matter(message: str, kind: DiagnosticKind) -> None:
    assert classify(message) is kind


def test_unsolved_goals_keeps_every_goal() -> None:
    message = "unsolved goals\ncase left\nh : p\n⊢ p\n\ncase right\nh : q\n⊢ q"
    assert extract_goal(message) == "case left\nh : p\n⊢ p\n\ncase right\nh : q\n⊢ q"


@pytest.mark.parametrize("new", [False, True])
def test_goals_are_extracted_from_linarith_and_rewrite(new: bool) -> None:
    errors = canned_errors(new)
    assert (
        extract_goal(errors["linarith_failed"]) == "case a\nx : ℕ\nh : x < 2\na✝ : x ≥ 5\n⊢ False"
    )
    assert extract_goal(errors["rewrite_failed"]) == "a b : ℕ\n⊢ a + b = b + a"
    assert extract_goal(errors["type_mismatch"]) is None
    assert extract_goal(errors["omega_failed"]) is None


@pytest.mark.parametrize("wording", ["old", "new"])
def test_classification_and_goals_arrive_through_the_repl(
    make_checker: Callable[..., LeanChecker], monkeypatch: pytest.MonkeyPatch, wording: str
) -> None:
    monkeypatch.setenv("FAKE_REPL_WORDING", wording)
    checker = make_checker()
    code = "theorem t (x : Nat) (h : 0 < x) : 0 < x * x := by\n" + "".join(
        f"  -- fake: error {name}\n" for name in EXPECTED
    )
    result = checker.check(code)
    kinds = [d.kind for d in result.errors]
    assert kinds == [EXPECTED[name] for name in EXPECTED]
    unsolved = result.errors[0]
    assert unsolved.line == 2 and unsolved.goal == "case h\nx : ℕ\nh : 0 < x\n⊢ 0 < x * x"
    assert not result.valid
