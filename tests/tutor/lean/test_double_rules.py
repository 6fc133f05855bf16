"""The doubles refuse what real Lean refuses (tests/fakes/lean_rules.py cites the upstream file
for each rule), and the product's defaults pass where Lean would pass.

A double that accepted what Lean refuses would let the suite pass while the first real run
fails: `lemma` on a core-only install, `import Mathlib` under a too-small address space, a
verifier without Init.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.fakes import lean_rules
from tests.tutor.lean.conftest import FAKE_COMMAND
from tutor.lean import LeanChecker, LeanConfig, LeanUnavailable
from tutor.lean.checker import checker_from_environment
from tutor.lean.kernel_check import VerifyConfig, VerifyStatus
from tutor.lean.repl import ReplProcess, SpawnSpec
from tutor.lean.sandbox import ChildLimits

FAKE_LEAN = [sys.executable, str(Path(__file__).resolve().parents[2] / "fakes" / "fake_lean.py")]


def _raw_repl(memory_mb: int | None = None) -> ReplProcess:
    return ReplProcess(SpawnSpec(argv=list(FAKE_COMMAND), limits=ChildLimits(memory_mb=memory_mb)))


# -- `lemma` is Mathlib's ------------------------------------------------------------------


def test_lemma_is_a_parse_error_without_mathlib(checker: LeanChecker) -> None:
    result = checker.check("lemma x : True := trivial\n")
    [error] = result.errors
    assert error.message == lean_rules.LEMMA_WITHOUT_MATHLIB and error.line == 1
    assert not result.valid


def test_lemma_declares_a_theorem_under_mathlib(checker: LeanChecker) -> None:
    result = checker.check("import Mathlib\nlemma x : True := trivial\n")
    assert result.valid, result


def test_the_double_gives_lemma_and_in_their_infotree_kinds() -> None:
    process = _raw_repl()
    try:
        header = process.request({"cmd": "import Mathlib"}, 10)
        kinds = []
        for cmd in [
            "lemma x : True := trivial",
            "open Nat in\ntheorem y : True := trivial",
            "set_option maxHeartbeats 1000 in\ntheorem z : True := trivial",
            "theorem w : True := trivial",
        ]:
            reply = process.request({"cmd": cmd, "env": header["env"], "infotree": "full"}, 10)
            kinds.append(reply["infotree"][0]["node"]["stx"]["kind"])
    finally:
        process.kill()
    assert kinds == [
        "lemma",
        "Lean.Parser.Command.in",
        "Lean.Parser.Command.in",
        "Lean.Parser.Command.declaration",  # as recorded: repl/infotree_theorem.expected.out
    ]


# -- the memory an `import Mathlib` needs --------------------------------------------------


def test_mathlib_does_not_import_under_the_old_8_gb_limit(
    make_checker: Callable[..., LeanChecker],
) -> None:
    checker = make_checker(memory_mb=8192)
    with pytest.raises(LeanUnavailable) as refused:
        checker.check("import Mathlib\ntheorem t : True := trivial\n")
    assert "out of memory" in str(refused.value)
    assert "LEANCOACH_LEAN_MEMORY_MB" in str(refused.value)
    # Remembered for the header: the next check says so without starting Lean again.
    spawned = checker.pool.stats.spawned
    with pytest.raises(LeanUnavailable):
        checker.check("import Mathlib\ntheorem u : True := trivial\n")
    assert checker.pool.stats.spawned == spawned


def test_the_product_defaults_leave_room_for_a_mathlib_import(
    make_checker: Callable[..., LeanChecker],
) -> None:
    need = lean_rules.MATHLIB_ADDRESS_SPACE_MB
    for memory_mb in (LeanConfig().memory_mb, VerifyConfig().memory_mb):
        assert memory_mb is not None and memory_mb >= need
    app = checker_from_environment()
    try:
        assert app.config.memory_mb is not None and app.config.memory_mb >= need
    finally:
        app.close()
    checker = make_checker(memory_mb=LeanConfig().memory_mb)
    assert checker.check("import Mathlib\ntheorem t : True := trivial\n").valid


def test_mapped_library_pages_do_not_recycle_a_repl(
    make_checker: Callable[..., LeanChecker], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A Mathlib REPL is several GB resident in mapped .olean files (shared, clean pages):
    # recycling on VmRSS restarted it after nearly every check. Its own memory is RssAnon.
    monkeypatch.setenv("FAKE_MATHLIB_RESIDENT_MB", "160")
    checker = make_checker()
    checker.pool.limits = type(checker.pool.limits)(max_processes=2, recycle_rss_mb=120.0)
    first = checker.check("import Mathlib\ntheorem t : True := trivial\n-- fake: stats")
    second = checker.check("import Mathlib\ntheorem u : True := trivial\n-- fake: stats")
    assert first.valid and second.valid
    assert checker.pool.stats.recycled == 0 and checker.pool.stats.spawned == 1
    [process] = checker.pool.idle_processes()
    with open(f"/proc/{process.pid}/status", encoding="ascii") as status:
        vm_rss_kb = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
    assert vm_rss_kb / 1024 > 160 > (process.rss_mb() or 0)


# -- the verifier's environment must hold Init ---------------------------------------------


def test_the_verifier_double_refuses_to_start_without_init() -> None:
    done = subprocess.run(
        [*FAKE_LEAN, "serve", "--imports", "Mathlib"],
        input="",
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2 and "must include Init" in done.stderr


def test_the_verifier_double_cannot_import_mathlib_under_8_gb() -> None:
    from tutor.lean.kernel_check import KernelVerifier

    verifier = KernelVerifier(
        VerifyConfig(verifier_command=tuple(FAKE_LEAN), use_sandbox=False, memory_mb=8192)
    )
    pickle = json.dumps({"fake_pickle": 1, "imports": ["Init", "Mathlib"], "decls": []}).encode()
    try:
        verdict = verifier.verify(pickle, imports=["Init", "Mathlib"], theorem=None, reference=None)
    finally:
        verifier.close()
    assert verdict.status is VerifyStatus.UNAVAILABLE and "out of memory" in verdict.reason


# -- native computation at v4.32: an axiom per use, and nothing for the kernel to run ------


def test_native_decide_declares_its_own_axiom_as_lean_4_32_does(tmp_path: Path) -> None:
    # Not the deprecated `Lean.ofReduceBool`: the tactic asserts its result with a fresh
    # axiom named after the theorem, a constant of the file itself (lean_rules cites it).
    process = _raw_repl()
    try:
        header = process.request({"cmd": ""}, 10)
        cmd = "theorem big : 2 ^ 64 > 5 := by\n  native_decide"
        env = process.request({"cmd": cmd, "env": header["env"]}, 10)["env"]
        printed = process.request({"cmd": "#print axioms big", "env": env}, 10)
        [info] = printed["messages"]
        axiom = lean_rules.native_decide_axiom("big")
        assert info["data"] == f"'big' depends on axioms: [{axiom}]"
        pickled = tmp_path / "env.olean"
        process.request({"pickleTo": str(pickled), "env": env}, 10)
    finally:
        process.kill()
    decls = {d["name"]: d for d in json.loads(pickled.read_text())["decls"]}
    assert decls[axiom]["kind"] == "axiom" and "big" in decls


def test_the_verifier_double_sends_no_native_reduction_to_the_kernel(tmp_path: Path) -> None:
    from tutor.lean.kernel_check import KernelVerifier

    decl = {
        "name": "t",
        "parts": ["t"],
        "kind": "thm",
        "type": "2 ^ 64 > 5",
        "text": "theorem t : 2 ^ 64 > 5 := of_decide_eq_true (Lean.ofReduceBool _ _ rfl)",
    }
    pickle = json.dumps({"fake_pickle": 1, "imports": ["Init"], "decls": [decl]}).encode()
    verifier = KernelVerifier(VerifyConfig(verifier_command=tuple(FAKE_LEAN), use_sandbox=False))
    try:
        verdict = verifier.verify(pickle, imports=["Init"], theorem=["t"], reference=None)
    finally:
        verifier.close()
    assert verdict.status is VerifyStatus.UNAVAILABLE and verdict.step == "replay"
    assert "Lean.ofReduceBool" in verdict.reason and "runs none" in verdict.reason


# -- where a rule does not apply to this design --------------------------------------------


def test_the_product_never_compiles_with_lean_o() -> None:
    # `lean -o` refuses a source outside `--root` (lean4 src/Lean/Util/Path.lean,
    # `moduleNameOfFileName`: "input file ... must be contained in root directory"). The
    # verification step gets the checked environment from the REPL (`pickleTo`) instead, so
    # no double needs that rule: this keeps it so.
    source = Path(__file__).resolve().parents[3] / "tutor" / "lean"
    for path in source.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert '"-o"' not in text and "compile_command" not in text, path
