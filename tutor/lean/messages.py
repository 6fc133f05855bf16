"""Classify Lean's messages into DiagnosticKind and pull out the goal text Lean printed.

Lean's wording drifts between versions: 'quotes' became `backticks`, some messages gained
a capital ("Type mismatch", "Unknown identifier"), and a few were reworded ("rewrite
failed, did not find instance of the pattern" -> "Tactic `rewrite` failed: Did not find
an occurrence of the pattern"). So we match on the opening words after folding case and
dropping every quote character, and keep a few alternative openings per kind.
"""

from __future__ import annotations

import re

from tutor.lean.types import DiagnosticKind

_QUOTES = re.compile(r"[`'\"‘’“”]")

# (kind, openings after normalisation). Order matters: the first match wins, so the more
# specific openings ("application type mismatch") come before looser ones.
_OPENINGS: tuple[tuple[DiagnosticKind, tuple[str, ...]], ...] = (
    (DiagnosticKind.UNSOLVED_GOALS, ("unsolved goals",)),
    (DiagnosticKind.TYPE_MISMATCH, ("type mismatch", "application type mismatch")),
    (DiagnosticKind.UNKNOWN_IDENTIFIER, ("unknown identifier",)),
    (DiagnosticKind.UNKNOWN_CONSTANT, ("unknown constant", "unknown declaration")),
    (DiagnosticKind.LINARITH_FAILED, ("linarith failed",)),
    (DiagnosticKind.OMEGA_FAILED, ("omega could not", "omega failed")),
    (DiagnosticKind.SIMP_NO_PROGRESS, ("simp made no progress", "simp_all made no progress")),
    (
        DiagnosticKind.REWRITE_FAILED,
        (
            "tactic rewrite failed",
            "rewrite failed",
            "did not find instance of the pattern",
            "did not find an occurrence of the pattern",
            "motive is not type correct",
        ),
    ),
    (
        DiagnosticKind.TIMEOUT,
        (
            "(deterministic) timeout",
            "deterministic timeout",
            "maximum recursion depth has been reached",
        ),
    ),
    (DiagnosticKind.SORRY, ("declaration uses sorry",)),
    (
        DiagnosticKind.SYNTAX,
        ("unexpected token", "unexpected end of input", "unexpected identifier", "expected "),
    ),
)


def normalise(message: str) -> str:
    """Lower-case, quote-free, whitespace-collapsed first line: what the openings match."""
    first_line = message.strip().split("\n", 1)[0]
    return " ".join(_QUOTES.sub("", first_line).lower().split())


def classify(message: str) -> DiagnosticKind:
    """The kind of one Lean message, robust to quote style and capitalisation."""
    opening = normalise(message)
    for kind, openings in _OPENINGS:
        if any(opening.startswith(prefix) for prefix in openings):
            return kind
    # Messages that put the interesting words after a tactic-name prefix, e.g.
    # "linarith failed to find a contradiction" is sometimes reported as
    # "Tactic `linarith` failed: ...". Look for the tactic name near the start.
    head = opening[:60]
    if "linarith" in head and "failed" in head:
        return DiagnosticKind.LINARITH_FAILED
    if "omega" in head and ("could not" in head or "failed" in head):
        return DiagnosticKind.OMEGA_FAILED
    if "rewrite" in head and "failed" in head:
        return DiagnosticKind.REWRITE_FAILED
    return DiagnosticKind.OTHER


_HYPOTHESIS = re.compile(r"^(case\s+\S+|[^\s:][^:]*\s:\s?.*|[^\s:][^:]*\s:=\s.*)$")


def extract_goal(message: str, kind: DiagnosticKind | None = None) -> str | None:
    """The goal block (hypotheses and `⊢ target`) Lean printed inside a message, if any.

    "unsolved goals" prints only goals after its first line, so all of it is the goal
    (several goals stay separated by a blank line). Other messages (linarith, rewrite,
    omega's counterexample is not a goal) print one goal somewhere inside: we take the
    last `⊢` line, its indented continuation lines, and the hypothesis lines just above.
    """
    if "⊢" not in message:
        return None
    kind = kind if kind is not None else classify(message)
    lines = message.split("\n")
    if kind is DiagnosticKind.UNSOLVED_GOALS:
        goal = "\n".join(lines[1:]).strip("\n")
        return goal or None
    turnstile = max(i for i, line in enumerate(lines) if line.lstrip().startswith("⊢"))
    end = turnstile + 1
    while end < len(lines) and lines[end].startswith((" ", "\t")) and lines[end].strip():
        end += 1
    start = turnstile
    while start > 1 and _looks_like_goal_line(lines[start - 1]):
        start -= 1
    # A goal block cannot begin with a continuation line: those belong to the text above
    # (e.g. the pattern a rewrite did not find).
    while start < turnstile and lines[start].startswith((" ", "\t")):
        start += 1
    block = "\n".join(lines[start:end]).strip("\n")
    return _strip_trailing_failed(block) or None


def _looks_like_goal_line(line: str) -> bool:
    if not line.strip():
        return False
    # Continuation lines of a long hypothesis are indented.
    return line.startswith((" ", "\t")) or bool(_HYPOTHESIS.match(line))


def _strip_trailing_failed(block: str) -> str:
    # linarith ends with "⊢ False failed" on older versions (the word glued to the goal).
    if block.endswith(" failed") and "\n" not in block[block.rfind("⊢") :]:
        return block[: -len(" failed")]
    return block
