"""Who may see what. A student sees only her own work; a teacher sees the work of students in
her classes; an admin sees everything. Used by views, the consumer and the review queue."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from webapp.accounts.roles import is_admin, is_teacher
from webapp.attempts.models import Attempt, Suggestion


def visible_attempts(user: Any) -> QuerySet[Attempt]:
    attempts = Attempt.objects.select_related("exercise__world__course", "student")
    if not getattr(user, "is_authenticated", False):
        return attempts.none()
    if is_admin(user):
        return attempts
    if is_teacher(user):
        return attempts.filter(student__classrooms__teacher=user).distinct()
    return attempts.filter(student=user)


def reviewable_suggestions(user: Any) -> QuerySet[Suggestion]:
    """Suggestions a teacher (or admin) may review: from students in her classes only."""
    suggestions = Suggestion.objects.select_related(
        "attempt__student", "attempt__exercise__world__course"
    )
    if is_admin(user):
        return suggestions
    if is_teacher(user):
        return suggestions.filter(attempt__student__classrooms__teacher=user).distinct()
    return suggestions.none()
