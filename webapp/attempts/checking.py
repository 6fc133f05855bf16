"""The web app's boundary to the checker (tutor.lean) and the coach (tutor.coach).

Lean reports positions in the whole document it checked (header, statement, proof); the
student wrote only the proof, so everything stored and shown is shifted to proof lines:
proof line 1 is the first line the student typed. A message about the statement itself
(e.g. "unsolved goals" at its `by`) gets line 0: "about the proof as a whole".

Tests swap `checker_factory` / `coach_factory` (module attributes) or set LEAN_REPL_CMD to
the protocol test double; product code never imports anything from tests/.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from tutor.lean.types import CheckResult, Diagnostic, LeanUnavailable

log = logging.getLogger(__name__)

DEFAULT_COACH_SOURCE = "compiler"


def _default_checker() -> Any:
    from tutor.lean import get_checker

    return get_checker()


def _default_coach(source: str) -> Any:
    from tutor.coach import make_coach

    return make_coach(source)


checker_factory: Callable[[], Any] = _default_checker
coach_factory: Callable[[str], Any] = _default_coach


def _with_verifier(coach: Any, header: str) -> Any:
    """The compiler coach tries its concrete steps in Lean (tutor/coach/verify.py, within its
    stated budget) on the same pooled checker before offering them: on by default wherever Lean
    runs (this is only reached after Lean checked the attempt); LEANCOACH_VERIFY_HINTS=0 turns it
    off, and the coach then words its steps as something to try."""
    from tutor.coach.compiler import CompilerCoach
    from tutor.coach.verify import HintVerifier

    if os.environ.get("LEANCOACH_VERIFY_HINTS", "1") == "0" or not isinstance(coach, CompilerCoach):
        return coach
    checker = checker_factory()
    if not callable(getattr(checker, "session", None)):
        return coach  # a checker without REPL sessions cannot try a step
    coach.config = replace(coach.config, verifier=HintVerifier(lambda: checker.session(header)))
    return coach


def coach_source() -> str:
    return os.environ.get("LEANCOACH_COACH_SOURCE", "").strip() or DEFAULT_COACH_SOURCE


def proof_offset(statement: str, header: str) -> int:
    """How many document lines come before the student's first proof line."""
    header_lines = len(header.rstrip("\n").split("\n")) if header.strip() else 0
    return header_lines + len(statement.rstrip("\n").split("\n"))


@dataclass
class CheckOutcome:
    """What Lean said, or why it could not say anything (never both)."""

    result: CheckResult | None
    unavailable: str | None = None  # "Lean unavailable: <reason>"
    failure: str | None = None  # the check ran but could not finish (timeout, crash)


def run_check(statement: str, proof: str, header: str) -> CheckOutcome:
    try:
        result = checker_factory().check_proof(statement, proof, header)
    except LeanUnavailable as exc:
        return CheckOutcome(result=None, unavailable=f"Lean unavailable: {exc}")
    if result.could_not_check:
        if result.timed_out:
            why = "Lean ran out of time on this proof"
        elif result.crashed:
            why = "the Lean process crashed"
        else:
            why = result.error or "unknown reason"
        return CheckOutcome(result=result, failure=f"Could not check: {why}")
    return CheckOutcome(result=result)


def explore(statement: str, proof: str, header: str, *, timeout_s: float) -> CheckResult:
    """Goals and messages of a proof being typed (webapp/attempts/live_goals.py), from the
    checker's exploration pool: never a verdict. Raises LeanUnavailable."""
    return checker_factory().explore_proof(statement, proof, header, timeout_s=timeout_s)


def prestart(header: str) -> bool:
    """Start the checker's REPL with `header`'s imports before the first check needs it;
    False when Lean is unavailable or the imports fail (LeanChecker.prestart says why in
    the log and raises nothing; the first check then reports it)."""
    checker = checker_factory()
    started = bool(checker.prestart(header))
    # Goals while typing run in the exploration pool (live_goals.py): one REPL there too.
    if os.environ.get("LEANCOACH_LIVE_GOALS_PRESTART", "1") != "0":
        explore = getattr(checker, "prestart_explore", None)
        if callable(explore):
            explore(header)
    return started


def to_proof_lines(diagnostic: Diagnostic, offset: int) -> Diagnostic:
    line = max(diagnostic.line - offset, 0)
    end_line = diagnostic.end_line - offset if diagnostic.end_line is not None else None
    return replace(
        diagnostic, line=line, end_line=max(end_line, 0) if end_line is not None else None
    )


@dataclass
class CoachOutcome:
    # (proof line or 0, text, kind, extra): extra {"reveals": True} marks a coach hint
    suggestions: list[tuple[int, str, str, dict[str, Any]]]
    source: str
    detail: str = ""  # fallback reason or why there is no advice
    # A suggestion that gives an answer away was kept: it counts as a hint the student used.
    gives_hint: bool = False


def _for_course(coach: Any, header: str, statement: str) -> Any:
    """The compiler coach told whether the course has Mathlib (the exercise's header imports
    it): a core-Lean course never hears of Mathlib tactics and lemmas."""
    from tutor.coach.compiler import CompilerCoach

    if not isinstance(coach, CompilerCoach) or coach.config.mathlib is not None:
        return coach
    coach.config = replace(coach.config, mathlib=_course_has_mathlib(header, statement))
    return coach


def _course_has_mathlib(header: str, statement: str) -> bool:
    """The exercise's header imports Mathlib (or its statement uses Mathlib notation)."""
    from tutor.coach.compiler import uses_mathlib

    return "Mathlib" in header or uses_mathlib(statement)


def ask_coach(
    statement: str,
    proof: str,
    header: str,
    result: CheckResult,
    reference_proof: str,
    exercise_id: int | None = None,
    student_id: int | None = None,
) -> CoachOutcome:
    """The coach reads the statement and proof as one text (with the document's lines, so
    Lean's positions match); its suggestions are shifted back to proof lines. With what
    the student's own teachers taught it (webapp/attempts/teaching.py). An accepted
    proof gets none (there is nothing to fix, and advice there only fills the review queue);
    advice that gives the answer away is kept only for a student who has opened every hint
    the exercise has, and then counts as a hint (`gives_hint`)."""
    from tutor.coach.names import mathlib_names_in
    from tutor.coach.types import CoachUnavailable

    if result.valid:
        return CoachOutcome([], "")
    source = coach_source()
    document = statement.rstrip("\n") + "\n" + proof
    shift = len(statement.rstrip("\n").split("\n"))
    header_lines = proof_offset(statement, header) - shift
    diagnostics = [replace(d, line=max(d.line - header_lines, 1)) for d in result.diagnostics]
    try:
        from webapp.attempts.teaching import taught

        coach = _for_course(_with_verifier(coach_factory(source), header), header, statement)
        coach = taught(coach, exercise_id, student_id)
        feedback = coach.advise(statement, document, diagnostics, reference_proof or None)
    except CoachUnavailable as exc:
        return CoachOutcome([], source, f"The coach ({source}) is unavailable: {exc}")
    except Exception as exc:  # the verdict stands even if advice fails; say so
        log.exception("the coach (%s) failed", source)
        return CoachOutcome([], source, f"The coach ({source}) failed: {exc}")
    answers_allowed = _hints_exhausted(student_id, exercise_id)
    core = not _course_has_mathlib(header, statement)
    suggestions = [
        (max((s.line or 0) - shift, 0), s.text, s.kind, {"reveals": True} if s.reveals else {})
        for s in feedback.suggestions
        if (answers_allowed or not s.reveals)
        and not _AGENT_TOOLS.search(s.text)
        and not (core and mathlib_names_in(s.text, allowed=proof))
    ]
    detail = (
        f"fell back from {feedback.requested_source}: {feedback.fallback_reason}"
        if feedback.fell_back
        else ""
    )
    gives_hint = any(extra.get("reveals") for *_, extra in suggestions)
    return CoachOutcome(suggestions, feedback.source, detail, gives_hint)


# The prover's agent tools (tutor/prover/tools.py): a model coach prompted with them may name
# them, but a student cannot run them, so such advice is not shown.
_AGENT_TOOLS = re.compile(r"\b(rg_in_mathlib|lean_check_file|lean_write_file)\b")


def _hints_exhausted(student_id: int | None, exercise_id: int | None) -> bool:
    """The student has opened every hint the exercise has (or it has none): only then is an
    answer from the coach offered."""
    if student_id is None or exercise_id is None:
        return False
    from webapp.courses.lessons import hints_exhausted

    return hints_exhausted(student_id, exercise_id)
