"""Issue 30, round five: general rules for kinds of beginner mistake the coach answered with
"I don't know" (sets E and F), each a precise statement of the mistake, and a concrete fix
only where the coach has evidence for it.

Every test is a mistake written for this file (none is a case of a bench set), with the
message in the wording Lean 4 prints, what the advice must say and what it must not.
"""

from __future__ import annotations

from tests.tutor.coach.helpers import mismatch
from tests.tutor.coach.test_general_rules import advise, said
from tutor.lean.messages import classify, extract_goal
from tutor.lean.types import Diagnostic


def lean(line: int, column: int, message: str, severity: str = "error") -> Diagnostic:
    """A diagnostic as the web app builds it: kind and goal from tutor.lean's classifier."""
    kind = classify(message)
    return Diagnostic(
        line=line,
        column=column,
        end_line=None,
        end_column=None,
        severity=severity,
        message=message,
        kind=kind,
        goal=extract_goal(message, kind),
    )


def coach(attempt: str, *diagnostics: Diagnostic, mathlib: bool = False) -> str:
    return said(advise(attempt, *diagnostics, mathlib=mathlib))


def decide_false(prop: str) -> str:
    return f"Tactic `decide` proved that the proposition\n  {prop}\nis false"


def unify(name: str, conclusion: str, goal: str, full: str, context: str) -> str:
    return (
        f"Tactic `apply` failed: could not unify the conclusion of `{name}`\n  {conclusion}\n"
        f"with the goal\n  {goal}\n\nNote: The full type of `{name}` is\n  {full}\n\n"
        f"{context}\n⊢ {goal}"
    )


# ------------------------------------------------------------------ decide on false claims


def test_a_false_bool_comparison_is_corrected_with_its_value() -> None:
    attempt = "theorem t : (17 % 5 == 3) = true := by\n  decide"
    text = coach(attempt, lean(2, 2, decide_false("(17 % 5 == 3) = true")))
    assert "`17 % 5` is 2, not 3" in text
    assert "native_decide" not in text


def test_a_false_list_literal_is_corrected_with_the_computed_list() -> None:
    attempt = "theorem t : [4, 5].reverse = [4, 5] := by\n  decide"
    text = coach(attempt, lean(2, 2, decide_false("[4, 5].reverse = [4, 5]")))
    assert "is [5, 4], not [4, 5]" in text


def test_natural_subtraction_truncation_is_named() -> None:
    attempt = "theorem t (n : Nat) : n = n := by\n  have k : 2 - 4 + 4 = 2 := by decide\n  rfl"
    text = coach(attempt, lean(2, 28, decide_false("2 - 4 + 4 = 2")))
    assert "`2 - 4` is 0" in text and "truncates" in text


def test_natural_division_rounding_down_is_named() -> None:
    attempt = "theorem t (n : Nat) : n = n := by\n  have k : 9 / 4 = 3 := by decide\n  rfl"
    text = coach(attempt, lean(2, 24, decide_false("9 / 4 = 3")))
    assert "`9 / 4` is 2, not 3" in text and "rounds down" in text


def test_integer_remainder_is_never_negative_for_a_positive_divisor() -> None:
    attempt = "theorem t (n : ℤ) : n = n := by\n  have k : (-5 : ℤ) % 2 = -1 := by decide\n  rfl"
    text = coach(attempt, lean(2, 35, decide_false("-5 % 2 = -1")))
    assert "`-5 % 2` is 1, not -1" in text and "never negative" in text


def test_decide_on_a_list_variable_names_the_free_variable() -> None:
    attempt = "theorem t (ys : List Nat) : ys.reverse.reverse = ys := by\n  decide"
    message = (
        "Expected type must not contain free variables\n  ys.reverse.reverse = ys\n\n"
        "Hint: Use the `+revert` option to automatically clean up and revert free variables"
    )
    text = coach(attempt, lean(2, 2, message))
    assert "free variable `ys`" in text
    assert "native_decide" not in text


# ------------------------------------------------------------------ fields


def test_a_pair_field_gets_the_structure_s_own_name() -> None:
    attempt = "theorem t (x y : Nat) : (x, y).second = y := by\n  rfl"
    message = (
        "Invalid field `second`: The environment does not contain `Prod.second`, so it is not "
        "possible to project the field `second` from an expression\n  (x, y)\nof type `Nat × Nat`"
    )
    text = coach(attempt, lean(1, 33, message))
    assert "`(x, y).snd`" in text and "not `.second`" in text
    assert "(x, y).fst" not in text


def test_left_on_an_iff_becomes_mp_in_the_student_s_own_step() -> None:
    attempt = "theorem t (a b : Prop) (e : a ↔ b) (hb : b) : a := by\n  exact e.right hb"
    message = (
        "Invalid field `right`: The environment does not contain `Iff.right`, so it is not "
        "possible to project the field `right` from an expression\n  e\nof type `a ↔ b`"
    )
    text = coach(attempt, lean(2, 8, message))
    assert "`exact e.mpr hb`" in text
    assert "e.mp hb" not in text


def test_a_statement_written_as_a_field_points_to_the_hypothesis_that_proves_it() -> None:
    attempt = "theorem t (n : ℕ) (hn : n.Prime) : 2 ≤ n := by\n  exact n.prime.two_le"
    message = (
        "Invalid field `prime`: The environment does not contain `Nat.prime`, so it is not "
        "possible to project the field `prime` from an expression\n  n\nof type `ℕ`"
    )
    text = coach(attempt, lean(2, 8, message), mathlib=True)
    assert "hypothesis `hn` instead of `n.prime`" in text and "`hn.two_le`" in text


# ------------------------------------------------------------------ goals left open


def test_the_open_direction_of_an_iff_is_named() -> None:
    attempt = (
        "theorem t (a b : Prop) : a ∨ b ↔ b ∨ a := by\n  constructor\n  · intro h\n    exact h.symm"
    )
    message = "unsolved goals\ncase mpr\na b : Prop\n⊢ b ∨ a → a ∨ b"
    text = coach(attempt, lean(1, 41, message))
    assert "the other direction of the ↔, right-to-left (case `mpr`), is still open" in text


def test_a_missing_alternative_is_said_to_be_missing() -> None:
    attempt = "theorem t (o : Option Nat) : o = o := by\n  cases o with\n  | some k => rfl"
    text = coach(attempt, lean(2, 2, "Alternative `none` has not been provided"))
    assert "the `none` case is missing" in text


def test_intros_is_named_as_what_made_the_names_inaccessible() -> None:
    attempt = "theorem t (a b : Prop) : a → b → b := by\n  intros\n  exact hb"
    text = coach(attempt, lean(3, 8, "Unknown identifier `hb`"))
    assert "`intros` makes up inaccessible" in text
    assert "typo" not in text


# ------------------------------------------------------------------ simp without progress


def test_simp_at_an_implication_whose_premise_is_in_context() -> None:
    attempt = "theorem t (a b : Prop) (ha : a) (f : a → b) : b := by\n  simp at f\n  exact f"
    text = coach(attempt, lean(2, 2, "`simp` made no progress"))
    assert "`exact f ha`" in text and "does not use your hypothesis `ha`" in text


def test_simp_at_a_reversed_equation_is_its_symm() -> None:
    attempt = "theorem t (x y : Nat) (e : x + 1 = y) : y = x + 1 := by\n  simp at e\n  exact e"
    text = coach(attempt, lean(2, 2, "`simp` made no progress"))
    assert "`exact e.symm`" in text


def test_simp_only_with_a_lemma_that_does_not_occur() -> None:
    attempt = "theorem t (xs : List Nat) : (0 :: xs).length = xs.length + 1 := by\n  simp only [List.reverse_nil]"
    text = coach(attempt, lean(2, 2, "`simp` made no progress"))
    assert "the lemma `List.reverse_nil` does not apply here" in text


# ------------------------------------------------------------------ apply


def test_apply_with_a_conjunction_conclusion_takes_the_matching_part() -> None:
    attempt = "theorem t (a b c : Prop) (f : a → b ∧ c) (ha : a) : b := by\n  apply f"
    context = "a b c : Prop\nf : a → b ∧ c\nha : a"
    text = coach(attempt, lean(2, 2, unify("f", "b ∧ c", "b", "a → b ∧ c", context)))
    assert "`exact (f ha).1`" in text and "left (`.1`) component" in text
    assert "(f ha).2" not in text


def test_apply_of_a_one_step_fact_on_a_two_step_goal_chains_it() -> None:
    attempt = (
        "theorem t (g : ℝ → ℝ) (hg : ∀ y, g y ≤ g (y + 1)) (b : ℝ) : g b ≤ g (b + 2) := by\n"
        "  apply hg"
    )
    context = "g : ℝ → ℝ\nhg : ∀ (y : ℝ), g y ≤ g (y + 1)\nb : ℝ"
    message = unify(
        "hg", "g ?y ≤ g (?y + 1)", "g b ≤ g (b + 2)", "∀ (y : ℝ), g y ≤ g (y + 1)", context
    )
    text = coach(attempt, lean(2, 2, message), mathlib=True)
    assert "chain two steps of `hg`" in text and "`le_trans (hg b) (hg (b + 1))`" in text


def test_apply_on_the_goal_plus_a_constant_gives_the_instance_to_linarith() -> None:
    attempt = "theorem t (g : ℝ → ℝ) (hg : ∀ y, 1 ≤ y → 0 ≤ g y) : 0 ≤ g 3 + 2 := by\n  apply hg"
    context = "g : ℝ → ℝ\nhg : ∀ (y : ℝ), 1 ≤ y → 0 ≤ g y"
    message = unify("hg", "0 ≤ g ?y", "0 ≤ g 3 + 2", "∀ (y : ℝ), 1 ≤ y → 0 ≤ g y", context)
    text = coach(attempt, lean(2, 2, message), mathlib=True)
    assert "`linarith [hg 3 (by norm_num)]`" in text and "extra `+ 2`" in text


def test_apply_of_a_reflexive_lemma_names_no_extra_term() -> None:
    # `?n ≤ ?n` has a bare placeholder side: `n ≤ n + 1` is not "n ≤ n plus an extra term".
    attempt = "theorem t (n : ℕ) : n ≤ n + 1 := by\n  apply le_refl"
    message = unify("le_refl", "?a ≤ ?a", "n ≤ n + 1", "∀ (a : ℕ), a ≤ a", "n : ℕ")
    text = coach(attempt, lean(2, 2, message), mathlib=True)
    assert "extra `+ 1`" not in text and "linarith [le_refl" not in text


def test_constructor_on_a_subset_introduces_an_element() -> None:
    attempt = "theorem t (S T : Set ℕ) : S ∩ T ⊆ T := by\n  constructor"
    message = (
        "Tactic `constructor` failed: target is not an inductive datatype\n\nS T : Set ℕ\n"
        "⊢ S ∩ T ⊆ T"
    )
    text = coach(attempt, lean(2, 2, message), mathlib=True)
    assert "`intro x hx`" in text and "every element" in text


# ------------------------------------------------------------------ type mismatch


def test_a_forall_instantiated_at_the_wrong_value() -> None:
    attempt = (
        "theorem t (Q : Nat → Prop) (h : ∀ n, n < 9 → Q n) (h5 : 5 < 9) : Q 5 := by\n  exact h 4 h5"
    )
    message = (
        "Application type mismatch: The argument\n  h5\nhas type\n  5 < 9\nbut is expected to "
        "have type\n  4 < 9\nin the application\n  h 4 h5"
    )
    text = coach(attempt, lean(2, 12, message))
    assert "`exact h 5 h5`" in text and "instantiate `h` at `5`, not `4`" in text
    assert "by omega" not in text


def test_right_chose_the_wrong_side_of_an_or() -> None:
    attempt = (
        "theorem t (a b : Prop) (h : a ∨ b) : b ∨ a := by\n  cases h with\n"
        "  | inl ha => left; exact ha\n  | inr hb => left; exact hb"
    )
    text = coach(attempt, lean(3, 26, mismatch("ha", "a", "b")))
    assert "use `right` instead of `left` on line 3" in text


def test_a_left_lemma_with_swapped_products_is_its_right_twin() -> None:
    attempt = (
        "theorem t (x y z : ℝ) (h : x < y) (hz : 0 < z) : x * z < y * z := by\n"
        "  exact mul_lt_mul_of_pos_left h hz"
    )
    message = mismatch("mul_lt_mul_of_pos_left h hz", "z * x < z * y", "x * z < y * z")
    text = coach(attempt, lean(2, 8, message), mathlib=True)
    assert "`exact mul_lt_mul_of_pos_right h hz`" in text


# ------------------------------------------------------------------ linarith and positivity


def test_linarith_is_given_the_bound_of_an_exp_atom() -> None:
    attempt = "theorem t (y : ℝ) : ¬ (Real.exp y < 0) := by\n  intro h\n  linarith"
    message = "linarith failed to find a contradiction\ny : ℝ\nh : Real.exp y < 0\n⊢ False\nfailed"
    text = coach(attempt, lean(3, 2, message), mathlib=True)
    assert "`linarith [Real.exp_pos y]`" in text


def test_linarith_is_given_the_bound_of_a_min_atom() -> None:
    attempt = "theorem t (a b : ℝ) : ¬ (b < min a b) := by\n  intro h\n  linarith"
    message = "linarith failed to find a contradiction\na b : ℝ\nh : b < min a b\n⊢ False\nfailed"
    text = coach(attempt, lean(3, 2, message), mathlib=True)
    assert "`linarith [min_le_right a b]`" in text
    assert "min_le_left" not in text


def test_the_integer_successor_habit_on_reals_is_refuted() -> None:
    attempt = "theorem t (x y : ℝ) (h : x < y) : x + 1 ≤ y := by\n  linarith"
    message = (
        "linarith failed to find a contradiction\ncase h\nx y : ℝ\nh : x < y\na✝ : y < x + 1\n"
        "⊢ False\nfailed"
    )
    text = coach(attempt, lean(2, 2, message), mathlib=True)
    assert "over ℝ it is false" in text and "`x = 0`, `y = 1/2`" in text
    assert "nlinarith" not in text


def test_no_counterexample_when_another_fact_bounds_the_terms() -> None:
    attempt = "theorem t (x y : ℝ) (h : x < y) (hy : y ^ 2 ≥ 9) : x + 1 ≤ y := by\n  linarith"
    message = (
        "linarith failed to find a contradiction\ncase h\nx y : ℝ\nh : x < y\nhy : y ^ 2 ≥ 9\n"
        "a✝ : y < x + 1\n⊢ False\nfailed"
    )
    text = coach(attempt, lean(2, 2, message), mathlib=True)
    assert "counterexample" not in text and "over ℝ it is false" not in text


def test_positivity_on_a_subtraction_says_it_never_uses_hypotheses() -> None:
    attempt = "theorem t (y : ℝ) (hy : 3 < y) : 0 < y ^ 2 - 9 := by\n  positivity"
    message = "failed to prove positivity/nonnegativity/nonzeroness"
    text = coach(attempt, lean(2, 2, message), mathlib=True)
    assert "cannot prove a subtraction positive" in text and "`hy`" in text


# ------------------------------------------------------------------ names and rfl


def test_a_mathlib_function_outside_its_namespace() -> None:
    attempt = "theorem t : ∃ y : ℝ, 0 < y := by\n  use exp 1\n  positivity"
    text = coach(attempt, lean(2, 6, "Unknown identifier `exp`"), mathlib=True)
    assert "`use Real.exp 1`" in text and "`open Real`" in text
    assert "typo" not in text


def test_an_underscore_binder_is_named_where_the_name_is_used() -> None:
    attempt = "theorem t (a b : Prop) (hb : b) : a → a ∧ b := by\n  exact fun _ => ⟨ha, hb⟩"
    text = coach(attempt, lean(2, 18, "Unknown identifier `ha`"))
    assert "`exact fun ha => ⟨ha, hb⟩`" in text and "`_` binder" in text
    assert "⟨hb, hb⟩" not in text


def test_an_invented_lemma_name_is_said_not_to_exist() -> None:
    attempt = "theorem t (a : ℝ) (ha : 0 < a) : 0 < a ^ 3 := by\n  exact cube_pos_of_pos ha"
    text = coach(attempt, lean(2, 8, "Unknown identifier `cube_pos_of_pos`"), mathlib=True)
    assert "no such lemma or hypothesis exists" in text


def test_an_invented_lemma_name_gets_the_lemma_whose_statement_is_the_goal() -> None:
    """Round six: with a library lemma that states the goal from the facts, that lemma is the
    fix (matched by statement, not by the invented name's spelling)."""
    attempt = "theorem t (a : ℝ) (ha : 0 < a) : 0 < a * a := by\n  exact mul_self_pos_of_pos ha"
    text = coach(attempt, lean(2, 8, "Unknown identifier `mul_self_pos_of_pos`"), mathlib=True)
    assert "there is no `mul_self_pos_of_pos`" in text and "exact mul_pos ha ha" in text


def test_rfl_on_real_numerals_is_norm_num_not_omega() -> None:
    attempt = "theorem t : (3 : ℝ) * 2 = 6 := by\n  rfl"
    message = (
        "Tactic `rfl` failed: The left-hand side\n  3 * 2\nis not definitionally equal to the "
        "right-hand side\n  6\n\n⊢ 3 * 2 = 6"
    )
    text = coach(attempt, lean(2, 2, message), mathlib=True)
    assert "`norm_num`" in text and "not computable" in text
    assert "omega" not in text


# ------------------------------------------------------------------ ∃, calc, sorry


def test_an_exists_applied_to_an_argument_is_taken_apart() -> None:
    attempt = (
        "theorem t (P : ℕ → Prop) (h : ∀ k : ℕ, ∃ m, P (k + m)) : ∃ j, P j := by\n"
        "  exact ⟨1 + 0, h 1 0⟩"
    )
    message = (
        "Function expected at\n  h 1\nbut this term has type\n  ∃ m, P (1 + m)\n\nNote: Expected a "
        "function because this term is being applied to the argument\n  0"
    )
    text = coach(attempt, lean(2, 12, message))
    assert "`obtain ⟨m, hm⟩ := h 1`" in text and "not a function" in text


def test_a_calc_chain_written_backwards() -> None:
    attempt = (
        "theorem t (a b : Nat) (h : a = b + 3) : a + 1 = b + 4 := by\n"
        "  calc b + 4 = b + 3 + 1 := by omega\n    _ = a + 1 := by rw [h]"
    )
    message = "invalid 'calc' step, left-hand side is\n  b + 4 : Nat\nbut is expected to be\n  a + 1 : Nat"
    text = coach(attempt, lean(2, 7, message))
    assert "start the calc chain from `a + 1`" in text and "backwards" in text


def test_a_sorry_is_said_to_still_stand_in_for_a_proof() -> None:
    attempt = (
        "theorem t (x : ℝ) : 0 ≤ x ^ 2 + |x| := by\n  rcases le_or_lt 0 x with h | h\n"
        "  · positivity\n  · sorry"
    )
    text = coach(attempt, lean(1, 8, "declaration uses `sorry`", severity="warning"))
    assert "`sorry` still stands in for a missing proof" in text


def test_an_underscore_binder_is_not_blamed_for_a_typo_of_a_name_in_scope() -> None:
    attempt = "theorem t (a b : Prop) (hab : a → b) : a → b := by\n  exact fun _ => hba"
    text = coach(attempt, lean(2, 17, "Unknown identifier `hba`"))
    assert "`_` binder" not in text


def test_an_apply_that_cannot_unify_names_both_statements() -> None:
    attempt = "theorem t (a b : Prop) (f : b → a) (hb : b) : b ∧ a := by\n  apply f"
    context = "a b : Prop\nf : b → a\nhb : b"
    text = coach(attempt, lean(2, 2, unify("f", "a", "b ∧ a", "b → a", context)))
    assert "the conclusion of `f`, `a`, does not match the goal `b ∧ a`" in text


def test_a_negative_numeral_on_natural_numbers_is_not_read_forever() -> None:
    # `-3` is no subtraction omega splits: the checker says it cannot read it (it used to
    # recurse until Python's limit, and the student got only the neutral hint).
    from tutor.coach import linear

    assert linear.omega_proves("7 - 10 = -3", [], linear.NAT) is None


def test_a_forall_rewrite_at_a_value_the_goal_does_not_have() -> None:
    attempt = "theorem t (g : ℕ → ℕ) (hg : ∀ k, g k = 2 * k) : g 5 = 10 := by\n  rw [hg 4]"
    message = (
        "Tactic `rewrite` failed: Did not find an occurrence of the pattern\n  g 4\nin the "
        "target expression\n  g 5 = 10\n\ng : ℕ → ℕ\nhg : ∀ (k : ℕ), g k = 2 * k\n⊢ g 5 = 10"
    )
    text = coach(attempt, lean(2, 6, message))
    assert "`rw [hg 5]`" in text and "at `5`, not `4`" in text
