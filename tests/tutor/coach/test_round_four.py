"""Issue 30, round four: general rules for kinds of beginner mistake the coach answered with
"I don't know", a generic hint or a wrong fix, each stated as a Lean teacher would, with the
evidence the coach needs before it names a concrete fix.

Every test is a mistake written for this file (none is a case of a bench set), with the
message in the wording Lean 4 prints, what the advice must say and what it must not.
"""

from __future__ import annotations

from tests.tutor.coach.helpers import K, app_mismatch, diag, mismatch, rewrite_failed
from tests.tutor.coach.test_general_rules import INTRO_N, advise, said
from tutor.coach import evidence

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


# ------------------------------------------------------------- a step meant for a hypothesis


def test_a_rewrite_whose_pattern_is_in_a_hypothesis_gets_at() -> None:
    attempt = "theorem t (n : Nat) (h : n + 0 = 5) : n = 5 := by\n  rw [Nat.add_zero]\n  exact h"
    context = "n : Nat\nh : n + 0 = 5"
    message = rewrite_failed("?n + 0", "n = 5", context)
    text = said(advise(attempt, diag(2, 6, message, K.REWRITE_FAILED)))
    assert "`rw [Nat.add_zero] at h`" in text


def test_a_rewrite_with_a_hypothesis_is_not_sent_back_at_itself() -> None:
    attempt = "theorem t (x y : Nat) (h : 0 + x = y) : x = y := by\n  rw [h]"
    message = rewrite_failed("0 + x", "x = y", "x y : Nat\nh : 0 + x = y")
    text = said(advise(attempt, diag(2, 6, message, K.REWRITE_FAILED)))
    assert "at h" not in text  # `0 + x` is in `h` because it is `h`'s own left side


def test_a_bare_name_pattern_is_no_evidence_for_at() -> None:
    # `b` is reached by rewriting the goal with `h` first (`rw [h, hb]`), not by `at h`.
    attempt = "theorem t (a b : Nat) (h : a = b) (hb : b = 3) : a + 1 = 4 := by\n  rw [hb]"
    message = rewrite_failed("b", "a + 1 = 4", "a b : Nat\nh : a = b\nhb : b = 3")
    text = said(advise(attempt, diag(2, 6, message, K.REWRITE_FAILED)))
    assert "at h`" not in text


def test_simp_with_nothing_to_do_on_the_goal_is_sent_to_the_hypothesis() -> None:
    attempt = "theorem t (n : Nat) (h : 0 + n = 5) : n = 5 := by\n  simp\n  exact h"
    text = said(advise(attempt, diag(2, 2, "simp made no progress", K.SIMP_NO_PROGRESS)))
    assert "`simpa using h`" in text
    assert "remove it" not in text  # without it, `exact h` still fails on `0 + n`


def test_simp_on_a_hypothesis_that_does_not_become_the_goal_gets_at() -> None:
    attempt = (
        "theorem t (xs : List Nat) (h : (xs ++ []).length = 3) : xs.length ≤ 3 := by\n"
        "  simp\n  omega"
    )
    text = said(advise(attempt, diag(2, 2, "simp made no progress", K.SIMP_NO_PROGRESS)))
    assert "`simp at h`" in text and "`xs.length = 3`" in text


# ------------------------------------------------------------- the parts a fact has


def test_mp_on_a_conjunction_names_the_conjunction_s_part_that_is_the_goal() -> None:
    attempt = "theorem t (p q : Prop) (h : p ∧ q) : q := by\n  exact h.mp"
    message = (
        "Invalid field `mp`: The environment does not contain `And.mp`\n  h\nhas type\n  p ∧ q"
    )
    text = said(advise(attempt, diag(2, 8, message, K.INVALID_FIELD)))
    assert "`exact h.right`" in text and "`.left`" in text


def test_left_on_an_iff_names_its_directions() -> None:
    attempt = "theorem t (p q : Prop) (h : p ↔ q) (hp : p) : q := by\n  exact h.left hp"
    message = (
        "Invalid field `left`: The environment does not contain `Iff.left`\n  h\nhas type\n  p ↔ q"
    )
    text = said(advise(attempt, diag(2, 8, message, K.INVALID_FIELD)))
    assert "`h.mp`" in text and "`h.mpr`" in text


def test_a_projection_of_an_exists_is_taken_apart_with_obtain() -> None:
    attempt = (
        "theorem t (f : Nat → Nat) (h : ∃ n, f n = 0) : ∃ m, f m = 0 := by\n  exact ⟨h.1, h.2⟩"
    )
    # The wording of Lean's own error explanation (src/Lean/ErrorExplanations/
    # ProjNonPropFromProp.lean in leanprover/lean4).
    message = (
        "Invalid projection: Cannot project a value of non-propositional type\n  Nat\n"
        "from the expression\n  h\nwhich has propositional type\n  ∃ n, f n = 0"
    )
    text = said(advise(attempt, diag(2, 9, message, K.INVALID_FIELD)))
    assert "`obtain ⟨x, hx⟩ := h`" in text


def test_refine_with_plain_underscores_gets_question_marks() -> None:
    attempt = "theorem t (p q : Prop) (hp : p) (hq : q) : p ∧ q := by\n  refine ⟨_, _⟩\n  exact hp"
    message = (
        "don't know how to synthesize placeholder for argument `left`\ncontext:\n"
        "p q : Prop\nhp : p\nhq : q\n⊢ p"
    )
    text = said(advise(attempt, diag(2, 10, message, K.PLACEHOLDER)))
    assert "`refine ⟨?_, ?_⟩`" in text


def test_obtain_on_a_forall_is_told_to_apply_it_to_a_value() -> None:
    attempt = (
        "theorem t (f : ℕ → ℕ) (h : ∀ x, f x = 2 * x) : f 3 = 6 := by\n"
        "  obtain ⟨x, hx⟩ := h\n  simp [hx]"
    )
    message = "rcases tactic failed: h : ∀ (x : ℕ), f x = 2 * x is not an inductive datatype"
    text = said(advise(attempt, diag(2, 20, message, K.OTHER), mathlib=True))
    assert "apply `h` to a value" in text and "`h a`" in text


# ------------------------------------------------------------- ℕ subtraction stops at 0


def test_omega_on_nat_subtraction_splits_the_truncated_case() -> None:
    from tutor.coach import linear

    nat = evidence.NAT
    assert linear.omega_proves("n - 1 + 1 = n", ["1 ≤ n"], nat) is True
    assert linear.omega_proves("n - 1 + 1 = n", [], nat) is False  # n = 0: 0 + 1 ≠ 0
    assert linear.omega_proves("a - b ≤ a", [], nat) is True
    assert linear.omega_proves("a - b - c = a - (b + c)", [], nat) is True
    assert evidence.identity("n - 1 + 1 = n", nat) is False


def test_ring_on_a_truncated_subtraction_is_sent_to_omega() -> None:
    attempt = "theorem t (n : ℕ) (h : 1 ≤ n) : n - 1 + 1 = n := by\n  ring"
    message = "ring failed, ring expressions not equal\nn : ℕ\nh : 1 ≤ n\n⊢ n - 1 + 1 = n"
    text = said(advise(attempt, diag(2, 2, message, K.TACTIC_FAILED), mathlib=True))
    assert "`omega`" in text and "stops at 0" in text


# ------------------------------------------------------------- casts and sets, unfolded first


def test_ring_on_the_cast_of_a_sum_gets_push_cast_first() -> None:
    attempt = "theorem t (n : ℕ) : ((n + 1 : ℕ) : ℝ) = (n : ℝ) + 1 := by\n  ring"
    message = "ring failed, ring expressions not equal\nn : ℕ\n⊢ ↑(n + 1) = ↑n + 1"
    text = said(advise(attempt, diag(2, 2, message, K.TACTIC_FAILED), mathlib=True))
    assert "`push_cast`" in text


def test_omega_on_a_set_membership_unfolds_it_first() -> None:
    attempt = "theorem t (x : ℕ) (h : x > 2) : x ∈ {n : ℕ | n > 1} := by\n  omega"
    message = (
        "omega could not prove the goal:\na possible counterexample may satisfy the "
        "constraints\n  x ≥ 3\nwhere\n x := x"
    )
    text = said(advise(attempt, diag(2, 2, message, K.OMEGA_FAILED), mathlib=True))
    assert "`simp only [Set.mem_setOf_eq]`" in text and "`show x > 1`" in text
    assert "then `omega`" in text


def test_linarith_on_a_set_membership_unfolds_it_first() -> None:
    attempt = "theorem t (x : ℝ) (h : x > 2) : x ∈ {y : ℝ | y > 1} := by\n  linarith"
    message = "linarith failed to find a contradiction\nx : ℝ\nh : x > 2\na✝ : x ∉ {y | y > 1}\n⊢ False failed"
    text = said(advise(attempt, diag(2, 2, message, K.LINARITH_FAILED), mathlib=True))
    assert "`simp only [Set.mem_setOf_eq]`" in text and "then `linarith`" in text


# ------------------------------------------------------------- closed claims, arguments, variables


def test_decide_stuck_on_a_closed_prime_claim_gets_norm_num() -> None:
    attempt = "theorem t : Nat.Prime 97 := by\n  decide"
    message = (
        "Tactic `decide` failed for proposition\n  Nat.Prime 97\nsince its `Decidable` instance\n"
        "  Nat.decidablePrime1 97\ndid not reduce to `isTrue` or `isFalse`."
    )
    text = said(advise(attempt, diag(2, 2, message, K.DECIDE_FAILED), mathlib=True))
    assert "`norm_num`" in text and "without variables" not in text


def test_decide_out_of_depth_on_a_false_prime_claim_names_no_tactic() -> None:
    attempt = "theorem t : Nat.Prime 91 := by\n  decide"
    message = (
        "maximum recursion depth has been reached\nuse `set_option maxRecDepth <num>` to "
        "increase limit\nuse `set_option diagnostics true` to get diagnostic information"
    )
    text = said(advise(attempt, diag(2, 2, message, K.TIMEOUT), mathlib=True))
    assert "false" in text and "`norm_num`" not in text  # 91 = 7 * 13


def test_an_iff_applied_to_a_fact_gets_the_direction_the_fact_states() -> None:
    attempt = "theorem t (a b : ℕ) (h : a + 1 ≤ b) : a < b := by\n  exact Nat.lt_iff_add_one_le h"
    message = (
        "Function expected at\n  Nat.lt_iff_add_one_le\nbut this term has type\n"
        "  ?m < ?n ↔ ?m + 1 ≤ ?n\n\nNote: Expected a function because this term is being "
        "applied to the argument\n  h"
    )
    text = said(advise(attempt, diag(2, 8, message, K.FUNCTION_EXPECTED)))
    assert "`Nat.lt_iff_add_one_le.mpr h`" in text


def test_an_extra_argument_after_a_complete_fact_is_dropped() -> None:
    attempt = "theorem t (f : ℕ → ℕ) (h : ∀ x, f x > x) : f 2 > 2 := by\n  specialize h 2 3"
    message = (
        "Function expected at\n  h 2\nbut this term has type\n  f 2 > 2\n\nNote: Expected a "
        "function because this term is being applied to the argument\n  3"
    )
    text = said(advise(attempt, diag(2, 13, message, K.FUNCTION_EXPECTED), mathlib=True))
    assert "drop the extra argument `3`" in text


def test_unfolding_a_variable_of_the_statement_rewrites_with_its_hypothesis() -> None:
    attempt = "theorem t (f : ℕ → ℕ) (hf : ∀ x, f x = x + 1) : f 2 = 3 := by\n  unfold f"
    # Lean/Elab/Tactic/Unfold.lean's wording for a local variable that is not a `let`.
    message = "tactic 'unfold' failed, local variable 'f' has no definition"
    text = said(advise(attempt, diag(2, 9, message, K.TACTIC_FAILED), mathlib=True))
    assert "`simp only [hf]`" in text and "not a `def`" in text
    assert "bind" not in text  # `f` is in scope: it is not an unbound name


def test_a_lemma_applied_to_an_ungrouped_difference_gets_parentheses() -> None:
    attempt = "theorem t (x y : ℝ) : 0 ≤ (x - y) ^ 2 := by\n  exact sq_nonneg x - y"
    message = (
        "failed to synthesize\n  HSub (0 ≤ x ^ 2) ℝ (0 ≤ (x - y) ^ 2)\n\nHint: Additional "
        "diagnostic information may be available using the `set_option diagnostics true` command."
    )
    text = said(advise(attempt, diag(2, 8, message, K.FAILED_TO_SYNTHESIZE), mathlib=True))
    assert "`sq_nonneg (x - y)`" in text
    assert "explicit type" not in text


def test_gcongr_on_sides_of_different_shapes_gets_the_linear_closer() -> None:
    attempt = "theorem t (a b : ℝ) (h : a ≤ b) : a + 1 ≤ 1 + b := by\n  gcongr"
    text = said(advise(attempt, diag(2, 2, "gcongr did not make progress", K.OTHER), mathlib=True))
    assert "`linarith`" in text


# ------------------------------------------------------------- set D's kinds, on new mistakes


def test_a_wrong_argument_inside_a_term_is_replaced_by_omega_alone() -> None:
    attempt = (
        "theorem t (f : Nat → Nat) (hf : ∀ n, n ≥ 1 → f n = n) (h5 : 5 ≥ 1) : f 6 = 6 := by\n"
        "  exact hf 6 h5"
    )
    message = app_mismatch("h5", "5 ≥ 1", "6 ≥ 1", "hf 6 h5")
    text = said(advise(attempt, diag(2, 13, message, K.TYPE_MISMATCH)))
    assert "`exact hf 6 (by omega)`" in text


def test_a_position_whose_two_sides_agree_is_rfl() -> None:
    attempt = "theorem t (xs : List Nat) (h : xs ≠ []) : ∃ ys, xs ++ [] = ys := by\n  exact ⟨xs, h⟩"
    message = app_mismatch("h", "xs ≠ []", "xs ++ [] = xs ++ []", "Exists.intro xs h")
    text = said(advise(attempt, diag(2, 13, message, K.TYPE_MISMATCH)))
    assert "`exact ⟨xs, rfl⟩`" in text


def test_a_conjunction_applied_to_an_argument_gets_its_parts() -> None:
    attempt = "theorem t (y : Nat) (h : y < 4 ∧ y > 1) : y ≠ 0 := by\n  exact Nat.ne_of_gt (h y)"
    message = (
        "Function expected at\n  h\nbut this term has type\n  y < 4 ∧ y > 1\n\nNote: Expected a "
        "function because this term is being applied to the argument\n  y"
    )
    text = said(advise(attempt, diag(2, 21, message, K.FUNCTION_EXPECTED)))
    assert "`h.1`" in text and "`h.2`" in text and "not a function" in text


def test_a_false_closed_equation_is_told_its_true_value() -> None:
    attempt = "theorem t : 3 ^ 4 > 80 := by\n  have h : 3 ^ 4 = 80 + 2 := by decide\n  omega"
    message = "Tactic `decide` proved that the proposition\n  3 ^ 4 = 80 + 2\nis false"
    text = said(advise(attempt, diag(2, 33, message, K.DECIDE_FAILED)))
    assert "`3 ^ 4` is 81" in text


def test_a_step_after_the_proof_is_done_names_the_line_to_delete() -> None:
    attempt = "theorem t (p : Prop) (hp : p) : p ∨ False := by\n  exact Or.inl hp\n  exact hp"
    text = said(advise(attempt, diag(3, 2, "No goals to be solved", K.NO_GOALS)))
    assert "Delete line 3" in text and "`exact Or.inl hp` on line 2" in text


# ------------------------------------------------------------- lemmas by their statement


def test_the_lemma_table_matches_statements_not_spellings() -> None:
    from tutor.coach import lemmas

    assert lemmas.instances("y ≤ |y|", [], True) == ["le_abs_self y"]
    assert lemmas.instances("0 ≤ (u + v) ^ 2", [], True) == ["sq_nonneg (u + v)"]
    assert lemmas.instances("2 ≤ q", [("hq", "Nat.Prime q")], True) == ["Nat.Prime.two_le hq"]
    assert lemmas.instances("2 ≤ q", [], True) == []  # no fact for the premise: nothing named
    assert lemmas.instances("y ≤ |y|", [], False) == []  # a Mathlib lemma in a core course
    assert lemmas.rewrites_for("max c d = c", [("h", "d ≤ c")], True, "max_eq_right") == [
        "max_eq_left h"
    ]


def test_an_open_goal_that_is_a_library_lemma_gets_it() -> None:
    attempt = "theorem t (c d : ℕ) : c ∣ c * d := by\n  norm_num"
    message = "unsolved goals\nc d : ℕ\n⊢ c ∣ c * d"
    text = said(advise(attempt, diag(1, 33, message, K.UNSOLVED_GOALS, end=(2, 10)), mathlib=True))
    assert "`exact dvd_mul_right c d`" in text
    assert "nlinarith" not in text  # divisibility is no inequality: no square helps


def test_the_other_side_of_a_lemma_family_fits_the_needed_statement() -> None:
    attempt = "theorem t (c d : ℕ) : d ∣ c * d := by\n  exact dvd_mul_right d c"
    message = mismatch("dvd_mul_right d c", "d ∣ d * c", "d ∣ c * d")
    text = said(advise(attempt, diag(2, 8, message, K.TYPE_MISMATCH), mathlib=True))
    assert "`exact dvd_mul_left d c`" in text


def test_a_rewrite_with_the_wrong_side_of_a_family_gets_the_other() -> None:
    attempt = "theorem t (c d : ℝ) (h : d ≤ c) : max c d = c := by\n  rw [max_eq_right h]"
    message = rewrite_failed("max d c", "max c d = c", "c d : ℝ\nh : d ≤ c")
    text = said(advise(attempt, diag(2, 6, message, K.REWRITE_FAILED), mathlib=True))
    assert "`rw [max_eq_left h]`" in text


def test_linarith_on_a_fact_only_a_lemma_about_a_hypothesis_gives() -> None:
    attempt = "theorem t (q : ℕ) (hq : Nat.Prime q) : 2 ≤ q := by\n  linarith"
    message = (
        "linarith failed to find a contradiction\nq : ℕ\nhq : Nat.Prime q\na✝ : q < 2\n⊢ False\n"
        "failed"
    )
    text = said(advise(attempt, diag(2, 2, message, K.LINARITH_FAILED), mathlib=True))
    assert "`exact Nat.Prime.two_le hq`" in text


def test_a_set_builder_hypothesis_linarith_needs_is_unfolded_in_place() -> None:
    attempt = "theorem t (z : ℝ) (hz : z ∈ {w : ℝ | w ≥ 5}) : z > 3 := by\n  linarith"
    message = (
        "linarith failed to find a contradiction\nz : ℝ\nhz : z ∈ {w | w ≥ 5}\na✝ : z ≤ 3\n"
        "⊢ False\nfailed"
    )
    text = said(advise(attempt, diag(2, 2, message, K.LINARITH_FAILED), mathlib=True))
    assert "`simp only [Set.mem_setOf_eq] at hz`" in text


def test_a_membership_argument_is_carried_across_a_subset() -> None:
    attempt = (
        "theorem t (A B : Set ℕ) (hAB : A ⊆ B) (n : ℕ) (hn : n ∈ A) : ∃ m, m ∈ B := by\n"
        "  exact ⟨n, hn⟩"
    )
    message = app_mismatch("hn", "n ∈ A", "n ∈ B", "Exists.intro n hn")
    text = said(advise(attempt, diag(2, 12, message, K.TYPE_MISMATCH), mathlib=True))
    assert "`exact ⟨n, hAB hn⟩`" in text


def test_a_bare_other_hypothesis_is_never_put_in_an_argument_s_place() -> None:
    # `⟨hq, hp⟩` for `p ∧ q`: the fix is the order, never `⟨hp, hp⟩`.
    attempt = "theorem t (p q : Prop) (hp : p) (hq : q) : p ∧ q := by\n  exact ⟨hq, hp⟩"
    message = app_mismatch("hq", "q", "p", "And.intro hq")
    text = said(advise(attempt, diag(2, 9, message, K.TYPE_MISMATCH)))
    assert "⟨hp, hp⟩" not in text


# ------------------------------------------------------------- premises, Bool, ∀ bodies, order


def test_a_term_one_premise_short_extends_the_intro_before_it() -> None:
    attempt = "theorem t (a b c : Prop) : a → b → c → a := by\n  intro ha hb\n  exact ha"
    message = mismatch("ha", "a", "c → a")
    text = said(advise(attempt, diag(3, 8, message, K.TYPE_MISMATCH)))
    assert "`intro ha hb hc` on line 2" in text


def test_a_bool_test_against_a_prop_fact_gets_simp_with_it() -> None:
    attempt = "theorem t (k : Nat) (hk : k + 1 = 4) : (k + 1 == 4) = true := by\n  exact hk"
    message = mismatch("hk", "k + 1 = 4", "(k + 1 == 4) = true")
    text = said(advise(attempt, diag(2, 8, message, K.TYPE_MISMATCH)))
    assert "`simp [hk]`" in text and "Bool" in text and "omega" not in text


def test_a_forall_with_another_body_is_introduced_and_instantiated() -> None:
    attempt = "theorem t (g : Nat → Nat) (hg : ∀ k, g k ≥ 2) : ∀ k, g k > 1 := by\n  exact hg"
    message = mismatch("hg", "∀ (k : Nat), g k ≥ 2", "∀ (k : Nat), g k > 1")
    text = said(advise(attempt, diag(2, 8, message, K.TYPE_MISMATCH)))
    assert "`intro k`" in text and "`have := hg k`" in text and "`omega`" in text


def test_injectivity_facts_applied_in_the_composition_s_wrong_order() -> None:
    attempt = (
        "theorem t (u v : ℕ → ℕ) (hu : Function.Injective u) (hv : Function.Injective v) :\n"
        "    Function.Injective (v ∘ u) := by\n"
        "  intro x y hxy\n  apply hv\n  apply hu\n  exact hxy"
    )
    message = mismatch("hxy", "(v ∘ u) x = (v ∘ u) y", "u (v x) = u (v y)")
    text = said(advise(attempt, diag(6, 8, message, K.TYPE_MISMATCH), mathlib=True))
    assert "`exact hu (hv hxy)`" in text


def test_an_open_implication_the_facts_build_once_assumed() -> None:
    attempt = "theorem t (a b : Prop) (hb : b) : (a ↔ a ∧ b) := by\n  constructor\n  · intro h\n    exact h.1"
    message = "unsolved goals\ncase mpr\na b : Prop\nhb : b\n⊢ a → a ∧ b"
    text = said(advise(attempt, diag(1, 48, message, K.UNSOLVED_GOALS, end=(4, 13))))
    assert "`exact fun h => ⟨h, hb⟩`" in text


def test_decide_with_a_bounded_free_variable_gets_revert() -> None:
    attempt = "theorem t (m : Nat) (hm : m ≤ 4) : m * m ≤ 16 := by\n  decide"
    message = (
        "Expected type must not contain free variables\n  m * m ≤ 16\n\nHint: Use the `+revert` "
        "option to automatically clean up and revert free variables"
    )
    text = said(advise(attempt, diag(2, 2, message, K.DECIDE_FAILED)))
    assert "`decide +revert`" in text and "free variable `m`" in text


def test_decide_with_an_unbounded_free_variable_names_it_and_no_fix() -> None:
    attempt = "theorem t (m : Nat) (h : m > 0) : m * m > 0 := by\n  decide"
    message = "Expected type must not contain free variables\n  m * m > 0\n"
    text = said(advise(attempt, diag(2, 2, message, K.DECIDE_FAILED)))
    assert "free variable `m`" in text
    assert "+revert" not in text  # `m > 0` bounds nothing above: infinitely many values


def test_every_lemma_the_table_can_name_is_in_the_course_s_library_index() -> None:
    from tutor.coach import lemmas
    from tutor.coach.names import CORE_LEMMAS

    for lemma in lemmas.LEMMAS:
        assert evidence.in_library(lemma.name, lemma.mathlib), lemma.name
        if not lemma.mathlib:
            assert lemma.name in CORE_LEMMAS, lemma.name


def test_a_positive_product_on_nat_in_core_gets_the_core_lemma() -> None:
    attempt = "theorem t (a b : Nat) (ha : 0 < a) (hb : b > 0) : 0 < a * b := by\n  omega"
    message = (
        "omega could not prove the goal:\na possible counterexample may satisfy the "
        "constraints\n  c ≤ 0\n  b ≥ 1\n  a ≥ 1\nwhere\n a := a\n b := b\n c := a * b"
    )
    text = said(advise(attempt, diag(2, 2, message, K.OMEGA_FAILED)))
    assert "`exact Nat.mul_pos ha hb`" in text  # `b > 0` is `0 < b`, read either way


def test_ring_on_a_square_root_gets_the_lemma_with_its_nonnegativity_fact() -> None:
    attempt = "theorem t (x : ℝ) (hx : 0 ≤ x) : Real.sqrt x ^ 2 = x := by\n  ring"
    message = "ring failed, ring expressions not equal\nx : ℝ\nhx : 0 ≤ x\n⊢ √x ^ 2 = x"
    text = said(advise(attempt, diag(2, 2, message, K.TACTIC_FAILED), mathlib=True))
    assert "`exact Real.sq_sqrt hx`" in text


def test_by_contra_names_its_hypothesis_and_the_whole_step_is_built() -> None:
    attempt = (
        "theorem t (p q : Prop) (h : ¬q → ¬p) (hp : p) : q := by\n  by_contra hq\n  exact hq (h hp)"
    )
    message = app_mismatch("hp", "p", "¬q", "h hp")
    text = said(advise(attempt, diag(3, 14, message, K.TYPE_MISMATCH), mathlib=True))
    assert "`exact h hq hp`" in text
    assert "hp (h hq)" not in text  # never swap a function into an argument's place


def test_rfl_on_a_bool_identity_in_a_variable_gets_cases() -> None:
    attempt = "theorem t (c : Bool) : (false || c) = c := by\n  rfl"
    message = (
        "The rfl tactic failed. Possible reasons:\n- The goal is not a reflexive relation "
        "(neither `=` nor a relation with a @[refl] lemma).\n- The arguments of the relation are "
        "not equal.\nTry using the reflexivity lemma for your relation explicitly, e.g. `exact "
        "Eq.refl _` or\n`exact HEq.rfl` etc.\n\nc : Bool\n⊢ (false || c) = c"
    )
    text = said(advise(attempt, diag(2, 2, message, K.RFL_FAILED)))
    assert "`cases c <;> rfl`" in text


def test_rfl_on_a_false_bool_equation_names_no_case_split() -> None:
    attempt = "theorem t (c : Bool) : (c && false) = c := by\n  rfl"
    message = (
        "The rfl tactic failed. Possible reasons:\n- The goal is not a reflexive relation "
        "(neither `=` nor a relation with a @[refl] lemma).\n- The arguments of the relation are "
        "not equal.\nTry using the reflexivity lemma for your relation explicitly, e.g. `exact "
        "Eq.refl _` or\n`exact HEq.rfl` etc.\n\nc : Bool\n⊢ (c && false) = c"
    )
    text = said(advise(attempt, diag(2, 2, message, K.RFL_FAILED)))
    assert "cases c" not in text and "`c = true`" in text  # false there: nothing proves it


def test_missing_match_cases_are_added_in_the_student_s_notation() -> None:
    attempt = "def g : List Nat → List Nat → Nat\n  | [], [] => 0\n  | x :: _, y :: _ => x + y"
    # The shape of lean4's own test output (two columns, one uncovered row each).
    message = "Missing cases:\n(List.cons _ _), []\n[], (List.cons _ _)"
    feedback = advise(attempt, diag(1, 4, message, K.CASES_ERROR))
    text = said(feedback)
    assert "`| x :: xs, [] => ...`" in text and "`| [], x :: xs => ...`" in text
    assert feedback.suggestions[0].line == 3
