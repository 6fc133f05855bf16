"""A failing self-test line names the step and the exact command line the app ran for it
(tutor/lean/kernel_check.py builds both: `export --stdin`, `serve --imports Init,...` with the
case's own imports), not a placeholder."""

from __future__ import annotations

import sys
from collections.abc import Callable

from tutor.lean import LeanChecker
from tutor.lean.kernel_check import VerifyConfig
from tutor.lean.selftest import COULD_NOT_CHECK, PROVED, Case, run_case
from tutor.lean.types import CheckResult

VERIFIER = ("/opt/lean/leancoach-verify",)


def _could_not_check(step: str) -> Callable[[LeanChecker], CheckResult]:
    error = f"could not confirm the proof with the independent kernel check (step: {step}): boom"
    return lambda checker: CheckResult(valid=False, error=error)


def _line(step: str, header: str = "") -> str:
    checker = LeanChecker(
        [sys.executable, "-c", "pass"],
        sandbox=False,
        verify=VerifyConfig(verifier_command=VERIFIER),
    )
    try:
        outcome = run_case(checker, Case("case", PROVED, _could_not_check(step), header=header))
    finally:
        checker.close()
    assert outcome.got == COULD_NOT_CHECK and not outcome.ok
    return outcome.detail


def test_an_export_failure_names_the_export_command_the_app_runs() -> None:
    assert _line("export").endswith(
        "[step: export; command: /opt/lean/leancoach-verify export --stdin]"
    )


def test_a_verifier_failure_names_serve_with_the_cases_imports() -> None:
    assert _line("replay", "import Mathlib").endswith(
        "[step: replay; command: /opt/lean/leancoach-verify serve --imports Init,Mathlib]"
    )
    assert _line("axioms").endswith("command: /opt/lean/leancoach-verify serve --imports Init]")
