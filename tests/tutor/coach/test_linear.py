"""tutor/coach/linear.py: the evidence behind "use linarith / omega / nlinarith": a goal
follows from the facts by adding them up (atoms for what the tactics cannot see inside)."""

from __future__ import annotations

from tutor.coach.evidence import INT, NAT, REAL
from tutor.coach.linear import (
    entails,
    missing_facts,
    nlinarith_proves,
    omega_proves,
    polynomial,
    square_hints,
    states,
)


def test_a_linear_consequence_of_several_facts() -> None:
    assert entails("x = 3", ["2 * x + 1 = 7"], REAL) is True
    assert entails("a < c", ["a ≤ b", "b < c"], REAL) is True
    assert entails("s = 3", ["s + t = 4", "s - t = 2"], REAL) is True


def test_no_combination_is_a_definite_no() -> None:
    assert entails("a < c", ["a ≤ b", "b ≤ c"], REAL) is False
    assert entails("0 < x ^ 2 + 1", [], REAL) is False  # the square is an unknown to linarith


def test_integers_read_a_strict_bound_as_one_more() -> None:
    assert entails("a + 1 ≤ b", ["a < b"], INT) is True
    assert entails("a + 1 ≤ b", ["a < b"], REAL) is False


def test_natural_numbers_are_at_least_zero_and_subtraction_is_not_read() -> None:
    assert entails("0 ≤ n", [], NAT) is True
    assert entails("n - 1 < n", ["0 < n"], NAT) is None  # ℕ subtraction stops at 0


def test_terms_it_cannot_read_give_no_claim() -> None:
    assert entails("(s.filter (fun x => x < 3)).card ≤ s.card", [], NAT) is None


def test_atoms_are_what_the_tactics_cannot_see_inside() -> None:
    assert polynomial("2 * (x + y) - |x - 1| + f x", REAL) == {
        ("x",): 2,
        ("y",): 2,
        ("|x - 1|",): -1,
        ("f x",): 1,
    }
    assert entails("s.card ≤ t.card", [], NAT) is False


def test_omega_uses_a_ne_fact_as_a_case_split() -> None:
    assert omega_proves("a < b", ["a ≤ b", "a ≠ b"], NAT) is True
    assert entails("a < b", ["a ≤ b", "a ≠ b"], NAT) is False  # linarith ignores ≠
    assert omega_proves("x ≠ 5", ["x < 3"], NAT) is True


def test_the_library_fact_linarith_lacks() -> None:
    assert missing_facts("x ≤ |x|", [], REAL) == [("le_abs_self x", "x ≤ |x|")]
    assert missing_facts("-1 ≤ x", [("h", "|x| ≤ 1")], REAL) == [("neg_abs_le x", "-|x| ≤ x")]
    products = missing_facts("0 < a * b", [("ha", "0 < a"), ("hb", "0 < b")], REAL)
    assert products == [("mul_pos ha hb", "0 < a * b")]
    assert missing_facts("x < y", [("h", "x < 1")], REAL) is None


def test_nlinarith_multiplies_facts_in_pairs() -> None:
    assert nlinarith_proves("1 < x ^ 2", ["1 < x"], REAL) is True
    assert nlinarith_proves("2 * a * b ≤ a ^ 2 + b ^ 2", [], REAL) is False
    assert square_hints("2 * a * b ≤ a ^ 2 + b ^ 2", [], REAL) == ["sq_nonneg (a - b)"]


def test_states_means_the_same_fact() -> None:
    assert states("x ≤ |x|", "|x| ≥ x", REAL)
    assert not states("0 ≤ |x|", "x ≤ |x|", REAL)


def test_a_large_system_gives_no_claim_instead_of_a_slow_answer() -> None:
    # Ten facts give more pairwise products than the budget: nlinarith's evidence is then
    # "unknown" (the advice must come within milliseconds), never a guess either way.
    facts = [f"0 < x{i}" for i in range(10)]
    assert nlinarith_proves("x0 * x1 * x2 ≤ 1", facts, REAL) is None
    assert entails("x0 < x9", facts, REAL) is False  # linear checks stay cheap
