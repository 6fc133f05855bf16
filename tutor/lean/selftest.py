"""The Lean checker's self-test: golden cases through the exact path the app uses.

    python -m tutor.lean.selftest          # `make lean` ends with it, `make lean-check` reruns it

Each case is checked by a LeanChecker built as the app builds one (the installed REPL and
kernel verifier, the same sandbox and limits) and prints one line. A failure names the step
that failed and the command line that ran it. The result is written to
`<lean home>/selftest.json` (tutor.lean.detect.lean_home), which `/healthz` shows to admins
(`last_result()`); the exit code is 0 only when every case came out as expected.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tutor.lean.checker import (
    LeanChecker,
    checker_from_environment,
    split_header,
    verifier_imports,
)
from tutor.lean.detect import lean_home, manifest_path
from tutor.lean.kernel_check import export_argv, serve_argv
from tutor.lean.types import CheckResult, LeanUnavailable

RESULT_FILE = "selftest.json"

PROVED = "proved"
NOT_PROVED = "not proved"  # a definite verdict: Lean or the kernel said no
REFUSED = "refused before Lean ran"  # the gate
COULD_NOT_CHECK = "could not check"


@dataclass(frozen=True)
class Case:
    name: str
    expected: str
    run: Callable[[LeanChecker], CheckResult]
    mathlib: bool = False  # only where the installed project has Mathlib
    header: str = ""  # the imports the case's check runs under (the verifier's, with Init)


@dataclass
class Outcome:
    name: str
    expected: str
    got: str
    ok: bool
    detail: str
    seconds: float


def _proof(statement: str, proof: str, header: str = "") -> Callable[[LeanChecker], CheckResult]:
    return lambda checker: checker.check_proof(statement, proof, header)


def _file(code: str) -> Callable[[LeanChecker], CheckResult]:
    return lambda checker: checker.check(code)


CASES = [
    Case(
        "a correct core-Lean proof",
        PROVED,
        _proof("theorem golden_add_zero (n : Nat) : n + 0 = n := by", "  simp"),
    ),
    Case(
        "a correct proof with `lemma` under Mathlib",
        PROVED,
        _proof("lemma golden_comm (a b : ℕ) : a + b = b + a := by", "  omega", "import Mathlib"),
        mathlib=True,
        header="import Mathlib",
    ),
    Case(
        "a false statement",
        NOT_PROVED,
        _proof("theorem golden_false (n : Nat) : n + 1 = n := by", "  simp"),
    ),
    Case(
        "a proof with `sorry`",
        NOT_PROVED,
        _proof("theorem golden_sorry (n : Nat) : n + 0 = n := by", "  sorry"),
    ),
    Case(
        "a proof by `native_decide`",
        NOT_PROVED,
        _proof("theorem golden_native : 2 ^ 10 = 1024 := by", "  native_decide"),
    ),
    Case(
        "a hostile proof (a command after the tactics)",
        REFUSED,
        _proof(
            "theorem golden_hostile (n : Nat) : n + 1 = n := by", '  sorry\n#eval IO.println "x"'
        ),
    ),
    Case(
        "a hostile file (an elaborator attached by an attribute)",
        REFUSED,
        _file(
            'syntax "golden_x" : command\n'
            "@[command_elab golden_x] def goldenElab : Lean.Elab.Command.CommandElab :=\n"
            "  fun _ => pure ()\ngolden_x\n"
        ),
    ),
    Case(
        "a whole file with a recursive definition",
        PROVED,
        _file(
            "def golden_count : Nat → Nat\n  | 0 => 0\n  | n + 1 => golden_count n\n"
            "theorem golden_count_zero : golden_count 0 = 0 := rfl\n"
        ),
    ),
    Case(
        "a theorem with a quoted name",
        PROVED,
        _proof("theorem «golden quoted» (n : Nat) : n + 0 = n := by", "  simp"),
    ),
]


def _classify(result: CheckResult, checker_ran_lean: bool) -> str:
    if result.valid:
        return PROVED
    if result.could_not_check:
        return COULD_NOT_CHECK
    if not checker_ran_lean:
        return REFUSED
    return NOT_PROVED


def _failed_step(checker: LeanChecker, result: CheckResult, header: str = "") -> str:
    """The step that failed and the command line that ran it, as kernel_check builds it
    (before the sandbox wraps it)."""
    error = result.error or ""
    repl = shlex.join(checker.repl_command or [])
    if "(step: " not in error:
        return f"step: the REPL; command: {repl}"
    step = error.split("(step: ", 1)[1].split(")", 1)[0]
    verifier = checker.verifier.config.verifier_command
    if step in ("pickle", "reference"):
        return f"step: {step}; command: {repl}"
    if not verifier:
        built = _manifest().get("verifier_error") or "no verifier in the manifest"
        return f"step: {step}; command: the verifier's build: {built}"
    config = checker.verifier.config
    if step == "export":
        argv = export_argv(config)
    else:
        argv = serve_argv(config, verifier_imports(split_header(header).header))
    return f"step: {step}; command: {shlex.join(argv)}"


def _detail(result: CheckResult) -> str:
    if result.valid:
        return f"kernel-checked; axioms: {', '.join(result.axioms or []) or 'none'}"
    if result.error:
        return result.error
    first = result.errors[0].message if result.errors else "no error message"
    return first.splitlines()[0][:200]


def run_case(checker: LeanChecker, case: Case) -> Outcome:
    started = time.monotonic()
    spawned_before = checker.pool.stats.spawned + checker.pool.stats.reused
    try:
        result = case.run(checker)
    except LeanUnavailable as exc:
        return Outcome(
            case.name,
            case.expected,
            COULD_NOT_CHECK,
            False,
            f"Lean unavailable: {exc}",
            time.monotonic() - started,
        )
    ran_lean = checker.pool.stats.spawned + checker.pool.stats.reused > spawned_before
    got = _classify(result, ran_lean)
    ok = got == case.expected
    detail = _detail(result)
    if not ok and got == COULD_NOT_CHECK:
        detail += f" [{_failed_step(checker, result, case.header)}]"
    return Outcome(case.name, case.expected, got, ok, detail, time.monotonic() - started)


def _manifest() -> dict[str, Any]:
    try:
        manifest = json.loads(manifest_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return manifest if isinstance(manifest, dict) else {}


def _has_mathlib() -> bool:
    return bool(_manifest().get("mathlib"))


def run(checker: LeanChecker | None = None, *, out: Any = None) -> dict[str, Any]:
    """Run every case, print one line each, write and return the result."""
    out = out or sys.stdout
    own = checker is None
    checker = checker or checker_from_environment()
    outcomes: list[Outcome] = []
    reason = None
    try:
        if not checker.available:
            reason = checker.unavailable_reason
            print(f"FAIL Lean is unavailable: {reason}", file=out)
        else:
            mathlib = _has_mathlib()
            for case in CASES:
                if case.mathlib and not mathlib:
                    print(f"skip {case.name}: the installed project has no Mathlib", file=out)
                    continue
                outcome = run_case(checker, case)
                outcomes.append(outcome)
                mark = "ok  " if outcome.ok else "FAIL"
                print(
                    f"{mark} {outcome.name}: expected {outcome.expected}, got {outcome.got} "
                    f"({outcome.seconds:.1f} s) - {outcome.detail}",
                    file=out,
                    flush=True,
                )
    finally:
        if own:
            checker.close()
    passed = sum(o.ok for o in outcomes)
    result = {
        "ran_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "ok": reason is None and bool(outcomes) and passed == len(outcomes),
        "summary": reason or f"{passed}/{len(outcomes)} golden cases as expected",
        "status": checker.status().reason,
        "cases": [asdict(o) for o in outcomes],
    }
    _write(result)
    print(f"self-test: {result['summary']} (written to {result_path()})", file=out)
    return result


def result_path() -> Path:
    return lean_home() / RESULT_FILE


def _write(result: dict[str, Any]) -> None:
    path = result_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(result, indent=2), encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        print(f"self-test: could not write {path}: {exc}", file=sys.stderr)


def last_result() -> dict[str, Any] | None:
    """The last self-test's result (for /healthz), or None when none was recorded here."""
    try:
        data = json.loads(result_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def main() -> int:
    return 0 if run()["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
