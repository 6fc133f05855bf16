"""No N+1 queries: the course, exercise, class and review pages run a fixed number of
queries however many worlds, exercises, students, attempts and suggestions there are."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from tests.webapp.cast import PASSWORD, Cast
from webapp.attempts.models import Attempt, LineDiagnostic, Progress, Suggestion
from webapp.courses.models import Course, Exercise, World


def _grow(cast: Cast, size: int) -> None:
    """`size` more worlds of exercises, students in the class, and attempts with suggestions."""
    for w in range(size):
        world = World.objects.create(course=cast.course, slug=f"w{w}", title=f"W{w}", order=w + 2)
        for e in range(3):
            Exercise.objects.create(world=world, order=e, name=f"ex_{w}_{e}", title=f"E{w}.{e}",
                                    formal_statement=f"theorem ex_{w}_{e} : True := by",
                                    goal="⊢ True", reference_proof="  trivial")  # fmt: skip
    for c in range(size // 2):  # more courses in the class: rows x courses on class pages
        course = Course.objects.create(slug=f"extra-{c}", title=f"Extra {c}")
        world = World.objects.create(course=course, slug="w", title="W", order=1)
        Exercise.objects.create(world=world, order=1, name=f"extra_{c}", title="X",
                                formal_statement=f"theorem extra_{c} : True := by")  # fmt: skip
        cast.classroom.courses.add(course)
    for s in range(size):
        student = User.objects.create_user(username=f"s{s}", password=PASSWORD)
        cast.classroom.students.add(student)
        for exercise in Exercise.objects.filter(world__course=cast.course)[:3]:
            attempt = Attempt.objects.create(student=student, exercise=exercise, proof="  simp",
                                             status="done", valid=False)  # fmt: skip
            LineDiagnostic.objects.create(attempt=attempt, line=1, severity="error",
                                          kind="x", message="m", goal="⊢ True")  # fmt: skip
            Suggestion.objects.create(attempt=attempt, line=1, text="Try trivial.",
                                      source="compiler")  # fmt: skip
            Progress.objects.get_or_create(student=student, exercise=exercise)
    for exercise in Exercise.objects.filter(world__course=cast.course)[:size]:
        attempt = Attempt.objects.create(student=cast.student, exercise=exercise, proof="  simp",
                                         status="done", valid=False)  # fmt: skip
        LineDiagnostic.objects.create(attempt=attempt, line=1, severity="error", kind="x",
                                      message="m", goal="⊢ True")  # fmt: skip
        Suggestion.objects.create(attempt=attempt, line=1, text="Try trivial.", source="compiler")


def _pages(cast: Cast) -> dict[str, tuple[Any, str]]:
    return {
        "course": (cast.student, reverse("courses:course", args=[cast.course.slug])),
        "exercise": (
            cast.student,
            reverse("courses:exercise", args=[cast.course.slug, cast.exercise.name]),
        ),
        "class": (cast.teacher, reverse("accounts:classroom", args=[cast.classroom.pk])),
        "review": (cast.teacher, reverse("attempts:review")),
        "dashboard": (cast.student, reverse("accounts:dashboard")),
    }


# Measured with a small and a large class: the same count (each bound is that count; the
# class page gained its prover runs and the training-consent switch: 11; the exercise page its
# lesson, hints and prover runs: 14; the class page and the dashboard their assignments: 12
# and 8, and the dashboard four more once something is due, whatever the number:
# tests/webapp/test_assignments.py; the review queue Lean's messages beside each suggestion,
# one prefetch: 5).
MAX_QUERIES = {"course": 9, "exercise": 14, "class": 12, "review": 5, "dashboard": 8}


@pytest.mark.parametrize("page", sorted(MAX_QUERIES))
@pytest.mark.parametrize("size", [2, 12])
def test_page_queries_do_not_grow_with_the_data(
    cast: Cast, client: Client, django_assert_max_num_queries: Any, page: str, size: int
) -> None:
    _grow(cast, size)
    user, url = _pages(cast)[page]
    client.force_login(user)
    client.get(url)  # sessions and caches warm, as for a user already browsing
    with django_assert_max_num_queries(MAX_QUERIES[page]):
        response = client.get(url)
    assert response.status_code == 200
