"""The compiler coach recognises the kind of a beginner's mistake and names the fix a Lean
teacher would, only with evidence for it, else the kind of step that is missing.

Each test is a mistake written for this file (none is a case of bench/data/coach_fresh.jsonl
or coach_advice.jsonl), with the message in the wording Lean 4 prints (the shapes of
../shared/data/lean_transcripts and Lean's sources), and what the advice must and must not say.
"""

from __future__ import annotations

from tests.tutor.coach.helpers import K, app_mismatch, diag, mismatch
from tutor.coach import Feedback, make_coach
from tutor.coach.compiler import CompilerCoach, CompilerCoachConfig
from tutor.coach.validation import text_problem

INTRO_N = (
    "Tactic `introN` failed: There are no additional binders or `let` bindings in the goal "
    "to introduce\n\n"
)
NO_INDUCTIVE = "Tactic `constructor` failed: target is not an inductive datatype\n\n"


def advise(attempt: str, *diagnostics, mathlib: bool = False) -> Feedback:
    statement = attempt.split("\n", 1)[0]
    coach = CompilerCoach(CompilerCoachConfig(mathlib=mathlib))
    feedback = coach.advise(statement, attempt, list(diagnostics))
    for suggestion in feedback.suggestions:
        assert text_problem(suggestion.text) is None, suggestion.text
    return feedback


def said(feedback: Feedback) -> str:
    return "\n".join(s.text for s in feedback.suggestions)


def linarith_failed(context: str) -> str:
    return f"linarith failed to find a contradiction\n{context}\n⊢ False\nfailed"


# ---------------------------------------------------------------- automation out of scope


def test_norm_num_leaves_a_goal_that_follows_linearly_from_a_hypothesis() -> None:
    attempt = "theorem t (y : ℝ) (h : 3 * y - 2 = 10) : y = 4 := by\n  norm_num"
    message = "unsolved goals\ny : ℝ\nh : 3 * y - 2 = 10\n⊢ y = 4"
    text = said(advise(attempt, diag(1, 60, message, K.UNSOLVED_GOALS, end=(2, 10)), mathlib=True))
    assert "`linarith`" in text
    assert "`ring`" not in text  # `y = 4` is no identity: ring cannot prove it


def test_omega_is_not_named_for_terms_it_reads_as_unknowns() -> None:
    attempt = (
        "theorem t (s : Finset ℕ) : (s.filter (fun n => n % 2 = 0)).card ≤ s.card := by\n  sorry"
    )
    message = diag(1, 8, "declaration uses `sorry`", K.SORRY, severity="warning")
    text = said(advise(attempt, message, mathlib=True))
    assert "`omega`" not in text and "placeholder" in text


def test_linarith_gets_the_absolute_value_lemma_it_cannot_find() -> None:
    attempt = "theorem t (y : ℝ) (h : |y| ≤ 3) : -3 ≤ y := by\n  linarith"
    message = linarith_failed("y : ℝ\nh : |y| ≤ 3\na✝ : -3 > y")
    text = said(advise(attempt, diag(2, 2, message, K.LINARITH_FAILED), mathlib=True))
    assert "linarith [neg_abs_le y]" in text
    assert "abs_nonneg" not in text  # `0 ≤ |y|` does not give the goal


def test_linarith_on_the_lemma_itself_gets_exact() -> None:
    attempt = "theorem t (a : ℝ) : -|a| ≤ a := by\n  linarith"
    message = linarith_failed("a : ℝ\na✝ : -|a| > a")
    text = said(advise(attempt, diag(2, 2, message, K.LINARITH_FAILED), mathlib=True))
    assert "exact neg_abs_le a" in text


def test_linarith_never_uses_a_ne_hypothesis() -> None:
    attempt = "theorem t (a b : ℝ) (h1 : a ≤ b) (h2 : b ≠ a) : a < b := by\n  linarith"
    message = linarith_failed("a b : ℝ\nh1 : a ≤ b\nh2 : b ≠ a\na✝ : a ≥ b")
    text = said(advise(attempt, diag(2, 2, message, K.LINARITH_FAILED), mathlib=True))
    assert "lt_of_le_of_ne h1 (Ne.symm h2)" in text


def test_nlinarith_is_given_the_square_that_makes_it_work() -> None:
    attempt = "theorem t (u v : ℝ) : 2 * u * v ≤ u ^ 2 + v ^ 2 := by\n  nlinarith"
    message = linarith_failed("u v : ℝ\na✝ : 2 * u * v > u ^ 2 + v ^ 2")
    text = said(advise(attempt, diag(2, 2, message, K.LINARITH_FAILED), mathlib=True))
    assert "nlinarith [sq_nonneg (u - v)]" in text


def test_a_near_miss_fact_plus_a_constant_is_one_linarith_step() -> None:
    attempt = "theorem t (z : ℝ) : 0 < z ^ 2 + 5 := by\n  exact sq_nonneg z"
    message = mismatch("sq_nonneg z", "0 ≤ z ^ 2", "0 < z ^ 2 + 5")
    text = said(advise(attempt, diag(2, 8, message, K.TYPE_MISMATCH), mathlib=True))
    assert "linarith [sq_nonneg z]" in text


def test_ring_on_an_inequality_gets_linarith() -> None:
    attempt = "theorem t (a : ℝ) (h : 0 < a) : a < 2 * a := by\n  ring"
    message = "ring failed to prove equality, try ring_nf to normalize"
    goal = "a : ℝ\nh : 0 < a\n⊢ a < 2 * a"
    text = said(advise(attempt, diag(2, 2, message, K.TACTIC_FAILED, goal=goal), mathlib=True))
    assert "`linarith`" in text and "only equations" in text


def test_simp_without_progress_on_a_linear_goal_names_linarith() -> None:
    attempt = "theorem t (s t : ℝ) (h1 : s + t = 4) (h2 : s - t = 2) : s = 3 := by\n  simp"
    text = said(
        advise(attempt, diag(2, 2, "simp made no progress", K.SIMP_NO_PROGRESS), mathlib=True)
    )
    assert "`linarith`" in text


def test_positivity_on_a_goal_false_at_zero_says_so() -> None:
    attempt = "theorem t (w : ℝ) : 0 < w ^ 2 + 3 * w := by\n  positivity"
    message = "failed to prove positivity/nonnegativity/nonzeroness"
    text = said(advise(attempt, diag(2, 2, message, K.TACTIC_FAILED), mathlib=True))
    assert "false when w = 0" in text and "`linarith`" not in text


def test_decide_with_a_variable_gets_omega_when_the_facts_give_the_goal() -> None:
    attempt = "theorem t (k : Nat) (h : k ≤ 4) : k * 1 < 9 := by\n  decide"
    message = (
        "Expected type must not contain free variables\n  k * 1 < 9\n\nHint: Use the "
        "`+revert` option to automatically clean up and revert free variables"
    )
    text = said(advise(attempt, diag(2, 2, message, K.DECIDE_FAILED)))
    assert "`omega`" in text and "without variables" in text


# ---------------------------------------------------------------- ¬, ≠ and → are functions


def test_constructor_on_a_negation_is_intro() -> None:
    attempt = "theorem t (m : Nat) (hm : m = 2) : ¬ (m = 5) := by\n  constructor"
    message = NO_INDUCTIVE + "m : Nat\nhm : m = 2\n⊢ ¬m = 5"
    text = said(advise(attempt, diag(2, 2, message, K.APPLY_FAILED)))
    assert "`intro h`" in text and "→ False" in text


def test_constructor_on_a_ne_is_intro_or_the_lemma_from_a_strict_fact() -> None:
    attempt = "theorem t (c : ℝ) (hc : c < 0) : c ≠ 0 := by\n  constructor"
    message = NO_INDUCTIVE + "c : ℝ\nhc : c < 0\n⊢ c ≠ 0"
    text = said(advise(attempt, diag(2, 2, message, K.APPLY_FAILED), mathlib=True))
    assert "`intro h`" in text and "ne_of_lt hc" in text


def test_constructor_on_a_forall_is_intro_with_its_names() -> None:
    attempt = "theorem t : ∀ a b : Nat, a + b = b + a := by\n  constructor"
    message = NO_INDUCTIVE + "⊢ ∀ (a b : Nat), a + b = b + a"
    text = said(advise(attempt, diag(2, 2, message, K.APPLY_FAILED)))
    assert "`intro a b`" in text


def test_cases_on_a_ne_uses_it_as_a_function() -> None:
    attempt = "theorem t (x y : Nat) (h : x ≠ y) : y ≠ x := by\n  cases h"
    message = (
        "Tactic `cases` failed: major premise type is not an inductive type\n  x = y → False"
        "\n\nx y : Nat\nh : x ≠ y\n⊢ y ≠ x"
    )
    text = said(advise(attempt, diag(2, 8, message, K.CASES_ERROR)))
    assert "Ne.symm h" in text and "→ False" in text


# ---------------------------------------------------------------- the wrong side, component, order


def test_or_inl_given_a_proof_of_the_right_side() -> None:
    attempt = "theorem t (a b : Prop) (hb : b) : a ∨ b := by\n  exact Or.inl hb"
    message = app_mismatch("hb", "b", "a", "Or.inl hb")
    text = said(advise(attempt, diag(2, 15, message, K.TYPE_MISMATCH)))
    assert "exact Or.inr hb" in text


def test_or_inr_when_the_left_side_follows_by_symmetry() -> None:
    attempt = "theorem t (m n : Nat) (h : m = n) : n = m ∨ m = 7 := by\n  exact Or.inr h"
    message = app_mismatch("h", "m = n", "m = 7", "Or.inr h")
    text = said(advise(attempt, diag(2, 15, message, K.TYPE_MISMATCH)))
    assert "Or.inl h.symm" in text


def test_or_constructor_inside_a_cases_branch_sees_the_goal() -> None:
    attempt = (
        "theorem t (a b : Prop) (h : a ∨ b) : b ∨ a := by\n  cases h with\n"
        "  | inl ha => exact Or.inl ha\n  | inr hb => exact Or.inl hb"
    )
    message = app_mismatch("ha", "a", "b", "Or.inl ha")
    text = said(advise(attempt, diag(3, 26, message, K.TYPE_MISMATCH)))
    assert "Or.inr ha" in text


def test_a_set_intersection_is_a_conjunction() -> None:
    attempt = "theorem t (S T : Set ℕ) (y : ℕ) (hy : y ∈ S ∩ T) : y ∈ T := by\n  exact hy"
    message = mismatch("hy", "y ∈ S ∩ T", "y ∈ T")
    text = said(advise(attempt, diag(2, 8, message, K.TYPE_MISMATCH), mathlib=True))
    assert "hy.2" in text


def test_apply_with_the_other_direction_of_an_iff() -> None:
    attempt = "theorem t (a b : Prop) (h : a ↔ b) (hb : b) : a := by\n  apply h.mp"
    message = (
        "Tactic `apply` failed: could not unify the conclusion of `h.mp`\n  b\nwith the goal\n"
        "  a\n\nNote: The full type of `h.mp` is\n  a → b\n\na b : Prop\nh : a ↔ b\nhb : b\n⊢ a"
    )
    text = said(advise(attempt, diag(2, 2, message, K.APPLY_FAILED)))
    assert "apply h.mpr" in text


def test_a_symmetric_lemma_with_its_arguments_swapped() -> None:
    attempt = "theorem t (m n : Nat) : m + n = n + m := by\n  exact Nat.add_comm n m"
    message = mismatch("Nat.add_comm n m", "n + m = m + n", "m + n = n + m")
    text = said(advise(attempt, diag(2, 8, message, K.TYPE_MISMATCH)))
    assert "exact Nat.add_comm m n" in text


def test_absurd_takes_the_fact_before_its_negation() -> None:
    attempt = "theorem t (a b : Prop) (ha : a) (hna : ¬a) : b := by\n  exact absurd hna ha"
    message = app_mismatch("ha", "a", "¬¬a", "absurd hna ha")
    text = said(advise(attempt, diag(2, 20, message, K.TYPE_MISMATCH)))
    assert "absurd ha hna" in text and "intro" not in text


# ---------------------------------------------------------------- missing and extra arguments


def test_a_lemma_that_takes_its_number_first() -> None:
    attempt = "theorem t (z : Int) (h : z < z) : False := by\n  exact Int.lt_irrefl h"
    message = (
        "Application type mismatch: The argument\n  h\nhas type\n  z < z\nof sort `Prop` but is "
        "expected to have type\n  Int\nof sort `Type` in the application\n  Int.lt_irrefl h"
    )
    text = said(advise(attempt, diag(2, 22, message, K.TYPE_MISMATCH)))
    assert "Int.lt_irrefl z h" in text


def test_a_forall_lemma_needs_its_value_even_a_compound_one() -> None:
    attempt = "theorem t (k : Nat) : k + 1 ≤ k + 1 := by\n  exact Nat.le_refl"
    message = mismatch("Nat.le_refl", "∀ (n : Nat), n ≤ n", "k + 1 ≤ k + 1")
    text = said(advise(attempt, diag(2, 8, message, K.TYPE_MISMATCH)))
    assert "Nat.le_refl (k + 1)" in text


def test_an_implication_passed_where_its_conclusion_is_needed() -> None:
    attempt = "theorem t (a b c : Prop) (ha : a) (f : a → b) (g : b → c) : c := by\n  exact g f"
    message = app_mismatch("f", "a → b", "b", "g f")
    text = said(advise(attempt, diag(2, 10, message, K.TYPE_MISMATCH)))
    assert "g (f ha)" in text


def test_a_wrong_value_chosen_by_specialize() -> None:
    attempt = (
        "theorem t (g : Nat → Nat) (h : ∀ m, g m = m * 3) : g 5 = 15 := by\n"
        "  specialize h 4\n  exact h"
    )
    message = mismatch("h", "g 4 = 4 * 3", "g 5 = 15")
    feedback = advise(attempt, diag(3, 8, message, K.TYPE_MISMATCH))
    assert "specialize h 5" in said(feedback) and feedback.suggestions[0].line == 2
    assert "exact h 5" not in said(feedback)  # after `specialize`, `h` takes no value any more


# ---------------------------------------------------------------- strict, non-strict, chains


def test_le_and_ne_in_scope_give_lt() -> None:
    attempt = "theorem t (p q : ℝ) (h : p ≤ q) (hpq : p ≠ q) : p < q := by\n  exact h"
    message = mismatch("h", "p ≤ q", "p < q")
    text = said(advise(attempt, diag(2, 8, message, K.TYPE_MISMATCH), mathlib=True))
    assert "lt_of_le_of_ne h hpq" in text


def test_le_and_ne_on_nat_use_the_core_lemma() -> None:
    attempt = "theorem t (i j : Nat) (h : i ≤ j) (hne : i ≠ j) : i < j := by\n  exact h"
    message = mismatch("h", "i ≤ j", "i < j")
    text = said(advise(attempt, diag(2, 8, message, K.TYPE_MISMATCH)))
    assert "Nat.lt_of_le_of_ne h hne" in text


def test_apply_of_one_link_of_a_chain_names_the_transitivity_lemma() -> None:
    attempt = "theorem t (x y z : ℝ) (h1 : x < y) (h2 : y ≤ z) : x < z := by\n  apply h1"
    message = (
        "Tactic `apply` failed: could not unify the type of `h1`\n  x < y\nwith the goal\n"
        "  x < z\n\nx y z : ℝ\nh1 : x < y\nh2 : y ≤ z\n⊢ x < z"
    )
    text = said(advise(attempt, diag(2, 2, message, K.APPLY_FAILED), mathlib=True))
    assert "lt_of_lt_of_le h1 h2" in text


def test_a_calc_step_may_state_the_relation_its_proof_gives() -> None:
    attempt = (
        "theorem t (a b c : Nat) (h1 : a ≤ b) (h2 : b < c) : a < c := by\n"
        "  calc a < b := h1\n    _ < c := h2"
    )
    message = mismatch("h1", "a ≤ b", "a < b")
    text = said(advise(attempt, diag(2, 16, message, K.TYPE_MISMATCH)))
    assert "calc a ≤ b" in text or "_ ≤ b := h1" in text or "a ≤ b := h1" in text


# ---------------------------------------------------------------- names never bound


def test_a_name_taken_apart_by_obtain_is_gone() -> None:
    attempt = (
        "theorem t (m : Nat) (h : ∃ j, m = 2 * j) : m % 2 = 0 := by\n"
        "  obtain ⟨j, hj⟩ := h\n  rw [h]\n  omega"
    )
    text = said(advise(attempt, diag(3, 6, "Unknown identifier `h`", K.UNKNOWN_IDENTIFIER)))
    assert "`hj`" in text and "took `h` apart" in text


def test_an_rfl_pattern_leaves_no_equation_to_rewrite_with() -> None:
    attempt = (
        "theorem t (m : Nat) (h : ∃ j, m = j + j) : ∃ i, m = 2 * i := by\n"
        "  obtain ⟨j, rfl⟩ := h\n  rw [hj]\n  exact ⟨j, by omega⟩"
    )
    feedback = advise(attempt, diag(3, 6, "Unknown identifier `hj`", K.UNKNOWN_IDENTIFIER))
    assert feedback.suggestions[0].line == 3 and "delete `rw [hj]`" in said(feedback)
    assert "obtain ⟨j, hj⟩ := h" in said(feedback)


def test_the_premise_of_an_implication_goal_was_never_introduced() -> None:
    attempt = (
        "theorem t (a b : Prop) (f : a → b) (g : b → a) : a ↔ b := by\n"
        "  constructor\n  · exact f ha\n  · exact g"
    )
    text = said(advise(attempt, diag(3, 12, "Unknown identifier `ha`", K.UNKNOWN_IDENTIFIER)))
    assert "exact f`" in text and "typo" not in text


def test_the_halves_of_an_introduced_conjunction_were_never_named() -> None:
    attempt = "theorem t (a b : Prop) : a ∧ b → b := by\n  intro hab\n  exact hb"
    feedback = advise(attempt, diag(3, 8, "Unknown identifier `hb`", K.UNKNOWN_IDENTIFIER))
    assert "intro ⟨ha, hb⟩" in said(feedback) and "hab.2" in said(feedback)
    assert "with `hab`" not in said(feedback)  # not a typo of the whole fact


def test_intro_with_more_names_than_binders_read_from_the_context_lean_printed() -> None:
    attempt = "theorem t (A : Set ℕ) : A ⊆ A := by\n  intro y hy hz\n  exact hy"
    message = INTRO_N + "A : Set ℕ\ny : ℕ\nhy : y ∈ A\n⊢ y ∈ A"
    text = said(advise(attempt, diag(2, 13, message, K.INTRO_FAILED), mathlib=True))
    assert "intro y hy`" in text and "`hz`" in text


# ---------------------------------------------------------------- syntax and alternatives


def test_a_term_tactic_with_nothing_after_it() -> None:
    attempt = "theorem t (a b : Prop) (h : a ∧ b) : b := by\n  exact"
    text = said(advise(attempt, diag(2, 7, "unexpected end of input", K.SYNTAX)))
    assert "`exact` the term it needs" in text and "exact h.2" in text


def test_a_lean3_lambda_is_rewritten_on_the_students_line() -> None:
    attempt = "theorem t (a : Prop) : a → a ∨ a := by\n  exact λ ha, Or.inl ha"
    message = "unexpected token ','; expected '↦', '=>'"
    text = said(advise(attempt, diag(2, 11, message, K.SYNTAX)))
    assert "exact fun ha => Or.inl ha" in text


def test_lean3_assume_is_intro() -> None:
    attempt = "theorem t (a : Prop) : a → a := by\n  assume ha : a,\n  exact ha"
    text = said(advise(attempt, diag(2, 9, "unexpected token ':'; expected command", K.SYNTAX)))
    assert "`intro ha`" in text


def test_a_qualified_alternative_name() -> None:
    attempt = (
        "theorem t (n : Nat) : n + 0 = n := by\n  induction n with\n  | zero => rfl\n"
        "  | Nat.succ m ih => omega"
    )
    message = "Invalid alternative name `Nat.succ`: Expected `succ`"
    text = said(advise(attempt, diag(4, 4, message, K.CASES_ERROR)))
    assert "| succ m ih =>" in text


def test_lean3_side_names_for_the_alternatives_of_an_or() -> None:
    attempt = (
        "theorem t (a b : Prop) (h : a ∨ b) : b ∨ a := by\n  cases h with\n"
        "  | left ha => exact Or.inr ha\n  | right hb => exact Or.inl hb"
    )
    message = "Invalid alternative name `right`: Expected `inl` or `inr`"
    text = said(advise(attempt, diag(4, 4, message, K.CASES_ERROR)))
    assert "| inr hb =>" in text


# ---------------------------------------------------------------- sorry and rewriting


def test_a_sorry_in_a_have_gets_that_goal_and_the_hint_behind_it() -> None:
    attempt = (
        "theorem t (x y : Nat) (h : x = y) : y = x := by\n  have hyx : y = x := by sorry\n"
        "  exact hyx"
    )
    feedback = advise(attempt, diag(1, 8, "declaration uses `sorry`", K.SORRY, severity="warning"))
    assert "placeholder" in feedback.suggestions[0].text and "`y = x`" in said(feedback)
    hints = [s for s in feedback.suggestions if s.reveals]
    assert hints and "h.symm" in hints[0].text


def test_a_sorry_in_the_second_bullet_of_an_iff() -> None:
    attempt = (
        "theorem t (a b : Prop) (f : a → b) (g : b → a) : a ↔ b := by\n  constructor\n"
        "  · exact f\n  · sorry"
    )
    feedback = advise(attempt, diag(1, 8, "declaration uses `sorry`", K.SORRY, severity="warning"))
    assert "`b → a`" in said(feedback)
    assert any("exact g" in s.text for s in feedback.suggestions if s.reveals)


def test_a_rewrite_arrow_the_wrong_way() -> None:
    attempt = "theorem t (m n : Nat) (h : m = n + 1) : m > n := by\n  rw [← h]\n  omega"
    message = (
        "Tactic `rewrite` failed: Did not find an occurrence of the pattern\n  n + 1\nin the "
        "target expression\n  m > n\n\nm n : Nat\nh : m = n + 1\n⊢ m > n"
    )
    text = said(advise(attempt, diag(2, 6, message, K.REWRITE_FAILED)))
    assert "`rw [h]`" in text and "without the `←`" in text


def test_a_rewrite_whose_factors_are_in_the_other_order() -> None:
    attempt = "theorem t (x y z : ℝ) (h : x * y = z) : y * x = z := by\n  rw [h]"
    message = (
        "Tactic `rewrite` failed: Did not find an occurrence of the pattern\n  x * y\nin the "
        "target expression\n  y * x = z\n\nx y z : ℝ\nh : x * y = z\n⊢ y * x = z"
    )
    text = said(advise(attempt, diag(2, 6, message, K.REWRITE_FAILED), mathlib=True))
    assert "rw [mul_comm y x, h]" in text and "← h" not in text


def test_the_default_coach_reads_mathlib_from_the_attempt() -> None:
    # make_coach("compiler") with no course information still detects ℝ as Mathlib.
    attempt = "theorem t (x : ℝ) : x ≤ |x| := by\n  linarith"
    message = linarith_failed("x : ℝ\na✝ : |x| < x")
    feedback = make_coach("compiler").advise(
        attempt.split("\n")[0], attempt, [diag(2, 2, message, K.LINARITH_FAILED)]
    )
    assert "le_abs_self x" in said(feedback)


# ---------------------------------------------------------------- more evidence-backed steps


def test_omega_on_the_reals_for_a_ne_goal_gets_the_strict_lemma_not_linarith() -> None:
    attempt = "theorem t (r : ℝ) (hr : 1 < r) : r ≠ 1 := by\n  omega"
    message = (
        "omega could not prove the goal:\nNo usable constraints found. You may need to unfold "
        "definitions so `omega` can see linear arithmetic facts about `Nat` and `Int`."
    )
    text = said(advise(attempt, diag(2, 2, message, K.OMEGA_FAILED), mathlib=True))
    assert "ne_of_gt hr" in text and "Use `linarith`" not in text


def test_a_projection_of_a_fact_that_is_the_goal_itself() -> None:
    attempt = "theorem t (a b : Prop) (ha : a) (hb : b) : b := by\n  exact hb.2"
    message = "Invalid projection: Expected a value whose type is a structure\n  hb\nhas type\n  b"
    text = said(advise(attempt, diag(2, 8, message, K.INVALID_FIELD)))
    assert "`exact hb`" in text


def test_a_lemma_that_does_not_fit_on_a_goal_omega_proves() -> None:
    attempt = "theorem t (m n : Nat) (h : m ≤ n) : m < n + 2 := by\n  exact Nat.succ_le_of_lt h"
    message = app_mismatch("h", "m ≤ n", "?n < ?m", "Nat.succ_le_of_lt h")
    text = said(advise(attempt, diag(2, 26, message, K.TYPE_MISMATCH)))
    assert "with `omega`" in text


def test_an_absolute_value_bound_splits_into_two_linear_bounds() -> None:
    attempt = "theorem t (y : ℝ) (h1 : 1 < y) (h2 : y < 3) : |y - 2| < 1 := by\n  linarith"
    message = linarith_failed("y : ℝ\nh1 : 1 < y\nh2 : y < 3\na✝ : |y - 2| ≥ 1")
    text = said(advise(attempt, diag(2, 2, message, K.LINARITH_FAILED), mathlib=True))
    assert "rw [abs_lt]; constructor <;> linarith" in text


def test_the_lemma_of_the_same_family_for_the_goals_operation() -> None:
    attempt = (
        "theorem t (u v : ℝ) (hu : 0 ≤ u) (hv : 0 ≤ v) : 0 ≤ u / v := by\n  exact mul_nonneg hu hv"
    )
    message = mismatch("mul_nonneg hu hv", "0 ≤ u * v", "0 ≤ u / v")
    text = said(advise(attempt, diag(2, 8, message, K.TYPE_MISMATCH), mathlib=True))
    assert "div_nonneg hu hv" in text


def test_an_exists_goal_whose_witness_depends_on_a_variable() -> None:
    attempt = "theorem t (b : ℝ) : ∃ a : ℝ, 4 * a = b := by\n  intro a"
    message = INTRO_N + "b : ℝ\n⊢ ∃ a, 4 * a = b"
    text = said(advise(attempt, diag(2, 8, message, K.INTRO_FAILED), mathlib=True))
    assert "use b / 4" in text


def test_unverified_concrete_steps_are_worded_as_something_to_try() -> None:
    attempt = "theorem t (c d : ℝ) : 2 * c * d ≤ c ^ 2 + d ^ 2 := by\n  nlinarith"
    message = linarith_failed("c d : ℝ\na✝ : 2 * c * d > c ^ 2 + d ^ 2")
    feedback = advise(attempt, diag(2, 2, message, K.LINARITH_FAILED), mathlib=True)
    assert feedback.suggestions[0].text.startswith(
        "Do try to write `nlinarith [sq_nonneg (c - d)]`"
    )


def test_lean3_from_is_exact() -> None:
    attempt = "theorem t (a : Prop) (ha : a) : a := by\n  from ha"
    text = said(advise(attempt, diag(2, 2, "unexpected token 'from'; expected command", K.SYNTAX)))
    assert "`exact ha`" in text


def test_a_lemma_whose_values_were_not_given() -> None:
    attempt = (
        "theorem t (a : Nat) (l : List Nat) : a ∈ l ++ [a] := by\n  exact List.mem_concat_self"
    )
    message = mismatch("List.mem_concat_self", "?x ∈ ?xs ++ [?x]", "a ∈ l ++ [a]")
    text = said(advise(attempt, diag(2, 8, message, K.TYPE_MISMATCH)))
    assert "exact List.mem_concat_self a l" in text


def test_an_or_fact_used_as_one_side_gets_the_case_split() -> None:
    attempt = (
        "theorem t (a b c : Prop) (hab : a ∨ b) (hac : a → c) (hbc : b → c) : c := by\n"
        "  exact hac hab"
    )
    message = app_mismatch("hab", "a ∨ b", "a", "hac hab")
    text = said(advise(attempt, diag(2, 12, message, K.TYPE_MISMATCH)))
    assert "hab.elim hac hbc" in text and "Or.inl" not in text


def test_an_unknown_name_on_exact_is_no_typo_of_a_fact_that_does_not_fit() -> None:
    attempt = "theorem t (a b : Prop) (h : a) (hab : a → b) : b := by\n  exact hb"
    text = said(advise(attempt, diag(2, 8, "Unknown identifier `hb`", K.UNKNOWN_IDENTIFIER)))
    assert "exact hab h" in text and "with `h`" not in text
