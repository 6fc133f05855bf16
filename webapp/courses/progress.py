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


def course_progress(student: Any, course: Course) -> CourseProgress:
    rows = progress_by_exercise(student, course).values()
    total = Exercise.objects.filter(world__course=course).count()
    return CourseProgress(
        course=course,
        solved=sum(1 for row in rows if row.solved),
        tried=sum(1 for row in rows if row.attempts),
        total=total,
    )
