"""The coach's local-context search (tutor/coach/context.py) and the AC rule
(tutor/coach/algebra.py): terms are offered only when they have the needed type."""

from __future__ import annotations

import pytest

from tutor.coach import make_coach
from tutor.coach.algebra import ac_step
from tutor.coach.context import contradiction, facts_in_scope, proofs_of, traced_goal
from tutor.coach.source import AttemptText, statement_hypotheses
from tutor.lean.types import Diagnostic, DiagnosticKind


@pytest.mark.parametrize(
    ("wanted", "facts", "proof"),
    [
        ("q", [("h", "(p ∧ q) ∧ r")], "h.1.2"),
        ("r", [("h", "p ∧ q ∧ r")], "h.2.2"),
        ("False", [("hnq", "¬q"), ("hpq", "p → q"), ("hp", "p")], "hnq (hpq hp)"),
        ("¬¬p", [("hp", "p")], "fun hnp => hnp hp"),
        ("¬(p ∧ q)", [("hnp", "¬p")], "fun h => hnp h.1"),
        ("p ↔ q", [("hpq", "p → q"), ("hqp", "q → p")], "⟨hpq, hqp⟩"),
        ("q ∨ p", [("hp", "p")], "Or.inr hp"),
        ("r", [("h", "p ∨ q"), ("f", "p → r"), ("g", "q → r")], "h.elim f g"),
        ("f 5 = 10", [("h", "∀ n, f n = 2 * n")], "h 5"),  # 2 * 5 is 10 by computation
        ("f 2 = 3", [("hf", "∀ x, f x = x + 1")], "hf 2"),
        ("n ≤ n + 1", [("le", "∀ (n : Nat), n ≤ n + 1")], "le n"),
        ("b = a", [("h", "a = b")], "h.symm"),
        ("a ≤ b", [("a", "Nat"), ("b", "Nat"), ("h", "a < b")], "Nat.le_of_lt h"),
        ("a ≤ b", [("a", "ℤ"), ("b", "ℤ"), ("h", "a < b")], "Int.le_of_lt h"),
        ("x ≥ 3", [("h", "3 ≤ x")], "h"),  # ≥ is ≤ read backwards
        ("∃ n, f n > 0", [("h", "∀ n, f n > 0")], "⟨0, h 0⟩"),
        ("∃ n : Nat, n * 3 = 12", [], "⟨4, rfl⟩"),
        ("∃ a b : Nat, a + b = 3 ∧ a * b = 2", [], "⟨1, 2, rfl, rfl⟩"),
        ("n = 5", [("h", "0 ≠ 0")], "absurd rfl h"),  # contradictory facts prove anything
        ("False", [("n", "Nat"), ("h", "n < n")], "absurd h (Nat.lt_irrefl n)"),
    ],
)
def test_the_search_builds_a_term_of_the_needed_type(
    wanted: str, facts: list[tuple[str, str]], proof: str
) -> None:
    assert proofs_of(wanted, facts)[0] == proof


@pytest.mark.parametrize(
    ("wanted", "facts"),
    [
        ("q", [("hp", "p")]),
        ("a = c", [("h1", "a = b")]),
        ("f 5 = 11", [("h", "∀ n, f n = 2 * n")]),
        ("∃ n : Nat, n * 2 = 7", []),  # no ℕ value makes it true
        ("p ∧ q", [("hp", "p")]),
        ("x ≤ y", [("x", "ℝ"), ("y", "ℝ"), ("h", "x < y")]),  # Nat/Int lemmas only
    ],
)
def test_no_term_is_offered_when_the_facts_do_not_prove_it(
    wanted: str, facts: list[tuple[str, str]]
) -> None:
    assert proofs_of(wanted, facts) == []
    assert contradiction(facts) is None


def test_what_the_proof_introduced_is_in_scope_at_later_lines() -> None:
    statement = "theorem t (p q : Prop) (h : p ∧ q) : p → ¬¬q := by"
    text = AttemptText(f"{statement}\n  intro hp\n  obtain ⟨a, b⟩ := h\n  exact hp")
    facts = facts_in_scope(statement, text, 4)
    assert ("hp", "p") in facts and ("a", "p") in facts and ("b", "q") in facts
    assert traced_goal(statement, text, 3) == "¬¬q"
    assert traced_goal(statement, text, 4) == "¬¬q"  # obtain leaves the goal as it was
    assert ("hp", "p") not in facts_in_scope(statement, text, 2)  # not yet introduced


def test_binders_whose_types_hold_brackets_are_read() -> None:
    assert statement_hypotheses("theorem t (h : (p ∧ q) ∧ r) {n : Nat} : q := by") == [
        ("h", "(p ∧ q) ∧ r"),
        ("n", "Nat"),
    ]


@pytest.mark.parametrize(
    ("target", "step"),
    [
        ("a * (b * c) = a * (c * b)", "rw [Nat.mul_comm b c]"),
        ("a + b = b + a", "rw [Nat.add_comm a b]"),
        ("c + (a + b) = a + c + b", "ac_rfl"),
        ("a * b * c = c * b * a", "ac_rfl"),
        ("a * b = a * c", None),  # not the same up to order
        ("a - b + b = a", None),  # `-` is not commutative: no claim
        ("a * (b + c) = a * b + a * c", None),  # distributivity is not reordering
    ],
)
def test_reordering_is_named_only_for_commutative_associative_equalities(
    target: str, step: str | None
) -> None:
    assert ac_step(target) == step


def _mismatch(line: int, term: str, has: str, want: str) -> Diagnostic:
    message = f"Type mismatch\n  {term}\nhas type\n  {has} : Prop\nbut is expected to have type\n  {want} : Prop"
    return Diagnostic(
        severity="error",
        line=line,
        column=2,
        end_line=line,
        end_column=10,
        message=message,
        kind=DiagnosticKind.TYPE_MISMATCH,
    )


def test_the_coach_names_the_term_the_facts_build() -> None:
    statement = "theorem t (p q r : Prop) (hpq : p → q) (hqr : q → r) : p → r := by"
    attempt = f"{statement}\n  intro hp\n  exact hqr"
    feedback = make_coach("compiler").advise(
        statement, attempt, [_mismatch(3, "hqr", "q → r", "r")]
    )
    text = feedback.suggestions[0].text
    assert "hqr (hpq hp)" in text and feedback.suggestions[0].line == 3


def test_swapped_arguments_are_swapped_not_duplicated() -> None:
    statement = "theorem t (a b : Nat) (h1 : a ≤ b) (h2 : b ≤ a) : a = b := by"
    attempt = f"{statement}\n  exact Nat.le_antisymm h2 h1"
    message = (
        "Application type mismatch: In the application\n  Nat.le_antisymm h2\nthe argument\n"
        "  h2\nhas type\n  b ≤ a : Prop\nbut is expected to have type\n  a ≤ b : Prop"
    )
    d = Diagnostic(
        severity="error",
        line=2,
        column=24,
        end_line=2,
        end_column=26,
        message=message,
        kind=DiagnosticKind.TYPE_MISMATCH,
    )
    text = make_coach("compiler").advise(statement, attempt, [d]).suggestions[0].text
    assert "Nat.le_antisymm h1 h2" in text and "h1 h1" not in text
