"""Teachers' reviews feed the coach (see tutor/coach/teaching.py for the rules).

- approved / edited suggestions -> TeacherExamples (kind of the attempt's first error, the
  shape of its goal, its message), retrieved a few at a time for the next coach call;
- rejections per (exercise, message kind): two switch that advice off for the exercise,
  unless a teacher switched it back on (CoachSwitch), shown and toggled on the review page.

Each teaches her own classes only. A check of student S on an exercise hears the reviews
and switches of S's teachers there (the teachers of her classes that have the exercise's
course), plus those an admin made for every class (`for_all`: an admin's own, or a
teacher's review an admin promoted). A teacher's edited advice, or her switch, never
reaches another teacher's students.
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
from django.db.models import Q

from tutor.coach.teaching import (
    REJECTIONS_TO_SUPPRESS,
    ExampleBank,
    TaughtCoach,
    TeacherExample,
    signature,
)
from tutor.lean.types import Diagnostic, DiagnosticKind
from webapp.accounts.models import Classroom
from webapp.accounts.roles import is_admin
from webapp.assignments.wording import error_kind_label
from webapp.attempts.models import Attempt, CoachSwitch, CuratedFeedback, Suggestion

EXAMPLES_READ = 200  # the most recent reviews considered when building the bank
# The message kinds a switch may name: what a check's first error can be (tutor.lean.types).
SWITCH_KINDS = frozenset(kind.value for kind in DiagnosticKind)

# Whose teaching reaches a check: these teachers' own, plus what holds for every class.
Reviewers = frozenset[int]

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


def reviewers_for(student_id: int | None, exercise_id: int) -> Reviewers:
    """The teachers whose teaching reaches this student's check of this exercise: those of
    her classes that have its course. None (no student): only what holds for every class."""
    if student_id is None:
        return frozenset()
    teachers = Classroom.objects.filter(
        students=student_id, courses__worlds__exercises=exercise_id
    ).values_list("teacher_id", flat=True)
    return frozenset(teachers)


def _reaching(reviewers: Reviewers) -> Q:
    return Q(for_all=True) | Q(teacher__in=reviewers)


def example_bank(reviewers: Reviewers = frozenset(), limit: int = 3) -> ExampleBank:
    reviews = (
        CuratedFeedback.objects.filter(
            _reaching(reviewers),
            verdict__in=[Suggestion.Review.APPROVED, Suggestion.Review.EDITED],
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
    overridden: bool  # a teacher (or an admin, for every class) set it explicitly
    for_all: bool = False  # what decides is an admin's switch for every class

    @property
    def label(self) -> str:
        """The kind in words, as the class analytics say it."""
        return "no Lean error" if self.kind == "none" else error_kind_label(self.kind)

    @property
    def switchable(self) -> bool:
        """A kind a check's first error can have ("none" counts reviews of attempts
        without an error: there is nothing to switch)."""
        return self.kind in SWITCH_KINDS


def coach_switches(exercise_id: int, reviewers: Reviewers = frozenset()) -> list[SwitchRow]:
    """Per message kind on one exercise, as these reviewers' students get it: rejections by
    them (and for every class) so far, and whether advice is shown. A switch of one of them
    wins over an admin's for every class; among theirs, "off" wins (a student in two of
    their classes gets the stricter)."""
    rejected = CuratedFeedback.objects.filter(
        _reaching(reviewers),
        verdict=Suggestion.Review.REJECTED,
        suggestion__attempt__exercise_id=exercise_id,
    ).select_related("suggestion__attempt")
    counts: Counter[str] = Counter()
    for review in rejected.prefetch_related("suggestion__attempt__diagnostics"):
        diagnostic = _primary(review.suggestion.attempt)
        counts[str(diagnostic.kind) if diagnostic else "none"] += 1
    own: dict[str, bool] = {}
    everyone: dict[str, bool] = {}
    switches = CoachSwitch.objects.filter(_reaching(reviewers), exercise_id=exercise_id)
    for switch in switches.order_by("updated_at", "pk"):
        if switch.for_all:
            everyone[switch.kind] = switch.enabled  # the latest admin's word
        else:
            own[switch.kind] = own.get(switch.kind, True) and switch.enabled
    rows = []
    for kind in sorted(set(counts) | set(own) | set(everyone)):
        default = counts[kind] < REJECTIONS_TO_SUPPRESS
        enabled = own.get(kind, everyone.get(kind, default))
        set_here = kind in own or kind in everyone
        rows.append(
            SwitchRow(kind, counts[kind], enabled, set_here, kind not in own and kind in everyone)
        )
    return rows


def suppressed_for(exercise_id: int, reviewers: Reviewers = frozenset()) -> frozenset[str]:
    return frozenset(r.kind for r in coach_switches(exercise_id, reviewers) if not r.enabled)


def switch_scope(user: Any) -> Reviewers:
    """The review page's scope: a teacher sees and sets the coach for her own classes; an
    admin for every class."""
    return frozenset() if is_admin(user) else frozenset({user.pk})


def do_set_coach_switch(user: Any, exercise_id: int, kind: str, enabled: bool) -> CoachSwitch:
    """A teacher's switch holds for her classes; an admin's for every class."""
    if kind not in SWITCH_KINDS:
        raise ValueError(f"unknown message kind {kind!r}")
    with transaction.atomic():
        switch, _ = CoachSwitch.objects.update_or_create(
            exercise_id=exercise_id,
            kind=kind,
            teacher=user,
            defaults={"enabled": enabled, "for_all": is_admin(user)},
        )
    return switch


def taught(coach: Any, exercise_id: int | None, student_id: int | None = None) -> Any:
    """The coach with what this student's teachers taught it (examples; switches for this
    exercise), and what holds for every class."""
    if exercise_id is None:
        return coach
    bank, suppressed = _memo.read(exercise_id, reviewers_for(student_id, exercise_id))
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
MAX_BANKS_KEPT = 200  # example banks (one per set of teachers) memoized per process


class _TeachingMemo:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.forget()

    def forget(self) -> None:
        self.stamp: str | None = None
        self.banks: dict[Reviewers, ExampleBank] = {}
        self.suppressed: dict[tuple[int, Reviewers], frozenset[str]] = {}

    def read(
        self, exercise_id: int, reviewers: Reviewers = frozenset()
    ) -> tuple[ExampleBank, frozenset[str]]:
        stamp = current_stamp()
        if stamp is None:
            return example_bank(reviewers), suppressed_for(exercise_id, reviewers)
        with self.lock:
            too_many = len(self.suppressed) > MAX_EXERCISES_KEPT or len(self.banks) > MAX_BANKS_KEPT
            if stamp != self.stamp or too_many:
                self.forget()
                self.stamp = stamp
            if reviewers not in self.banks:
                self.banks[reviewers] = example_bank(reviewers)
            key = (exercise_id, reviewers)
            if key not in self.suppressed:
                self.suppressed[key] = suppressed_for(exercise_id, reviewers)
            return self.banks[reviewers], self.suppressed[key]


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
