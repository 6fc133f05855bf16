"""Teachers' reviews feed the coach (see tutor/coach/teaching.py for the rules).

- approved / edited suggestions -> TeacherExamples (kind of the attempt's first error, the
  shape of its goal, its message), retrieved a few at a time for the next coach call;
- rejections per (exercise, message kind): two switch that advice off for the exercise,
  unless a teacher switched it back on (CoachSwitch), shown and toggled on the review page.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections import Counter
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache
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

log = logging.getLogger(__name__)


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
    bank, suppressed = _memo.read(exercise_id)
    return TaughtCoach(coach, bank, suppressed)


# --- what teachers taught, read once per change -----------------------------------------
#
# Reading the bank costs up to EXAMPLES_READ reviews with their attempts' messages, and the
# switches every rejection on the exercise: on every check, it grew with the class's reviews.
# Each process keeps what it read under a stamp in the shared cache; every save or delete of
# a review or a switch (cascades included: they send the same signals) puts a new stamp there,
# at once and again when its transaction commits, so a check never keeps reading what a
# teacher changed (the second stamp covers a reader that came between the two). Without the
# cache (Redis down) every check reads afresh, as before.

STAMP_KEY = "coach:teaching-stamp"
MAX_EXERCISES_KEPT = 2000  # switches memoized per process; past this the memo starts over


class _TeachingMemo:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.forget()

    def forget(self) -> None:
        self.stamp: str | None = None
        self.bank: ExampleBank | None = None
        self.suppressed: dict[int, frozenset[str]] = {}

    def read(self, exercise_id: int) -> tuple[ExampleBank, frozenset[str]]:
        stamp = current_stamp()
        if stamp is None:
            return example_bank(), suppressed_for(exercise_id)
        with self.lock:
            if stamp != self.stamp or len(self.suppressed) > MAX_EXERCISES_KEPT:
                self.forget()
                self.stamp = stamp
            if self.bank is None:
                self.bank = example_bank()
            if exercise_id not in self.suppressed:
                self.suppressed[exercise_id] = suppressed_for(exercise_id)
            return self.bank, self.suppressed[exercise_id]


_memo = _TeachingMemo()


def forget_teaching_memo() -> None:
    """Drop this process's memo (tests: a rolled-back test's reviews send no signal)."""
    with _memo.lock:
        _memo.forget()


def current_stamp() -> str | None:
    try:
        stamp = cache.get(STAMP_KEY)
        if stamp is None:
            cache.add(STAMP_KEY, uuid.uuid4().hex, timeout=None)
            stamp = cache.get(STAMP_KEY)
    except Exception as exc:  # noqa: BLE001 - no cache: read afresh, never stale
        log.warning("coach teaching stamp unavailable (%s): reading the reviews afresh", exc)
        return None
    return str(stamp) if stamp is not None else None


def _new_stamp() -> None:
    try:
        cache.set(STAMP_KEY, uuid.uuid4().hex, timeout=None)
    except Exception as exc:  # noqa: BLE001
        # The old stamp stays: say so loudly, a check may read the old reviews until the
        # next change reaches the cache.
        log.error("could not mark the coach's teaching as changed: %s", exc)


def teaching_changed(**_: Any) -> None:
    """Receiver of post_save / post_delete of CuratedFeedback and CoachSwitch."""
    _new_stamp()
    transaction.on_commit(_new_stamp)
