"""Which courses a user may open: through the classes she is in or teaches (admins: all)."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from webapp.accounts.roles import is_admin
from webapp.courses.models import Course


def visible_courses(user: Any) -> QuerySet[Course]:
    if not getattr(user, "is_authenticated", False):
        return Course.objects.none()
    if is_admin(user):
        return Course.objects.all()
    taught = Course.objects.filter(classrooms__teacher=user)
    joined = Course.objects.filter(classrooms__students=user)
    return (taught | joined).distinct()
