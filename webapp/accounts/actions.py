"""Writes of the accounts app (classes and memberships)."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction

from webapp.accounts.models import Classroom, SchoolSignIn
from webapp.accounts.roles import is_teacher
from webapp.courses.models import Course, CourseGrant


class InvalidInput(ValueError):
    """Bad user input; the message is shown to the user as is."""


def normalise_join_code(code: str) -> str:
    return "".join(code.split()).upper().replace("-", "")


def do_join_classroom(student: User, code: str) -> Classroom:
    code = normalise_join_code(code)
    if not code:
        raise InvalidInput("Type the join code your teacher gave you.")
    with transaction.atomic():
        classroom = Classroom.objects.filter(join_code=code).first()
        if classroom is None:
            raise InvalidInput(f"No class has the join code {code}. Check it with your teacher.")
        classroom.students.add(student)
    return classroom


def do_create_classroom(teacher: User, name: str, courses: list[Course]) -> Classroom:
    name = name.strip()
    if not name:
        raise InvalidInput("Give the class a name.")
    with transaction.atomic():
        classroom = Classroom.objects.create(name=name[:120], teacher=teacher)
        classroom.courses.set(courses)
    return classroom


def do_set_classroom_courses(classroom: Classroom, courses: list[Course]) -> None:
    with transaction.atomic():
        classroom.courses.set(courses)


def do_set_prover_full_proofs(classroom: Classroom, allowed: bool) -> None:
    with transaction.atomic():
        classroom.prover_shows_full_proofs = allowed
        classroom.save(update_fields=["prover_shows_full_proofs"])


def do_set_classroom_training_consent(classroom: Classroom, enabled: bool) -> Classroom:
    """The teacher's "use for training" switch. Off: the class's attempts and reviews leave
    every later training snapshot (past runs keep their record of what they used)."""
    with transaction.atomic():
        classroom.use_for_training = enabled
        classroom.save(update_fields=["use_for_training"])
    return classroom


def do_set_school_sign_in(user: User, allowed: bool) -> None:
    """Allow school sign-in by e-mail address for her account, or take it back (with the
    school logins it linked: webapp.accounts.sso)."""
    from webapp.accounts.sso import forget_school_logins

    with transaction.atomic():
        if allowed:
            SchoolSignIn.objects.get_or_create(user=user)
        else:
            forget_school_logins(user)


def do_grant_course(course: Course, username: str, admin: User) -> User:
    """An admin lets a teacher add `course` to her classes."""
    teacher = User.objects.filter(username=username.strip()).first()
    if teacher is None or not is_teacher(teacher):
        raise InvalidInput(f"No teacher has the username {username.strip()!r}.")
    with transaction.atomic():
        CourseGrant.objects.get_or_create(
            course=course, teacher=teacher, defaults={"granted_by": admin}
        )
    return teacher


def do_revoke_course(course: Course, teacher_id: str) -> None:
    """Take a grant back: she can no longer add the course; classes that have it keep it
    (an admin removes it from a class on the class's page)."""
    if not (teacher_id.isascii() and teacher_id.isdigit() and len(teacher_id) <= 18):
        raise InvalidInput("Say whose grant to take back.")
    with transaction.atomic():
        CourseGrant.objects.filter(course=course, teacher_id=int(teacher_id)).delete()
