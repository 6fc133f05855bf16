"""The independent verification step (tutor/lean/kernel_check.py) against its test double,
tests/fakes/fake_lean.py: a real subprocess speaking the verifier's `export` and `serve`
command lines, fed by the pickles the REPL double writes. Every case asserts that only a
confirmation from that step makes a proof valid, and that anything the step cannot finish is
"could not check" with the step named, never "refused" and never "proved"."""

from __future__ import annotations

import json
import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tutor.lean import LeanChecker
from tutor.lean.kernel_check import (
    CouldNotCheck,
    KernelVerifier,
    VerifyConfig,
    VerifyStatus,
    config_from_environment,
)

FAKE_LEAN = (sys.executable, str(Path(__file__).resolve().parents[2] / "fakes" / "fake_lean.py"))
STATEMENT = "theorem hard (n : Nat) : n + 0 = n := by"


def fake_config(**overrides: object) -> VerifyConfig:
    options: dict[str, object] = {
        "verifier_command": FAKE_LEAN,
        "timeout_s": 5.0,
        "start_timeout_s": 10.0,
        "use_sandbox": False,
    }
    options.update(overrides)
    return VerifyConfig(**options)  # type: ignore[arg-type]


@pytest.fixture
def verified(make_checker: Callable[..., LeanChecker]) -> Callable[..., LeanChecker]:
    def build(**overrides: object) -> LeanChecker:
        return make_checker(verify=fake_config(**overrides))

    return build


def pickle_of(*decls: dict[str, Any], imports: tuple[str, ...] = ("Init",)) -> bytes:
    """A pickle as the REPL double writes it (fake_repl.py, `pickleTo`)."""
    full = [
        {"kind": "thm", "unsafe": False, "partial": False, "type": "", "text": "", **d}
        for d in decls
    ]
    return json.dumps({"fake_pickle": 1, "imports": list(imports), "decls": full}).encode()


def test_a_confirmed_proof_is_valid(verified: Callable[..., LeanChecker]) -> None:
    result = verified().check_proof(STATEMENT, "  simp")
    assert result.valid and result.axioms == [] and result.error is None


def test_one_verifier_process_serves_every_check_of_a_header(
    verified: Callable[..., LeanChecker],
) -> None:
    checker = verified()
    assert checker.check_proof(STATEMENT, "  simp").valid
    [server] = checker.verifier.server_pids()
    assert checker.check_proof(STATEMENT, "  omega").valid
    assert checker.check("theorem t : 1 + 1 = 2 := by rfl\n").valid
    assert checker.verifier.server_pids() == [server]
    # The reference statement was elaborated once, by the reference pool only.
    assert checker._reference_pool.stats.spawned == 1  # noqa: SLF001  (the pool under test)
    assert len(checker._references) == 1  # noqa: SLF001


def test_a_prestart_readies_the_reference_repl_so_the_first_check_imports_nothing(
    verified: Callable[..., LeanChecker],
) -> None:
    checker = verified()
    assert checker.prestart("")
    reference = checker._reference_pool  # noqa: SLF001  (the pool under test)
    assert reference.stats.spawned == 1 and reference.live_processes == 1
    assert checker.check_proof(STATEMENT, "  simp").valid
    assert reference.stats.spawned == 1 and checker.pool.stats.spawned == 1


@pytest.mark.parametrize(
    ("marker", "step", "expect"),
    [
        ("-- fake: verifier-crash", "verifier", "exited with code 134"),
        ("-- fake: verifier-garbage", "verifier", "not JSON"),
        ("-- fake: export-crash", "export", "export step failed"),
        ("-- fake: export-garbage", "export", "unreadable export"),
    ],
)
def test_anything_unconfirmed_is_could_not_check_with_its_step(
    verified: Callable[..., LeanChecker], marker: str, step: str, expect: str
) -> None:
    checker = verified()
    result = checker.check_proof(STATEMENT, f"  simp\n  {marker}")
    assert not result.valid and result.could_not_check
    assert f"(step: {step})" in (result.error or "") and expect in (result.error or "")
    assert not any("refused" in d.message for d in result.errors)
    assert checker.check_proof(STATEMENT, "  simp").valid  # the next check is unaffected


def test_a_hanging_verifier_times_out_as_could_not_check(
    verified: Callable[..., LeanChecker],
) -> None:
    started = time.monotonic()
    checker = verified(timeout_s=1.0)
    result = checker.check_proof(STATEMENT, "  simp\n  -- fake: verifier-hang")
    assert not result.valid and result.could_not_check
    assert "did not finish answering within 1 s" in (result.error or "")
    assert time.monotonic() - started < 15
    assert checker.check_proof(STATEMENT, "  simp").valid  # a fresh verifier answers


def test_a_kernel_rejection_is_a_definite_error(verified: Callable[..., LeanChecker]) -> None:
    result = verified().check_proof(STATEMENT, "  simp\n  -- fake: kernel-rejects")
    assert not result.valid and not result.could_not_check
    assert any("declaration type mismatch" in d.message for d in result.errors)


def test_an_extra_axiom_found_by_the_verifier_is_refused(
    verified: Callable[..., LeanChecker],
) -> None:
    # The REPL (fast path) saw nothing; the replayed environment shows the axiom.
    result = verified().check_proof(STATEMENT, "  simp\n  -- fake: verifier-axiom Lean.trustMe")
    assert not result.valid and not result.could_not_check
    assert result.axioms == ["Lean.trustMe"]
    assert any("Lean.trustMe" in d.message for d in result.errors)


def test_no_verifier_means_never_proved(make_checker: Callable[..., LeanChecker]) -> None:
    checker = make_checker(verify=VerifyConfig())
    result = checker.check_proof(STATEMENT, "  simp")
    assert not result.valid and result.could_not_check
    assert "kernel verifier is not installed" in (result.error or "")
    assert "no verdict can say 'proved'" in checker.status().reason


def test_the_whole_file_path_is_confirmed_too(verified: Callable[..., LeanChecker]) -> None:
    checker = verified()
    assert checker.check("theorem t : 1 + 1 = 2 := by rfl\n").valid
    result = checker.check("theorem t : 1 + 1 = 2 := by rfl\n-- fake: verifier-axiom oops\n")
    assert not result.valid and result.axioms == ["oops"]


def test_a_recursive_definition_does_not_block_a_file(
    verified: Callable[..., LeanChecker],
) -> None:
    # Lean adds an unsafe `_unsafe_rec` shim for it; the kernel never sees the shim, and
    # the file's verdict must not depend on it (the old verifier counted it as unverified).
    code = (
        "def count (n : Nat) : Nat := match n with\n  | 0 => 0\n  | k + 1 => count k\n"
        "theorem count_zero : count 0 = 0 := by rfl\n"
    )
    result = verified().check(code)
    assert result.valid, result


def test_a_theorem_about_a_partial_definition_is_confirmed(
    verified: Callable[..., LeanChecker],
) -> None:
    # The kernel sees `partial def loop` as an opaque constant; its shim is not replayed.
    code = "partial def loop (n : Nat) : Nat := loop n\ntheorem about : loop = loop := by rfl\n"
    result = verified().check(code)
    assert result.valid, result


def test_a_theorem_that_uses_an_unreplayed_constant_is_could_not_check(verifier: Any) -> None:
    verdict = verifier.verify(
        pickle_of(
            {"name": "f._unsafe_rec", "kind": "def", "unsafe": True, "text": ":= 0"},
            {"name": "t", "type": "⊢ P", "text": ":= by exact f._unsafe_rec"},
        ),
        imports=["Init"],
        theorem=["t"],
        reference=None,
    )
    assert verdict.status is VerifyStatus.UNAVAILABLE and verdict.step == "replay"
    assert "f._unsafe_rec" in verdict.reason


def test_quoted_and_universe_names_reach_the_verifier_whole(
    verified: Callable[..., LeanChecker],
) -> None:
    checker = verified()
    quoted = checker.check_proof("theorem «add zero» (n : Nat) : n + 0 = n := by", "  simp")
    assert quoted.valid, quoted
    spaced = checker.check_proof("namespace A.B\ntheorem «x.y» : True := by", "  trivial")
    assert spaced.valid, spaced


def test_an_example_is_checked_under_its_given_name(
    verified: Callable[..., LeanChecker],
) -> None:
    assert verified().check_proof("example (n : Nat) : n + 0 = n := by", "  simp").valid


def test_the_reference_comes_from_a_process_that_never_ran_a_submission(
    verified: Callable[..., LeanChecker],
) -> None:
    checker = verified()
    assert checker.check_proof(STATEMENT, "  simp").valid
    [reference] = checker._reference_pool.idle_processes()  # noqa: SLF001
    verdict_pids = set(checker.pool.idle_pids())
    assert reference.pid not in verdict_pids
    # It ran the header and the statement with `sorry`, nothing else.
    assert reference.uses == 1


def test_a_posed_statement_that_does_not_elaborate_is_could_not_check(
    verified: Callable[..., LeanChecker], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checker = verified()
    original = checker._reference  # noqa: SLF001

    def failing(posed: Any) -> bytes:
        raise CouldNotCheck("reference", "the posed statement does not elaborate: unknown Foo")

    monkeypatch.setattr(checker, "_reference", failing)
    result = checker.check_proof(STATEMENT, "  simp")
    assert not result.valid and "(step: reference)" in (result.error or "")
    monkeypatch.setattr(checker, "_reference", original)
    assert checker.check_proof(STATEMENT, "  simp").valid


# -- the verifier step on its own, on pickles as the REPL double writes them ---------------


@pytest.fixture
def verifier() -> Any:
    made = KernelVerifier(fake_config())
    yield made
    made.close()


def reference_for(verifier: KernelVerifier, type_text: str, name: str = "hard") -> bytes:
    return verifier.export(pickle_of({"name": name, "type": type_text, "text": "sorry"}))


def test_a_statement_that_differs_from_the_reference_is_rejected(verifier: Any) -> None:
    verdict = verifier.verify(
        pickle_of({"name": "hard", "type": "n : Nat\n⊢ n = n", "text": ":= by rfl"}),
        imports=["Init"],
        theorem=["hard"],
        reference=reference_for(verifier, "n : Nat\n⊢ n + 1 = n"),
    )
    assert verdict.status is VerifyStatus.REJECTED and verdict.step == "statement"
    assert "not the posed one" in verdict.reason


def test_the_name_is_fully_qualified_a_namespaced_twin_does_not_count(verifier: Any) -> None:
    twin = pickle_of(
        {"name": "hard", "type": "⊢ P", "text": ":= by sorry"},
        {"name": "X.hard", "type": "⊢ P", "text": ":= by trivial"},
    )
    verdict = verifier.verify(
        twin, imports=["Init"], theorem=["hard"], reference=reference_for(verifier, "⊢ P")
    )
    assert verdict.status is VerifyStatus.REJECTED and verdict.axioms == ["sorryAx"]


def test_a_missing_theorem_is_could_not_check_not_refused(verifier: Any) -> None:
    verdict = verifier.verify(
        pickle_of({"name": "other", "type": "⊢ P", "text": ":= trivial"}),
        imports=["Init"],
        theorem=["hard"],
        reference=reference_for(verifier, "⊢ P"),
    )
    assert verdict.status is VerifyStatus.UNAVAILABLE and verdict.step == "statement"


def test_an_environment_with_other_imports_is_could_not_check(verifier: Any) -> None:
    verdict = verifier.verify(
        pickle_of({"name": "hard", "type": "⊢ P", "text": ":= trivial"}, imports=("Init",)),
        imports=["Init", "Std"],
        theorem=["hard"],
        reference=None,
    )
    assert verdict.status is VerifyStatus.UNAVAILABLE and verdict.step == "imports"


def test_an_inductive_in_the_environment_is_could_not_check(verifier: Any) -> None:
    verdict = verifier.verify(
        pickle_of({"name": "T", "kind": "inductive"}, {"name": "t", "text": ":= trivial"}),
        imports=["Init"],
        theorem=None,
        reference=None,
    )
    assert verdict.status is VerifyStatus.UNAVAILABLE and verdict.step == "replay"


def test_a_verifier_without_init_is_never_started(verifier: Any) -> None:
    verdict = verifier.verify(
        pickle_of({"name": "t", "text": ":= trivial"}), imports=["Mathlib"], theorem=None,
        reference=None,
    )  # fmt: skip
    assert verdict.status is VerifyStatus.UNAVAILABLE and "Init" in verdict.reason
    assert verifier.server_pids() == []


def _eventually(condition: Callable[[], bool], timeout_s: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return False


def test_each_pickle_is_exported_by_its_own_process_started_ahead(verifier: Any) -> None:
    pickle = pickle_of({"name": "t", "text": ":= trivial"})
    assert json.loads(verifier.export(pickle))["decls"][0]["name"] == "t"
    assert _eventually(lambda: len(verifier.spare_export_pids()) == 1)
    [spare] = verifier.spare_export_pids()
    verifier.export(pickle)  # served by the spare, which then exits
    assert _eventually(lambda: not Path(f"/proc/{spare}").exists())
    assert _eventually(lambda: len(verifier.spare_export_pids()) == 1)
    assert verifier.spare_export_pids() != [spare]


def test_servers_are_one_per_header_least_recently_used_first(verifier: Any) -> None:
    assert verifier.prestart(["Init"])
    [first] = verifier.server_pids()
    assert verifier.prestart(["Init"])
    assert verifier.server_pids() == [first]
    assert verifier.prestart(["Init", "Std"])  # max_servers=1: the first one goes
    assert first not in verifier.server_pids() and len(verifier.server_pids()) == 1


def test_config_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEANCOACH_VERIFIER_CMD", shlex.join(FAKE_LEAN))
    manifest = {
        "verifier_command": ["/opt/v"],
        "cwd": "/p",
        "sandbox_paths": ["/a"],
        "verifier_env": {"LEAN_PATH": "/m/lib", "LEAN_SYSROOT": "/t"},
    }
    config = config_from_environment(manifest)
    assert config.verifier_command == FAKE_LEAN and config.configured
    assert config.cwd == "/p" and config.sandbox_paths == ("/a",)
    assert dict(config.extra_env) == {"LEAN_PATH": "/m/lib", "LEAN_SYSROOT": "/t"}
    monkeypatch.delenv("LEANCOACH_VERIFIER_CMD")
    assert config_from_environment(manifest).verifier_command == ("/opt/v",)


# -- real Lean: the verifier built by `make lean` (skipped where there is none) ------------


def _real_checker_with_verifier() -> LeanChecker:
    from tests.tutor.lean.real_lean import REAL_REPL, real_verify_config

    if REAL_REPL.command is None or any("tests/fakes" in w for w in REAL_REPL.command):
        pytest.skip("needs a real Lean 4 REPL (`make lean`)")
    checker = LeanChecker(
        REAL_REPL.command, cwd=REAL_REPL.cwd, sandbox_paths=REAL_REPL.sandbox_paths,
        timeout_s=120, max_processes=1, verify=real_verify_config(),
    )  # fmt: skip
    if checker.verifier.unavailable_reason is not None:
        checker.close()
        pytest.skip(f"no kernel verifier: {checker.verifier.unavailable_reason}")
    return checker


@pytest.fixture(scope="module")
def real() -> Any:
    checker = _real_checker_with_verifier()
    yield checker
    checker.close()


REAL_STATEMENT = "theorem hard (n : Nat) : n + 1 = n := by"


@pytest.mark.lean
@pytest.mark.parametrize(
    "proof",
    [
        "  sorry",
        "  native_decide",
        "  exact sorry\nnamespace X\ntheorem hard : True := trivial\nend X",
    ],
)
def test_real_verifier_never_confirms_a_false_theorem(real: LeanChecker, proof: str) -> None:
    assert not real.check_proof(REAL_STATEMENT, proof).valid


@pytest.mark.lean
@pytest.mark.parametrize(
    "statement",
    [
        "theorem easy (n : Nat) : n + 0 = n := by",
        "theorem «easy quoted» (n : Nat) : n + 0 = n := by",
        "theorem easy_u.{u} (α : Sort u) (a : α) : a = a := by",
        "open Nat in\ntheorem easy_open (n : Nat) : n + 0 = n := by",
        "example (n : Nat) : n + 0 = n := by",
    ],
)
def test_real_verifier_confirms_a_true_theorem(real: LeanChecker, statement: str) -> None:
    result = real.check_proof(statement, "  simp" if "α" not in statement else "  rfl")
    assert result.valid, result
    assert result.axioms is not None and set(result.axioms) <= {
        "propext", "Classical.choice", "Quot.sound",
    }  # fmt: skip


@pytest.mark.lean
def test_real_verifier_confirms_a_file_with_recursive_and_partial_definitions(
    real: LeanChecker,
) -> None:
    code = (
        "def count : Nat → Nat\n  | 0 => 0\n  | n + 1 => count n\n"
        "theorem count_zero : count 0 = 0 := rfl\n"
        "partial def loop (n : Nat) : Nat := loop n\n"
        "theorem loop_eq : loop = loop := rfl\n"
    )
    result = real.check(code)
    assert result.valid, result


@pytest.mark.lean
def test_real_verifier_rejects_an_edited_statement(real: LeanChecker) -> None:
    # The submission's environment proves `n = n`; the reference poses `n + 1 = n`.
    with real.pool.lease("") as process:
        sub = process.request(
            {"cmd": "theorem hard (n : Nat) : n = n := rfl", "env": process.header_env}, 120
        )
        sub_pickle = process.pickle(int(sub["env"]), 120)
        ref = process.request({"cmd": REAL_STATEMENT + " sorry", "env": process.header_env}, 120)
        ref_pickle = process.pickle(int(ref["env"]), 120)
    verdict = real.verifier.verify(
        sub_pickle, imports=["Init"], theorem=["hard"], reference=real.verifier.export(ref_pickle)
    )
    assert verdict.status is VerifyStatus.REJECTED and verdict.step == "statement", verdict


@pytest.mark.lean
def test_real_lemma_under_mathlib_is_proved(real: LeanChecker) -> None:
    from tests.tutor.lean.real_lean import REAL_MANIFEST

    if not REAL_MANIFEST.get("mathlib"):
        pytest.skip("the installed project has no Mathlib (LEANCOACH_MATHLIB=1 make lean)")
    statement = "lemma comm' (a b : ℕ) : a + b = b + a := by"
    result = real.check_proof(statement, "  omega", "import Mathlib")
    assert result.valid, result


# Closes stdout first, and only then says why on stderr: the order that makes stdout's end of
# file the first thing the checker sees (as a verifier killed for memory can).
_DIES_STDOUT_FIRST = (
    "import os, sys, time\nos.close(1)\ntime.sleep(0.2)\n"
    "sys.stderr.write('INTERNAL PANIC: out of memory\\n')\nsys.stderr.flush()\nos._exit(1)\n"
)


def test_why_a_verifier_died_reaches_the_reason_whichever_stream_ends_first(
    tmp_path: Path,
) -> None:
    script = tmp_path / "dies.py"
    script.write_text(_DIES_STDOUT_FIRST)
    verifier = KernelVerifier(fake_config(verifier_command=(sys.executable, str(script))))
    try:
        with pytest.raises(CouldNotCheck) as died:
            verifier._server(("Init",))  # noqa: SLF001  (the start under test)
    finally:
        verifier.close()
    assert "exited with code 1" in str(died.value) and "out of memory" in str(died.value)
