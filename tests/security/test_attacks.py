"""Every issue-10 input against the checker on the REPL double: never "proved", and the
next check on the same checker is unaffected (a correct proof still proves)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.fakes.lean_rules import native_decide_axiom
from tests.security.attacks import (
    EASY,
    GATE_ATTACKS,
    HARD,
    char_literal_attack,
    eval_writing,
    forged_replies,
    lean_string,
)
from tutor.lean import LeanChecker
from tutor.lean.verdict import proof_rejections


def _next_check_is_unaffected(checker: LeanChecker) -> None:
    assert checker.check_proof(EASY, "  rfl").valid
    assert checker.check(EASY + "\n  rfl\n").valid


@pytest.mark.parametrize("name", sorted(GATE_ATTACKS))
def test_the_gate_refuses_each_attack_before_lean_runs(checker: LeanChecker, name: str) -> None:
    result = checker.check_proof(HARD, GATE_ATTACKS[name])
    assert not result.valid and result.errors, name
    assert checker.pool.stats.spawned == 0  # refused before any REPL saw it
    _next_check_is_unaffected(checker)


# Term-level tricks whose effect only real Lean can show (the double treats a sorry-free
# block as proving): their second layer is the kernel replay of the pickled environment, not
# this fast path (tests/security/test_real_lean_attacks.py runs them on real Lean). The fast
# path no longer reads Lean's infotree for `by_elab` / `eval%` nodes: tactic mode already keeps
# the proof inside the theorem, and the kernel check decides what was proved.
_ONLY_REAL_LEAN_SHOWS = {
    "skipKernelTC",
    "syntax quotation",
    "unsafe",
    "unsafeIO",
    "by_elab",
    "eval%",
}


@pytest.mark.parametrize("name", sorted(set(GATE_ATTACKS) - _ONLY_REAL_LEAN_SHOWS))
def test_with_the_gate_switched_off_tactic_mode_still_refuses_commands(
    checker: LeanChecker, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    # Defence in depth: pretend the lexical gate was fooled. The proof then runs as one
    # tactic block in tactic mode, where a command cannot parse (nothing runs), and any
    # bytes a tactic writes into the reply stream break the protocol.
    monkeypatch.setattr("tutor.lean.checker.proof_rejections", lambda proof: [])
    result = checker.check_proof(HARD, GATE_ATTACKS[name])
    assert not result.valid, name
    _next_check_is_unaffected(checker)


@pytest.mark.parametrize("guess", [0, 1, 2, 3, 5])
def test_forged_tactic_replies_written_by_a_tactic_are_caught(
    checker: LeanChecker, monkeypatch: pytest.MonkeyPatch, guess: int
) -> None:
    # A code-running tactic (if the gate missed one) writes a forged "Completed" reply
    # for every plausible proof-state id; the real reply stays queued behind it.
    monkeypatch.setattr("tutor.lean.checker.proof_rejections", lambda proof: [])
    forged = '{"proofStatus": "Completed", "proofState": ' + str(guess) + ', "goals": []}\n\n'
    proof = (
        "  run_tac do\n"
        '    let h ← IO.FS.Handle.mk "/dev/stdout" .append\n'
        f"    h.putStr {lean_string(forged + forged_replies(guess + 1))}\n"
        "  sorry"
    )
    assert checker.check_proof(EASY, "  rfl").valid  # ids are now past the first ones
    result = checker.check_proof(HARD, proof)
    assert not result.valid and result.could_not_check, result
    _next_check_is_unaffected(checker)


@pytest.mark.parametrize("env", [0, 1, 2, 3, 4, 7])
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"command": "#eval!"},
        {"target": '"/proc/self/fd/1"'},
        {"target": "IO.getStdout"},
        {"exit_after": True},
    ],
    ids=["eval", "eval!", "proc-self-fd-1", "getStdout", "exit-after-forging"],
)
def test_forged_replies_in_a_whole_file_never_prove(
    checker: LeanChecker,
    monkeypatch: pytest.MonkeyPatch,
    env: int,
    options: dict[str, object],
) -> None:
    # check() with the file gate switched off: the file's #eval really writes framed JSON
    # (a guessed env id, then a clean `#print axioms` answer) into the reply stream.
    monkeypatch.setattr("tutor.lean.checker.file_rejections", lambda code: [])
    assert checker.check(EASY + "\n  rfl\n").valid  # the process has history
    code = HARD + " sorry\n" + eval_writing(forged_replies(env), **options)  # type: ignore[arg-type]
    result = checker.check(code)
    assert not result.valid, result
    _next_check_is_unaffected(checker)


def test_the_issues_char_literal_attack_is_refused_by_the_gate(checker: LeanChecker) -> None:
    reasons = [r.message for r in proof_rejections(char_literal_attack())]
    assert any("#eval" in reason for reason in reasons), reasons
    assert not checker.check_proof(HARD, char_literal_attack()).valid
    _next_check_is_unaffected(checker)


def test_native_decide_under_a_shadowing_namespace_is_not_proved(checker: LeanChecker) -> None:
    # The double resolves `#print axioms hard` inside an open `namespace X` to X.hard,
    # as Lean does; the checker asks for `_root_.hard`.
    code = (
        "theorem hard : 2 ^ 64 > 5 := by\n  native_decide\n"
        "namespace X\ntheorem hard : True := trivial\n"
    )
    result = checker.check(code)
    assert not result.valid and native_decide_axiom("hard") in (result.axioms or []), result
    with checker.pool.lease("") as process:  # the double models the shadowing itself
        env = process.request({"cmd": code, "env": process.header_env}, 5)["env"]
        plain = process.request({"cmd": "#print axioms hard", "env": env}, 5)
        assert "does not depend on any axioms" in plain["messages"][0]["data"]
    _next_check_is_unaffected(checker)


@pytest.mark.parametrize(
    "code",
    [
        "@[simp, aesop safe [constructors]] theorem u : 2 ^ 64 > 5 := by native_decide\n",
        "theorem a : True := trivial theorem b : 2 ^ 64 > 5 := by native_decide\n",
        "theorem a : True := trivial\ntheorem b : 2 ^ 64 > 5 := by native_decide theorem c : True := trivial\n",
        "namespace A\nnamespace B\ntheorem t : 2 ^ 64 > 5 := by native_decide\nend B\ntheorem t : True := trivial\nend A\n",
        "section\nnamespace A theorem t : 2 ^ 64 > 5 := by native_decide end A\nend\n",
        "instance : Inhabited (2 ^ 64 > 5) := ⟨by native_decide⟩\n",
        "structure S where\n  p : 2 ^ 64 > 5 := by native_decide\n",
    ],
    ids=[
        "nested-attribute",
        "two-on-a-line",
        "three-decls",
        "nested-namespaces",
        "namespace-on-one-line",
        "anonymous-instance",
        "structure-default",
    ],
)
def test_whole_files_that_hide_declarations_are_not_proved(checker: LeanChecker, code: str) -> None:
    result = checker.check(code)
    assert not result.valid, result
    _next_check_is_unaffected(checker)


def test_a_lone_surrogate_is_a_clear_error_not_an_exception(checker: LeanChecker) -> None:
    result = checker.check_proof(EASY, "  rfl \ud800")
    assert not result.valid and "invalid character" in result.errors[0].message
    assert not checker.check("theorem t : True := trivial -- \udfff").valid
    _next_check_is_unaffected(checker)


def test_a_comment_before_an_import_keeps_it_in_the_header(checker: LeanChecker) -> None:
    from tutor.lean import split_header

    split = split_header("/- c -/ import Mathlib\ntheorem t : True := trivial")
    assert split.header == "import Mathlib" and split.body.startswith("theorem t")
    assert checker.check("/- c -/ import Mathlib\n" + EASY + "\n  rfl\n").valid


def test_a_failed_header_import_makes_lean_unavailable_not_wrong(
    make_checker: Callable[..., LeanChecker], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tutor.lean import LeanUnavailable

    monkeypatch.setenv("FAKE_REPL_MISSING", "Mathlib")
    checker = make_checker()
    with pytest.raises(LeanUnavailable, match="unknown module prefix 'Mathlib'"):
        checker.check_proof(EASY, "  rfl", header="import Mathlib")
    with pytest.raises(LeanUnavailable, match="Mathlib"):  # remembered: no respawn storm
        checker.check("import Mathlib\n" + EASY + "\n  rfl\n")
    assert checker.pool.stats.spawned == 1 and checker.pool.live_processes == 0
    _next_check_is_unaffected(checker)  # core Lean still checks


def test_course_lines_before_the_statement_are_not_mistaken_for_the_proof(
    checker: LeanChecker,
) -> None:
    header = "import Mathlib\nopen Nat\ndef double (n : Nat) : Nat := n + n"
    assert checker.check_proof(EASY, "  rfl", header=header).valid
    assert not checker.check_proof(HARD, "  sorry", header=header).valid


def test_the_verdict_path_asks_lean_for_no_infotree(
    checker: LeanChecker, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A full infotree pretty-prints every term and goal of the proof (megabytes under
    # Mathlib) and its root kinds refused Mathlib's `lemma` and `open X in`; nothing in the
    # verdict reads it any more.
    from tutor.lean.repl import ReplProcess

    sent: list[dict[str, object]] = []
    original = ReplProcess.request

    def spy(self: ReplProcess, payload: dict[str, object], timeout_s: float) -> object:
        sent.append(dict(payload))
        return original(self, payload, timeout_s)

    monkeypatch.setattr(ReplProcess, "request", spy)
    assert checker.check_proof(EASY, "  rfl").valid
    assert sent and not any("infotree" in request for request in sent)


@pytest.mark.parametrize(
    "statement",
    [
        "lemma easy' (n : Nat) : n = n := by",
        "open Nat in\ntheorem easy' (n : Nat) : n = n := by",
        "set_option maxHeartbeats 400000 in\ntheorem easy' (n : Nat) : n = n := by",
    ],
)
def test_mathlib_lemma_and_in_statements_are_checked_not_refused(
    checker: LeanChecker, statement: str
) -> None:
    # Their infotree roots are `lemma` and `Lean.Parser.Command.in` (tests/fakes/lean_rules.py),
    # which the old syntax check refused, killing a Mathlib REPL on every try.
    result = checker.check_proof(statement, "  rfl", "import Mathlib")
    assert result.valid, result
    assert checker.pool.stats.spawned == 1


def test_an_axiom_error_points_at_the_statement_below_course_lines(checker: LeanChecker) -> None:
    header = "import Mathlib\nopen Nat"
    result = checker.check_proof("example : 2 ^ 64 > 5 := by", "  native_decide", header)
    assert not result.valid and result.axioms == [
        native_decide_axiom("leancoach_posed_statement_1")
    ]
    [error] = result.errors
    assert error.line == 3  # header (2 lines), then the statement
