"""The compiler coach names the fix that is right on representative mistakes, with messages in
the shapes real Lean prints (../shared/data/lean_transcripts), and names nothing it cannot back.

Each test is one mistake and what the advice must (and must not) say; none of them is a
held-out case of bench/data/coach_advice.jsonl."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.tutor.coach.helpers import K, diag
from tutor.coach import Feedback, make_coach
from tutor.coach.validation import text_problem

ROOT = Path(__file__).resolve().parents[3]


def advise(statement: str, body: str, *diagnostics) -> Feedback:
    feedback = make_coach("compiler").advise(statement, statement + "\n" + body, list(diagnostics))
    for suggestion in feedback.suggestions:
        assert text_problem(suggestion.text) is None, suggestion.text
    return feedback


def said(feedback: Feedback) -> str:
    return "\n".join(s.text for s in feedback.suggestions)


def test_facts_nested_the_wrong_way_get_the_converting_chain() -> None:
    statement = "theorem t (a b c : Prop) (hab : a → b) (hbc : b → c) (ha : a) : c := by"
    # `exact hbc ha`: `ha` proves `a`, `hbc` needs `b`, and `hab` turns one into the other.
    message = (
        "Application type mismatch: In the application\n  hbc ha\nthe argument\n  ha\nhas type\n"
        "  a : Prop\nbut is expected to have type\n  b : Prop"
    )
    feedback = advise(statement, "  exact hbc ha", diag(2, 12, message, K.TYPE_MISMATCH))
    assert feedback.suggestions[0].line == 2
    assert "`hbc (hab ha)`" in said(feedback)


def test_a_plain_mismatch_with_a_converting_hypothesis_gets_exact_of_it() -> None:
    statement = "theorem t (a b : Prop) (hab : a → b) (ha : a) : b := by"
    message = "Type mismatch\n  ha\nhas type\n  a : Prop\nbut is expected to have type\n  b : Prop"
    feedback = advise(statement, "  exact ha", diag(2, 8, message, K.TYPE_MISMATCH))
    assert "`exact hab ha`" in said(feedback)


def test_omega_counterexample_with_nat_subtraction_names_the_missing_bound() -> None:
    statement = "theorem t (m k : Nat) : m - k + k = m := by"
    message = (
        "omega could not prove the goal:\na possible counterexample may satisfy the constraints\n"
        "  k - m ≥ 1\n  m ≥ 0\n  k ≥ 0\nwhere\n m := m\n k := k"
    )
    text = said(advise(statement, "  omega", diag(2, 2, message, K.OMEGA_FAILED)))
    assert "`k ≤ m`" in text and "0" in text


def test_omega_with_the_bound_already_given_does_not_ask_for_it() -> None:
    statement = "theorem t (m k : Nat) (h : k ≤ m) (g : m < 3) : m - k + k = m + 1 := by"
    message = (
        "omega could not prove the goal:\na possible counterexample may satisfy the constraints"
    )
    text = said(advise(statement, "  omega", diag(2, 2, message, K.OMEGA_FAILED)))
    assert "`k ≤ m`" not in text


def test_on_int_subtraction_does_not_truncate_so_no_bound_is_asked() -> None:
    statement = "theorem t (m k : Int) : m - k + k = m + 1 := by"
    message = (
        "omega could not prove the goal:\na possible counterexample may satisfy the constraints"
    )
    assert "≤" not in said(advise(statement, "  omega", diag(2, 2, message, K.OMEGA_FAILED)))


def test_a_no_progress_simp_before_more_steps_is_removed_not_replaced() -> None:
    statement = "theorem t (x y : Nat) (h : x = y) : y = x := by"
    feedback = advise(
        statement, "  simp\n  exact h.symm", diag(2, 2, "simp made no progress", K.SIMP_NO_PROGRESS)
    )
    first = feedback.suggestions[0]
    assert first.line == 2 and first.kind == "dont" and "remove it" in first.text
    assert "omega" not in first.text


def test_a_no_progress_simp_on_a_one_line_proof_is_not_told_to_vanish() -> None:
    statement = "example : 2 + 2 = 4 := by simp"
    feedback = advise("", statement, diag(1, 24, "`dsimp` made no progress", K.SIMP_NO_PROGRESS))
    assert "remove it" not in said(feedback)


def test_a_misnamed_alternative_gets_the_constructor_that_is_still_free() -> None:
    statement = "theorem t (xs : List Nat) : xs ++ [] = xs := by"
    body = "  induction xs with\n  | nil => rfl\n  | add x xs ih => simp"
    message = "invalid alternative name 'add'"
    feedback = advise(statement, body, diag(4, 4, message, K.CASES_ERROR))
    assert feedback.suggestions[0].line == 4 and "| cons x xs ih" in said(feedback)


def test_a_hypothesis_with_a_dagger_name_is_used_through_assumption_never_typed() -> None:
    # recorded shape: lean4 tests/lean/361 (case inl, `h✝ : p`)
    statement = "theorem t (a b : Prop) (hab : a ∨ b) (hb : a → b) : b := by"
    body = "  cases hab\n  · exact hb ‹a›"
    message = "unsolved goals\ncase inr\na b : Prop\nhb : a → b\nh✝ : b\n⊢ b"
    text = said(advise(statement, body, diag(1, 55, message, K.UNSOLVED_GOALS, end=(3, 16))))
    assert "`assumption`" in text
    assert "exact h✝" not in text and "apply hb" not in text


def test_an_implication_from_a_dagger_hypothesis_is_applied_then_assumed() -> None:
    statement = "theorem t (a b : Prop) (hab : a ∨ b) (hb : a → b) : b := by"
    message = "unsolved goals\ncase inl\na b : Prop\nhb : a → b\nh✝ : a\n⊢ b"
    text = said(advise(statement, "  cases hab", diag(1, 55, message, K.UNSOLVED_GOALS)))
    assert "`apply hb` and then `assumption`" in text and "hb h✝" not in text


def test_a_name_a_bare_cases_never_made_points_to_naming_it() -> None:
    # recorded shape: lean4 tests/lean/hygienicIntro (`cases h₂;` then `exact h`)
    statement = "theorem t (a b : Prop) (hb : a → b) (hab : a ∨ b) : b := by"
    body = "  cases hab\n  · exact hb h\n  · assumption"
    feedback = advise(statement, body, diag(3, 13, "Unknown identifier `h`", K.UNKNOWN_IDENTIFIER))
    assert feedback.suggestions[0].line == 2
    assert "`cases hab with | inl h => ... | inr h => ...`" in said(feedback)


def test_a_bare_intro_gets_the_name_the_student_used() -> None:
    statement = "theorem t (a : Prop) : a → a := by"
    feedback = advise(
        statement,
        "  intro\n  exact ha",
        diag(3, 8, "Unknown identifier `ha`", K.UNKNOWN_IDENTIFIER),
    )
    assert feedback.suggestions[0].line == 2 and "`intro ha`" in said(feedback)


def test_a_one_letter_unknown_name_gets_no_typo_guess() -> None:
    statement = "theorem t (a b : Nat) (g : a = b) : b = a := by"
    text = said(
        advise(
            statement, "  exact h.symm", diag(2, 8, "Unknown identifier `h`", K.UNKNOWN_IDENTIFIER)
        )
    )
    assert "with `a`" not in text and "with `b`" not in text and "with `_`" not in text


def test_calc_steps_in_the_hyphenated_wording_are_told_where_to_start() -> None:
    # recorded wording: lean4 tests/lean/run/calcErrors ("left-hand-side", "right-hand-side")
    statement = "theorem t (a b c : Nat) (h1 : a = b) (h2 : b = c) : a = c := by"
    body = "  calc a = b := h1\n    a = c := by rw [h1, h2]"
    message = (
        "invalid 'calc' step, left-hand-side is\n  a : Nat\nprevious right-hand-side is\n  b : Nat"
    )
    text = said(advise(statement, body, diag(3, 4, message, K.CALC_ERROR)))
    assert "`_`" in text and "`b`" in text


def test_a_superfluous_alternative_is_removed() -> None:
    statement = "theorem t (n : Nat) : n + 0 = n := by"
    body = "  cases n with\n  | zero => rfl\n  | succ k => rfl\n  | _ => rfl"
    feedback = advise(statement, body, diag(5, 4, "unused alternative", K.CASES_ERROR))
    assert feedback.suggestions[0].line == 5 and "remove the alternative" in said(feedback)


def test_a_placeholder_for_a_proof_is_filled_by_the_hypothesis_that_states_it() -> None:
    # recorded shape: lean4 tests/lean/exactErrorPos (`exact h1 _ _`)
    statement = "theorem t (g : Nat → Nat) (y : Nat) (hg : ∀ y, y > 1 → g y = 0) (hy : y > 1) : g y = 0 := by"
    message = (
        "don't know how to synthesize placeholder\ncontext:\ng : Nat → Nat\ny : Nat\n"
        "hg : ∀ (y : Nat), y > 1 → g y = 0\nhy : y > 1\n⊢ y > 1"
    )
    text = said(advise(statement, "  exact hg _ _", diag(2, 13, message, K.PLACEHOLDER)))
    assert "`hy`" in text and "`_`" in text


def test_the_bench_prints_advice_figures_as_ratios_against_the_kind_only_baseline(capsys) -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    from bench_coach import AdviceRow, KindOnlyCoach, print_advice

    base = AdviceRow(n=10, right=2, wrong=4, idk=4)
    better = AdviceRow(n=10, right=9, wrong=0, idk=1)
    print_advice([("kind", {"heldout": base}), ("compiler", {"heldout": better})], "kind")
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("compiler"))
    assert "4.50x" in row and "0.00x" in row and "0.25x" in row
    # The baseline itself says what the issue quotes the old coach saying.
    hint = KindOnlyCoach().advise(
        "", "x", [diag(2, 2, "simp made no progress", K.SIMP_NO_PROGRESS)]
    )
    assert "`rw [h]`" in hint.suggestions[0].text


def test_a_fact_with_its_sides_in_the_other_order_is_swapped_by_the_right_lemma() -> None:
    statement = "theorem t (a b : Prop) (x y : Nat) (h : a ∧ b) (g : a ∨ b) (k : a ↔ b) (n : x ≠ y) : True := by"
    for term, has, want, step in (
        ("h", "a ∧ b", "b ∧ a", "`exact ⟨h.2, h.1⟩`"),
        ("g", "a ∨ b", "b ∨ a", "`exact Or.symm g`"),
        ("k", "a ↔ b", "b ↔ a", "`exact k.symm`"),
        ("n", "x ≠ y", "y ≠ x", "`exact Ne.symm n`"),
    ):
        message = f"Type mismatch\n  {term}\nhas type\n  {has} : Prop\nbut is expected to have type\n  {want} : Prop"
        text = said(advise(statement, f"  exact {term}", diag(2, 8, message, K.TYPE_MISMATCH)))
        assert step in text, (term, text)
    # Not a swap (same sides): no swapping lemma is named.
    message = (
        "Type mismatch\n  h\nhas type\n  a ∧ b : Prop\nbut is expected to have type\n  a ∧ a : Prop"
    )
    assert "⟨h.2, h.1⟩" not in said(
        advise(statement, "  exact h", diag(2, 8, message, K.TYPE_MISMATCH))
    )


RFL_FAILED = (
    "The rfl tactic failed. Possible reasons:\n- The goal is not a reflexive relation (neither "
    "`=` nor a relation with a @[refl] lemma).\n- The arguments of the relation are not equal.\n"
    "Try using the reflexivity lemma for your relation explicitly, e.g. `exact Eq.refl _` or\n"
    "`exact HEq.rfl` etc.\n\n"
)


def test_a_false_claim_about_numerals_is_called_false_not_sent_to_omega() -> None:
    feedback = advise(
        "theorem t : 7 - 9 + 2 = 0 := by",
        "  rfl",
        diag(2, 2, RFL_FAILED + "⊢ 7 - 9 + 2 = 0", K.RFL_FAILED),
    )
    text = said(feedback)
    assert "false" in text and "the left side is 2" in text and "omega" not in text
    assert feedback.suggestions[0].kind == "dont"


def test_a_true_claim_about_numerals_is_not_called_false() -> None:
    feedback = advise(
        "theorem t : 10 / 3 = 3 := by",
        "  rfl",
        diag(2, 2, RFL_FAILED + "⊢ 10 / 3 = 3", K.RFL_FAILED),
    )
    assert "false" not in said(feedback)


def test_numerals_are_computed_as_lean_computes_on_nat() -> None:
    from tutor.coach.fixes import closed_numeral_truth

    assert closed_numeral_truth("3 - 5 = 0") == (True, 0, 0)
    assert closed_numeral_truth("7 / 2 = 3") == (True, 3, 3)
    assert closed_numeral_truth("2 ^ 3 ≤ 7") == (False, 8, 7)
    assert closed_numeral_truth("n + 1 = 2") is None


def test_an_unnamed_witness_of_an_exists_points_to_obtain() -> None:
    statement = "theorem t (h : ∃ k : Nat, k > 3) : ∃ m : Nat, m > 2 := by"
    body = "  cases h\n  exact ⟨w, by omega⟩"
    text = said(advise(statement, body, diag(3, 9, "Unknown identifier `w`", K.UNKNOWN_IDENTIFIER)))
    assert "`obtain ⟨w, hw⟩ := h`" in text and "assumption" not in text
    text = said(
        advise(
            statement,
            "  cases h\n  exact ⟨k, by omega⟩",
            diag(3, 0, "Unknown identifier `hk`", K.UNKNOWN_IDENTIFIER),
        )
    )
    assert "`obtain ⟨k, hk⟩ := h`" in text


def test_numerals_of_another_type_are_never_judged_on_nat() -> None:
    # `2 - 3 < 0` prints the same on ℤ, where it is true: no "false" verdict there.
    statement = "theorem t : (2 : Int) - 3 < 0 := by"
    feedback = advise(statement, "  rfl", diag(2, 2, RFL_FAILED + "⊢ 2 - 3 < 0", K.RFL_FAILED))
    assert "false" not in said(feedback)


def test_an_open_goal_that_is_a_forall_hypothesis_at_some_values_is_closed_with_it() -> None:
    statement = "theorem t (g : Nat → Nat → Nat) (hg : ∀ a b, g a b = g b a) : g 1 2 = g 2 1 := by"
    message = (
        "unsolved goals\ng : Nat → Nat → Nat\nhg : ∀ (a b : Nat), g a b = g b a\n⊢ g 1 2 = g 2 1"
    )
    text = said(advise(statement, "  skip", diag(1, 80, message, K.UNSOLVED_GOALS)))
    assert "`exact hg 1 2`" in text and "rfl" not in text


def test_a_lemma_name_four_edits_away_is_not_offered_as_a_typo() -> None:
    statement = "theorem t (xs : List Nat) : xs.length ≥ 0 := by"
    message = "Unknown constant `List.length_nonneg`"
    text = said(
        advise(statement, "  exact List.length_nonneg xs", diag(2, 8, message, K.UNKNOWN_CONSTANT))
    )
    assert "List.length_cons" not in text and "`List.length_nonneg`" in text


def test_a_negation_that_needs_the_contrapositive_gets_the_function_term() -> None:
    statement = "theorem t (a b : Prop) (nb : ¬b) (ab : a → b) : ¬a := by"
    message = (
        "Type mismatch\n  nb\nhas type\n  ¬b : Prop\nbut is expected to have type\n  ¬a : Prop"
    )
    text = said(advise(statement, "  exact nb", diag(2, 8, message, K.TYPE_MISMATCH)))
    assert "`exact fun h => nb (ab h)`" in text


def test_an_instance_given_for_an_exists_gets_the_witness_pair() -> None:
    statement = "theorem t (Q : Nat → Prop) (q : Q 7) : ∃ k : Nat, Q k := by"
    message = "Type mismatch\n  q\nhas type\n  Q 7 : Prop\nbut is expected to have type\n  ∃ k, Q k : Prop"
    text = said(advise(statement, "  exact q", diag(2, 8, message, K.TYPE_MISMATCH)))
    assert "`exact ⟨7, q⟩`" in text
    # A fact that is not an instance of the body gets no witness.
    message = "Type mismatch\n  q\nhas type\n  Q 7 : Prop\nbut is expected to have type\n  ∃ k, k > 7 : Prop"
    assert "⟨7, q⟩" not in said(
        advise(statement, "  exact q", diag(2, 8, message, K.TYPE_MISMATCH))
    )


def test_symm_of_an_application_is_parenthesised() -> None:
    statement = "theorem t (a b : Nat) (h₁ : a ≤ b) (h₂ : b ≤ a) : a = b := by"
    message = (
        "Type mismatch\n  Nat.le_antisymm h₂ h₁\nhas type\n  b = a : Prop\n"
        "but is expected to have type\n  a = b : Prop"
    )
    text = said(
        advise(statement, "  exact Nat.le_antisymm h₂ h₁", diag(2, 8, message, K.TYPE_MISMATCH))
    )
    assert "`(Nat.le_antisymm h₂ h₁).symm`" in text and "h₁.symm" not in text


def test_distributivity_is_offered_only_when_the_rewrite_closes_the_goal() -> None:
    from tutor.coach.fixes import distributivity_lemma

    assert distributivity_lemma("(a + b) * c = a * c + b * c") == "Nat.add_mul"
    assert distributivity_lemma("c * (a + b) = c * a + c * b") == "Nat.mul_add"
    assert distributivity_lemma("(k + 1) * 2 = k + 1 + (k + 1)") is None


def test_a_lean3_core_namespace_is_capitalised_with_its_projection_kept() -> None:
    statement = "theorem t (a b : Nat) (h : a = b) : b = a := by"
    feedback = advise(
        statement,
        "  exact eq.symm h",
        diag(2, 8, "Unknown identifier `eq.symm`", K.UNKNOWN_IDENTIFIER),
    )
    assert "`Eq.symm`" in feedback.suggestions[0].text and feedback.suggestions[0].line == 2


def test_a_proof_passed_where_a_forall_wants_values_gets_the_values_first() -> None:
    statement = "theorem t (g : Nat → Nat) (hg : ∀ x y, x < y → g x < g y) (m n : Nat) (h : m < n) : g m < g n := by"
    message = (
        "Application type mismatch: In the application\n  hg h\nthe argument\n  h\nhas type\n"
        "  m < n : Prop\nbut is expected to have type\n  Nat : Type"
    )
    text = said(advise(statement, "  exact hg h", diag(2, 11, message, K.TYPE_MISMATCH)))
    assert "`hg m n h`" in text and "proof of `Nat`" not in text


def test_rewriting_back_a_numeral_is_never_offered() -> None:
    statement = "theorem t (n : Nat) : n * 0 = 0 := by"
    body = "  induction n with\n  | zero => rfl\n  | succ k ih => rw [ih]"
    message = (
        "Tactic `rewrite` failed: Did not find an occurrence of the pattern\n  k * 0\nin the target "
        "expression\n  (k + 1) * 0 = 0\n\nk : Nat\nih : k * 0 = 0\n⊢ (k + 1) * 0 = 0"
    )
    text = said(advise(statement, body, diag(4, 22, message, K.REWRITE_FAILED)))
    assert "← ih" not in text


def test_a_false_goal_reached_through_an_implication_gets_the_chain() -> None:
    statement = "theorem t (a b : Prop) (ab : a → b) (nb : ¬b) : ¬a := by"
    message = "unsolved goals\na b : Prop\nab : a → b\nnb : ¬b\nha : a\n⊢ False"
    text = said(advise(statement, "  intro ha", diag(1, 50, message, K.UNSOLVED_GOALS)))
    assert "`exact nb (ab ha)`" in text


def test_an_or_goal_with_one_side_in_hand_gets_that_side() -> None:
    statement = "theorem t (a b : Prop) (hb : b) : a ∨ b := by"
    message = "unsolved goals\na b : Prop\nhb : b\n⊢ a ∨ b"
    text = said(advise(statement, "  skip", diag(1, 40, message, K.UNSOLVED_GOALS)))
    assert "`exact Or.inr hb`" in text and "Or.inl" not in text
