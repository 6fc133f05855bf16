"""What a class gets wrong on one exercise of an assignment: a read model for the teacher.

Everything is computed from the class's students' attempts on the exercise (on any day: an
exercise practised before it was set still tells the teacher what is hard), in a fixed number
of queries whatever the class size (tests/webapp/test_assignment_analytics.py counts them).

- solved: Lean's verdict only (a valid attempt); attempts to solve count the student's checked
  submissions up to and including her first valid one (superseded ones were never checked);
  time to solve runs from her first submission to that first valid one.
- error kinds: the kind of every Lean error on the class's attempts, with the lines they hit
  most, numbered as the editor and the coach number them (statement + proof: line 1 is the
  statement's first line; an error about the proof as a whole is on the statement's last).
- suggestions before a success: the coach's suggestions on the attempt just before each
  student's first valid one, grouped by kind and text.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Count, Exists, OuterRef, QuerySet

from webapp.accounts.models import Classroom, Membership
from webapp.assignments.wording import duration_text, error_kind_label, suggestion_kind_label
from webapp.attempts.models import Attempt, LineDiagnostic, Suggestion
from webapp.courses.models import Exercise, HintOpening
from webapp.provers.models import ProverRun

TOP_KINDS = 6
TOP_LINES = 3
TOP_SUGGESTIONS = 5


def class_attempts(classroom: Classroom, exercise: Exercise) -> QuerySet[Attempt]:
    """The class's students' attempts on the exercise made since they joined it, when the
    class teaches its course (the teacher-access rule of webapp.accounts.access)."""
    seat = Membership.objects.filter(
        classroom=classroom, student=OuterRef("student"), joined_at__lte=OuterRef("created_at")
    )
    return Attempt.objects.filter(
        Exists(seat), exercise=exercise, exercise__world__course__classrooms=classroom
    )


@dataclass
class Solver:
    student_id: int
    username: str
    attempts: int
    time_to_solve: timedelta
    solved_at: datetime

    @property
    def time_text(self) -> str:
        return duration_text(self.time_to_solve)


@dataclass
class ErrorKind:
    kind: str
    count: int
    students: int
    lines: list[tuple[int, int]] = field(default_factory=list)  # (editor line, count)

    @property
    def label(self) -> str:
        return error_kind_label(self.kind)


@dataclass
class Advice:
    """A coach suggestion, and how many students read it just before their first success."""

    kind: str
    text: str
    times: int

    @property
    def label(self) -> str:
        return suggestion_kind_label(self.kind)


@dataclass
class ExerciseAnalytics:
    exercise: Exercise
    class_size: int
    tried: int
    solvers: list[Solver]
    errors: list[ErrorKind]
    suggestions: list[Advice]
    hints_by_index: list[tuple[int, int]]  # (hint number from 1, students who opened it)
    hint_students: int
    prover_runs: int
    prover_students: int

    @property
    def median_attempts(self) -> float | None:
        return statistics.median(s.attempts for s in self.solvers) if self.solvers else None

    @property
    def median_time(self) -> timedelta | None:
        if not self.solvers:
            return None
        seconds = statistics.median(s.time_to_solve.total_seconds() for s in self.solvers)
        return timedelta(seconds=round(seconds))

    @property
    def median_time_text(self) -> str:
        median = self.median_time
        return duration_text(median) if median is not None else ""

    @property
    def attempts_histogram(self) -> list[tuple[str, int]]:
        """Solvers by attempts needed: 1, 2, 3, 4, 5+ (the chart's bars)."""
        counts = Counter(min(s.attempts, 5) for s in self.solvers)
        return [(f"{n}+" if n == 5 else str(n), counts.get(n, 0)) for n in range(1, 6)]


def _solvers(rows: Sequence[Mapping[str, Any]]) -> tuple[list[Solver], list[int]]:
    """Solvers from the attempts (oldest first), and for each the attempt just before her first
    valid one (the one whose suggestions she read last)."""
    by_student: dict[int, list[Mapping[str, Any]]] = defaultdict(list)
    for row in rows:
        by_student[row["student"]].append(row)
    solvers, preceding = [], []
    for student_id, attempts in by_student.items():
        checked = [a for a in attempts if a["status"] != Attempt.Status.SUPERSEDED]
        first = next((i for i, a in enumerate(checked) if a["valid"] is True), None)
        if first is None:
            continue
        solvers.append(
            Solver(
                student_id=student_id,
                username=checked[first]["student__username"],
                attempts=first + 1,
                time_to_solve=checked[first]["created_at"] - checked[0]["created_at"],
                solved_at=checked[first]["created_at"],
            )
        )
        if first > 0:
            preceding.append(checked[first - 1]["pk"])
    solvers.sort(key=lambda s: s.username)
    return solvers, preceding


def _errors(attempts: QuerySet[Attempt], exercise: Exercise) -> list[ErrorKind]:
    diagnostics = LineDiagnostic.objects.filter(attempt__in=attempts, severity="error")
    kinds = list(
        diagnostics.values("kind")
        .annotate(n=Count("pk"), students=Count("attempt__student", distinct=True))
        .order_by("-n", "kind")[:TOP_KINDS]
    )
    lines: dict[str, Counter[int]] = defaultdict(Counter)
    for row in (
        diagnostics.filter(kind__in=[k["kind"] for k in kinds])
        .values("kind", "line")
        .annotate(n=Count("pk"))
    ):
        lines[row["kind"]][exercise.source_line(row["line"])] += row["n"]
    return [
        ErrorKind(
            kind=k["kind"] or "other",
            count=k["n"],
            students=k["students"],
            lines=sorted(lines[k["kind"]].items(), key=lambda x: (-x[1], x[0]))[:TOP_LINES],
        )
        for k in kinds
    ]


def _suggestions(attempt_ids: list[int]) -> list[Advice]:
    rows = (
        Suggestion.objects.filter(attempt__in=attempt_ids)
        .values("kind", "text")
        .annotate(n=Count("attempt", distinct=True))
        .order_by("-n", "kind", "text")[:TOP_SUGGESTIONS]
    )
    return [Advice(row["kind"] or "other", row["text"], row["n"]) for row in rows]


def exercise_analytics(classroom: Classroom, exercise: Exercise) -> ExerciseAnalytics:
    attempts = class_attempts(classroom, exercise)
    rows = list(
        attempts.order_by("created_at", "pk").values(
            "pk", "student", "student__username", "status", "valid", "created_at"
        )
    )
    solvers, preceding = _solvers(rows)
    students = classroom.students.all()
    hints = list(
        HintOpening.objects.filter(student__in=students, exercise=exercise).values_list(
            "student", "index"
        )
    )
    runs = list(
        ProverRun.objects.filter(user__in=students, exercise=exercise).values_list(
            "user", flat=True
        )
    )
    by_index = Counter(index for _, index in hints)
    return ExerciseAnalytics(
        exercise=exercise,
        class_size=students.count(),
        tried=len({row["student"] for row in rows}),
        solvers=solvers,
        errors=_errors(attempts, exercise),
        suggestions=_suggestions(preceding),
        hints_by_index=[(index + 1, n) for index, n in sorted(by_index.items())],
        hint_students=len({student for student, _ in hints}),
        prover_runs=len(runs),
        prover_students=len(set(runs)),
    )
