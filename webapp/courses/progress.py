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


def class_progress(students: list[Any], courses: list[Course]) -> list[list[CourseProgress]]:
    """course_progress for every student and course, in two queries whatever the class size:
    exercise counts per course, and solved/tried counts per (student, course)."""
    from django.db.models import Count, Q

    totals = dict(
        Exercise.objects.filter(world__course__in=courses)
        .values_list("world__course")
        .annotate(n=Count("pk"))
    )
    counts = {
        (row["student"], row["exercise__world__course"]): row
        for row in Progress.objects.filter(
            student__in=students, exercise__world__course__in=courses
        )
        .values("student", "exercise__world__course")
        .annotate(
            solved=Count("pk", filter=Q(solved=True)), tried=Count("pk", filter=Q(attempts__gt=0))
        )
    }
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
