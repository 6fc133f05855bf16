"""Who may ask the prover about an exercise, and who may watch a run (views and consumer)."""

from __future__ import annotations

from typing import Any

from webapp.accounts.roles import is_admin
from webapp.courses.access import visible_courses
from webapp.provers.models import ProverRun


def can_use_exercise(user: Any, exercise: Any) -> bool:
    """Admins, and members (students or the teacher) of a class that has the exercise's course
    (the courses app's rule, webapp.courses.access)."""
    return visible_courses(user).filter(pk=exercise.world.course_id).exists()


def can_see_run(user: Any, run: ProverRun) -> bool:
    """A student sees only her own runs; admins see all."""
    return bool(run.user_id == user.pk or is_admin(user))
