"""The one rule for what a teacher sees of a student's work.

A teacher may see an attempt (or a prover run, or a coach suggestion) when ONE class both
teaches the work's course and holds its student, and the work was made after the student
joined that class: the class's teacher is her, the student took her seat there (Membership)
before the work, and the course is one of that class's courses. Being the student's teacher
in some other class is not enough (a student in two classes shows each teacher only the work
of that teacher's courses), and neither is sharing a course now: what she did in another
teacher's class before joining stays there. Admins see everything; a student sees her own
work. A teacher adds to her classes only the courses an admin granted her (CourseGrant,
`courses_she_may_teach`).

Views, the review queue, the training export and the websocket consumers all ask here, so
the rule cannot drift between them; the class page's progress counts apply the same join date
(webapp.courses.progress.class_progress with its classroom).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Exists, OuterRef, QuerySet

from webapp.accounts.models import Classroom, Membership
from webapp.accounts.roles import is_admin, is_teacher


def teaches(teacher: Any, student_ref: Any, course_ref: Any, made_ref: Any) -> Exists:
    """A query condition: a class taught by `teacher` has the course and held the student
    when the work was made. The refs are OuterRef paths (or values) of the row filtered."""
    return Exists(
        Membership.objects.filter(
            classroom__teacher=teacher,
            classroom__courses=course_ref,
            student=student_ref,
            joined_at__lte=made_ref,
        )
    )


def teacher_may_see(teacher: Any, student_id: int, course_id: int, made_at: datetime) -> bool:
    """The rule for one object (the consumers' and templates' question)."""
    if not is_teacher(teacher):
        return False
    return Membership.objects.filter(
        classroom__teacher=teacher,
        classroom__courses=course_id,
        student=student_id,
        joined_at__lte=made_at,
    ).exists()


def may_see_work(user: Any, student_id: int, course_id: int, made_at: datetime) -> bool:
    """The owner, admins, and teachers under the rule above."""
    if not getattr(user, "is_authenticated", False):
        return False
    if user.pk == student_id or is_admin(user):
        return True
    return teacher_may_see(user, student_id, course_id, made_at)


def teaching_filter(teacher: Any, student_path: str, course_path: str, made_path: str) -> Exists:
    """The rule as a filter on a queryset whose rows reach the student, the course and the
    work's time by these paths (e.g. "student", "exercise__world__course", "created_at")."""
    return teaches(teacher, OuterRef(student_path), OuterRef(course_path), OuterRef(made_path))


def courses_she_may_teach(user: Any) -> QuerySet[Any]:
    """The courses `user` may add to her classes: those an admin granted her (admins: all)."""
    from webapp.courses.models import Course

    if not getattr(user, "is_authenticated", False):
        return Course.objects.none()
    if is_admin(user):
        return Course.objects.all()
    return Course.objects.filter(grants__teacher=user)


# Assignments (webapp.assignments) follow the same rule: a teacher sets and reads the work of
# her own classes only; a student sees the assignments of her classes once they have opened,
# and only her own standing on them; admins see all.


def classrooms_managed_by(user: Any) -> Any:
    """The classes whose work `user` may set and read: her own (admins: all)."""
    if not getattr(user, "is_authenticated", False):
        return Classroom.objects.none()
    if is_admin(user):
        return Classroom.objects.all()
    return Classroom.objects.filter(teacher=user)


def managed_assignments(user: Any) -> Any:
    """Assignments `user` may edit and read the class's results of."""
    from webapp.assignments.models import Assignment

    return Assignment.objects.filter(classroom__in=classrooms_managed_by(user))


def assigned_to(student: Any) -> Any:
    """Open assignments of the classes `student` is in, soonest due first."""
    from django.utils import timezone

    from webapp.assignments.models import Assignment

    if not getattr(student, "is_authenticated", False):
        return Assignment.objects.none()
    return Assignment.objects.filter(
        classroom__students=student, opens_at__lte=timezone.now()
    ).order_by("due_at", "pk")
