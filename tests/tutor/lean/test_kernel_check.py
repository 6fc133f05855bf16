"""The independent verification step (tutor/lean/kernel_check.py) against its test double,
tests/fakes/fake_lean.py: a real subprocess speaking `lean -o` and the verifier's contract.
Every case asserts that only a confirmation from that step makes a proof valid."""

from __future__ import annotations

import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tutor.lean import LeanChecker
from tutor.lean.kernel_check import KernelVerifier, VerifyConfig, VerifyStatus

FAKE_LEAN = (sys.executable, str(Path(__file__).resolve().parents[2] / "fakes" / "fake_lean.py"))
STATEMENT = "theorem hard (n : Nat) : n + 0 = n := by"


def fake_config(**overrides: object) -> VerifyConfig:
    options: dict[str, object] = {
        "compile_command": FAKE_LEAN,
        "verifier_command": FAKE_LEAN,
        "timeout_s": 5.0,
        "use_sandbox": False,
    }
    options.update(overrides)
    return VerifyConfig(**options)  # type: ignore[arg-type]


@pytest.fixture
def verified(make_checker: Callable[..., LeanChecker]) -> Callable[..., LeanChecker]:
    def build(**overrides: object) -> LeanChecker:
        return make_checker(verify=fake_config(**overrides))

    return build


def test_a_confirmed_proof_is_valid(verified: Callable[..., LeanChecker]) -> None:
    result = verified().check_proof(STATEMENT, "  simp")
    assert result.valid and result.axioms == [] and result.error is None


@pytest.mark.parametrize(
    ("marker", "expect"),
    [
        ("-- fake: verifier-crash", "could not"),
        ("-- fake: verifier-garbage", "not JSON"),
        ("-- fake: compile-fail", "did not compile"),
    ],
)
def test_anything_unconfirmed_is_could_not_check(
    verified: Callable[..., LeanChecker], marker: str, expect: str
) -> None:
    result = verified().check_proof(STATEMENT, f"  simp\n  {marker}")
    assert not result.valid and result.could_not_check
    assert expect in (result.error or "")


def test_a_hanging_verifier_times_out_as_could_not_check(
    verified: Callable[..., LeanChecker],
) -> None:
    started = time.monotonic()
    result = verified(timeout_s=1.0).check_proof(STATEMENT, "  simp\n  -- fake: verifier-hang")
    assert not result.valid and result.could_not_check
    assert "did not finish within 1 s" in (result.error or "")
    assert time.monotonic() - started < 8


def test_a_kernel_rejection_is_a_definite_error(verified: Callable[..., LeanChecker]) -> None:
    result = verified().check_proof(STATEMENT, "  simp\n  -- fake: kernel-rejects")
    assert not result.valid and not result.could_not_check
    assert any("declaration type mismatch" in d.message for d in result.errors)


def test_an_extra_axiom_found_by_the_verifier_is_refused(
    verified: Callable[..., LeanChecker],
) -> None:
    # The REPL (fast path) saw nothing; the replayed environment shows the axiom.
    result = verified().check_proof(STATEMENT, "  simp\n  -- fake: verifier-axiom Lean.trustMe")
    assert not result.valid
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


def test_a_statement_that_differs_from_the_reference_is_rejected(tmp_path: Path) -> None:
    verifier = KernelVerifier(fake_config())
    verdict = verifier.verify(
        "theorem hard (n : Nat) : n = n := by\n  rfl",
        header_imports=[],
        theorem="hard",
        reference="theorem hard (n : Nat) : n + 1 = n := by\n  sorry",
    )
    assert verdict.status is VerifyStatus.REJECTED
    assert "not the posed one" in verdict.reason


def test_the_name_is_fully_qualified_a_namespaced_twin_does_not_count() -> None:
    # `namespace X` + `theorem hard : True`: the posed `hard` (root) still holds sorry.
    verifier = KernelVerifier(fake_config())
    document = (
        "theorem hard (n : Nat) : n + 1 = n := by\n  sorry\n"
        "namespace X\ntheorem hard (n : Nat) : n + 1 = n := by\n  simp\nend X\n"
    )
    verdict = verifier.verify(
        document,
        header_imports=[],
        theorem="hard",
        reference="theorem hard (n : Nat) : n + 1 = n := by\n  sorry",
    )
    assert verdict.status is VerifyStatus.REJECTED and verdict.axioms == ["sorryAx"]


def test_a_result_forged_by_the_submissions_process_is_never_read(
    verified: Callable[..., LeanChecker],
) -> None:
    # The compile step's code keeps writing "confirmed" files next to its folder from a
    # detached process; the verifier's folder is made later and its nonce is unknown.
    result = verified().check_proof(STATEMENT, "  sorry\n  -- fake: forge-result")
    assert not result.valid
    checker = verified()
    result = checker.check_proof(
        STATEMENT, "  simp\n  -- fake: forge-result\n  -- fake: verifier-crash"
    )
    assert not result.valid and result.could_not_check
    time.sleep(0.2)
    assert checker.check_proof(STATEMENT, "  simp").valid  # the next check is unaffected


def test_config_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from tutor.lean.kernel_check import config_from_environment

    monkeypatch.setenv("LEANCOACH_COMPILE_CMD", shlex.join(FAKE_LEAN))
    monkeypatch.delenv("LEANCOACH_VERIFIER_CMD")
    manifest = {"verifier_command": ["/opt/v", "x"], "cwd": "/p", "sandbox_paths": ["/a"]}
    config = config_from_environment(manifest)
    assert config.compile_command == FAKE_LEAN and config.verifier_command == ("/opt/v", "x")
    assert config.cwd == "/p" and config.sandbox_paths == ("/a",) and config.configured


# -- real Lean: the verifier built by `make lean` (skipped where there is none) ------------


def _real_verifier() -> KernelVerifier:
    from tests.tutor.lean.real_lean import REAL_REPL
    from tutor.lean.detect import manifest_path
    from tutor.lean.kernel_check import config_from_environment

    if REAL_REPL.source != "installer":
        pytest.skip("needs the Lean installed by `make lean` (its manifest names the verifier)")
    import json

    config = config_from_environment(json.loads(manifest_path().read_text()))
    if not config.configured:
        pytest.skip("the installed manifest predates the kernel verifier: rerun `make lean`")
    return KernelVerifier(config)


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
def test_real_verifier_never_confirms_a_false_theorem(proof: str) -> None:
    verifier = _real_verifier()
    verdict = verifier.verify(
        f"{REAL_STATEMENT}\n{proof}\n",
        header_imports=[],
        theorem="hard",
        reference=f"{REAL_STATEMENT}\n  sorry\n",
    )
    assert not verdict.confirmed


@pytest.mark.lean
def test_real_verifier_confirms_a_true_theorem_and_catches_an_edited_statement() -> None:
    verifier = _real_verifier()
    good = "theorem easy (n : Nat) : n + 0 = n := by\n  simp\n"
    reference = "theorem easy (n : Nat) : n + 0 = n := by\n  sorry\n"
    verdict = verifier.verify(good, header_imports=[], theorem="easy", reference=reference)
    assert verdict.confirmed, verdict.reason
    edited = "theorem easy (n : Nat) : n = n := by\n  rfl\n"
    verdict = verifier.verify(edited, header_imports=[], theorem="easy", reference=reference)
    assert verdict.status is VerifyStatus.REJECTED
