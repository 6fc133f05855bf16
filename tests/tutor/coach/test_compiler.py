"""The compiler source: each kind of Lean message becomes advice anchored on the line to change."""

from __future__ import annotations

import json
import time
from pathlib import Path

from tests.tutor.coach.helpers import K, diag, from_repl
from tutor.coach import Feedback, Suggestion, make_coach
from tutor.coach.validation import text_problem

LABELLED = Path(__file__).resolve().parents[3] / "bench/data/coach_labelled.jsonl"

AND_ATTEMPT = """theorem and_swap (p q : Prop) (hp : p) (hq : q) : q ∧ p := by
  constructor
  · exact hq"""


def advise(attempt: str, *diagnostics, statement: str | None = None) -> Feedback:
    statement = statement or attempt.split(":= by")[0] + ":= by"
    return make_coach("compiler").advise(statement, attempt, list(diagnostics))


def assert_follows_rules(feedback: Feedback) -> None:
    assert 1 <= len(feedback.suggestions) <= 3
    for suggestion in feedback.suggestions:
        assert text_problem(suggestion.text) is None, suggestion.text
        expected = "dont" if suggestion.text.startswith("Don't") else "do"
        assert suggestion.kind == expected


def test_unsolved_goals_at_by_anchor_after_the_last_tactic_and_use_the_students_names() -> None:
    d = diag(
        1,
        59,
        "unsolved goals\ncase right\np q : Prop\nhp : p\nhq : q\n⊢ p",
        K.UNSOLVED_GOALS,
        end=(3, 12),
    )
    feedback = advise(AND_ATTEMPT, d)
    assert_follows_rules(feedback)
    first = feedback.suggestions[0]
    assert first.line == 3
    assert "`exact hp`" in first.text and "`p`" in first.text
    assert feedback.source == "compiler" and feedback.prompt_version == "rules.v2"


def test_unsolved_goals_without_end_position_follow_indentation() -> None:
    attempt = (
        "theorem t (p q : Prop) (hp : p) (hq : q) : p ∧ q := by\n  constructor\n  · exact hp\n\n"
    )
    d = diag(1, 52, "unsolved goals\ncase right\np q : Prop\nhp : p\nhq : q\n⊢ q", K.UNSOLVED_GOALS)
    assert advise(attempt, d).suggestions[0].line == 3


def test_unsolved_goals_at_a_cdot_anchor_inside_that_bullet() -> None:
    attempt = (
        "theorem t (p q : Prop) (hp : p) : (p ∨ q) ∧ p := by\n  constructor\n  · left\n  · exact hp"
    )
    d = diag(
        3, 2, "unsolved goals\ncase left.h\np q : Prop\nhp : p\n⊢ p", K.UNSOLVED_GOALS, end=(3, 3)
    )
    feedback = advise(attempt, d)
    assert feedback.suggestions[0].line == 3
    assert "exact hp" in feedback.suggestions[0].text


def test_goal_shapes_get_fitting_tactics() -> None:
    cases = {
        "⊢ a = 1 ∧ b = 2": "constructor",
        "⊢ p ↔ q": "constructor",
        "⊢ p → q": "intro",
        "⊢ ∀ (n : Nat), n + 0 = n": "intro n",
        "⊢ ¬p": "intro h",
        "⊢ ∃ n, n > 3": "exists",
        "⊢ p ∨ q": "left",
        "⊢ a + b ≤ c + 2": "omega",
        "⊢ 3 + 2 = 5": "decide",
    }
    for goal, tactic in cases.items():
        context = "a b c : Nat\np q : Prop\nh : a + b ≤ c\n" + goal
        attempt = "theorem t : True := by\n  skip"
        d = diag(1, 20, "unsolved goals\n" + context, K.UNSOLVED_GOALS, end=(2, 6))
        feedback = advise(attempt, d)
        assert_follows_rules(feedback)
        assert f"`{tactic}" in feedback.suggestions[0].text, (goal, feedback.suggestions[0].text)


def test_omega_is_named_only_when_the_facts_give_the_goal() -> None:
    # `a + b ≤ c + 2` is false at a = 5, b = c = 0: with no fact about a, b, c, omega fails.
    attempt = "theorem t : True := by\n  skip"
    context = "a b c : Nat\n⊢ a + b ≤ c + 2"
    d = diag(1, 20, "unsolved goals\n" + context, K.UNSOLVED_GOALS, end=(2, 6))
    text = advise(attempt, d).suggestions[0].text
    assert "`omega`" not in text and "no linear combination" in text


def test_real_goals_get_linarith_family_tactics() -> None:
    attempt = "import Mathlib\n\ntheorem t (x y : ℝ) (h : x < y) : x ≤ y := by\n  skip"
    d = diag(3, 47, "unsolved goals\nx y : ℝ\nh : x < y\n⊢ x ≤ y", K.UNSOLVED_GOALS, end=(4, 6))
    # a hypothesis that is not the goal: linarith, with the student's hypothesis name
    text = advise(attempt, d).suggestions[0].text
    assert "`linarith`" in text and "`h`" in text


def test_sorry_warning_anchors_on_the_sorry_not_the_name() -> None:
    attempt = "theorem le_succ_ex (n : Nat) : n ≤ n + 1 := by\n  sorry"
    d = diag(1, 8, "declaration uses 'sorry'", K.SORRY, end=(1, 18), severity="warning")
    feedback = advise(attempt, d)
    assert_follows_rules(feedback)
    first, answer = feedback.suggestions
    assert first.line == answer.line == 2
    # The advice names the goal; the step that proves it outright is a hint, marked as one.
    assert "`n ≤ n + 1`" in first.text and "omega" not in first.text and not first.reveals
    assert "omega" in answer.text and answer.reveals


def test_a_sorry_gives_the_first_step_and_holds_the_answer_as_a_hint() -> None:
    attempt = "theorem t (p q : Prop) (h : p ∧ q) : q ∧ p := by\n  sorry"
    d = diag(1, 8, "declaration uses `sorry`", K.SORRY, end=(1, 9), severity="warning")
    advice, hint = advise(attempt, d).suggestions
    assert "`constructor`" in advice.text and "h.2" not in advice.text and not advice.reveals
    assert "⟨h.2, h.1⟩" in hint.text and hint.reveals
    assert Suggestion.from_dict(hint.to_dict()) == hint


def test_unknown_identifier_suggests_the_closest_real_name() -> None:
    attempt = "theorem t (a b : Nat) : a * b = b * a := by\n  exact Nat.mul_com a b"
    d = diag(2, 8, "unknown identifier 'Nat.mul_com'", K.UNKNOWN_IDENTIFIER, end=(2, 19))
    feedback = advise(attempt, d)
    assert_follows_rules(feedback)
    assert feedback.suggestions[0].line == 2
    assert "`Nat.mul_comm`" in feedback.suggestions[0].text


def test_unknown_identifier_understands_lean3_spelling_and_hypothesis_typos() -> None:
    attempt = "theorem t (a b : Nat) (hab : a = b) : b = a := by\n  exact nat.add_comm a b"
    d = diag(2, 8, "Unknown identifier `nat.add_comm`", K.UNKNOWN_IDENTIFIER, end=(2, 20))
    assert "`Nat.add_comm`" in advise(attempt, d).suggestions[0].text
    attempt = "theorem t (a b : Nat) (hab : a = b) : b = a := by\n  exact hba.symm"
    d = diag(2, 8, "unknown identifier 'hba.symm'", K.UNKNOWN_IDENTIFIER, end=(2, 16))
    assert "`hab.symm`" in advise(attempt, d).suggestions[0].text


def test_unknown_identifier_bound_by_forall_says_intro() -> None:
    attempt = "theorem t : ∀ n : Nat, n + 0 = n := by\n  exact Nat.add_zero n"
    d = diag(2, 21, "unknown identifier 'n'", K.UNKNOWN_IDENTIFIER, end=(2, 22))
    assert "`intro n`" in advise(attempt, d).suggestions[0].text


def test_type_mismatch_of_a_flipped_equation_suggests_symm() -> None:
    attempt = "theorem t (a b : Nat) (h : a = b) : b = a := by\n  exact h"
    message = (
        "type mismatch\n  h\nhas type\n  a = b : Prop\nbut is expected to have type\n  b = a : Prop"
    )
    feedback = advise(attempt, diag(2, 8, message, K.TYPE_MISMATCH, end=(2, 9)))
    assert feedback.suggestions[0].line == 2 and "`h.symm`" in feedback.suggestions[0].text


def test_linarith_on_a_nonlinear_goal_suggests_nlinarith_with_the_students_variables() -> None:
    attempt = "import Mathlib\n\ntheorem t (a b : ℝ) : 2 * a * b ≤ a ^ 2 + b ^ 2 := by\n  linarith"
    message = (
        "linarith failed to find a contradiction\ncase a\na b : ℝ\n"
        "a✝ : 2 * a * b > a ^ 2 + b ^ 2\n⊢ False\nfailed"
    )
    feedback = advise(attempt, diag(4, 2, message, K.LINARITH_FAILED, end=(4, 10)))
    assert "nlinarith [sq_nonneg (a - b)" in feedback.suggestions[0].text


def test_omega_failures_say_what_omega_needs() -> None:
    attempt = "def double (n : Nat) : Nat := 2 * n\n\ntheorem t (n : Nat) : double n = n + n := by\n  omega"
    message = (
        "omega could not prove the goal:\na possible counterexample may satisfy the constraints\n"
        "  c - 2 * d ≤ -1\nwhere\n c := ↑(double n)\n d := ↑n"
    )
    text = advise(attempt, diag(4, 2, message, K.OMEGA_FAILED, end=(4, 7))).suggestions[0].text
    assert "unfold double" in text
    attempt = "theorem t (n : Nat) (h : 2 ≤ n) : 2 * n ≤ n * n := by\n  omega"
    message = (
        "omega could not prove the goal:\na possible counterexample may satisfy the constraints\n"
        "  c ≥ 2\nwhere\n c := ↑n\n d := ↑n * ↑n"
    )
    text = advise(attempt, diag(2, 2, message, K.OMEGA_FAILED, end=(2, 7))).suggestions[0].text
    assert "nonlinear" in text and "Nat.mul_le_mul_right n h" in text


def test_rewrite_failure_with_a_flipped_hypothesis_suggests_the_reverse_arrow() -> None:
    attempt = "theorem t (a b c : Nat) (h1 : a = b) (h2 : b = c) : a = c := by\n  rw [h2]"
    message = (
        "tactic 'rewrite' failed, did not find instance of the pattern in the target expression\n"
        "  b\na b c : Nat\nh1 : a = b\nh2 : b = c\n⊢ a = c"
    )
    text = advise(attempt, diag(2, 6, message, K.REWRITE_FAILED, end=(2, 8))).suggestions[0].text
    assert "rw [← h2]" in text


def test_syntax_error_comes_first_and_hides_the_unsolved_goals_it_causes() -> None:
    attempt = "theorem t (a b : Nat) (h : a = b) : a + 1 = b + 1 := by\n  rw h"
    feedback = advise(
        attempt,
        diag(1, 53, "unsolved goals\n⊢ a + 1 = b + 1", K.UNSOLVED_GOALS, end=(2, 4)),
        diag(2, 5, "unexpected identifier; expected '['", K.SYNTAX, end=(2, 6)),
    )
    assert [s.line for s in feedback.suggestions] == [2]
    assert "square brackets" in feedback.suggestions[0].text


def test_simp_no_progress_and_no_goals_are_dont_advice_on_that_line() -> None:
    attempt = "theorem t (a : Nat) : a + 0 = a := by\n  simp\n  rfl"
    feedback = advise(attempt, diag(3, 2, "no goals to be solved", K.OTHER, end=(3, 5)))
    assert feedback.suggestions[0].line == 3 and feedback.suggestions[0].kind == "dont"
    feedback = advise(attempt, diag(2, 2, "simp made no progress", K.SIMP_NO_PROGRESS, end=(2, 6)))
    assert feedback.suggestions[0].line == 2 and feedback.suggestions[0].kind == "dont"


def test_several_errors_give_at_most_three_suggestions_most_fundamental_first() -> None:
    attempt = "theorem t (p q : Prop) (hp : p) (hq : q) : p ∧ q := by\n  constructor\n  · exact hq\n  · sorry"
    mismatch = "type mismatch\n  hq\nhas type\n  q : Prop\nbut is expected to have type\n  p : Prop"
    feedback = advise(
        attempt,
        diag(1, 8, "declaration uses 'sorry'", K.SORRY, end=(1, 9), severity="warning"),
        diag(3, 10, mismatch, K.TYPE_MISMATCH, end=(3, 12)),
    )
    assert_follows_rules(feedback)
    assert [s.line for s in feedback.suggestions] == [3, 4]


def test_a_clean_attempt_still_gets_one_suggestion() -> None:
    feedback = advise("theorem t : 1 = 1 := by\n  rfl")
    assert len(feedback.suggestions) == 1 and feedback.suggestions[0].line is None
    assert_follows_rules(feedback)


def test_labelled_set_localisation_and_latency() -> None:
    """Regression guard over the labelled set (in-sample: the figures bench/ prints)."""
    coach = make_coach("compiler")
    entries = [json.loads(line) for line in LABELLED.read_text().splitlines() if line]
    hits, latencies = 0, []
    for entry in entries:
        diagnostics = [from_repl(m) for m in entry["messages"]]
        started = time.perf_counter()
        feedback = coach.advise(entry["problem"], entry["attempt"], diagnostics)
        latencies.append((time.perf_counter() - started) * 1000)
        assert_follows_rules(feedback)
        hits += entry["label_line"] in [s.line for s in feedback.suggestions]
    assert hits / len(entries) > 0.85
    assert sorted(latencies)[int(0.95 * (len(latencies) - 1))] < 50


def test_omega_on_a_function_variable_suggests_instantiating_the_forall_hypothesis() -> None:
    attempt = "theorem t (f : Nat → Nat) (hf : ∀ x, f x > x) : f 3 > 2 := by\n  omega"
    message = (
        "omega could not prove the goal:\na possible counterexample may satisfy the constraints\n"
        "  c ≤ 2\nwhere\n c := ↑(f 3)"
    )
    text = advise(attempt, diag(2, 2, message, K.OMEGA_FAILED, end=(2, 7))).suggestions[0].text
    assert "`have := hf 3`" in text


def test_a_swapped_hypothesis_name_prefers_the_same_letters() -> None:
    attempt = "theorem t (p q : Prop) : p → (p → q) → q := by\n  intro hp hpq\n  exact hqp hp"
    d = diag(3, 8, "unknown identifier 'hqp'", K.UNKNOWN_IDENTIFIER, end=(3, 11))
    assert "`exact hpq hp`" in advise(attempt, d).suggestions[0].text  # the fixed step
