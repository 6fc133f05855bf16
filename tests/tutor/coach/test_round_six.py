"""Issue 30, round six: advice that holds whatever the student's spelling (tested wholesale by
test_metamorphic.py), a witness chosen by `refine ⟨w, ?_⟩` judged like one chosen by `use`,
advice that names the student's own variables, and the general kinds set H's blind measure
found unanswered (a family member checked against the goal, `apply` of a conjunction, a ∀ at
a compound value, a false goal shown false at a point, an unlisted equation for `simp`, a
rewrite's premise about another term, reordering inside an application, the inductive step).

Every test is a mistake written for this file (none is a case of a bench set), with the
message in the wording Lean 4 prints, what the advice must say and what it must not.
"""

from __future__ import annotations

from tests.tutor.coach.helpers import app_mismatch, mismatch, rewrite_failed
from tests.tutor.coach.test_general_rules import advise, linarith_failed
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


# ------------------------------------------------------------- set H's kinds, own examples


def test_a_family_member_that_would_conclude_less_than_the_goal_is_not_offered() -> None:
    """`add_pos` with a `≤` fact: `add_nonneg` takes it but concludes `0 ≤ …`, not the goal's
    `0 < …`; the lemma whose statement is the goal from these facts is named instead."""
    attempt = (
        "theorem t (a b : ℝ) (ha : 0 ≤ a) (hb : 0 < b) : 0 < a + b := by\n  exact add_pos ha hb"
    )
    message = app_mismatch("ha", "0 ≤ a", "0 < a", "add_pos ha hb")
    text = coach(attempt, lean(2, 16, message), mathlib=True)
    assert "exact add_nonneg" not in text and "`add_nonneg ha hb`" not in text
    assert "exact add_pos_of_nonneg_of_pos ha hb" in text


def test_apply_of_a_conjunction_whose_part_is_the_goal_takes_that_part() -> None:
    attempt = "theorem t (a b : Prop) (hab : a ∧ b) : a := by\n  apply hab"
    message = (
        "Tactic `apply` failed: could not unify the type of `hab`\n  a ∧ b\nwith the goal\n  a"
        "\n\na b : Prop\nhab : a ∧ b\n⊢ a"
    )
    text = coach(attempt, lean(2, 2, message))
    assert "hab.1" in text and "hab.2" not in text


def test_a_forall_used_at_the_wrong_compound_value_gets_the_value_the_fact_is_about() -> None:
    attempt = (
        "theorem t (P : Nat → Prop) (hP : ∀ n, n ≠ 0 → P n) (x : Nat) (hx : x + 2 ≠ 0) :"
        " P (x + 2) := by\n  exact hP x hx"
    )
    message = app_mismatch("hx", "x + 2 ≠ 0", "x ≠ 0", "hP x hx")
    text = coach(attempt, lean(2, 13, message))
    assert "hP (x + 2) hx" in text


def test_an_unknown_name_taken_apart_is_the_one_fact_that_can_be() -> None:
    attempt = (
        "theorem t (P : Nat → Prop) (hex : ∃ n, P n) : ∃ m, P m := by\n"
        "  rcases h with ⟨n, hn⟩\n  exact ⟨n, hn⟩"
    )
    text = coach(attempt, lean(2, 9, "Unknown identifier `h`"))
    assert "rcases hex with ⟨n, hn⟩" in text


def test_linarith_on_a_goal_false_at_its_boundary_says_so_with_the_point() -> None:
    attempt = "theorem t (y : ℝ) (h : 3 * y ≤ 6) : y < 2 := by\n  linarith"
    message = linarith_failed("y : ℝ\nh : 3 * y ≤ 6\na✝ : y ≥ 2")
    text = coach(attempt, lean(2, 2, message), mathlib=True)
    assert "false as stated" in text and "`y = 2`" in text
    assert "`y ≤ 2` does follow" in text
    assert "nlinarith" not in text


def test_linarith_on_a_true_goal_is_never_called_false() -> None:
    """`y < 2` from `y * y < 4` is true, and no point tried may say otherwise: a fact the
    search cannot read linearly stops it."""
    attempt = "theorem t (y : ℝ) (h : y * y < 4) : y < 2 := by\n  linarith"
    message = linarith_failed("y : ℝ\nh : y * y < 4\na✝ : y ≥ 2")
    text = coach(attempt, lean(2, 2, message), mathlib=True)
    assert "false as stated" not in text


def test_a_goal_stuck_after_simp_that_an_unlisted_equation_closes_names_it() -> None:
    attempt = (
        "theorem t (f : ℕ → ℕ) (hf : ∀ x, f x = 2 * x) (n : ℕ) : f (n + 1) = 2 * (n + 1) := by\n"
        "  simp"
    )
    message = (
        "unsolved goals\nf : ℕ → ℕ\nhf : ∀ (x : ℕ), f x = 2 * x\nn : ℕ\n⊢ f (n + 1) = 2 * (n + 1)"
    )
    text = coach(attempt, lean(1, 82, message), mathlib=True)
    assert "exact hf (n + 1)" in text  # the ∀ at the goal's value states the goal


def test_a_goal_that_an_unlisted_equation_rewrites_to_both_sides_equal_names_simp_with_it() -> None:
    attempt = (
        "theorem t (f g : ℕ → ℕ) (hf : ∀ x, f x = x + 3) (n : ℕ) : f (g n) + 1 = g n + 4 := by\n"
        "  simp"
    )
    message = (
        "unsolved goals\nf g : ℕ → ℕ\nhf : ∀ (x : ℕ), f x = x + 3\nn : ℕ\n⊢ f (g n) + 1 = g n + 4"
    )
    text = coach(attempt, lean(1, 88, message), mathlib=True)
    assert "simp [hf]" in text


def test_a_rewrite_whose_premise_is_about_another_term_of_the_goal_names_that_premise() -> None:
    attempt = "theorem t (y : ℝ) (hy : 0 ≤ y) : |y + 1| = y + 1 := by\n  rw [abs_of_nonneg hy]"
    message = rewrite_failed("|y|", "|y + 1| = y + 1", "y : ℝ\nhy : 0 ≤ y")
    text = coach(attempt, lean(2, 6, message), mathlib=True)
    assert "rw [abs_of_nonneg (by linarith)]" in text and "`0 ≤ y + 1`" in text


def test_simp_without_progress_on_sides_equal_up_to_order_inside_names_the_swap() -> None:
    attempt = "theorem t (g : ℝ → ℝ) (x y : ℝ) : g (x * y) = g (y * x) := by\n  simp"
    text = coach(attempt, lean(2, 2, "simp made no progress"), mathlib=True)
    assert "rw [mul_comm x y]" in text


def test_a_lean3_comma_between_tactics_is_removed() -> None:
    attempt = "theorem t (p q : Prop) (hp : p) (hq : q) : p ∧ q := by\n  constructor,\n  exact hp"
    text = coach(attempt, lean(2, 13, "unexpected token ','; expected command"))
    assert "remove the comma" in text and "Lean 3" in text


def test_a_sorry_for_the_inductive_step_points_at_the_unused_hypothesis() -> None:
    attempt = (
        "theorem t (n : Nat) : 0 + n = n := by\n  induction n with\n  | zero => rfl\n"
        "  | succ k ih => sorry"
    )
    text = coach(attempt, lean(1, 8, "declaration uses `sorry`", severity="warning"))
    assert "simp [ih]" in text and "induction hypothesis `ih`" in text


def test_a_sorry_after_intro_on_a_subset_stands_for_the_membership() -> None:
    attempt = "theorem t (a b : Set ℕ) : a ⊆ a ∪ b := by\n  intro y hy\n  sorry"
    text = coach(attempt, lean(1, 8, "declaration uses `sorry`", severity="warning"), mathlib=True)
    assert "`y ∈ a ∪ b`" in text and "Or.inl hy" in text


# ------------------------------------------------------------- set G's kinds, own examples


def test_omega_on_a_divisibility_by_a_variable_gets_the_lemma_that_states_it() -> None:
    attempt = "theorem t (u v : Nat) : v ∣ u * v := by\n  omega"
    message = (
        "omega could not prove the goal:\nNo usable constraints found. You may need to unfold "
        "definitions so `omega` can see linear arithmetic facts about `Nat` and `Int`, which may "
        "also involve multiplication, division, and modular remainder by constants."
    )
    text = coach(attempt, lean(2, 2, message))
    assert "exact Nat.dvd_mul_left v u" in text


def test_one_name_too_many_for_intro_is_to_be_removed() -> None:
    attempt = "theorem t : ∀ k : Nat, k < k + 1 := by\n  intro k hk\n  omega"
    message = (
        "Tactic `introN` failed: There are no additional binders or `let` bindings in the goal "
        "to introduce\n\nk : Nat\n⊢ k < k + 1"
    )
    text = coach(attempt, lean(2, 2, message))
    assert "`hk` is one name too many: remove it" in text


def test_constructor_before_intro_uses_the_name_the_student_gives_the_premise_later() -> None:
    attempt = (
        "theorem t (a b : Prop) (hb : b) : a → a ∧ b := by\n  constructor\n  · intro ha\n"
        "    exact ha\n  · exact hb"
    )
    message = (
        "Tactic `constructor` failed: target is not an inductive datatype\n\na b : Prop\n"
        "hb : b\n⊢ a → a ∧ b"
    )
    text = coach(attempt, lean(2, 2, message))
    assert "`intro ha` first on line 2, before `constructor`" in text


def test_a_premise_name_used_after_an_intro_that_stopped_short_widens_that_intro() -> None:
    attempt = "theorem t : ∀ m : Nat, m > 2 → m ≠ 0 := by\n  intro m\n  exact Nat.ne_of_gt (by omega : 0 < m) hm"
    text = coach(attempt, lean(3, 40, "Unknown identifier `hm`"))
    assert "`intro m hm` on line 2" in text


def test_an_invented_core_lemma_name_gets_the_core_lemma_of_that_statement() -> None:
    attempt = "theorem t (k : Nat) : 2 * k = k + k := by\n  exact Nat.double_is_sum k"
    text = coach(attempt, lean(2, 8, "Unknown constant `Nat.double_is_sum`"))
    assert "exact Nat.two_mul k" in text


def test_a_hypothesis_is_never_rewritten_into_the_middle_of_a_product() -> None:
    """`n * n % 3` is `(n * n) % 3`: `h : n % 3 = 1` does not occur in it, so no `simp [h]`."""
    attempt = "theorem t (n : Nat) (h : n % 3 = 1) : n * n % 3 = 1 := by\n  decide"
    message = (
        "Expected type must not contain free variables\n  n * n % 3 = 1\n\nHint: Use the "
        "`+revert` option to automatically clean up and revert free variables"
    )
    text = coach(attempt, lean(2, 2, message))
    assert "simp [h]" not in text and "rw [h]" not in text


def test_a_strict_fact_where_the_weak_one_is_taken_is_weakened_in_place() -> None:
    attempt = (
        "theorem t (g : ℝ → ℝ) (hg : ∀ x y, x ≤ y → g x ≤ g y) (u v : ℝ) (h : u < v) :"
        " g u ≤ g v := by\n  exact hg u v h"
    )
    message = app_mismatch("h", "u < v", "u ≤ v", "hg u v h")
    text = coach(attempt, lean(2, 14, message), mathlib=True)
    assert "exact hg u v h.le" in text and "linarith` on line" not in text


def test_a_strict_goal_false_where_its_sides_are_equal_says_so() -> None:
    attempt = "theorem t (p q : ℝ) (h1 : p ≤ q) (h2 : q ≤ p + 2) : p < q := by\n  linarith"
    message = linarith_failed("p q : ℝ\nh1 : p ≤ q\nh2 : q ≤ p + 2\na✝ : q ≤ p")
    text = coach(attempt, lean(2, 2, message), mathlib=True)
    assert "Any point with `p = q`" in text and "`p ≤ q` does follow" in text


def test_a_witness_that_fails_for_some_value_of_a_free_variable_is_solved_for() -> None:
    attempt = "theorem t (x : ℝ) : ∃ y : ℝ, 3 * y = x := by\n  use x * 3"
    message = "unsolved goals\ncase h\nx : ℝ\n⊢ 3 * (x * 3) = x"
    text = coach(attempt, lean(1, 40, message), mathlib=True)
    assert "use x / 3" in text


def test_rewrites_respect_lean_precedence() -> None:
    from tutor.coach.rewriting import rewrites

    assert rewrites([("h", "n % 2 = 0")], "n * n % 2 = 0") == []
    assert [r.target for r in rewrites([("h", "n % 2 = 0")], "n % 2 * 3 = 0")] == ["0 * 3 = 0"]
    assert [r.target for r in rewrites([("h", "x = 2")], "f x = 4")] == ["f 2 = 4"]
    assert rewrites([("h", "b + d = c")], "a + b + d = e") == []


def test_a_weak_argument_where_a_strict_one_is_taken_is_strengthened_with_the_inequation() -> None:
    attempt = (
        "theorem t (u w : ℝ) (hu : 0 < u) (hw : 0 ≤ w) (hw0 : w ≠ 0) : 0 < u * w := by\n"
        "  exact mul_pos hu hw"
    )
    message = app_mismatch("hw", "0 ≤ w", "0 < w", "mul_pos hu hw")
    text = coach(attempt, lean(2, 19, message), mathlib=True)
    assert "(lt_of_le_of_ne hw (Ne.symm hw0))" in text
    assert "…" not in text.split("`")[1]  # the step is shown whole, never cut


def test_a_binder_without_a_type_is_given_one() -> None:
    attempt = (
        "theorem t : True := by\n  have h : ∀ x, x + 0 = x := by\n    intro x\n    rfl\n  trivial"
    )
    text = coach(attempt, lean(2, 14, "Failed to infer type of binder 'x'"))
    assert "give `x` a type" in text and "`(x : ℕ)`" in text


def test_an_implicit_argument_nothing_fixes_is_named() -> None:
    attempt = "theorem t : True := by\n  have h := List.length_nil\n  trivial"
    message = "don't know how to synthesize implicit argument 'α'\n  @List.length_nil ?m.3"
    text = coach(attempt, lean(2, 12, message))
    assert "implicit argument `α`" in text and "(α := ...)" in text


def test_a_statement_its_first_step_shows_false_is_pointed_at() -> None:
    attempt = "theorem t : 17 % 5 = 3 := by\n  decide"
    message = "Tactic `decide` proved that the proposition\n  17 % 5 = 3\nis false"
    feedback = advise(attempt, lean(2, 2, message))
    assert [s.line for s in feedback.suggestions][:2] == [2, 1]
    assert "fix the statement on line 1" in feedback.suggestions[1].text


def test_a_false_have_is_not_blamed_on_the_statement() -> None:
    attempt = "theorem t (n : Nat) : n + 0 = n := by\n  have h : 17 % 5 = 3 := by decide\n  simp"
    message = "Tactic `decide` proved that the proposition\n  17 % 5 = 3\nis false"
    feedback = advise(attempt, lean(2, 28, message))
    assert all(s.line != 1 for s in feedback.suggestions)


# ------------------------------------------------------------ sets I and J's kinds, own examples


def unsolved(context: str, case: str = "") -> str:
    tag = f"case {case}\n" if case else ""
    return f"unsolved goals\n{tag}{context}"


def test_the_goal_left_after_constructor_is_called_the_second_goal() -> None:
    attempt = "theorem t (k : Nat) (h : 3 ≤ k) : 0 < k ∧ 1 < k := by\n  constructor\n  · omega"
    text = coach(attempt, lean(1, 46, unsolved("k : Nat\nh : 3 ≤ k\n⊢ 1 < k", "right")))
    assert "the second goal (case `right`)" in text


def test_of_two_implications_the_one_whose_premise_is_in_scope_is_used() -> None:
    attempt = (
        "theorem t (a b c : Prop) (h : a ∨ b) (hac : a → c) (hbc : b → c) : c := by\n"
        "  rcases h with ha | hb\n  exact hac ha"
    )
    context = "a b c : Prop\nhac : a → c\nhbc : b → c\nhb : b\n⊢ c"
    text = coach(attempt, lean(1, 74, unsolved(context, "inr")))
    assert "exact hbc hb" in text and "apply hac" not in text


def test_linarith_is_given_the_instance_of_a_forall_hypothesis() -> None:
    attempt = "theorem t (g : ℝ → ℝ) (hg : ∀ y, g y ≤ y + 1) : g 4 ≤ 5 := by\n  linarith"
    message = linarith_failed("g : ℝ → ℝ\nhg : ∀ (y : ℝ), g y ≤ y + 1\na✝ : g 4 > 5")
    text = coach(attempt, lean(2, 2, message), mathlib=True)
    assert "linarith [hg 4]" in text


def test_linarith_is_given_an_implication_applied_to_its_premise() -> None:
    attempt = "theorem t (u v : ℝ) (h : 1 ≤ u → u ≤ v) (hu : 1 ≤ u) : u ≤ v + 2 := by\n  linarith"
    message = linarith_failed("u v : ℝ\nh : 1 ≤ u → u ≤ v\nhu : 1 ≤ u\na✝ : u > v + 2")
    text = coach(attempt, lean(2, 2, message), mathlib=True)
    assert "linarith [h hu]" in text


def test_a_cast_of_a_hypothesis_is_exact_mod_cast() -> None:
    attempt = "theorem t (m : ℕ) (hm : 2 ≤ m) : (2 : ℝ) ≤ m := by\n  linarith"
    message = linarith_failed("m : ℕ\nhm : 2 ≤ m\na✝ : ↑m < 2")
    text = coach(attempt, lean(2, 2, message), mathlib=True)
    assert "exact_mod_cast hm" in text


def test_a_strict_fact_where_a_nonzero_one_is_taken_is_projected() -> None:
    attempt = "theorem t (y : ℝ) (hy : 0 < y) : y / y = 1 := by\n  exact div_self hy"
    message = app_mismatch("hy", "0 < y", "y ≠ 0", "div_self hy")
    text = coach(attempt, lean(2, 17, message), mathlib=True)
    assert "exact div_self hy.ne'" in text


def test_a_needed_fact_a_library_lemma_states_from_the_facts_is_named() -> None:
    attempt = "theorem t (z : ℝ) (hz : 0 < z) : 0 < Real.sqrt z := by\n  exact Real.sqrt_nonneg z"
    message = mismatch("Real.sqrt_nonneg z", "0 ≤ √z", "0 < √z")
    text = coach(attempt, lean(2, 8, message), mathlib=True)
    assert "exact Real.sqrt_pos.mpr hz" in text


def test_an_even_power_of_a_nonzero_number_is_positivity() -> None:
    attempt = "theorem t (w : ℝ) (hw : w ≠ 0) : 0 < w ^ 2 := by\n  exact sq_nonneg w"
    message = mismatch("sq_nonneg w", "0 ≤ w ^ 2", "0 < w ^ 2")
    text = coach(attempt, lean(2, 8, message), mathlib=True)
    assert "`positivity`" in text and "`hw`" in text


def test_a_rewrite_at_a_hypothesis_meant_for_the_goal_drops_at() -> None:
    attempt = "theorem t (k : ℕ) (h : k % 2 = 1) : Odd k := by\n  rw [Nat.odd_iff] at h\n  exact h"
    message = rewrite_failed("Odd ?n", "k % 2 = 1", "k : ℕ\nh : k % 2 = 1").replace(
        "⊢ k % 2 = 1", "⊢ Odd k"
    )
    text = coach(attempt, lean(2, 6, message), mathlib=True)
    assert "rw [Nat.odd_iff]`" in text and "without `at h`" in text


def test_a_rewrite_through_a_composition_unfolds_it_first() -> None:
    attempt = (
        "theorem t (f g : ℕ → ℕ) (hf : ∀ x, f x = 3 * x) : (f ∘ g) 2 = 3 * g 2 := by\n  rw [hf]"
    )
    message = rewrite_failed(
        "f ?x", "(f ∘ g) 2 = 3 * g 2", "f g : ℕ → ℕ\nhf : ∀ (x : ℕ), f x = 3 * x"
    )
    text = coach(attempt, lean(2, 6, message), mathlib=True)
    assert "rw [Function.comp_apply, hf]" in text


def test_a_field_pattern_hidden_inside_a_compound_is_simp_with_the_hypothesis() -> None:
    attempt = (
        "theorem t (as bs : List Nat) (h : bs.length = 2) : (as ++ bs).length = as.length + 2 "
        ":= by\n  rw [h]"
    )
    message = rewrite_failed(
        "bs.length", "(as ++ bs).length = as.length + 2", "as bs : List Nat\nh : bs.length = 2"
    )
    text = coach(attempt, lean(2, 6, message))
    assert "simp [h]" in text


def test_an_unknown_argument_name_is_the_fact_the_function_takes() -> None:
    attempt = "theorem t (a b : Prop) (ha : a) (hab : a → b) : b := by\n  exact hab h"
    text = coach(attempt, lean(2, 12, "Unknown identifier `h`"))
    assert "`hab ha`" in text


def test_a_lemma_name_with_a_made_up_ending_is_the_library_lemma() -> None:
    attempt = (
        "theorem t (r : ℝ) : 0 ≤ r ^ 2 + 1 := by\n  exact add_nonneg (sq_nonneg_real r) zero_le_one"
    )
    text = coach(attempt, lean(2, 20, "Unknown identifier `sq_nonneg_real`"), mathlib=True)
    assert "(sq_nonneg r)" in text


def test_apply_of_the_wrong_hypothesis_names_the_one_that_is_the_goal() -> None:
    attempt = "theorem t (a b : Nat) (h1 : b ≤ a) (h2 : a ≤ b + 3) : b ≤ a := by\n  apply h2"
    message = (
        "Tactic `apply` failed: could not unify the type of `h2`\n  a ≤ b + 3\nwith the goal\n"
        "  b ≤ a\n\na b : Nat\nh1 : b ≤ a\nh2 : a ≤ b + 3\n⊢ b ≤ a"
    )
    text = coach(attempt, lean(2, 2, message))
    assert "apply h1" in text


def test_apply_on_false_uses_the_negation_in_scope() -> None:
    attempt = "theorem t (a b : Prop) (hab : a → b) (hnb : ¬b) : ¬a := by\n  intro ha\n  apply hab"
    message = (
        "Tactic `apply` failed: could not unify the conclusion of `hab`\n  b\nwith the goal\n"
        "  False\n\nNote: The full type of `hab` is\n  a → b\n\na b : Prop\nhab : a → b\n"
        "hnb : ¬b\nha : a\n⊢ False"
    )
    text = coach(attempt, lean(3, 2, message))
    assert "hnb" in text and "hab ha" in text


def test_intro_on_an_exists_past_a_bound_gives_the_witness() -> None:
    attempt = "theorem t (k : Nat) : ∃ j, k + 3 < j := by\n  intro j"
    message = (
        "Tactic `introN` failed: There are no additional binders or `let` bindings in the goal "
        "to introduce\n\nk : Nat\n⊢ ∃ j, k + 3 < j"
    )
    text = coach(attempt, lean(2, 8, message))
    assert "exists k + 4" in text


def test_parity_of_an_odd_fact_is_nat_odd_iff_only_for_natural_numbers() -> None:
    attempt = "theorem t (m : ℕ) (hm : Odd m) : m % 2 = 1 := by\n  exact hm"
    text = coach(attempt, lean(2, 8, mismatch("hm", "Odd m", "m % 2 = 1")), mathlib=True)
    assert "Nat.odd_iff.mp hm" in text
    integer = "theorem t (m : ℤ) (hm : Odd m) : m % 2 = 1 := by\n  exact hm"
    text = coach(integer, lean(2, 8, mismatch("hm", "Odd m", "m % 2 = 1")), mathlib=True)
    assert "Nat.odd_iff" not in text


def test_decide_on_a_false_parity_claim_says_which_it_is() -> None:
    attempt = "theorem t : Even (5 + 8) := by\n  decide"
    message = "Tactic `decide` proved that the proposition\n  Even (5 + 8)\nis false"
    text = coach(attempt, lean(2, 2, message), mathlib=True)
    assert "13, which is odd, not even" in text


def test_rfl_on_a_false_list_claim_computes_it() -> None:
    attempt = "theorem t : [3, 4, 5].reverse = [3, 4, 5] := by\n  rfl"
    message = (
        "Tactic `rfl` failed: The left-hand side\n  [3, 4, 5].reverse\nis not definitionally "
        "equal to the right-hand side\n  [3, 4, 5]\n\n⊢ [3, 4, 5].reverse = [3, 4, 5]"
    )
    text = coach(attempt, lean(2, 2, message))
    assert "[5, 4, 3]" in text and "is false" in text


def test_constructor_on_an_or_is_explained() -> None:
    attempt = "theorem t (a b : Prop) (hb : b) : a ∨ b := by\n  constructor\n  exact hb"
    text = coach(attempt, lean(3, 8, mismatch("hb", "b", "a")))
    assert "`right`" in text and "`constructor` on an ∨ always picks its first" in text


def test_an_invented_lemma_on_a_goal_omega_proves_is_omega() -> None:
    attempt = "theorem t (a b : Nat) : a + b + 1 = 1 + b + a := by\n  rw [Nat.add_swap_three]"
    text = coach(attempt, lean(2, 6, "Unknown constant `Nat.add_swap_three`"))
    assert "`omega`" in text


def test_a_forall_used_at_two_wrong_points_gets_both() -> None:
    attempt = (
        "theorem t (f g : Nat → Nat) (hf : ∀ a b, f a = f b → a = b) (x y : Nat) "
        "(h : f (g x) = f (g y)) : g x = g y := by\n  exact hf x y h"
    )
    message = app_mismatch("h", "f (g x) = f (g y)", "f x = f y", "hf x y h")
    text = coach(attempt, lean(2, 13, message))
    assert "hf (g x) (g y) h" in text


def test_ascii_angle_brackets_are_the_anonymous_constructor() -> None:
    attempt = "theorem t : ∃ k : Nat, k + 1 = 5 := by\n  exact <4, rfl>"
    text = coach(attempt, lean(2, 8, "unexpected token '<'; expected term"))
    assert "exact ⟨4, rfl⟩" in text


def test_positivity_on_a_goal_one_square_proves_is_nlinarith() -> None:
    attempt = "theorem t (s : ℝ) : 2 * s ≤ s ^ 2 + 1 := by\n  positivity"
    text = coach(attempt, lean(2, 2, "not a positivity goal"), mathlib=True)
    assert "nlinarith [sq_nonneg (s - 1)]" in text


def test_a_false_statement_is_said_first_with_its_point() -> None:
    attempt = (
        "theorem t (a b : ℝ) (ha : 0 ≤ a) (hb : 1 ≤ b) : 0 < a * b := by\n  exact mul_pos ha hb"
    )
    message = app_mismatch("ha", "0 ≤ a", "0 < a", "mul_pos ha")
    feedback = advise(attempt, lean(2, 16, message), mathlib=True)
    first = feedback.suggestions[0]
    assert first.line == 1 and "`a = 0`" in first.text and "conclusion fails" in first.text


def test_a_true_statement_is_never_called_false() -> None:
    attempt = (
        "theorem t (a b : ℝ) (ha : 0 < a) (hb : 0 ≤ b) : 0 ≤ a * b := by\n  exact mul_pos ha hb"
    )
    message = app_mismatch("hb", "0 ≤ b", "0 < b", "mul_pos ha hb")
    text = coach(attempt, lean(2, 19, message), mathlib=True)
    assert "it is false" not in text


def test_a_bounded_forall_is_built_from_an_unbounded_one() -> None:
    attempt = (
        "theorem t (n : ℕ) (g : ℕ → ℝ) (hg : ∀ j, 0 ≤ g j) : 0 ≤ ∑ j ∈ Finset.range n, g j "
        ":= by\n  apply Finset.sum_nonneg\n  exact hg"
    )
    message = mismatch("hg", "∀ (j : ℕ), 0 ≤ g j", "∀ j ∈ Finset.range n, 0 ≤ g j")
    text = coach(attempt, lean(3, 8, message), mathlib=True)
    assert "exact fun j _ => hg j" in text


def test_a_family_member_is_not_offered_when_an_argument_is_a_compound_proof() -> None:
    """`pow_nonneg (le_refl 0) 4`: `pow_pos` would need a strict proof where `le_refl 0` is
    weak; with no way to check the argument, no member is named."""
    attempt = "theorem t (w : ℝ) (hw : 0 < w) : 0 < w ^ 4 := by\n  exact pow_nonneg (le_refl 0) 4"
    message = mismatch("pow_nonneg (le_refl 0) 4", "0 ≤ w ^ 4", "0 < w ^ 4")
    text = coach(attempt, lean(2, 8, message), mathlib=True)
    assert "pow_pos (le_refl 0)" not in text


def test_a_witness_for_divisibility_is_judged_with_the_values_hypotheses_pin() -> None:
    attempt = "theorem t (k : ℤ) (h : k = 5) : 10 ∣ 4 * k := by\n  use 3\n  rw [h]\n  norm_num"
    text = coach(attempt, lean(1, 40, unsolved("k : ℤ\nh : k = 5\n⊢ False", "h")), mathlib=True)
    assert "use 2" in text


# ------------------------------------------------------------ sets K and L's kinds, own examples


def test_left_is_traced_so_a_misspelt_hypothesis_for_that_side_is_found() -> None:
    attempt = "theorem t (a b : Prop) (hb : b) : a ∨ b := by\n  right\n  exact h"
    text = coach(attempt, lean(3, 8, "Unknown identifier `h`"))
    assert "hb" in text


def test_linarith_is_given_the_halves_of_a_conjunction() -> None:
    attempt = "theorem t (u v : ℝ) (h : u ≤ v ∧ 0 ≤ u) : u ≤ v + 3 := by\n  linarith"
    message = linarith_failed("u v : ℝ\nh : u ≤ v ∧ 0 ≤ u\na✝ : u > v + 3")
    text = coach(attempt, lean(2, 2, message), mathlib=True)
    assert "linarith [h.1]" in text


def test_an_invented_divisibility_lemma_is_nat_le_of_dvd() -> None:
    attempt = "theorem t (m k : Nat) (h : m ∣ k) (hk : 0 < k) : m ≤ k := by\n  exact Nat.le_of_divisor hk h"
    text = coach(attempt, lean(2, 8, "Unknown constant `Nat.le_of_divisor`"))
    assert "exact Nat.le_of_dvd hk h" in text


def test_a_pattern_another_equation_brings_in_is_rewritten_in_order() -> None:
    attempt = "theorem t (p q : ℝ) (h1 : p = q + 1) (h2 : q = 4) : p = 5 := by\n  rw [h2]"
    message = rewrite_failed("q", "p = 5", "p q : ℝ\nh1 : p = q + 1\nh2 : q = 4")
    text = coach(attempt, lean(2, 6, message), mathlib=True)
    assert "rw [h1, h2]" in text


def test_a_name_bound_inside_an_exists_is_taken_apart_first() -> None:
    attempt = (
        "theorem t (g : ℕ → ℕ) (h : ∃ m, g m = 1) : ∃ k, g k ≤ 1 := by\n  exact ⟨m, le_of_eq hm⟩"
    )
    text = coach(attempt, lean(2, 9, "Unknown identifier `m`"), mathlib=True)
    assert "obtain ⟨m, hm⟩ := h" in text and "spelled almost the same" not in text


def test_apply_with_two_arguments_exchanged_swaps_them() -> None:
    attempt = (
        "theorem t (g : ℝ → ℝ) (hg : ∀ x y, x ≤ y → g x ≤ g y) (b : ℝ) : g b ≤ g (b + 2) := by\n"
        "  apply hg (b + 2) b"
    )
    message = (
        "Tactic `apply` failed: could not unify the conclusion of `hg (b + 2) b`\n"
        "  g (b + 2) ≤ g b\nwith the goal\n  g b ≤ g (b + 2)\n\nNote: The full type of "
        "`hg (b + 2) b` is\n  b + 2 ≤ b → g (b + 2) ≤ g b\n\ng : ℝ → ℝ\n"
        "hg : ∀ (x y : ℝ), x ≤ y → g x ≤ g y\nb : ℝ\n⊢ g b ≤ g (b + 2)"
    )
    text = coach(attempt, lean(2, 2, message), mathlib=True)
    assert "apply hg b (b + 2)" in text


def test_apply_whose_conclusion_gives_the_goal_linearly_is_linarith() -> None:
    attempt = (
        "theorem t (y : ℝ) (hy : y ^ 2 ≤ 9) (key : y ^ 2 ≤ 9 → y ≤ 3) : y < 5 := by\n  apply key"
    )
    message = (
        "Tactic `apply` failed: could not unify the conclusion of `key`\n  y ≤ 3\nwith the goal"
        "\n  y < 5\n\nNote: The full type of `key` is\n  y ^ 2 ≤ 9 → y ≤ 3\n\ny : ℝ\n"
        "hy : y ^ 2 ≤ 9\nkey : y ^ 2 ≤ 9 → y ≤ 3\n⊢ y < 5"
    )
    text = coach(attempt, lean(2, 2, message), mathlib=True)
    assert "linarith [key hy]" in text


def test_a_nonzero_fact_where_a_positive_one_is_taken_is_explained() -> None:
    attempt = "theorem t (r : ℝ) (hr : r ≠ 0) : 0 < r ^ 4 := by\n  exact pow_pos hr 4"
    message = app_mismatch("hr", "r ≠ 0", "0 < r", "pow_pos hr")
    text = coach(attempt, lean(2, 16, message), mathlib=True)
    assert "could be negative" in text and "`positivity`" in text


def test_the_other_half_of_a_lemma_applied_to_a_fact_is_the_other_projection() -> None:
    attempt = "theorem t (y : ℝ) (h : |y| < 5) : y < 5 := by\n  exact (abs_lt.mp h).1"
    message = mismatch("(abs_lt.mp h).left", "-5 < y", "y < 5")
    text = coach(attempt, lean(2, 8, message), mathlib=True)
    assert "exact (abs_lt.mp h).2" in text


# ------------------------------------------------------------ sets M and N's kinds, own examples


def test_a_rewrite_another_hypothesis_closes_is_named_not_the_reversed_rule() -> None:
    attempt = (
        "theorem t (p q r : Nat) (h1 : p = q + 2) (h2 : q = r + 2) : p = r + 4 := by\n"
        "  calc p = q + 2 := h1\n    _ = r + 2 + 2 := by rw [h1]\n    _ = r + 4 := rfl"
    )
    message = rewrite_failed(
        "p", "q + 2 = r + 2 + 2", "p q r : Nat\nh1 : p = q + 2\nh2 : q = r + 2"
    )
    text = coach(attempt, lean(3, 25, message))
    assert "rw [h2]" in text and "← h1" not in text


def test_a_decide_correction_does_not_restate_the_false_equation() -> None:
    attempt = "theorem t : 23 / 4 + 1 = 7 := by\n  have hq : 23 / 4 = 6 := by decide\n  omega"
    message = "Tactic `decide` proved that the proposition\n  23 / 4 = 6\nis false"
    text = coach(attempt, lean(2, 28, message))
    assert "`23 / 4` is 5, not 6" in text and "23 / 4 = 6" not in text


def test_a_root_lemma_in_a_core_course_is_its_nat_version() -> None:
    attempt = (
        "theorem t (a b c : Nat) (h1 : a < b) (h2 : b < c) : a < c := by\n  exact lt_trans h1 h2"
    )
    text = coach(attempt, lean(2, 8, "Unknown identifier `lt_trans`"))
    assert "`Nat.lt_trans`" in text and "Int." not in text


def test_a_plain_simp_that_needs_an_unlisted_equation_is_given_it() -> None:
    attempt = (
        "theorem t (g : Nat → Nat) (hg : ∀ x, g x = x + 1) (k : Nat) : g (g k) = k + 2 := by\n"
        "  simp\n  omega"
    )
    text = coach(attempt, lean(2, 2, "simp made no progress"))
    assert "simp [hg]" in text


def test_apply_of_a_converse_is_said_to_go_the_other_way() -> None:
    attempt = "theorem t (a b : Prop) (ha : a) (h : b → a) : b := by\n  apply h"
    message = (
        "Tactic `apply` failed: could not unify the conclusion of `h`\n  a\nwith the goal\n  b"
        "\n\nNote: The full type of `h` is\n  b → a\n\na b : Prop\nha : a\nh : b → a\n⊢ b"
    )
    text = coach(attempt, lean(2, 2, message))
    assert "goes the other way" in text and "converse" in text


def test_decide_on_the_false_side_of_an_or_switches_sides() -> None:
    attempt = "theorem t : 9 < 4 ∨ 20 % 6 = 2 := by\n  left\n  decide"
    message = "Tactic `decide` proved that the proposition\n  9 < 4\nis false"
    text = coach(attempt, lean(3, 2, message))
    assert "`right` on line 2" in text


def test_a_plain_simp_on_a_goal_omega_proves_from_the_facts_is_omega_not_simp_with_them() -> None:
    attempt = "theorem t (u v : Nat) (h : u = 3 * v) : u - v = 2 * v := by\n  simp"
    text = coach(attempt, lean(2, 2, "simp made no progress"))
    assert "omega" in text and "simp [h]" not in text
