"""Which courses a user may open: through the classes she is in or teaches (admins: all)."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from webapp.accounts.roles import is_admin
from webapp.courses.models import Course, Exercise


def visible_courses(user: Any) -> QuerySet[Course]:
    if not getattr(user, "is_authenticated", False):
        return Course.objects.none()
    if is_admin(user):
        return Course.objects.all()
    taught = Course.objects.filter(classrooms__teacher=user)
    granted = Course.objects.filter(grants__teacher=user)  # to look at before adding it
    joined = Course.objects.filter(classrooms__students=user)
    return (taught | granted | joined).distinct()


def _in_her_classes(student: int, **lookup: Any) -> QuerySet[Exercise]:
    joined = Exercise.objects.select_related("world__course")
    return joined.filter(world__course__classrooms__students=student, **lookup)


def visible_exercise(user: Any, **lookup: Any) -> Exercise | None:
    """The exercise matching `lookup` (with its world and course) if `user` may open it: the
    rule of visible_courses. A student's own classes are tried first, as one plain join: her
    exercise page, her submits and her page's socket ask on every request, and the whole
    rule (her groups read for the admin check, a union of two joins as a subquery) cost a
    fifth of a submit's time in the web process. Teachers, admins and refusals take the
    whole rule after that first miss."""
    if not getattr(user, "is_authenticated", False):
        return None
    joined = _in_her_classes(user.pk, **lookup).first()
    if joined is not None:
        return joined
    exercises = Exercise.objects.select_related("world__course")
    return exercises.filter(world__course__in=visible_courses(user), **lookup).first()
