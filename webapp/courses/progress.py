"""Progress read models: per course for one student, and per student for one class."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from webapp.attempts.models import Progress
from webapp.courses.models import Course, Exercise


@dataclass
class CourseProgress:
    course: Course
    solved: int
    tried: int
    total: int

    @property
    def percent(self) -> int:
        return round(100 * self.solved / self.total) if self.total else 0


def progress_by_exercise(student: Any, course: Course) -> dict[int, Progress]:
    rows = Progress.objects.filter(student=student, exercise__world__course=course)
    return {row.exercise_id: row for row in rows}


def course_progress(
    student: Any,
    course: Course,
    progress: dict[int, Progress] | None = None,
    total: int | None = None,
) -> CourseProgress:
    """`progress` and `total` when the caller has them already (the course page: no second
    read of the same rows)."""
    if progress is None:
        progress = progress_by_exercise(student, course)
    rows = progress.values()
    if total is None:
        total = Exercise.objects.filter(world__course=course).count()
    return CourseProgress(
        course=course,
        solved=sum(1 for row in rows if row.solved),
        tried=sum(1 for row in rows if row.attempts),
        total=total,
    )


def class_progress(
    students: list[Any], courses: list[Course], classroom: Any = None
) -> list[list[CourseProgress]]:
    """course_progress for every student and course, in two queries whatever the class size:
    exercise counts per course, and solved/tried counts per (student, course). With a
    `classroom`, as its teacher may see it (webapp.accounts.access): only the work each
    student did since she joined that class, so what she did on a shared course in another
    teacher's class before stays out of the counts."""
    from django.db.models import Count, Q

    totals = dict(
        Exercise.objects.filter(world__course__in=courses)
        .values_list("world__course")
        .annotate(n=Count("pk"))
    )
    rows = (
        _progress_since_joining(students, courses, classroom)
        if classroom is not None
        else Progress.objects.filter(student__in=students, exercise__world__course__in=courses)
        .values("student", "exercise__world__course")
        .annotate(
            solved=Count("pk", filter=Q(solved=True)), tried=Count("pk", filter=Q(attempts__gt=0))
        )
    )
    counts = {(row["student"], row["exercise__world__course"]): row for row in rows}
    empty = {"solved": 0, "tried": 0}
    return [
        [
            CourseProgress(
                course=course,
                solved=counts.get((student.pk, course.pk), empty)["solved"],
                tried=counts.get((student.pk, course.pk), empty)["tried"],
                total=totals.get(course.pk, 0),
            )
            for course in courses
        ]
        for student in students
    ]


def _progress_since_joining(students: list[Any], courses: list[Course], classroom: Any) -> Any:
    """Per (student, course): exercises solved and tried in attempts made since the student
    joined `classroom` (Membership.joined_at), read from the attempts themselves (Progress
    keeps one standing per student, whatever the class)."""
    from django.db.models import Count, OuterRef, Q, Subquery

    from webapp.accounts.models import Membership
    from webapp.attempts.models import Attempt

    joined = Membership.objects.filter(classroom=classroom, student=OuterRef("student")).values(
        "joined_at"
    )[:1]
    return (
        Attempt.objects.filter(
            student__in=students,
            exercise__world__course__in=courses,
            created_at__gte=Subquery(joined),
        )
        .values("student", "exercise__world__course")
        .annotate(
            solved=Count("exercise", filter=Q(valid=True), distinct=True),
            tried=Count("exercise", distinct=True),
        )
    )
