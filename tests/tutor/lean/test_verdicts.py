"""Verdict rules against the fake REPL: sorry, axioms, native_decide, the posed statement."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.fakes.lean_rules import native_decide_axiom
from tutor.lean import DiagnosticKind, LeanChecker, proof_document
from tutor.lean.verdict import (
    Declared,
    declared_names,
    parse_axioms_message,
    proof_rejections,
)

STATEMENT = "theorem add_zero' (n : Nat) : n + 0 = n := by"


def test_a_clean_proof_is_valid_with_its_axioms_listed(checker: LeanChecker) -> None:
    result = checker.check("theorem t (p : Prop) : p ∨ ¬p := by\n  classical\n  exact em p\n")
    assert result.valid
    assert result.axioms == ["Classical.choice", "Quot.sound", "propext"]


def test_sorry_is_invalid_and_reported_with_its_goal(checker: LeanChecker) -> None:
    result = checker.check("theorem t (n : Nat) : n + 0 = n := by\n  sorry\n")
    assert not result.valid and not result.could_not_check
    [sorry] = result.sorries
    assert (sorry.line, sorry.column, sorry.goal) == (2, 2, "n : Nat\n⊢ n + 0 = n")
    assert "sorryAx" in (result.axioms or [])
    assert any(
        d.kind is DiagnosticKind.SORRY and d.severity == "warning" for d in result.diagnostics
    )


def test_native_decide_is_rejected_through_its_axiom(checker: LeanChecker) -> None:
    result = checker.check("theorem big : 2 ^ 64 > 5 := by\n  native_decide\n")
    assert not result.valid
    assert result.axioms == [native_decide_axiom("big")]
    [error] = result.errors
    assert native_decide_axiom("big") in error.message and error.line == 1


def test_a_user_declared_axiom_is_rejected(checker: LeanChecker) -> None:
    code = "axiom cheat : 1 = 2\n\ntheorem uses_cheat : 1 = 2 := cheat\n"
    result = checker.check(code)
    assert not result.valid
    assert result.axioms == ["cheat"]
    assert result.errors[0].line == 3


def test_axioms_of_namespaced_theorems_are_found(checker: LeanChecker) -> None:
    code = "namespace Foo\ntheorem bar : True := by\n  sorry\nend Foo\n"
    assert declared_names(code) == ["Foo.bar"]
    result = checker.check(code)
    assert result.axioms == ["sorryAx"] and not result.valid


def test_new_wording_axiom_replies_are_read(
    make_checker: Callable[..., LeanChecker], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_REPL_WORDING", "new")
    checker = make_checker()
    result = checker.check("theorem t (n : Nat) : n + 0 = n := by\n  sorry\n")
    assert result.axioms == ["sorryAx"] and not result.valid
    assert checker.check("theorem t : True := by\n  trivial\n").valid


def test_unreadable_axioms_mean_could_not_check_not_valid(
    checker: LeanChecker, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Lean answers "unknown constant" for a name we expected: never default to valid.
    monkeypatch.setattr(
        "tutor.lean.checker.declarations",
        lambda body: [Declared("not_there", False, "theorem", 1, 0)],
    )
    result = checker.check("theorem t : True := by\n  trivial\n")
    assert not result.valid and result.could_not_check
    assert (
        result.error is not None and "could not confirm the axioms of `not_there`" in result.error
    )


def test_check_proof_accepts_a_proof_of_the_posed_statement(checker: LeanChecker) -> None:
    result = checker.check_proof(STATEMENT, "  simp", header="import Mathlib")
    assert result.valid and result.axioms == []


def test_check_proof_positions_lines_in_the_proof_document(checker: LeanChecker) -> None:
    proof = "  simp\n  -- fake: error unsolved_goals"
    result = checker.check_proof(STATEMENT, proof, header="import Mathlib")
    document = proof_document(STATEMENT, proof, "import Mathlib")
    [error] = result.errors
    assert document.split("\n")[error.line - 1] == "  -- fake: error unsolved_goals"
    assert error.kind is DiagnosticKind.UNSOLVED_GOALS


def test_check_proof_indents_an_unindented_proof_and_maps_columns_back(
    checker: LeanChecker,
) -> None:
    result = checker.check_proof(STATEMENT, "simp\n-- fake: error linarith_failed")
    [error] = result.errors
    assert (error.line, error.column) == (3, 0)  # the fake reports column 2 after indenting
    assert error.kind is DiagnosticKind.LINARITH_FAILED


def test_check_proof_names_an_example_so_its_axioms_can_be_printed(checker: LeanChecker) -> None:
    assert checker.check_proof("example (n : Nat) : n + 0 = n := by", "  simp").valid
    cheated = checker.check_proof("example : 2 ^ 64 > 5 := by", "  native_decide")
    assert not cheated.valid and cheated.axioms == [
        native_decide_axiom("leancoach_posed_statement_1")
    ]


@pytest.mark.parametrize(
    "proof, word",
    [
        ("  sorry\n\ntheorem other : False := sorry", "theorem"),
        ("  exact cheat\n\naxiom cheat : False", "axiom"),
        ("  simp\n#eval IO.println 1", "#eval"),
        ("  run_tac Lean.Elab.Tactic.evalTactic", "run_tac"),
        ("  exact by_elab pure default", "by_elab"),
        ("  set_option debug.skipKernelTC true in simp", "set_option"),
        ("  simp\nend\nnamespace Evil", "end"),
    ],
)
def test_check_proof_rejects_proofs_that_leave_the_tactic_block(
    checker: LeanChecker, proof: str, word: str
) -> None:
    result = checker.check_proof(STATEMENT, proof)
    assert not result.valid and not result.could_not_check
    assert any(word in d.message for d in result.errors), result.errors
    assert checker.pool.stats.spawned == 0  # rejected before Lean ran


def test_words_in_comments_and_strings_do_not_trigger_the_gate() -> None:
    proof = '  -- this theorem is easy\n  /- axiom -/ simp [show "def" = "def" from rfl]'
    assert proof_rejections(proof) == []
    assert proof_rejections("  set_option maxHeartbeats 400000 in simp") == []
    # `open ... in` is refused: `open Lean in` is how meta-code gets its names.
    assert proof_rejections("  open Nat in simp")


def test_check_proof_refuses_a_statement_without_by(checker: LeanChecker) -> None:
    with pytest.raises(ValueError, match=":= by"):
        checker.check_proof("theorem t : True :=", "trivial")


def test_axiom_messages_parse_in_both_wordings() -> None:
    assert parse_axioms_message("'t' depends on axioms: [propext, sorryAx]") == [
        "propext",
        "sorryAx",
    ]
    assert parse_axioms_message(
        "`t` depends on axioms: [propext,\n Classical.choice,\n Quot.sound]"
    ) == [
        "propext",
        "Classical.choice",
        "Quot.sound",
    ]
    assert parse_axioms_message("`t` does not depend on any axioms") == []
    assert parse_axioms_message("unknown constant 't'") is None


def test_examples_in_a_whole_file_are_named_so_their_axioms_count(checker: LeanChecker) -> None:
    cheated = checker.check("import Mathlib\nexample : 2 ^ 64 > 5 := by\n  native_decide\n")
    assert not cheated.valid and cheated.axioms == [native_decide_axiom("leancoach_example_1")]
    assert cheated.errors[0].line == 2
    assert checker.check("example (n : Nat) : n + 0 = n := by\n  simp\n").valid


def test_columns_on_a_renamed_example_line_match_the_callers_text(checker: LeanChecker) -> None:
    code = "example : True := by sorry"
    [sorry] = checker.check(code).sorries
    assert (sorry.line, sorry.column) == (1, code.index("sorry"))
