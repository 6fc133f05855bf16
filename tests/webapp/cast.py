"""The named cast for permission tests, so they read like prose.

    def test_it_rejects_other_students(cast, client):
        client.force_login(cast.other_student)
        ...

Names are stable (other test modules import them): `student` (Sam, in `classroom`, taught by
`teacher`), `teacher` (Tess), `other_student` (Olly, in `other_classroom`), `other_teacher`
(Otto, who teaches `other_classroom`), `admin` (Ada, in the admins group, not a superuser), and
`outsider` (Uma, logged in but in no group). `course` is shared by both classrooms and has one
exercise, `exercise`.

Use the `cast` fixture (pytest-django's `db` is pulled in), or `make_cast()` inside a test that
already has database access.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

import pytest
from django.contrib.auth.models import Group, User
from django.utils import timezone

from webapp.accounts.models import Classroom, Membership
from webapp.courses.models import Course, CourseGrant, Exercise, World

PASSWORD = "cast-password-123"
JOINED = timezone.now() - timedelta(days=30)  # when the cast's students joined their classes


@dataclass
class Cast:
    student: User
    teacher: User
    other_student: User
    other_teacher: User
    admin: User
    outsider: User
    classroom: Classroom
    other_classroom: Classroom
    course: Course
    exercise: Exercise


def _user(username: str, group: str | None) -> User:
    user = User.objects.create_user(username=username, password=PASSWORD)
    if group:
        user.groups.add(Group.objects.get_or_create(name=group)[0])
    return user


def make_cast() -> Cast:
    course = Course.objects.create(slug="cast-course", title="Cast course")
    world = World.objects.create(course=course, slug="basics", title="Basics", order=1)
    exercise = Exercise.objects.create(
        world=world,
        order=1,
        name="cast_add_zero",
        title="Adding zero",
        informal_prefix="/-- Adding zero changes nothing. -/\n",
        formal_statement="theorem cast_add_zero (n : Nat) : n + 0 = n := by",
        goal="n : Nat\n⊢ n + 0 = n",
        reference_proof="  rfl",
    )
    student = _user("sam", "students")
    teacher = _user("tess", "teachers")
    other_student = _user("olly", "students")
    other_teacher = _user("otto", "teachers")
    admin = _user("ada", "admins")
    outsider = _user("uma", None)
    classroom = Classroom.objects.create(name="Tess's class", teacher=teacher)
    classroom.students.add(student)
    classroom.courses.add(course)
    other_classroom = Classroom.objects.create(name="Otto's class", teacher=other_teacher)
    other_classroom.students.add(other_student)
    other_classroom.courses.add(course)
    # Both joined weeks ago: tests that date work in the past date it after they joined
    # (a teacher sees a student's work from the day she joined: webapp.accounts.access).
    Membership.objects.update(joined_at=JOINED)
    for granted in (teacher, other_teacher):  # the course is theirs to teach
        CourseGrant.objects.create(course=course, teacher=granted)
    return Cast(
        student=student,
        teacher=teacher,
        other_student=other_student,
        other_teacher=other_teacher,
        admin=admin,
        outsider=outsider,
        classroom=classroom,
        other_classroom=other_classroom,
        course=course,
        exercise=exercise,
    )


@pytest.fixture
def cast(db: None) -> Cast:
    return make_cast()
