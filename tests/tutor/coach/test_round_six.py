"""Issue 30, round six: advice that holds whatever the student's spelling (tested wholesale by
test_metamorphic.py), a witness chosen by `refine ⟨w, ?_⟩` judged like one chosen by `use`,
and advice that names the student's own variables.

Every test is a mistake written for this file (none is a case of a bench set), with the
message in the wording Lean 4 prints, what the advice must say and what it must not.
"""

from __future__ import annotations

from tests.tutor.coach.test_round_five import coach, lean


def test_a_witness_given_by_refine_that_leaves_a_false_goal_is_the_mistake() -> None:
    attempt = (
        "theorem t (m : ℤ) (h : Even m) : Even (m + 4) := by\n"
        "  obtain ⟨r, hr⟩ := h\n"
        "  refine ⟨r, ?_⟩\n"
        "  rw [hr]"
    )
    goal = "unsolved goals\nm r : ℤ\nhr : m = r + r\n⊢ r + r + 4 = r + r"
    text = coach(attempt, lean(1, 46, goal), mathlib=True)
    assert "witness than `r` on line 3" in text and "wrong" in text
    assert "omega" not in text and "linarith" not in text


def test_a_goal_false_everywhere_after_a_step_that_is_not_a_rewrite_blames_no_witness() -> None:
    """`apply` can turn a true goal into a false one: the witness is not the only suspect, so
    the coach does not name it."""
    attempt = "theorem t : ∃ n : Nat, n + 1 > 1 := by\n  refine ⟨1, ?_⟩\n  apply Nat.lt_irrefl"
    goal = "unsolved goals\n⊢ 1 + 1 = 0"
    text = coach(attempt, lean(1, 36, goal))
    assert "witness than" not in text


def test_positivity_advice_names_the_goals_variable() -> None:
    attempt = "theorem t (z : ℝ) : 0 < z ^ 2 := by\n  positivity"
    message = "failed to prove strict positivity, but it would be possible to prove nonnegativity if desired"
    text = coach(attempt, lean(2, 2, message), mathlib=True)
    assert "`z ≠ 0`" in text and "`x ≠ 0`" not in text
