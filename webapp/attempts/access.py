"""Who may see what. A student sees only her own work; a teacher sees the work of a student
made in a course of a class she teaches and the student belongs to (webapp.accounts.access,
the one rule); an admin sees everything. Used by views, the consumer, the review queue and
the training export."""

from __future__ import annotations

from typing import Any

from django.db.models import OuterRef, Q, QuerySet

from webapp.accounts.access import teaches, teaching_filter
from webapp.accounts.roles import ADMINS, is_admin, is_teacher
from webapp.attempts.models import Attempt, CuratedFeedback, Suggestion

ATTEMPT_COURSE = "exercise__world__course"


def visible_attempts(user: Any) -> QuerySet[Attempt]:
    attempts = Attempt.objects.select_related("exercise__world__course", "student")
    if not getattr(user, "is_authenticated", False):
        return attempts.none()
    if is_admin(user):
        return attempts
    if is_teacher(user):
        # Her own attempts too (a teacher trying her course's exercises).
        return attempts.filter(
            Q(student=user) | teaching_filter(user, "student", ATTEMPT_COURSE, "created_at")
        )
    return attempts.filter(student=user)


def visible_attempt(user: Any, pk: int, *, defer: tuple[str, ...] = ()) -> Attempt | None:
    """Attempt `pk` if `user` may see it: the rule of visible_attempts. Her own attempt is
    tried first, in one plain read (everyone sees their own work): the student's attempt
    page and its socket ask on every open, and the whole rule read her groups for the admin
    check first. Anyone else's attempt takes the whole rule after that first miss."""
    if not getattr(user, "is_authenticated", False):
        return None
    own_attempts = Attempt.objects.select_related(ATTEMPT_COURSE, "student").defer(*defer)
    own = own_attempts.filter(pk=pk, student_id=user.pk).first()
    if own is not None:
        return own
    return visible_attempts(user).defer(*defer).filter(pk=pk).first()


def reviewable_suggestions(user: Any) -> QuerySet[Suggestion]:
    """Suggestions a teacher (or admin) may review: on attempts she may see as a teacher."""
    suggestions = Suggestion.objects.select_related(
        "attempt__student", "attempt__exercise__world__course"
    )
    if not getattr(user, "is_authenticated", False):
        return suggestions.none()
    if is_admin(user):
        return suggestions
    if is_teacher(user):
        return suggestions.filter(
            teaching_filter(
                user, "attempt__student", f"attempt__{ATTEMPT_COURSE}", "attempt__created_at"
            )
        )
    return suggestions.none()


def exportable_feedback() -> QuerySet[CuratedFeedback]:
    """Curated feedback whose reviewer may review it under the rule (or is an admin): the
    training export keeps only these, so a verdict given through a hole, or by a teacher who
    no longer teaches that student that course, is not trained on."""
    path = "suggestion__attempt__"
    by_admin = Q(teacher__is_superuser=True) | Q(teacher__groups__name=ADMINS)
    by_teacher = teaches(
        OuterRef("teacher"),
        OuterRef(f"{path}student"),
        OuterRef(f"{path}{ATTEMPT_COURSE}"),
        OuterRef(f"{path}created_at"),
    )
    allowed = CuratedFeedback.objects.filter(by_admin | by_teacher).values("pk")
    return CuratedFeedback.objects.filter(pk__in=allowed)
