"""A few real proofs and errors against real Lean (marked `lean`; skipped without it).

Run with Lean installed (`make lean`): .venv/bin/pytest -m lean tests/tutor/lean
"""

from __future__ import annotations

import pytest

from tests.fakes.lean_rules import is_native_decide_axiom
from tests.tutor.lean.real_lean import needs_real_lean
from tutor.lean import DiagnosticKind, LeanChecker

pytestmark = [pytest.mark.lean, needs_real_lean]


def test_a_real_proof_is_valid(real_checker: LeanChecker) -> None:
    result = real_checker.check("theorem t (n : Nat) : n + 0 = n := by\n  simp\n")
    assert result.valid, result
    assert result.axioms is not None and set(result.axioms) <= {
        "propext",
        "Classical.choice",
        "Quot.sound",
    }


def test_real_unsolved_goals_are_classified_with_the_goal(real_checker: LeanChecker) -> None:
    result = real_checker.check("theorem t (a b : Nat) : a + b = b + a := by\n  skip\n")
    [error] = result.errors
    assert (
        error.kind is DiagnosticKind.UNSOLVED_GOALS
        and error.goal
        and "⊢ a + b = b + a" in error.goal
    )


def test_real_sorry_and_native_decide_are_rejected(real_checker: LeanChecker) -> None:
    sorry = real_checker.check("theorem t : 1 = 1 := by\n  sorry\n")
    assert not sorry.valid and sorry.sorries and "sorryAx" in (sorry.axioms or [])
    native = real_checker.check_proof("theorem big : 2 ^ 20 = 1048576 := by", "  native_decide")
    # v4.32: one axiom per native computation, named after the theorem (lean4#12217);
    # `Lean.ofReduceBool` is what toolchains before v4.29 listed.
    assert not native.valid
    assert any(is_native_decide_axiom(a, "big") for a in native.axioms or []), native


def test_real_header_shift_and_unknown_identifier(real_checker: LeanChecker) -> None:
    code = "import Init\n\ntheorem t : True := by\n  exact foo\n"
    [error] = real_checker.check(code).errors
    assert error.line == 4 and error.kind is DiagnosticKind.UNKNOWN_IDENTIFIER


def test_real_check_proof_accepts_only_the_posed_statement(real_checker: LeanChecker) -> None:
    statement = "theorem add_zero' (n : Nat) : n + 0 = n := by"
    assert real_checker.check_proof(statement, "  simp").valid
    assert not real_checker.check_proof(statement, "  simp\n\ntheorem x : False := sorry").valid
