"""Who may ask the prover about an exercise, and who may watch a run (views and consumer).
A run is a student's work like an attempt: the same rule decides (webapp.accounts.access)."""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet

from webapp.accounts.access import may_see_work, teaching_filter
from webapp.accounts.roles import is_admin, is_teacher
from webapp.courses.access import visible_courses
from webapp.provers.models import ProverRun

RUN_COURSE = "exercise__world__course"


def can_use_exercise(user: Any, exercise: Any) -> bool:
    """Admins, and members (students or the teacher) of a class that has the exercise's course
    (the courses app's rule, webapp.courses.access)."""
    return visible_courses(user).filter(pk=exercise.world.course_id).exists()


def can_see_run(user: Any, run: ProverRun) -> bool:
    """Its owner, admins, and the student's teachers under the one rule (they see that the
    prover was asked, and what it showed)."""
    return may_see_work(user, run.user_id, run.exercise.world.course_id, run.created_at)


def visible_runs(user: Any) -> QuerySet[ProverRun]:
    runs = ProverRun.objects.select_related("exercise__world__course", "user")
    if not getattr(user, "is_authenticated", False):
        return runs.none()
    if is_admin(user):
        return runs
    if is_teacher(user):
        return runs.filter(Q(user=user) | teaching_filter(user, "user", RUN_COURSE, "created_at"))
    return runs.filter(user=user)


def can_cancel_run(user: Any, run: ProverRun) -> bool:
    """Watching is not steering: only the owner (or an admin) cancels a run."""
    return bool(run.user_id == user.pk or is_admin(user))


def owner_may_see_final_proof(run: ProverRun) -> bool:
    """Whether the student who asked sees the prover's proof: once she has solved the
    exercise, or when a class of hers with this course allows full proofs. Teachers and
    admins asking for themselves always do."""
    from webapp.accounts.models import Classroom
    from webapp.attempts.models import Progress

    owner = run.user
    if is_teacher(owner) or is_admin(owner):
        return True
    exercise = run.exercise
    solved = Progress.objects.filter(student=owner, exercise=exercise, solved=True).exists()
    return (
        solved
        or Classroom.objects.filter(
            students=owner, courses=exercise.world.course_id, prover_shows_full_proofs=True
        ).exists()
    )


def may_see_final_proof(user: Any, run: ProverRun) -> bool:
    """The owner under the class rule; her teachers and admins (who may see the run at all)
    always, so they see exactly what the prover gave."""
    if run.user_id != getattr(user, "pk", None):
        return can_see_run(user, run)
    return owner_may_see_final_proof(run)
