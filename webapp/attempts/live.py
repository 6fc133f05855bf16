"""Rendering an attempt's live fragments, shared by the page, the htmx endpoint and the
websocket push (one partial per piece in templates/attempts/attempt.html).

The worker does not render: after each step (claimed, checked, coached, ended) it sends
group `attempt.<pk>` and the student's exercise-page group (Attempt.watch_group_for) a
notice, {"type": "attempt.changed", "attempt": pk, "status": str, "finished": bool}, and
each consumer watching (webapp/attempts/consumers.py) renders the state for its own user
(with the access check) and sends the fragments. Nobody watching costs nothing but the notice; a quick
check sends only its end notice (an unfinished step's notice waits briefly, push), and steps
that do go out fold into one render (the consumer lets unfinished steps settle briefly). The
html is a set of elements with ids; htmx's ws extension swaps them in by id (OOB).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from django.template.loader import render_to_string

from webapp.attempts.access import exportable_feedback
from webapp.attempts.models import Attempt, LineDiagnostic, Suggestion
from webapp.core.layer import cancel_later, group_send_later, group_send_many

LIVE_FRAGMENTS = ("status", "feedback", "history_status")

# The feedback panel is re-sent on every push and poll: a long proof shows its lines with
# messages (and a little context) in full and folds the quiet stretches in between.
MAX_FULL_LINES = 200  # up to this many proof lines, every line is shown
CONTEXT_LINES = 2  # quiet lines kept around each line with a message
LEADING_LINES = 10  # the proof's first lines are always shown
MAX_MARKED_LINES = 100  # lines with messages shown; the rest are counted


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
    is_gap = False

    @property
    def has_messages(self) -> bool:
        return bool(self.diagnostics or self.suggestions)

    @property
    def marker(self) -> str:
        severities = {d.severity for d in self.diagnostics}
        for severity in ("error", "warning", "info"):
            if severity in severities:
                return severity
        return ""


def annotate(
    attempt: Attempt,
    diagnostics: list[LineDiagnostic] | None = None,
    suggestions: list[Suggestion] | None = None,
) -> tuple[list[AnnotatedLine], list[AnnotatedLine]]:
    """The statement's rows (read-only) and the proof's rows, with their messages. Messages
    about the proof as a whole (proof line 0, e.g. unsolved goals at `by`) sit on the
    statement's last row, where Lean puts them. `diagnostics` and `suggestions` (from
    _with_shown_reviews) when the caller has read them already."""
    statement = attempt.exercise.statement_text.split("\n")
    shift = len(statement)
    head = [
        AnnotatedLine(0, text, i, is_statement=True) for i, text in enumerate(statement, start=1)
    ]
    lines = [
        AnnotatedLine(i, text, shift + i) for i, text in enumerate(attempt.proof_lines(), start=1)
    ]
    if diagnostics is None:
        diagnostics = diagnostics_of(attempt)
    if suggestions is None:
        suggestions = _with_shown_reviews(attempt)
    for diagnostic in diagnostics:
        _line_for(lines, head[-1], diagnostic.line).diagnostics.append(diagnostic)
    for suggestion in suggestions:
        _line_for(lines, head[-1], suggestion.line).suggestions.append(suggestion)
    return head, lines


def diagnostics_of(attempt: Attempt) -> list[LineDiagnostic]:
    """Lean's messages on the attempt, in their order (each holds `attempt`)."""
    return list(attempt.diagnostics.all())


def _with_shown_reviews(attempt: Attempt) -> list[Suggestion]:
    """The suggestions, each with `shown_review`: its teacher review when the reviewer may
    review it (the one access rule, as the export applies it), else "pending". A verdict
    stored by a teacher outside the rule never shows as "edited by your teacher" nor hides
    the coach's text."""
    suggestions = list(attempt.suggestions.select_related("curated"))
    reviewed = [s.pk for s in suggestions if s.review != Suggestion.Review.PENDING]
    allowed: set[int] = set()
    if reviewed:
        rows = exportable_feedback().filter(suggestion_id__in=reviewed)
        allowed = set(rows.values_list("suggestion_id", flat=True))
    for suggestion in suggestions:
        allowed_review = suggestion.pk in allowed
        suggestion.shown_review = (  # type: ignore[attr-defined]
            suggestion.review if allowed_review else Suggestion.Review.PENDING
        )
    return suggestions


def _line_for(lines: list[AnnotatedLine], whole: AnnotatedLine, number: int) -> AnnotatedLine:
    if 1 <= number <= len(lines):
        return lines[number - 1]
    # Past the end (e.g. "unexpected end of input"): keep it on the last line.
    return lines[-1] if number > len(lines) and lines else whole


@dataclass
class Gap:
    """Folded proof lines without messages (`first`..`last`, proof numbering), or, with
    `hidden_marked`, lines with messages past MAX_MARKED_LINES."""

    first: int
    last: int
    hidden_marked: int = 0
    is_gap = True

    @property
    def count(self) -> int:
        return self.last - self.first + 1


def visible_rows(lines: list[AnnotatedLine]) -> list[AnnotatedLine | Gap]:
    """Every line of a short proof; for a long one, the first lines, each line with messages
    (at most MAX_MARKED_LINES) with CONTEXT_LINES around it, and gaps for the rest."""
    if len(lines) <= MAX_FULL_LINES:
        return list(lines)
    marked = [i for i, line in enumerate(lines) if line.has_messages]
    keep = set(range(min(LEADING_LINES, len(lines))))
    for i in marked[:MAX_MARKED_LINES]:
        keep.update(range(max(i - CONTEXT_LINES, 0), min(i + CONTEXT_LINES + 1, len(lines))))
    rows: list[AnnotatedLine | Gap] = []
    for i, line in enumerate(lines):
        if i in keep:
            rows.append(line)
        elif rows and isinstance(rows[-1], Gap):
            rows[-1].last = line.number
        else:
            rows.append(Gap(line.number, line.number))
    hidden = len(marked) - MAX_MARKED_LINES
    if hidden > 0:
        rows.append(Gap(0, -1, hidden_marked=hidden))
    return rows


def editor_data(
    attempt: Attempt,
    diagnostics: list[LineDiagnostic] | None = None,
    suggestions: list[Suggestion] | None = None,
) -> dict[str, Any]:
    """What the browser editor draws (underlines, tooltips, goal view), in the editor's lines:
    statement + proof, the numbering of the panel and the coach. Columns stay Lean's
    codepoints; the browser converts them to its UTF-16 offsets. Proof line 0 (the proof as a
    whole) is the statement's last line, where its `by` is."""
    shift = attempt.statement_line_count
    if diagnostics is None:
        diagnostics = diagnostics_of(attempt)
    if suggestions is None:
        suggestions = _with_shown_reviews(attempt)

    def line(proof_line: int | None) -> int:
        return shift + max(proof_line or 0, 0)

    marks = [
        {
            "line": line(d.line),
            "column": d.column,
            "end_line": line(d.end_line) if d.end_line is not None else line(d.line),
            "end_column": d.end_column if d.end_line is not None else None,
            "severity": d.severity,
            "kind": d.kind,
            "message": d.goal if d.kind == "sorry_goal" else d.message,
            "goal": d.goal,
        }
        for d in diagnostics
    ]
    shown = [
        {"line": line(s.line), "text": _shown_text(s)}
        for s in suggestions  # _with_shown_reviews: the one access rule, as the panel applies it
        if s.shown_review != Suggestion.Review.REJECTED  # type: ignore[attr-defined]
        # A coach hint gives a step away: the panel shows it folded, the editor not inline.
        and not s.reveals
    ]
    tactics = [
        {
            "line": line(t["line"]),
            "column": t["column"],
            "end_line": line(t["end_line"]),
            "end_column": t["end_column"],
            "tactic": t["tactic"],
            "before": t["goals_before"],
            "after": t.get("goals_after"),
        }
        for t in attempt.tactics or []
    ]
    return {
        "attempt": attempt.pk,
        "status": attempt.status,
        "valid": attempt.valid,
        "diagnostics": marks,  # no proof text: the editor has it (a long proof stays small)
        "suggestions": shown,
        "tactics": tactics,
    }


def _shown_text(suggestion: Suggestion) -> str:
    curated = getattr(suggestion, "curated", None)
    shown = getattr(suggestion, "shown_review", suggestion.review)
    if shown == Suggestion.Review.EDITED and curated is not None:
        return curated.text
    return suggestion.text


def attempt_context(attempt: Attempt, *, just_created: bool = False) -> dict[str, Any]:
    """`just_created`: the attempt this request made, as the request saw it (queued, no
    messages yet): nothing to read."""
    # Read once, used by both the panel and the editor's data.
    diagnostics = [] if just_created else diagnostics_of(attempt)
    suggestions = [] if just_created else _with_shown_reviews(attempt)
    head, lines = annotate(attempt, diagnostics, suggestions)
    data = json.dumps(editor_data(attempt, diagnostics, suggestions), ensure_ascii=False)
    return {
        "attempt": attempt,
        "head": head,
        "lines": lines,
        "editor_json": data,
        "rows": visible_rows(lines),
    }


def render_fragments(attempt: Attempt, names: tuple[str, ...] = LIVE_FRAGMENTS) -> str:
    """The fragments as out-of-band swaps (each root element carries its id)."""
    context = {**attempt_context(attempt), "oob": True}
    return "".join(render_to_string(f"attempts/attempt.html#{name}", context) for name in names)


def render_panel(attempt: Attempt) -> str:
    """The exercise page's whole panel for the attempt, as an out-of-band swap, with its
    history line: for a page that has not drawn this attempt (a submit in another tab), whose
    panel, if it has one, belongs to an older attempt (its id, its Refresh link)."""
    context = {**attempt_context(attempt), "page_socket": True, "panel_oob": True}
    panel = render_to_string("attempts/attempt.html#panel", context)
    return panel + render_to_string(
        "attempts/attempt.html#history_status", {**context, "oob": True}
    )


def history_of(student: Any, exercise: Any) -> list[Attempt]:
    """Her last 20 attempts at the exercise, newest first, without Lean's raw answer (no page
    shows it; a long proof's JSON is most of a row), holding the objects the caller has
    instead of joining them in again for every row. One's own attempts are always one's to
    see, so no access rule is read."""
    attempts = Attempt.objects.filter(student_id=student.pk, exercise_id=exercise.pk)
    rows = list(attempts.defer("check_result").order_by("-created_at", "-pk")[:20])
    for row in rows:
        row.exercise, row.student = exercise, student
    return rows


def render_history(student: Any, exercise: Any) -> str:
    """Her exercise page's whole history list as an out-of-band swap: for a page that missed
    a submit (made in another tab, or while it was away)."""
    context = {"history": history_of(student, exercise), "oob": True}
    return render_to_string("attempts/attempt.html#history", context)


def render_history_status(attempt: Attempt) -> str:
    """Only the attempt's line in the history (an out-of-band swap): it needs the attempt
    alone, not the messages and suggestions render_fragments reads."""
    context = {"attempt": attempt, "oob": True}
    return render_to_string("attempts/attempt.html#history_status", context)


def push(attempt: Attempt, *, step: bool = False) -> None:
    """Tell everyone watching that the attempt changed (its own page, and its student's page
    of the exercise); each watcher renders it (above).

    `step`: an unfinished step of a check (claimed, coaching). Its notice waits
    STEP_NOTICE_DELAY_S and is dropped if the attempt's next notice comes first, so a quick
    check sends one notice, its end, instead of three (each costs a trip to Redis here and
    a dispatch in every watching web process); a slow one shows each step as before. A
    late step notice is harmless: watchers render what the database holds, and ignore
    notices once they have sent the end state."""
    notice = {
        "type": "attempt.changed",
        "attempt": attempt.pk,
        "status": attempt.status,
        "finished": attempt.is_finished,
    }
    watchers = Attempt.watch_group_for(attempt.student_id, attempt.exercise_id)
    groups = (attempt.group_name, watchers)
    key = ("attempt-step", attempt.pk)
    if step and not attempt.is_finished:
        group_send_later(key, groups, notice, STEP_NOTICE_DELAY_S)
    else:
        cancel_later(key)
        group_send_many(groups, notice)


# How long an unfinished step's notice waits for the next one (see push).
STEP_NOTICE_DELAY_S = 0.1
