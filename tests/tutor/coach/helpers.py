"""Build Diagnostics directly (kind set by hand), so these tests never wait on tutor.lean's
classifier."""

from __future__ import annotations

from tutor.lean.types import Diagnostic, DiagnosticKind


def diag(
    line: int,
    column: int,
    message: str,
    kind: DiagnosticKind,
    end: tuple[int, int] | None = None,
    severity: str = "error",
    goal: str | None = None,
) -> Diagnostic:
    if goal is None and kind is DiagnosticKind.UNSOLVED_GOALS:
        goal = message.split("\n", 1)[1]
    return Diagnostic(
        line=line,
        column=column,
        end_line=end[0] if end else None,
        end_column=end[1] if end else None,
        severity=severity,
        message=message,
        kind=kind,
        goal=goal,
    )


K = DiagnosticKind

# Openings of the messages in bench/data/coach_labelled.jsonl -> kind (a test-local mapping).
LABELLED_KINDS = (
    ("unsolved goals", K.UNSOLVED_GOALS),
    ("application type mismatch", K.TYPE_MISMATCH),
    ("type mismatch", K.TYPE_MISMATCH),
    ("unknown identifier", K.UNKNOWN_IDENTIFIER),
    ("linarith failed", K.LINARITH_FAILED),
    ("omega could not", K.OMEGA_FAILED),
    ("simp made no progress", K.SIMP_NO_PROGRESS),
    ("tactic 'rewrite' failed", K.REWRITE_FAILED),
    ("declaration uses 'sorry'", K.SORRY),
    ("unexpected", K.SYNTAX),
)


def from_repl(message: dict) -> Diagnostic:
    data = message["data"]
    kind = next((k for prefix, k in LABELLED_KINDS if data.startswith(prefix)), K.OTHER)
    end = message.get("endPos")
    return diag(
        message["pos"]["line"],
        message["pos"]["column"],
        data,
        kind,
        end=(end["line"], end["column"]) if end else None,
        severity=message["severity"],
        goal=data.split("\n", 1)[1] if kind is K.UNSOLVED_GOALS else None,
    )


# Lean's messages, in the wording Lean 4 prints them, for the rule tests that build them.
def mismatch(term: str, has: str, want: str) -> str:
    return f"Type mismatch\n  {term}\nhas type\n  {has}\nbut is expected to have type\n  {want}"


def app_mismatch(arg: str, has: str, want: str, app: str) -> str:
    return (
        f"Application type mismatch: The argument\n  {arg}\nhas type\n  {has}\nbut is expected "
        f"to have type\n  {want}\nin the application\n  {app}"
    )


def rewrite_failed(pattern: str, target: str, context: str) -> str:
    return (
        "Tactic `rewrite` failed: Did not find an occurrence of the pattern\n  "
        f"{pattern}\nin the target expression\n  {target}\n\n{context}\n⊢ {target}"
    )
