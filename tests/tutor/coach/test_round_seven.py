"""Issue 30, round seven: the kinds sets M and N left open, answered with evidence (a name
one edit from several in scope, picked by what its position must prove; an off-by-one
instance whose conclusion is the goal once closed numerals are computed; `apply` of a
hypothesis at the wrong value; an open goal a ∀-equation rewrites into a lemma's statement).

Every test is a mistake written for this file (none is a case of a bench set), with the
message in the wording Lean 4 prints, what the advice must say and what it must not.
"""

from __future__ import annotations

from tests.tutor.coach.helpers import app_mismatch, mismatch
from tests.tutor.coach.test_round_five import coach, lean, unify


def test_a_one_letter_name_takes_the_fact_its_position_needs() -> None:
    """`h` is one edit from both `ha` and `hb`; only `hb` proves the right half of the ∧."""
    attempt = "theorem t (a b : Prop) (ha : a) : b → a ∧ b := by\n  intro hb\n  exact ⟨ha, h⟩"
    text = coach(attempt, lean(3, 13, "Unknown identifier `h`"))
    assert "`exact ⟨ha, hb⟩`" in text and "proves `b`" in text


def test_a_one_letter_name_names_no_fact_when_the_position_does_not_decide() -> None:
    """`exact h` on a goal neither `hx` nor `hy` states: no spelling fix is offered."""
    attempt = "theorem t (x y : Prop) (hx : x) (hy : y) : x ∧ y := by\n  exact h"
    text = coach(attempt, lean(2, 8, "Unknown identifier `h`"))
    assert "exact hx`" not in text and "exact hy`" not in text and "`h`" in text


def test_a_side_of_an_or_takes_the_fact_that_proves_it() -> None:
    attempt = "theorem t (p q : Prop) (hq : q) : p → p ∨ q := by\n  intro hp\n  exact Or.inr h"
    text = coach(attempt, lean(3, 15, "Unknown identifier `h`"))
    assert "`exact Or.inr hq`" in text


def test_an_instance_off_by_one_is_read_from_the_argument_and_checked_on_the_goal() -> None:
    """`grow 2 h1` with `h1 : Q 1`: at `1` the step concludes `Q (1 + 1)`, the goal `Q 2`."""
    attempt = (
        "theorem t (Q : Nat → Prop) (grow : ∀ k, Q k → Q (k + 1)) (h1 : Q 1) : Q 2 := by\n"
        "  exact grow 2 h1"
    )
    message = app_mismatch("h1", "Q 1", "Q 2", "grow 2 h1")
    text = coach(attempt, lean(2, 15, message))
    assert "`exact grow 1 h1`" in text and "concludes the goal `Q 2`" in text


def test_an_instance_whose_conclusion_is_not_the_goal_is_not_offered() -> None:
    """At `0` the step would conclude `Q (0 + 1)`, which is not the goal `Q 3`."""
    attempt = (
        "theorem t (Q : Nat → Prop) (grow : ∀ k, Q k → Q (k + 1)) (h0 : Q 0) : Q 3 := by\n"
        "  exact grow 2 h0"
    )
    message = app_mismatch("h0", "Q 0", "Q 2", "grow 2 h0")
    text = coach(attempt, lean(2, 15, message))
    assert "grow 0 h0" not in text


def test_apply_of_a_hypothesis_at_the_wrong_value_names_the_value_the_goal_needs() -> None:
    context = "m n : ℕ\nhm : m < 5\nhb : ∀ (k : ℕ), k < 5 → k ≤ 4"
    message = unify("hb n", "n ≤ 4", "m ≤ 4", "n < 5 → n ≤ 4", context)
    attempt = (
        "theorem t (m n : ℕ) (hm : m < 5) (hb : ∀ k, k < 5 → k ≤ 4) : m ≤ 4 := by\n"
        "  apply hb n\n  exact hm"
    )
    text = coach(attempt, lean(2, 2, message), mathlib=True)
    assert "`apply hb m`" in text
    assert "exact hb m`" not in text  # its premise is still to prove: not the whole step


def test_an_open_goal_a_hypothesis_rewrites_into_a_lemma_s_statement() -> None:
    attempt = "theorem t (g : ℕ → ℕ) (hg : ∀ y, g y = 2 * y + 1) : ∀ m, Odd (g m) := by\n  intro m"
    goal = "unsolved goals\ng : ℕ → ℕ\nhg : ∀ (y : ℕ), g y = 2 * y + 1\nm : ℕ\n⊢ Odd (g m)"
    text = coach(attempt, lean(1, 73, goal), mathlib=True)
    assert "`rw [hg]`" in text and "`exact odd_two_mul_add_one m`" in text


def test_a_rewrite_into_a_form_no_lemma_states_names_no_lemma() -> None:
    attempt = "theorem t (g : ℕ → ℕ) (hg : ∀ y, g y = y + 3) : ∀ m, Even (g m) := by\n  intro m"
    goal = "unsolved goals\ng : ℕ → ℕ\nhg : ∀ (y : ℕ), g y = y + 3\nm : ℕ\n⊢ Even (g m)"
    text = coach(attempt, lean(1, 67, goal), mathlib=True)
    assert "even_two_mul" not in text and "odd_two_mul_add_one" not in text


def test_or_inr_of_a_fact_that_is_the_left_side_read_through_ge() -> None:
    """`h : n ≥ m` is `m ≤ n`, the ∨'s left side; inside a `cases` alternative on a lemma the
    goal is the statement's."""
    attempt = (
        "theorem t (m n : Nat) : m ≤ n ∨ n < m := by\n"
        "  rcases Nat.lt_or_ge n m with h | h\n"
        "  · exact Or.inr h\n"
        "  · exact Or.inr h"
    )
    message = app_mismatch("h", "n ≥ m", "n < m", "Or.inr h")
    text = coach(attempt, lean(4, 17, message))
    assert "`exact Or.inl h` on line 4" in text and "left side" in text


def test_or_inr_inside_cases_on_the_goal_s_own_variable_is_not_read_as_the_statement() -> None:
    attempt = (
        "theorem t (k : Nat) : k = 0 ∨ 0 < k := by\n"
        "  cases k with\n"
        "  | zero => exact Or.inr rfl\n"
        "  | succ j => exact Or.inr (Nat.succ_pos j)"
    )
    message = app_mismatch("rfl", "0 = 0", "0 < 0", "Or.inr rfl")
    text = coach(attempt, lean(3, 27, message))
    assert "`k = 0`" not in text  # the branch's goal is about `0`, not the statement's `k`


def test_a_successor_rewrite_on_a_goal_already_written_with_plus_one_is_removed() -> None:
    attempt = (
        "theorem t (n : Nat) : 0 + n = n := by\n"
        "  induction n with\n"
        "  | zero => rfl\n"
        "  | succ m ih =>\n"
        "    rw [Nat.succ_eq_add_one, ← Nat.add_assoc, ih]"
    )
    message = (
        "Tactic `rewrite` failed: Did not find an occurrence of the pattern\n  ?n.succ\n"
        "in the target expression\n  0 + (m + 1) = m + 1\n\ncase succ\nm : Nat\n"
        "ih : 0 + m = m\n⊢ 0 + (m + 1) = m + 1"
    )
    text = coach(attempt, lean(5, 8, message))
    assert "remove `Nat.succ_eq_add_one` from the rules on line 5" in text


def test_a_successor_pattern_on_a_goal_without_plus_one_is_not_called_stale() -> None:
    attempt = "theorem t (f : Nat → Nat) (n : Nat) : f n = f n := by\n  rw [Nat.succ_eq_add_one]"
    message = (
        "Tactic `rewrite` failed: Did not find an occurrence of the pattern\n  ?n.succ\n"
        "in the target expression\n  f n = f n\n\nf : Nat → Nat\nn : Nat\n⊢ f n = f n"
    )
    text = coach(attempt, lean(2, 6, message))
    assert "delete the `rw`" not in text


def test_apply_on_a_negated_goal_that_is_the_conclusion_said_another_way() -> None:
    context = "m : ℕ\nhm : Even m\nhsq : Even m → Even (m * m)"
    message = unify("hsq", "Even (m * m)", "¬Odd (m * m)", "Even m → Even (m * m)", context)
    attempt = (
        "theorem t (m : ℕ) (hm : Even m) (hsq : Even m → Even (m * m)) : ¬Odd (m * m) := by\n"
        "  apply hsq"
    )
    text = coach(attempt, lean(2, 2, message), mathlib=True)
    assert "`rw [Nat.not_odd_iff_even]`" in text and "`exact hsq hm`" in text


def test_a_negated_order_goal_names_core_s_lemma_without_mathlib() -> None:
    context = "a b : Nat\nh : b ≤ a"
    message = unify("h", "b ≤ a", "¬a < b", "b ≤ a", context)
    attempt = "theorem t (a b : Nat) (h : b ≤ a) : ¬a < b := by\n  apply h"
    text = coach(attempt, lean(2, 2, message))
    assert "`rw [Nat.not_lt]`" in text and "then `exact h`" in text


def test_parity_restated_is_not_offered_in_a_course_without_mathlib() -> None:
    context = "n : Nat\nh : Odd n"
    message = unify("h", "Odd n", "¬Even n", "Odd n", context)
    attempt = "theorem t (n : Nat) (h : Odd n) : ¬Even n := by\n  apply h"
    text = coach(attempt, lean(2, 2, message))
    assert "not_even_iff_odd" not in text


def test_a_have_without_a_type_is_read_off_the_lemma_table() -> None:
    """`have hb := abs_le.mp h` states `-3 ≤ y ∧ y ≤ 3`: its `.1` is the lower bound."""
    attempt = (
        "theorem t (y : ℝ) (h : |y| ≤ 3) : y ≤ 3 := by\n  have hb := abs_le.mp h\n  exact hb.1"
    )
    text = coach(attempt, lean(3, 2, mismatch("hb.left", "-3 ≤ y", "y ≤ 3")), mathlib=True)
    assert "hb.2" in text or "hb.right" in text


def test_a_have_without_a_type_of_an_instance_and_a_half() -> None:
    from tutor.coach.context import facts_in_scope
    from tutor.coach.source import AttemptText

    statement = "theorem t (f : ℕ → ℕ) (hf : ∀ n, f n < n + 1 ∧ 0 < f n) : 0 < f 2 := by"
    text = AttemptText(f"{statement}\n  have h2 := hf 2\n  have h3 := h2.2\n  exact h3")
    facts = dict(facts_in_scope(statement, text, 4))
    assert facts["h2"] == "f 2 < 2 + 1 ∧ 0 < f 2" and facts["h3"] == "0 < f 2"
