"""Demo content: the starter course and one class with the demo student and teacher."""

from __future__ import annotations

from django.contrib.auth.models import User

from webapp.accounts.models import Classroom
from webapp.courses.importing import load_starter_course
from webapp.courses.models import CourseGrant

DEMO_CLASS = "Demo class"


def seed_demo_class() -> Classroom | None:
    course, _ = load_starter_course()
    teacher = User.objects.filter(username="teacher").first()
    if teacher is None:
        return None
    classroom = Classroom.objects.filter(name=DEMO_CLASS, teacher=teacher).first()
    if classroom is None:
        classroom = Classroom.objects.create(name=DEMO_CLASS, teacher=teacher)
    CourseGrant.objects.get_or_create(course=course, teacher=teacher)
    classroom.courses.add(course)
    student = User.objects.filter(username="student").first()
    if student is not None:
        classroom.students.add(student)
    return classroom
