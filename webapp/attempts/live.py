"""Rendering an attempt's live fragments, shared by the page, the htmx endpoint and the
websocket push (one partial per piece in templates/attempts/attempt.html).

Websocket message types sent to group `attempt.<pk>` (handled by AttemptConsumer):
  {"type": "attempt.update", "html": str}    after each step (queued, checked, coached)
  {"type": "attempt.finished", "html": str}  exactly once, when the attempt has an end state
The html is a set of elements with ids; htmx's ws extension swaps them in by id (OOB).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.template.loader import render_to_string

from webapp.attempts.models import Attempt, LineDiagnostic, Suggestion

LIVE_FRAGMENTS = ("status", "feedback", "history_status")


@dataclass
class AnnotatedLine:
    """One row of the feedback view. `number` is the proof line (0: the posed statement);
    `display` is the line in statement + proof, the numbering Lean and the coach use."""

    number: int
    text: str
    display: int
    diagnostics: list[LineDiagnostic] = field(default_factory=list)
    suggestions: list[Suggestion] = field(default_factory=list)
    is_statement: bool = False

    @property
    def marker(self) -> str:
        severities = {d.severity for d in self.diagnostics}
        for severity in ("error", "warning", "info"):
            if severity in severities:
                return severity
        return ""


def annotate(attempt: Attempt) -> tuple[list[AnnotatedLine], list[AnnotatedLine]]:
    """The statement's rows (read-only) and the proof's rows, with their messages. Messages
    about the proof as a whole (proof line 0, e.g. unsolved goals at `by`) sit on the
    statement's last row, where Lean puts them."""
    statement = attempt.exercise.statement_text.split("\n")
    shift = len(statement)
    head = [
        AnnotatedLine(0, text, i, is_statement=True) for i, text in enumerate(statement, start=1)
    ]
    lines = [
        AnnotatedLine(i, text, shift + i) for i, text in enumerate(attempt.proof_lines(), start=1)
    ]
    for diagnostic in attempt.diagnostics.all():
        _line_for(lines, head[-1], diagnostic.line).diagnostics.append(diagnostic)
    for suggestion in attempt.suggestions.all():
        _line_for(lines, head[-1], suggestion.line).suggestions.append(suggestion)
    return head, lines


def _line_for(lines: list[AnnotatedLine], whole: AnnotatedLine, number: int) -> AnnotatedLine:
    if 1 <= number <= len(lines):
        return lines[number - 1]
    # Past the end (e.g. "unexpected end of input"): keep it on the last line.
    return lines[-1] if number > len(lines) and lines else whole


def attempt_context(attempt: Attempt) -> dict[str, Any]:
    head, lines = annotate(attempt)
    return {"attempt": attempt, "head": head, "lines": lines}


def render_fragments(attempt: Attempt, names: tuple[str, ...] = LIVE_FRAGMENTS) -> str:
    """The fragments as out-of-band swaps (each root element carries its id)."""
    context = {**attempt_context(attempt), "oob": True}
    return "".join(render_to_string(f"attempts/attempt.html#{name}", context) for name in names)


def push(attempt: Attempt) -> None:
    """Send the current fragments to everyone watching; the final message once finished."""
    layer = get_channel_layer()
    if layer is None:
        return
    message_type = "attempt.finished" if attempt.is_finished else "attempt.update"
    async_to_sync(layer.group_send)(
        attempt.group_name, {"type": message_type, "html": render_fragments(attempt)}
    )
