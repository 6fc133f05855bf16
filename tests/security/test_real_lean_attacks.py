"""The issue-10 attacks against real Lean (marked `lean`; skipped without a REPL).

Run where Lean exists: .venv/bin/pytest -m lean tests/security
On the first machine with Lean these prove the defence where the double can only model
it: Lean's own tactic-mode parser refusing commands, the kernel replay of the pickled
environment refusing what code-running tactics and terms build, `_root_` axiom queries, and
elaborated code really writing into the REPL's stdout.
"""

from __future__ import annotations

import pytest

from tests.fakes.lean_rules import is_native_decide_axiom
from tests.security.attacks import (
    EASY,
    GATE_ATTACKS,
    HARD,
    char_literal_attack,
    eval_writing,
    forged_replies,
)
from tests.tutor.lean.real_lean import REAL_REPL, needs_real_lean
from tutor.lean import LeanChecker, LeanUnavailable

pytestmark = [pytest.mark.lean, needs_real_lean]


def _unaffected(checker: LeanChecker) -> None:
    result = checker.check_proof(EASY, "  rfl")
    assert result.valid, result


@pytest.mark.parametrize("name", sorted(GATE_ATTACKS))
def test_real_gate_attacks_are_not_proved(real_checker: LeanChecker, name: str) -> None:
    assert not real_checker.check_proof(HARD, GATE_ATTACKS[name]).valid
    _unaffected(real_checker)


@pytest.mark.parametrize("name", sorted(GATE_ATTACKS))
def test_real_attacks_with_the_gate_off_are_not_proved(
    real_checker: LeanChecker, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    monkeypatch.setattr("tutor.lean.checker.proof_rejections", lambda proof: [])
    assert not real_checker.check_proof(HARD, GATE_ATTACKS[name]).valid
    _unaffected(real_checker)


@pytest.mark.parametrize("env", [1, 2, 3])
@pytest.mark.parametrize("target", ['"/dev/stdout"', '"/proc/self/fd/1"', "IO.getStdout"])
def test_real_eval_writing_to_the_repls_stdout_never_proves(
    real_checker: LeanChecker, monkeypatch: pytest.MonkeyPatch, env: int, target: str
) -> None:
    monkeypatch.setattr("tutor.lean.checker.file_rejections", lambda code: [])
    code = HARD + " sorry\n" + eval_writing(forged_replies(env), target=target)
    assert not real_checker.check(code).valid
    _unaffected(real_checker)


def test_real_char_literal_attack(real_checker: LeanChecker) -> None:
    assert not real_checker.check_proof(HARD, char_literal_attack()).valid
    _unaffected(real_checker)


def test_real_run_tac_with_the_gate_off_does_not_prove_a_false_theorem(
    real_checker: LeanChecker, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No infotree check any more: tactic mode keeps the code inside the theorem, and
    # whatever it builds must pass the kernel replay of the pickled environment.
    monkeypatch.setattr("tutor.lean.checker.proof_rejections", lambda proof: [])
    proof = "  run_tac do\n    Lean.Elab.admitGoal (← Lean.Elab.Tactic.getMainGoal)"
    result = real_checker.check_proof(HARD, proof)
    assert not result.valid, result
    _unaffected(real_checker)


def test_real_shadowing_namespace_does_not_hide_native_decide(real_checker: LeanChecker) -> None:
    code = (
        "theorem hard : 2 ^ 20 = 1048576 := by\n  native_decide\n"
        "namespace X\ntheorem hard : True := trivial\n"
    )
    result = real_checker.check(code)
    assert not result.valid, result
    assert any(is_native_decide_axiom(a, "hard") for a in result.axioms or []), result


@pytest.mark.parametrize(
    "code",
    [
        "@[simp, aesop safe [constructors]] theorem u : 2 ^ 20 = 1048576 := by native_decide\n",
        "theorem a : True := trivial theorem b : 2 ^ 20 = 1048576 := by native_decide\n",
    ],
)
def test_real_hidden_declarations_are_not_proved(real_checker: LeanChecker, code: str) -> None:
    assert not real_checker.check(code).valid


def test_real_failed_import_is_unavailable_not_wrong() -> None:
    checker = LeanChecker(
        REAL_REPL.command,
        cwd=REAL_REPL.cwd,
        sandbox_paths=REAL_REPL.sandbox_paths,  # the toolchain's library, inside bubblewrap
        max_processes=1,
        timeout_s=120,
    )
    try:
        with pytest.raises(LeanUnavailable, match="NoSuchLibraryLeanCoach"):
            checker.check("import NoSuchLibraryLeanCoach\ntheorem t : True := trivial\n")
    finally:
        checker.close()
