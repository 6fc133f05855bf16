"""Reading goals, target shapes and the structure of an attempt."""

from __future__ import annotations

from tutor.coach.goals import Shape, parse_goals, split_target
from tutor.coach.source import AttemptText, proof_conclusion


def test_parse_goals_reads_cases_grouped_names_and_continuations() -> None:
    text = "case inl\nx y : Nat\nh : x <\n  y\n⊢ x ≤ y\n\ncase inr\nx : Nat\n⊢ True"
    first, second = parse_goals(text)
    assert first.case == "inl" and first.target == "x ≤ y"
    assert first.variable_types() == {"x": "Nat", "y": "Nat", "h": "x < y"}
    assert first.usable_fact_names() == ["h"]
    assert second.case == "inr" and second.target == "True"


def test_split_target_finds_the_outermost_connective() -> None:
    assert split_target("p ∧ q → r").shape is Shape.IMPLIES
    assert split_target("(p → q) ∧ r").shape is Shape.AND
    assert split_target("∀ n, n = n ∨ False").shape is Shape.FORALL
    assert split_target("p → ∀ n, n = n").shape is Shape.IMPLIES
    assert split_target("¬(a = b)").shape is Shape.NOT
    assert split_target("a ≠ b").shape is Shape.NE
    eq = split_target("f (a = b) = c")
    assert eq.shape is Shape.EQ and eq.left == "f (a = b)" and eq.right == "c"
    assert split_target("a ≥ b").shape is Shape.LE and split_target("a > b").shape is Shape.LT


def test_block_last_line_for_by_cdot_arrow_and_brace() -> None:
    text = AttemptText(
        "theorem t : A := by\n"  # 1
        "  constructor\n"  # 2
        "  · left\n"  # 3
        "    exact h\n"  # 4
        "  · cases h with\n"  # 5
        "    | inl a => simp\n"  # 6
        "      done\n"  # 7
        "    | inr b => { simp }\n"  # 8
        "  -- trailing comment\n"  # 9
    )
    assert text.block_last_line(1, 17) == 8  # `by`, no end position: indentation
    assert text.block_last_line(1, 17, 9, 0) == 8  # span ending at column 0 of line 9
    assert text.block_last_line(3, 2) == 4  # `·` block
    assert text.block_last_line(6, 12, 7, 10) == 7  # `=>` with its span
    assert text.block_last_line(8, 23) == 8  # closing `}`


def test_proof_conclusion_skips_binders_and_keeps_inner_colons() -> None:
    assert proof_conclusion("theorem t (n : Nat) {m : Nat} : ∀ k : Nat, k = k := by") == (
        "∀ k : Nat, k = k"
    )
    assert proof_conclusion("import Mathlib\n\ntheorem t (x : ℝ) : x = x := by") == "x = x"
