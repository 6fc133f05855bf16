"""How the teacher's pages say things: durations, Lean's message kinds, the coach's kinds.

The stored values stay tokens (`unsolved_goals`, `dont`, a timedelta); these turn them into
the words a teacher reads. Unknown tokens fall back to their words, never to nothing.
"""

from __future__ import annotations

from datetime import timedelta

from tutor.lean.types import DiagnosticKind as K

# Lean's message kinds (tutor.lean.types.DiagnosticKind) as a teacher reads them.
ERROR_KIND_LABELS: dict[str, str] = {
    K.UNSOLVED_GOALS: "goals left unsolved",
    K.TYPE_MISMATCH: "type mismatch",
    K.UNKNOWN_IDENTIFIER: "unknown name",
    K.UNKNOWN_CONSTANT: "unknown constant",
    K.LINARITH_FAILED: "linarith failed",
    K.OMEGA_FAILED: "omega failed",
    K.SIMP_NO_PROGRESS: "simp made no progress",
    K.REWRITE_FAILED: "rewrite failed",
    K.SYNTAX: "syntax error",
    K.TIMEOUT: "ran out of time",
    K.SORRY: "sorry left in",
    K.FAILED_TO_SYNTHESIZE: "missing instance",
    K.RFL_FAILED: "rfl failed",
    K.DECIDE_FAILED: "decide failed",
    K.APPLY_FAILED: "apply or exact failed",
    K.INTRO_FAILED: "intro failed",
    K.CASES_ERROR: "cases or induction error",
    K.NO_GOALS: "no goals left to prove",
    K.CALC_ERROR: "calc error",
    K.PLACEHOLDER: "placeholder Lean could not fill",
    K.FUNCTION_EXPECTED: "function expected",
    K.INFER_FAILED: "type could not be inferred",
    K.INVALID_FIELD: "invalid field",
    K.ANONYMOUS_CONSTRUCTOR: "anonymous constructor error",
    K.AMBIGUOUS: "ambiguous name",
    K.TACTIC_FAILED: "tactic failed",
    K.UNKNOWN_TACTIC: "unknown tactic",
    K.TERMINATION: "termination not shown",
    K.KERNEL: "kernel error",
    K.DEPRECATED: "deprecated name",
    K.UNUSED_VARIABLE: "unused variable",
    K.DECLARATION: "declaration error",
    K.OTHER: "other error",
}

# The coach's suggestion kinds (tutor.coach.types.SuggestionKind).
# The coach's own text says what to do or avoid ("Try rfl.", "Don't use simp here."): the
# label names what it is.
SUGGESTION_KIND_LABELS: dict[str, str] = {"do": "Advice", "dont": "Warning"}


def _words(token: str) -> str:
    return token.replace("_", " ").strip() or "other"


def error_kind_label(kind: str) -> str:
    return ERROR_KIND_LABELS.get(kind, _words(kind))


def suggestion_kind_label(kind: str) -> str:
    return SUGGESTION_KIND_LABELS.get(kind, _words(kind).capitalize())


def duration_text(span: timedelta) -> str:
    """ "3 s", "2 min 5 s", "1 h 20 min", "2 d 3 h": the two largest units, whole seconds."""
    seconds = max(round(span.total_seconds()), 0)
    days, rest = divmod(seconds, 86_400)
    hours, rest = divmod(rest, 3_600)
    minutes, secs = divmod(rest, 60)
    parts = [(days, "d"), (hours, "h"), (minutes, "min"), (secs, "s")]
    first = next((i for i, (n, _) in enumerate(parts) if n), len(parts) - 1)
    # A zero second unit is left out ("2 min", not "2 min 0 s").
    shown = [parts[first]] + [p for p in parts[first + 1 : first + 2] if p[0]]
    return " ".join(f"{n} {unit}" for n, unit in shown)
