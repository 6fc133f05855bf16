"""Teachers' reviews feed the coach (see tutor/coach/teaching.py for the rules).

- approved / edited suggestions -> TeacherExamples (kind of the attempt's first error, the
  shape of its goal, its message), retrieved a few at a time for the next coach call;
- rejections per (exercise, message kind): two switch that advice off for the exercise,
  unless a teacher switched it back on (CoachSwitch), shown and toggled on the review page.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from tutor.coach.teaching import (
    REJECTIONS_TO_SUPPRESS,
    ExampleBank,
    TaughtCoach,
    TeacherExample,
    signature,
)
from tutor.lean.types import Diagnostic, DiagnosticKind
from webapp.attempts.models import Attempt, CoachSwitch, CuratedFeedback, Suggestion

EXAMPLES_READ = 200  # the most recent reviews considered when building the bank


def _primary(attempt: Attempt) -> Diagnostic | None:
    rows = [d for d in attempt.diagnostics.all() if d.severity == "error"]
    if not rows:
        return None
    row = min(rows, key=lambda d: (d.line, d.column))
    try:
        kind = DiagnosticKind(row.kind)
    except ValueError:
        kind = DiagnosticKind.OTHER
    return Diagnostic(
        row.line,
        row.column,
        row.end_line,
        row.end_column,
        row.severity,
        row.message,
        kind,
        row.goal or None,
    )


def example_bank(limit: int = 3) -> ExampleBank:
    reviews = (
        CuratedFeedback.objects.filter(
            verdict__in=[Suggestion.Review.APPROVED, Suggestion.Review.EDITED]
        )
        .select_related("suggestion__attempt")
        .prefetch_related("suggestion__attempt__diagnostics")[:EXAMPLES_READ]
    )
    examples = []
    for review in reviews:
        diagnostic = _primary(review.suggestion.attempt)
        if diagnostic is None or not review.text.strip():
            continue
        kind, shape, message = signature(diagnostic)
        edited = review.verdict == Suggestion.Review.EDITED
        examples.append(TeacherExample(kind, shape, message, review.text.strip(), edited))
    return ExampleBank(examples, limit)


@dataclass(frozen=True)
class SwitchRow:
    kind: str
    rejections: int
    enabled: bool  # the coach's advice for this kind is shown on this exercise
    overridden: bool  # a teacher set it explicitly


def coach_switches(exercise_id: int) -> list[SwitchRow]:
    """Per message kind on one exercise: rejections so far and whether advice is shown."""
    rejected = CuratedFeedback.objects.filter(
        verdict=Suggestion.Review.REJECTED, suggestion__attempt__exercise_id=exercise_id
    ).select_related("suggestion__attempt")
    counts: Counter[str] = Counter()
    for review in rejected.prefetch_related("suggestion__attempt__diagnostics"):
        diagnostic = _primary(review.suggestion.attempt)
        counts[str(diagnostic.kind) if diagnostic else "none"] += 1
    switches = {s.kind: s.enabled for s in CoachSwitch.objects.filter(exercise_id=exercise_id)}
    rows = []
    for kind in sorted(set(counts) | set(switches)):
        default = counts[kind] < REJECTIONS_TO_SUPPRESS
        rows.append(SwitchRow(kind, counts[kind], switches.get(kind, default), kind in switches))
    return rows


def suppressed_for(exercise_id: int) -> frozenset[str]:
    return frozenset(r.kind for r in coach_switches(exercise_id) if not r.enabled)


def do_set_coach_switch(teacher: Any, exercise_id: int, kind: str, enabled: bool) -> CoachSwitch:
    with transaction.atomic():
        switch, _ = CoachSwitch.objects.update_or_create(
            exercise_id=exercise_id, kind=kind, defaults={"enabled": enabled, "teacher": teacher}
        )
    return switch


def taught(coach: Any, exercise_id: int | None) -> Any:
    """The coach with what teachers taught it (examples; switches for this exercise)."""
    if exercise_id is None:
        return coach
    return TaughtCoach(coach, example_bank(), suppressed_for(exercise_id))
