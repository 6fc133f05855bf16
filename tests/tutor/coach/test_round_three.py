"""Issue 30, round three: general rules for kinds of beginner mistake, each stated as a Lean
teacher would, with the evidence the coach needs before it names a concrete fix.

Every test is a mistake written for this file (none is a case of a bench set), with the
message in the wording Lean 4 prints, what the advice must say and what it must not.
"""

from __future__ import annotations

from tests.tutor.coach.helpers import K, app_mismatch, diag, mismatch, rewrite_failed
from tests.tutor.coach.test_general_rules import INTRO_N, NO_INDUCTIVE, advise, said
from tutor.coach import Feedback
from tutor.coach.compiler import CompilerCoach, CompilerCoachConfig


def advise_with_def(attempt: str, *diagnostics) -> Feedback:
    """The core coach on an attempt that starts with the exercise's `def`: the statement is
    the theorem's line, not the file's first line."""
    statement = next(line for line in attempt.split("\n") if line.startswith("theorem"))
    return CompilerCoach(CompilerCoachConfig(mathlib=False)).advise(
        statement, attempt, list(diagnostics)
    )


# ------------------------------------------------------------------ a wrong witness, never given


def test_constructor_on_an_exists_leaves_the_witness_open_and_gets_one_that_works() -> None:
    attempt = "theorem t : ∃ m : Nat, m * 3 = 12 := by\n  constructor"
    message = "unsolved goals\ncase h\n⊢ ?w * 3 = 12\n\ncase w\n⊢ Nat"
    text = said(advise(attempt, diag(1, 37, message, K.UNSOLVED_GOALS, end=(2, 13))))
    assert "`exists 4`" in text and "?w" in text
    assert "omega" not in text  # `?w * 3 = 12` is no goal to close: the value is missing


def test_an_open_witness_with_no_value_found_names_none() -> None:
    attempt = "theorem t (f : Nat → Nat) : ∃ m : Nat, f m = m := by\n  constructor"
    message = "unsolved goals\ncase h\nf : Nat → Nat\n⊢ f ?w = ?w\n\ncase w\nf : Nat → Nat\n⊢ Nat"
    text = said(advise(attempt, diag(1, 50, message, K.UNSOLVED_GOALS, end=(2, 13))))
    assert "`exists v`" in text and "?w" in text


# ------------------------------------------------------------------ names never bound


def test_a_fun_pattern_that_drops_both_parts_names_the_half_the_name_spells() -> None:
    attempt = "theorem t (a b : Prop) : a ∧ b → b := by\n  exact fun ⟨_, _⟩ => hb"
    d = diag(2, 22, "Unknown identifier `hb`", K.UNKNOWN_IDENTIFIER)
    text = said(advise(attempt, d))
    assert "fun ⟨_, hb⟩ => hb" in text and "throws" in text
    assert "typo" not in text and "intro hb" not in text


def test_a_one_part_pattern_on_an_exists_gets_its_proof_part() -> None:
    attempt = (
        "theorem t (A B : Nat → Prop) (h : ∀ k, A k → B k) : (∃ k, A k) → ∃ k, B k := by\n"
        "  rintro ⟨k⟩\n"
        "  exact ⟨k, h k hk⟩"
    )
    d = diag(3, 15, "Unknown identifier `hk`", K.UNKNOWN_IDENTIFIER)
    feedback = advise(attempt, d)
    assert feedback.suggestions[0].line == 2
    assert "rintro ⟨k, hk⟩" in said(feedback)


def test_a_hypothesis_named_in_an_obtain_is_offered_for_its_near_spelling() -> None:
    attempt = (
        "theorem t (m : ℕ) (h : Odd m) : Odd (m + 4) := by\n"
        "  obtain ⟨j, hj⟩ := h\n"
        "  use j + 2\n"
        "  rw [hi]\n"
        "  ring"
    )
    d = diag(4, 6, "Unknown identifier `hi`", K.UNKNOWN_IDENTIFIER)
    assert "`rw [hj]`" in said(advise(attempt, d, mathlib=True))


# ------------------------------------------------------------------ a premise, a negation


def test_a_true_closed_premise_is_passed_by_decide() -> None:
    attempt = "theorem t (Q : Nat → Prop) (h : ∀ k, 1 < k → Q k) : Q 4 := by\n  exact h 4"
    message = mismatch("h 4", "1 < 4 → Q 4", "Q 4")
    text = said(advise(attempt, diag(2, 8, message, K.TYPE_MISMATCH)))
    assert "`exact h 4 (by decide)`" in text


def test_a_false_premise_gets_no_decision_procedure() -> None:
    attempt = "theorem t (Q : Nat → Prop) (h : ∀ k, 5 < k → Q k) : Q 4 := by\n  exact h 4"
    message = mismatch("h 4", "5 < 4 → Q 4", "Q 4")
    text = said(advise(attempt, diag(2, 8, message, K.TYPE_MISMATCH)))
    assert "decide" not in text and "`5 < 4`" in text


def test_a_negation_lemma_is_applied_to_the_fact_it_negates() -> None:
    attempt = "theorem t (y : ℝ) : ¬y < y := by\n  intro hy\n  exact lt_irrefl y"
    message = mismatch("lt_irrefl y", "¬y < y", "False")
    text = said(advise(attempt, diag(3, 8, message, K.TYPE_MISMATCH), mathlib=True))
    assert "exact (lt_irrefl y) hy" in text and "function" in text
    assert "linarith" not in text  # the step is applying the negation, not automation


def test_a_negated_hypothesis_is_applied_to_a_proof_built_from_the_facts() -> None:
    """A guard: the rule above keeps the built proof (`hab ha`), not just a name in scope."""
    attempt = "theorem t (a b : Prop) (hab : a → b) (hnb : ¬b) : ¬a := by\n  intro ha\n  exact hnb"
    message = mismatch("hnb", "¬b", "False")
    text = said(advise(attempt, diag(3, 8, message, K.TYPE_MISMATCH)))
    assert "exact hnb (hab ha)" in text


# ------------------------------------------------------------------ read the hypothesis


def test_a_function_not_yet_applied_in_a_hypothesis_is_simplified_first() -> None:
    attempt = (
        "theorem t : Function.Injective (fun n : ℕ => 2 * n) := by\n  intro u v huv\n  exact huv"
    )
    message = mismatch("huv", "(fun n => 2 * n) u = (fun n => 2 * n) v", "u = v")
    text = said(advise(attempt, diag(3, 8, message, K.TYPE_MISMATCH), mathlib=True))
    assert "simp at huv" in text and "beta" in text
    assert "funext" not in text and "`ext`" not in text


def test_the_order_inside_an_absolute_value_is_abs_sub_comm() -> None:
    attempt = "theorem t (x y : ℝ) (h : |x - y| ≤ 2) : |y - x| ≤ 2 := by\n  exact h"
    message = mismatch("h", "|x - y| ≤ 2", "|y - x| ≤ 2")
    text = said(advise(attempt, diag(2, 8, message, K.TYPE_MISMATCH), mathlib=True))
    assert "rwa [abs_sub_comm]" in text
    assert "abs_nonneg" not in text


def test_a_cast_into_the_reals_is_not_sent_to_omega() -> None:
    attempt = "theorem t (k : ℕ) (h : 2 < k) : (2 : ℝ) < k := by\n  exact h"
    message = mismatch("h", "2 < k", "2 < ↑k")
    text = said(advise(attempt, diag(2, 8, message, K.TYPE_MISMATCH), mathlib=True))
    assert "exact_mod_cast h" in text and "ℕ to ℝ" in text
    assert "omega" not in text


def test_a_cast_into_the_integers_may_use_omega() -> None:
    """A guard: omega reads casts from ℕ into ℤ, so there it stays named."""
    attempt = "theorem t (k : ℕ) (h : 2 < k) : (2 : ℤ) < k := by\n  exact h"
    message = mismatch("h", "2 < k", "2 < ↑k")
    text = said(advise(attempt, diag(2, 8, message, K.TYPE_MISMATCH), mathlib=True))
    assert "exact_mod_cast h" in text and "`omega`" in text and "ℕ to ℤ" in text


# ------------------------------------------------------------------ apply whose conclusion is other


def test_a_chain_lemma_chosen_by_apply_in_the_wrong_order_is_said_at_the_apply() -> None:
    attempt = (
        "theorem t (u v w : ℝ) (hu : u < v) (hv : v ≤ w) : u < w := by\n"
        "  apply lt_of_le_of_lt\n"
        "  exact hu\n"
        "  exact hv"
    )
    message = mismatch("hu", "u < v", "u ≤ ?b")
    feedback = advise(attempt, diag(3, 8, message, K.TYPE_MISMATCH), mathlib=True)
    assert feedback.suggestions[0].line == 2
    assert "exact lt_of_lt_of_le hu hv" in said(feedback)
    assert "le_of_lt hu" not in said(feedback)


# ------------------------------------------------------------------ tactics and their goals


def test_simp_that_makes_no_progress_is_told_the_hypotheses_that_build_the_goal() -> None:
    attempt = "theorem t (a b : Prop) (ha : a) (hb : b) : b ∧ a := by\n  simp"
    text = said(advise(attempt, diag(2, 2, "`simp` made no progress", K.SIMP_NO_PROGRESS)))
    assert "exact ⟨hb, ha⟩" in text and ("simp [ha, hb]" in text or "simp [hb, ha]" in text)
    assert "decide" not in text


def test_arithmetic_on_list_lengths_is_reordered_not_inducted() -> None:
    attempt = (
        "theorem t (xs ys : List Nat) : (xs ++ ys).length = ys.length + xs.length := by\n"
        "  rw [List.length_append]"
    )
    message = "unsolved goals\nxs ys : List Nat\n⊢ xs.length + ys.length = ys.length + xs.length"
    text = said(advise(attempt, diag(1, 76, message, K.UNSOLVED_GOALS, end=(2, 25))))
    assert "Nat.add_comm xs.length ys.length" in text
    assert "induction" not in text


def test_a_commutativity_rewrite_without_arguments_is_explained() -> None:
    attempt = "theorem t (x y z : Nat) : x * y * z = x * z * y := by\n  rw [Nat.mul_comm]"
    message = "unsolved goals\nx y z : Nat\n⊢ z * (x * y) = x * z * y"
    text = said(advise(attempt, diag(1, 50, message, K.UNSOLVED_GOALS, end=(2, 19))))
    assert "first product it matches" in text and "Nat.mul_comm x y" in text
    assert "omega" not in text  # products of variables are not linear: omega cannot close it


def test_a_rewrite_lemma_side_condition_gets_its_proof_passed() -> None:
    attempt = "theorem t (y : ℝ) (hy : 0 < y) : |y| = y := by\n  rw [abs_of_nonneg]"
    message = "unsolved goals\ncase h\ny : ℝ\nhy : 0 < y\n⊢ 0 ≤ y"
    text = said(advise(attempt, diag(1, 45, message, K.UNSOLVED_GOALS, end=(2, 20)), mathlib=True))
    assert "rw [abs_of_nonneg hy.le]" in text and "new goal" in text


def test_a_side_condition_with_no_proof_in_scope_names_none() -> None:
    attempt = "theorem t (y : ℝ) : |y| = y := by\n  rw [abs_of_nonneg]"
    message = "unsolved goals\ncase h\ny : ℝ\n⊢ 0 ≤ y"
    text = said(advise(attempt, diag(1, 30, message, K.UNSOLVED_GOALS, end=(2, 20)), mathlib=True))
    assert "side condition" in text and "linarith" not in text and "positivity" not in text


def test_the_induction_hypothesis_over_a_range_needs_the_last_term_peeled() -> None:
    attempt = (
        "theorem t (m : ℕ) : ∑ i ∈ Finset.range (m + 1), (2 * i + 1) = (m + 1) ^ 2 := by\n"
        "  induction m with\n"
        "  | zero => simp\n"
        "  | succ j ih =>\n"
        "    rw [ih]\n"
        "    ring"
    )
    target = "∑ i ∈ Finset.range (j + 1 + 1), (2 * i + 1) = (j + 1 + 1) ^ 2"
    context = "case succ\nj : ℕ\nih : ∑ i ∈ Finset.range (j + 1), (2 * i + 1) = (j + 1) ^ 2"
    message = rewrite_failed("∑ i ∈ Finset.range (j + 1), (2 * i + 1)", target, context)
    text = said(advise(attempt, diag(5, 8, message, K.REWRITE_FAILED), mathlib=True))
    assert "Finset.sum_range_succ" in text
    assert "omega" not in text and "rw [← ih]" not in text


def test_a_rewrite_that_finds_nothing_on_an_identity_of_algebra_gets_ring() -> None:
    attempt = "theorem t (p q : ℝ) : (p - q) ^ 2 = p ^ 2 - 2 * p * q + q ^ 2 := by\n  rw [mul_sub]"
    target = "(p - q) ^ 2 = p ^ 2 - 2 * p * q + q ^ 2"
    message = rewrite_failed("?a * (?b - ?c)", target, "p q : ℝ")
    text = said(advise(attempt, diag(2, 6, message, K.REWRITE_FAILED), mathlib=True))
    assert "`ring`" in text and "power" in text


def test_a_rewrite_on_a_goal_that_is_no_identity_gets_no_ring() -> None:
    """A guard: `ring` only where evaluation shows an identity."""
    attempt = "theorem t (p q : ℝ) : p * q = q * q := by\n  rw [mul_assoc p q q]"
    message = rewrite_failed("p * q * q", "p * q = q * q", "p q : ℝ")
    text = said(advise(attempt, diag(2, 6, message, K.REWRITE_FAILED), mathlib=True))
    assert "`ring`" not in text


def test_intro_on_a_set_equality_is_ext() -> None:
    attempt = "theorem t (A B : Set ℤ) : A ∪ B = B ∪ A := by\n  intro z"
    message = INTRO_N + "A B : Set ℤ\n⊢ A ∪ B = B ∪ A"
    text = said(advise(attempt, diag(2, 2, message, K.INTRO_FAILED), mathlib=True))
    assert "`ext z`" in text and "equality of sets" in text
    assert "intros" not in text and "constructor" not in text


def test_constructor_on_an_absolute_value_bound_rewrites_it_first() -> None:
    attempt = (
        "theorem t (y : ℝ) (h1 : -1 < y) (h2 : y < 1) : |y| < 1 := by\n"
        "  constructor\n  · exact h1\n  · exact h2"
    )
    message = NO_INDUCTIVE + "y : ℝ\nh1 : -1 < y\nh2 : y < 1\n⊢ |y| < 1"
    text = said(advise(attempt, diag(2, 2, message, K.APPLY_FAILED), mathlib=True))
    assert "rw [abs_lt]" in text and "-1 < y ∧ y < 1" in text
    assert "abs_le" not in text


# ------------------------------------------------------------------ no wrong tactic named in passing


def test_left_on_a_conjunction_does_not_name_right() -> None:
    attempt = "theorem t (a b : Prop) (ha : a) (hb : b) : a ∧ b := by\n  left\n  exact ha"
    message = (
        "Tactic `left` failed: left tactic works for inductive types with exactly 2 "
        "constructors\n\na b : Prop\nha : a\nhb : b\n⊢ a ∧ b"
    )
    text = said(advise(attempt, diag(2, 2, message, K.APPLY_FAILED)))
    assert "`constructor`" in text and "`right`" not in text


def test_the_other_side_of_an_or_does_not_say_constructor() -> None:
    attempt = "theorem t (a b : Prop) (ha : a) : b ∨ a := by\n  exact Or.inl ha"
    message = app_mismatch("ha", "a", "b", "Or.inl ha")
    text = said(advise(attempt, diag(2, 15, message, K.TYPE_MISMATCH)))
    assert "Or.inr ha" in text and "constructor" not in text


def test_a_lean3_lambda_is_not_shown_in_its_lean3_spelling() -> None:
    attempt = "theorem t (P : Nat → Prop) (h : ∀ n, P n) : ∀ n, P n := by\n  exact fun n, h n"
    message = "unexpected token ','; expected '↦', '=>'"
    text = said(advise(attempt, diag(2, 13, message, K.SYNTAX)))
    assert "fun n => h n" in text and "λ" not in text


def test_a_refine_with_a_hole_for_the_witness_gets_one_that_works() -> None:
    attempt = "theorem t : ∃ m : Nat, m + m = 8 := by\n  refine ⟨?_, ?_⟩"
    message = "unsolved goals\ncase refine_1\n⊢ Nat\n\ncase refine_2\n⊢ ?refine_1 + ?refine_1 = 8"
    text = said(advise(attempt, diag(1, 35, message, K.UNSOLVED_GOALS, end=(2, 17))))
    assert "`exists 4`" in text and "unfold" not in text


def test_a_bound_on_an_absolute_value_gives_its_half_through_abs_lt() -> None:
    attempt = "theorem t (z : ℝ) (h : |z| < 5) : -5 < z := by\n  exact h"
    message = mismatch("h", "|z| < 5", "-5 < z")
    text = said(advise(attempt, diag(2, 8, message, K.TYPE_MISMATCH), mathlib=True))
    assert "exact (abs_lt.mp h).1" in text


def test_decide_finding_the_witness_false_in_older_wording_is_a_wrong_witness() -> None:
    attempt = "theorem t : ∃ k : Nat, k * 4 = 28 := by\n  exact ⟨6, by decide⟩"
    message = "decide failed, proposition\n  6 * 4 = 28\nis false"
    text = said(advise(attempt, diag(2, 12, message, K.DECIDE_FAILED)))
    assert "`exact ⟨7, by decide⟩`" in text and "without variables" not in text


def test_a_witness_refined_with_a_hole_per_conjunct_is_read_as_the_witness() -> None:
    attempt = (
        "theorem t : ∃ k : ℕ, k + k = 10 ∧ k > 2 := by\n"
        "  refine ⟨4, ?_, ?_⟩\n  · norm_num\n  · norm_num"
    )
    message = "unsolved goals\n⊢ False"
    feedback = advise(attempt, diag(3, 4, message, K.UNSOLVED_GOALS, end=(3, 12)), mathlib=True)
    assert feedback.suggestions[0].line == 2
    assert "`refine ⟨5, ?_, ?_⟩`" in said(feedback)


def test_lean3_split_on_a_conjunction_is_constructor_not_a_syntax_error() -> None:
    attempt = (
        "theorem t (a b : Prop) (ha : a) (hb : b) : b ∧ a := by\n  split\n  exact hb\n  exact ha"
    )
    message = "split failed: consider using `set_option trace.split.failure true`"
    text = said(advise(attempt, diag(2, 2, message, K.TACTIC_FAILED)))
    assert "`constructor`" in text and "if … then … else" in text and "syntax" not in text


def linarith_failed(context: str) -> str:
    return f"linarith failed to find a contradiction\ncase a\n{context}\n⊢ False failed"


def test_linarith_on_a_completed_square_gets_that_square_checked() -> None:
    attempt = "theorem t (a : ℝ) : 0 ≤ a ^ 2 - 4 * a + 4 := by\n  linarith"
    message = linarith_failed("a : ℝ\na✝ : 0 > a ^ 2 - 4 * a + 4")
    text = said(advise(attempt, diag(2, 2, message, K.LINARITH_FAILED), mathlib=True))
    assert "sq_nonneg (a - 2)" in text
    assert "sq_nonneg a]" not in text  # the bare square does not make nlinarith work


def test_no_square_is_named_when_none_makes_nlinarith_work() -> None:
    attempt = "theorem t (z : ℝ) (hz : 0 ≤ z) : 0 < z ^ 3 - z + 1 := by\n  linarith"
    message = linarith_failed("z : ℝ\nhz : 0 ≤ z\na✝ : 0 ≥ z ^ 3 - z + 1")
    text = said(advise(attempt, diag(2, 2, message, K.LINARITH_FAILED), mathlib=True))
    assert "sq_nonneg" not in text and "nlinarith [" not in text


def test_a_weakened_hypothesis_that_already_stated_the_goal_is_used_as_it_is() -> None:
    attempt = "theorem t (w : ℝ) (hw : 0 < w) : w > 0 := by\n  exact hw.le"
    message = mismatch("le_of_lt hw", "0 ≤ w", "w > 0")
    text = said(advise(attempt, diag(2, 8, message, K.TYPE_MISMATCH), mathlib=True))
    assert "`exact hw`" in text and "linarith" not in text


def test_an_open_nonlinear_goal_gets_only_a_checked_nlinarith() -> None:
    attempt = "theorem t (u v : ℝ) (h : u * v = 1) : u ^ 2 + v ^ 2 ≥ 2 := by\n  norm_num"
    message = "unsolved goals\nu v : ℝ\nh : u * v = 1\n⊢ u ^ 2 + v ^ 2 ≥ 2"
    text = said(advise(attempt, diag(1, 62, message, K.UNSOLVED_GOALS, end=(2, 10)), mathlib=True))
    assert "nlinarith [sq_nonneg (u - v)]" in text and "sq_nonneg (u + v)" not in text


def test_an_apply_in_older_wording_is_named_from_the_students_line() -> None:
    attempt = (
        "theorem t (a b c : Prop) (ha : a) (f : a → b) (g : b → c) : c := by\n  apply f\n  exact ha"
    )
    message = (
        "tactic 'apply' failed to unify\n  b\nwith\n  c\n"
        "a b c : Prop\nha : a\nf : a → b\ng : b → c\n⊢ c"
    )
    text = said(advise(attempt, diag(2, 2, message, K.APPLY_FAILED)))
    assert "the conclusion of `f` is `b`" in text and "apply g" in text
    assert "the term" not in text


def test_an_alternative_named_with_its_namespace_is_read_without_the_closing_quote() -> None:
    attempt = (
        "theorem t (m : Nat) : m = 0 ∨ 0 < m := by\n  cases m with\n"
        "  | Nat.zero => exact Or.inl rfl\n  | succ j => exact Or.inr (Nat.succ_pos j)"
    )
    message = "Invalid alternative name 'Nat.zero': Expected 'zero' or 'succ'"
    text = said(advise(attempt, diag(3, 2, message, K.CASES_ERROR)))
    assert "`| zero =>`" in text and "Nat.zero'" not in text


def test_a_match_alternative_that_drops_a_part_binds_it_there() -> None:
    attempt = (
        "theorem t (Q : Nat → Prop) (h : ∃ m, Q m ∧ m < 9) : ∃ m, Q m := by\n"
        "  match h with\n"
        "  | ⟨j, _⟩ => exact ⟨j, hj.1⟩"
    )
    d = diag(3, 23, "Unknown identifier `hj`", K.UNKNOWN_IDENTIFIER)
    text = said(advise(attempt, d))
    assert "`| ⟨j, hj⟩ => exact ⟨j, hj.1⟩`" in text
    assert "`h`" not in text  # `h` is the ∃ itself: no spelling fix


def test_a_name_used_after_an_anonymous_have_names_the_have() -> None:
    attempt = (
        "theorem t (m k : Nat) (h : m < k) : m ≤ k := by\n"
        "  have : m ≤ k := Nat.le_of_lt h\n"
        "  exact h1"
    )
    d = diag(3, 8, "Unknown identifier `h1`", K.UNKNOWN_IDENTIFIER)
    feedback = advise(attempt, d)
    assert feedback.suggestions[0].line == 2
    assert "have h1 : m ≤ k" in said(feedback) and "`this`" in said(feedback)
    assert "`exact h`" not in said(feedback)  # `h : m < k` is not the goal


def test_a_false_closed_equation_where_false_is_needed_goes_through_absurd() -> None:
    attempt = "theorem t : (4 : Nat) ≠ 7 := by\n  intro h\n  exact h"
    message = mismatch("h", "4 = 7", "False")
    text = said(advise(attempt, diag(3, 8, message, K.TYPE_MISMATCH)))
    assert "exact absurd h (by decide)" in text


def test_a_lemma_concluding_the_other_relation_of_its_family_is_swapped() -> None:
    attempt = (
        "theorem t (y : ℝ) (h1 : -2 < y) (h2 : y < 2) : |y| < 2 := by\n  exact abs_le.mpr ⟨h1, h2⟩"
    )
    message = mismatch("abs_le.mpr ⟨?a, ?b⟩", "|y| ≤ 2", "|y| < 2")
    text = said(advise(attempt, diag(2, 8, message, K.TYPE_MISMATCH), mathlib=True))
    assert "exact abs_lt.mpr ⟨h1, h2⟩" in text


def test_no_family_swap_when_the_facts_are_of_the_other_relation() -> None:
    """A guard: `abs_lt` would need strict facts, and these are `≤`."""
    attempt = (
        "theorem t (y : ℝ) (h1 : -2 ≤ y) (h2 : y ≤ 2) : |y| < 2 := by\n  exact abs_le.mpr ⟨h1, h2⟩"
    )
    message = mismatch("abs_le.mpr ⟨?a, ?b⟩", "|y| ≤ 2", "|y| < 2")
    text = said(advise(attempt, diag(2, 8, message, K.TYPE_MISMATCH), mathlib=True))
    assert "abs_lt.mpr ⟨h1, h2⟩" not in text


def test_a_definition_unfolded_in_the_goal_only_is_unfolded_in_the_hypothesis_too() -> None:
    attempt = (
        "def g (k : Nat) : Nat := 2 * k\n\n"
        "theorem t (k : Nat) (hk : g k = 10) : k = 5 := by\n  simp [g]"
    )
    message = "unsolved goals\nk : Nat\nhk : g k = 10\n⊢ k = 5"
    feedback = advise_with_def(attempt, diag(4, 2, message, K.UNSOLVED_GOALS, end=(4, 10)))
    assert "simp [g] at hk ⊢" in said(feedback)
    assert "omega would fail" not in said(feedback)


def test_use_on_an_exists_in_disguise_gets_the_value_that_makes_the_goal_true() -> None:
    attempt = "theorem t : Even (14 : ℕ) := by\n  use 6"
    message = "unsolved goals\ncase h\n⊢ 14 = 6 + 6"
    text = said(advise(attempt, diag(1, 32, message, K.UNSOLVED_GOALS, end=(2, 7)), mathlib=True))
    assert "`use 7`" in text and "norm_num" not in text


def test_use_on_a_divisibility_reads_which_numeral_is_the_witness() -> None:
    attempt = "theorem t : (5 : ℤ) ∣ 20 := by\n  use 5"
    message = "unsolved goals\ncase h\n⊢ 20 = 5 * 5"
    text = said(advise(attempt, diag(1, 28, message, K.UNSOLVED_GOALS, end=(2, 7)), mathlib=True))
    assert "`use 4`" in text


def test_constructor_on_a_max_bound_is_max_le_with_the_facts() -> None:
    attempt = "theorem t (p q r : ℝ) (hp : p ≤ r) (hq : q ≤ r) : max p q ≤ r := by\n  constructor"
    message = NO_INDUCTIVE + "p q r : ℝ\nhp : p ≤ r\nhq : q ≤ r\n⊢ max p q ≤ r"
    text = said(advise(attempt, diag(2, 2, message, K.APPLY_FAILED), mathlib=True))
    assert "exact max_le hp hq" in text


def test_constructor_on_a_min_lower_bound_is_le_min() -> None:
    attempt = "theorem t (p q r : ℝ) : r ≤ min p q := by\n  constructor"
    message = NO_INDUCTIVE + "p q r : ℝ\n⊢ r ≤ min p q"
    text = said(advise(attempt, diag(2, 2, message, K.APPLY_FAILED), mathlib=True))
    assert "apply le_min" in text


def test_the_twin_lemma_for_the_other_argument() -> None:
    attempt = "theorem t (u v : ℝ) : v ≤ max u v := by\n  exact le_max_left u v"
    message = mismatch("le_max_left u v", "u ≤ max u v", "v ≤ max u v")
    text = said(advise(attempt, diag(2, 8, message, K.TYPE_MISMATCH), mathlib=True))
    assert "exact le_max_right u v" in text


def test_a_lemma_stated_at_another_value_gets_the_goals_value() -> None:
    attempt = "theorem t (m n : ℝ) : 0 ≤ (m + n) ^ 2 := by\n  exact sq_nonneg n"
    message = mismatch("sq_nonneg n", "0 ≤ n ^ 2", "0 ≤ (m + n) ^ 2")
    text = said(advise(attempt, diag(2, 8, message, K.TYPE_MISMATCH), mathlib=True))
    assert "exact sq_nonneg (m + n)" in text


def test_an_element_given_to_a_subset_is_left_implicit() -> None:
    attempt = (
        "theorem t (A B : Set ℤ) (hAB : A ⊆ B) (z : ℤ) (hz : z ∈ A) : z ∈ B := by\n  exact hAB z hz"
    )
    message = app_mismatch("z", "ℤ", "z ∈ A", "hAB z")
    text = said(advise(attempt, diag(2, 12, message, K.TYPE_MISMATCH), mathlib=True))
    assert "`exact hAB hz`" in text and "hAB hz z" not in text


def test_ring_on_natural_division_says_division_rounds_down() -> None:
    attempt = "theorem t (m : ℕ) : m * (m + 1) / 2 + (m + 1) = (m + 1) * (m + 2) / 2 := by\n  ring"
    message = "ring failed, ring_nf subsidiary goal"
    goal = "m : ℕ\n⊢ m * (m + 1) / 2 + (m + 1) = (m + 1) * (m + 2) / 2"
    text = said(advise(attempt, diag(2, 2, message, K.TACTIC_FAILED, goal=goal), mathlib=True))
    assert "rounds down" in text and "multiply it out" in text


def test_a_denominator_known_nonzero_is_div_self_or_field_simp() -> None:
    attempt = "theorem t (y : ℝ) (hy : y ≠ 0) : y / y = 1 := by\n  simp"
    text = said(
        advise(attempt, diag(2, 2, "simp made no progress", K.SIMP_NO_PROGRESS), mathlib=True)
    )
    assert "exact div_self hy" in text
    attempt = "theorem t (y : ℝ) (hy : y ≠ 0) : 2 * y / y = 2 := by\n  simp"
    text = said(
        advise(attempt, diag(2, 2, "simp made no progress", K.SIMP_NO_PROGRESS), mathlib=True)
    )
    assert "`field_simp`" in text


def test_a_goal_of_cast_numerals_is_evaluated_by_norm_num() -> None:
    attempt = "theorem t (k : ℕ) (hk : k = 5) : (k : ℝ) * 2 = 10 := by\n  rw [hk]"
    message = "unsolved goals\nk : ℕ\nhk : k = 5\n⊢ ↑5 * 2 = 10"
    text = said(advise(attempt, diag(1, 50, message, K.UNSOLVED_GOALS, end=(2, 9)), mathlib=True))
    assert "`norm_num`" in text and "↑5" in text


def test_a_premise_the_goal_itself_provides_is_introduced_first() -> None:
    attempt = "theorem t (a b : Prop) (hab : a → b) (hnb : ¬b) : ¬a := by\n  exact hnb hab"
    message = app_mismatch("hab", "a → b", "b", "hnb hab")
    text = said(advise(attempt, diag(2, 12, message, K.TYPE_MISMATCH)))
    assert "intro ha" in text and "exact hnb (hab ha)" in text


def test_intro_names_meant_for_a_hypothesis_are_an_obtain() -> None:
    attempt = (
        "theorem t (Q : Nat → Prop) (h : ∃ k, Q k) : ∃ j, Q j := by\n  intro k hk\n  exact ⟨k, hk⟩"
    )
    message = INTRO_N + "Q : Nat → Prop\nh : ∃ k, Q k\n⊢ ∃ j, Q j"
    text = said(advise(attempt, diag(2, 2, message, K.INTRO_FAILED)))
    assert "obtain ⟨k, hk⟩ := h" in text


def test_an_obtain_with_a_colon_for_its_source_gets_colon_equals() -> None:
    attempt = "theorem t (h : ∃ k : Nat, k > 4) : ∃ j : Nat, j > 3 := by\n  obtain ⟨k, hk⟩ : h"
    message = "unexpected token; expected ':='"
    text = said(advise(attempt, diag(2, 19, message, K.SYNTAX)))
    assert "`obtain ⟨k, hk⟩ := h`" in text


def test_lean3_from_is_exact() -> None:
    attempt = "theorem t (a : Prop) (ha : a) : a := by\n  from ha"
    text = said(advise(attempt, diag(2, 2, "unknown tactic", K.UNKNOWN_TACTIC)))
    assert "`exact ha`" in text


def test_apply_of_the_wrong_hypothesis_finds_a_forall_one_concluding_the_goal() -> None:
    attempt = (
        "theorem t (A B : Nat → Prop) (hA : ∀ k, A k) (hAB : ∀ k, A k → B k) : B 7 := by\n"
        "  apply hA"
    )
    message = (
        "Tactic `apply` failed: could not unify the conclusion of `hA`\n  A ?k\nwith the goal\n"
        "  B 7\n\nA B : Nat → Prop\nhA : ∀ (k : Nat), A k\nhAB : ∀ (k : Nat), A k → B k\n⊢ B 7"
    )
    text = said(advise(attempt, diag(2, 2, message, K.APPLY_FAILED)))
    assert "apply hAB" in text and "exact hAB 7 (hA 7)" in text


def test_norm_num_reducing_a_closed_statement_to_false_says_the_statement_is_false() -> None:
    attempt = "theorem t : (3 : ℝ) ^ 4 = 80 := by\n  norm_num"
    message = "unsolved goals\n⊢ False"
    text = said(advise(attempt, diag(2, 2, message, K.UNSOLVED_GOALS, end=(2, 10)), mathlib=True))
    assert "is false" in text and "81" in text and "contradict" not in text


def test_positivity_on_a_square_in_disguise_gets_the_checked_square() -> None:
    attempt = "theorem t (y : ℝ) : 0 ≤ y ^ 2 + 6 * y + 9 := by\n  positivity"
    message = "failed to prove positivity/nonnegativity/nonzeroness"
    text = said(advise(attempt, diag(2, 2, message, K.TACTIC_FAILED), mathlib=True))
    assert "nlinarith [sq_nonneg (y + 3)]" in text


def test_decide_on_a_real_claim_is_told_why_and_given_the_checked_step() -> None:
    attempt = "theorem t (r : ℝ) (h : r = 4) : r - 1 = 3 := by\n  decide"
    message = "failed to synthesize\n  Decidable (r - 1 = 3)\nAdditional diagnostic information"
    text = said(advise(attempt, diag(2, 2, message, K.FAILED_TO_SYNTHESIZE), mathlib=True))
    assert "real numbers" in text and "`linarith`" in text


def test_omega_is_never_named_for_a_sum_it_reads_as_an_unknown() -> None:
    attempt = "theorem t (m : ℕ) : ∑ i ∈ Finset.range m, (0 : ℕ) = 0 := by\n  rfl"
    message = (
        "Tactic `rfl` failed: The left-hand side\n  ∑ i ∈ Finset.range m, 0\nis not "
        "definitionally equal to the right-hand side\n  0\n\nm : ℕ\n⊢ ∑ i ∈ Finset.range m, 0 = 0"
    )
    text = said(advise(attempt, diag(2, 2, message, K.RFL_FAILED), mathlib=True))
    assert "omega` on line" not in text and "use `omega`" not in text


def test_an_argument_of_negated_type_is_not_read_as_a_goal_to_introduce() -> None:
    attempt = "theorem t (a b : Prop) (h : ¬b → ¬a) (ha : a) : b := by\n  exact h ha"
    message = app_mismatch("ha", "a", "¬b", "h ha")
    text = said(advise(attempt, diag(2, 10, message, K.TYPE_MISMATCH)))
    assert "intro" not in text  # the goal is `b`, nothing to introduce


def test_use_in_core_on_a_forall_first_says_to_introduce_first() -> None:
    attempt = "theorem t : ∀ k : Nat, ∃ j, j > 2 * k := by\n  use 1"
    text = said(advise(attempt, diag(2, 2, "unknown tactic", K.UNKNOWN_TACTIC)))
    assert "`intro`" in text and "exists 1" not in text


def test_a_witness_false_for_every_value_gets_a_term_that_works() -> None:
    attempt = "theorem t : ∀ k : Nat, ∃ j, j > k + 1 := by\n  intro k\n  exists k"
    message = "unsolved goals\nk : Nat\n⊢ k > k + 1"
    text = said(advise(attempt, diag(1, 41, message, K.UNSOLVED_GOALS, end=(3, 10))))
    assert "`exists k + 2`" in text and "whatever" in text


def test_a_goal_true_at_some_values_is_not_called_a_wrong_witness() -> None:
    """A guard: `a > b` after `exists a` holds when `a = 1, b = 0`, so it is not refuted."""
    attempt = (
        "theorem t (b : Nat) (hb : b < 3) : ∀ a : Nat, ∃ j, j > b := by\n  intro a\n  exists a"
    )
    message = "unsolved goals\nb : Nat\nhb : b < 3\na : Nat\n⊢ a > b"
    text = said(advise(attempt, diag(1, 60, message, K.UNSOLVED_GOALS, end=(3, 10))))
    assert "whatever" not in text


def test_an_anonymous_constructor_with_too_many_parts_gets_the_right_count() -> None:
    attempt = "theorem t (a b : Prop) (ha : a) (hb : b) : a ∧ b := by\n  exact ⟨ha, hb, ha⟩"
    message = (
        "Invalid `⟨...⟩` notation: The constructor `And.intro` has 2 explicit fields, but 3 "
        "were given"
    )
    text = said(advise(attempt, diag(2, 8, message, K.ANONYMOUS_CONSTRUCTOR)))
    assert "exactly 2 parts" in text and "`exact ⟨ha, hb⟩`" in text and "``" not in text


def test_an_anonymous_constructor_on_an_or_in_newer_wording_picks_a_side() -> None:
    attempt = "theorem t (a b : Prop) (hb : b) : a ∨ b := by\n  exact ⟨hb⟩"
    message = (
        "Invalid `⟨...⟩` notation: The expected type of this term could not be determined to "
        "be a structure; `Or` has 2 constructors"
    )
    text = said(advise(attempt, diag(2, 8, message, K.ANONYMOUS_CONSTRUCTOR)))
    assert "`exact Or.inr hb`" in text
