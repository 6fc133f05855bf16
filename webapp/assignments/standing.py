"""Where each student stands on each assignment: a read model in a fixed number of queries.

An exercise counts as solved only by Lean's verdict: the student's first attempt with
valid=True. It is late when that attempt was submitted (created_at, not when the check ended:
a slow queue must not make a student late) after the due date. A solve from before the
assignment opened counts, on time: the student did the work. Hints opened and prover runs
asked on the exercise are flags beside the verdict, never a solve.

Only what she did since she joined the assignment's class counts (her Membership's
joined_at), as everywhere her teacher there reads her work (webapp.accounts.access): a solve,
a hint or a prover run from before, in another class on the same course, is not this class's
to grade or to see.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from webapp.accounts.models import Membership
from webapp.assignments.models import Assignment
from webapp.attempts.models import Attempt
from webapp.courses.models import Exercise, HintOpening
from webapp.provers.models import ProverRun


@dataclass
class ExerciseStanding:
    exercise: Exercise
    solved_at: datetime | None = None
    late: bool = False
    hint: bool = False
    prover: bool = False

    @property
    def solved(self) -> bool:
        return self.solved_at is not None


@dataclass
class AssignmentStanding:
    assignment: Assignment
    student: Any
    exercises: list[ExerciseStanding] = field(default_factory=list)

    @property
    def solved(self) -> int:
        return sum(1 for e in self.exercises if e.solved)

    @property
    def total(self) -> int:
        return len(self.exercises)

    @property
    def late(self) -> bool:
        return any(e.late for e in self.exercises)

    @property
    def hint(self) -> bool:
        return any(e.hint for e in self.exercises)

    @property
    def prover(self) -> bool:
        return any(e.prover for e in self.exercises)

    @property
    def complete(self) -> bool:
        return self.total > 0 and self.solved == self.total

    @property
    def score(self) -> float:
        """The fraction solved, 0..1 (what goes back to an LMS)."""
        return self.solved / self.total if self.total else 0.0


def assignment_exercises(assignments: Iterable[Assignment]) -> dict[int, list[Exercise]]:
    """Each assignment's exercises in course order, in one query."""
    ids = [a.pk for a in assignments]
    through = Assignment.exercises.through.objects.filter(assignment_id__in=ids).select_related(
        "exercise__world__course"
    )
    rows = sorted(
        through,
        key=lambda r: (
            r.exercise.world.course_id,
            r.exercise.world.order,
            r.exercise.order,
            r.exercise.pk,
        ),
    )
    out: dict[int, list[Exercise]] = {pk: [] for pk in ids}
    for row in rows:
        out[row.assignment_id].append(row.exercise)
    return out


def standings(
    assignments: list[Assignment], students: list[Any]
) -> dict[tuple[int, int], AssignmentStanding]:
    """(student pk, assignment pk) -> standing, for every pair; five queries whatever the sizes."""
    by_assignment = assignment_exercises(assignments)
    exercise_ids = {e.pk for exercises in by_assignment.values() for e in exercises}
    student_ids = [s.pk for s in students]
    joined = {
        (row["student"], row["classroom"]): row["joined_at"]
        for row in Membership.objects.filter(
            student__in=student_ids, classroom__in={a.classroom_id for a in assignments}
        ).values("student", "classroom", "joined_at")
    }
    solves = _times(
        Attempt.objects.filter(student__in=student_ids, exercise__in=exercise_ids, valid=True)
        .order_by("created_at")
        .values_list("student", "exercise", "created_at")
    )
    hints = _times(
        HintOpening.objects.filter(student__in=student_ids, exercise__in=exercise_ids)
        .order_by("opened_at")
        .values_list("student", "exercise", "opened_at")
    )
    runs = _times(
        ProverRun.objects.filter(user__in=student_ids, exercise__in=exercise_ids)
        .order_by("created_at")
        .values_list("user", "exercise", "created_at")
    )
    out: dict[tuple[int, int], AssignmentStanding] = {}
    for student in students:
        for assignment in assignments:
            since = joined.get((student.pk, assignment.classroom_id))
            standing = AssignmentStanding(assignment, student)
            for exercise in by_assignment[assignment.pk]:
                key = (student.pk, exercise.pk)
                solved_at = _first_since(solves.get(key, []), since)
                standing.exercises.append(
                    ExerciseStanding(
                        exercise=exercise,
                        solved_at=solved_at,
                        late=solved_at is not None and solved_at > assignment.due_at,
                        hint=_first_since(hints.get(key, []), since) is not None,
                        prover=_first_since(runs.get(key, []), since) is not None,
                    )
                )
            out[student.pk, assignment.pk] = standing
    return out


def _times(rows: Iterable[tuple[int, int, datetime]]) -> dict[tuple[int, int], list[datetime]]:
    """(student, exercise) -> the times of her rows, oldest first (rows come ordered)."""
    out: dict[tuple[int, int], list[datetime]] = {}
    for student, exercise, at in rows:
        out.setdefault((student, exercise), []).append(at)
    return out


def _first_since(times: list[datetime], since: datetime | None) -> datetime | None:
    """The first time at or after `since` (every time when she has no seat: nothing hides)."""
    return next((at for at in times if since is None or at >= since), None)


def due_for(student: Any) -> list[AssignmentStanding]:
    """The student's open assignments, soonest due first, with her standing on each."""
    from webapp.accounts.access import assigned_to

    assignments = list(assigned_to(student).select_related("classroom").distinct())
    table = standings(assignments, [student])
    return [table[student.pk, a.pk] for a in assignments]
