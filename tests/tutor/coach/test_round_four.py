"""Issue 30, round four: general rules for kinds of beginner mistake the coach answered with
"I don't know", a generic hint or a wrong fix, each stated as a Lean teacher would, with the
evidence the coach needs before it names a concrete fix.

Every test is a mistake written for this file (none is a case of a bench set), with the
message in the wording Lean 4 prints, what the advice must say and what it must not.
"""

from __future__ import annotations

from tests.tutor.coach.helpers import K, diag
from tests.tutor.coach.test_general_rules import INTRO_N, advise, said
from tutor.coach import evidence


def mismatch(term: str, has: str, want: str) -> str:
    return f"Type mismatch\n  {term}\nhas type\n  {has}\nbut is expected to have type\n  {want}"


def app_mismatch(arg: str, has: str, want: str, app: str) -> str:
    return (
        f"Application type mismatch: The argument\n  {arg}\nhas type\n  {has}\nbut is expected "
        f"to have type\n  {want}\nin the application\n  {app}"
    )


def rewrite_failed(pattern: str, target: str, context: str) -> str:
    return (
        "Tactic `rewrite` failed: Did not find an occurrence of the pattern\n  "
        f"{pattern}\nin the target expression\n  {target}\n\n{context}\n⊢ {target}"
    )


# ------------------------------------------------------------- division by a variable


def test_ring_is_not_an_identity_check_for_a_division_by_a_variable() -> None:
    # Lean's x / 0 = 0: `x / x = 1` is false at 0, which `ring` cannot get round; a sum over a
    # common denominator is still an identity ring proves.
    assert evidence.identity("x / x = 1", evidence.REAL) is False
    assert evidence.identity("x * y / y = x", evidence.REAL) is False
    assert evidence.identity("a / b + c / b = (a + c) / b", evidence.REAL) is True
    assert evidence.identity("x / 2 + x / 2 = x", evidence.REAL) is True


def test_a_cancelled_denominator_gets_field_simp_with_the_nonzero_fact_not_ring() -> None:
    attempt = "theorem t (x y : ℝ) (hy : y ≠ 0) : x * y / y = x := by\n  norm_num"
    message = "unsolved goals\nx y : ℝ\nhy : y ≠ 0\n⊢ x * y / y = x"
    text = said(advise(attempt, diag(1, 55, message, K.UNSOLVED_GOALS, end=(2, 10)), mathlib=True))
    assert "`field_simp`" in text and "`hy`" in text
    assert "close it with `ring`" not in text


def test_a_denominator_with_no_nonzero_fact_asks_for_one() -> None:
    attempt = "theorem t (a : ℝ) : a / a = 1 := by\n  norm_num"
    message = "unsolved goals\na : ℝ\n⊢ a / a = 1"
    text = said(advise(attempt, diag(1, 33, message, K.UNSOLVED_GOALS, end=(2, 10)), mathlib=True))
    assert "`h : a ≠ 0`" in text and "division by 0" in text
    assert "close it with `ring`" not in text


# ------------------------------------------------------------- by contradiction


def test_a_double_negation_is_used_by_contradiction_not_unfolded() -> None:
    attempt = "theorem t (p : Prop) (h : ¬¬p) : p := by\n  intro hp"
    message = INTRO_N + "p : Prop\nh : ¬¬p\n⊢ p"
    text = said(advise(attempt, diag(2, 2, message, K.INTRO_FAILED)))
    assert "Classical.byContradiction fun hn => h hn" in text and "contradiction" in text
    assert "unfold" not in text  # `p` is a variable: there is no definition


def test_a_contrapositive_hypothesis_is_used_by_contradiction() -> None:
    attempt = "theorem t (p q : Prop) (h : ¬q → ¬p) (hp : p) : q := by\n  exact h hp"
    message = app_mismatch("hp", "p : Prop", "¬q : Prop", "h hp")
    text = said(advise(attempt, diag(2, 10, message, K.TYPE_MISMATCH)))
    assert "Classical.byContradiction fun hn => h hn hp" in text


def test_a_proposition_variable_with_nothing_to_build_it_is_not_unfolded() -> None:
    attempt = "theorem t (p q : Prop) (hq : q) : p := by\n  intro h"
    message = INTRO_N + "p q : Prop\nhq : q\n⊢ p"
    text = said(advise(attempt, diag(2, 2, message, K.INTRO_FAILED)))
    assert "no definition to unfold" in text and "`unfold`" not in text
