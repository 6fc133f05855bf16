"""The prover's one door to the checker's full verdict, and verdict bookkeeping.

Everything the prover calls "valid" went through tutor.lean's `check_proof`: the posed
statement (never the model's copy of it) followed by the model's tactic block; no errors,
no sorry, standard axioms only. Checker failures become a CheckResult marked
could-not-check, never a verdict.
"""

from __future__ import annotations

import logging
import re
import time
from typing import Protocol

from tutor.lean.types import CheckResult, Diagnostic, LeanUnavailable
from tutor.prover.problem import Problem
from tutor.prover.trajectory import Verdict

log = logging.getLogger(__name__)

STATEMENT_CHANGED = (
    "the file does not contain the posed statement unchanged (the theorem's name, "
    "arguments and goal must stay exactly as given)"
)


class ProofChecker(Protocol):
    """The part of tutor.lean.LeanChecker the prover uses for verdicts."""

    def check_proof(self, statement: str, proof: str, header: str = "") -> CheckResult: ...


def full_check(checker: ProofChecker | None, problem: Problem, tactics: str) -> CheckResult:
    """The checker's verdict on `tactics` as the proof of the posed statement."""
    if checker is None:
        return CheckResult(valid=False, error="no Lean checker is configured for this run")
    started = time.monotonic()
    try:
        return checker.check_proof(problem.statement_head + " := by", tactics, problem.header)
    except LeanUnavailable as exc:
        return CheckResult(valid=False, error=f"Lean is unavailable: {exc}")
    except Exception as exc:  # a checker bug must not become a verdict either way
        log.exception("checker crashed on problem %s", problem.id)
        return CheckResult(
            valid=False,
            crashed=True,
            error=f"checker error: {exc}",
            elapsed_s=time.monotonic() - started,
        )


def full_check_file(checker: ProofChecker | None, problem: Problem, code: str) -> CheckResult:
    """The verdict on a complete Lean file the model wrote: its proof of the posed
    statement is cut out and checked after the statement as posed. A file whose statement
    differs is wrong (not could-not-check). Helper lemmas before the theorem are not
    carried over: the proof must stand inside the posed theorem's tactic block."""
    tactics = extract_tactics(problem, code)
    if tactics is None:
        return CheckResult(
            valid=False,
            diagnostics=[
                Diagnostic(
                    line=1,
                    column=0,
                    end_line=None,
                    end_column=None,
                    severity="error",
                    message=STATEMENT_CHANGED,
                )
            ],
        )
    return full_check(checker, problem, tactics)


def extract_tactics(problem: Problem, code: str) -> str | None:
    """The tactic block after the posed statement's `:= by` in `code`, or None when the
    statement is not there (compared token by token, so line breaks may differ)."""
    words = problem.statement_head.split()
    pattern = r"\s+".join(re.escape(word) for word in words) + r"\s*:=\s*by\b"
    match = re.search(pattern, code)
    if match is None:
        return None
    return code[match.end() :].strip("\n")


def verdict_of(result: CheckResult) -> Verdict:
    if result.valid:
        return Verdict.VALID
    if result.could_not_check:
        return Verdict.COULD_NOT_CHECK
    return Verdict.INVALID
