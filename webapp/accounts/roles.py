"""Who is what. Roles are Django auth groups (created by `seed_demo` and the migration);
a superuser counts as an admin so a fresh `createsuperuser` can run the console."""

from __future__ import annotations

from typing import Any

STUDENTS = "students"
TEACHERS = "teachers"
ADMINS = "admins"
ROLE_GROUPS = (STUDENTS, TEACHERS, ADMINS)


def _in_group(user: Any, group: str) -> bool:
    if not getattr(user, "is_authenticated", False):
        return False
    # Cache the user's group names on the instance: templates ask several times per page.
    names = getattr(user, "_leancoach_groups", None)
    if names is None:
        names = set(user.groups.values_list("name", flat=True))
        user._leancoach_groups = names
    return group in names


def is_admin(user: Any) -> bool:
    return bool(getattr(user, "is_superuser", False)) or _in_group(user, ADMINS)


def is_teacher(user: Any) -> bool:
    return _in_group(user, TEACHERS)


def is_student(user: Any) -> bool:
    return _in_group(user, STUDENTS)
