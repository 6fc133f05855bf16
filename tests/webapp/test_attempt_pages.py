"""GET /attempts/<pk>/ and /attempts/<pk>/live/ (the htmx endpoint of the live fragments)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tests.webapp.cast import Cast
from webapp.attempts.models import Attempt


@pytest.fixture
def attempt(cast: Cast) -> Attempt:
    return Attempt.objects.create(
        student=cast.student,
        exercise=cast.exercise,
        proof="  rfl",
        status="unavailable",
        status_detail="Lean unavailable: no REPL",
    )


@pytest.mark.parametrize("name", ["attempts:detail", "attempts:live"])
def test_the_student_and_her_teacher_see_it(
    cast: Cast, client: Client, attempt: Attempt, name: str
) -> None:
    for user in (cast.student, cast.teacher, cast.admin):
        client.force_login(user)
        response = client.get(reverse(name, args=[attempt.pk]))
        assert response.status_code == 200
        assert "Lean unavailable: no REPL" in response.content.decode()


@pytest.mark.parametrize("name", ["attempts:detail", "attempts:live"])
def test_it_rejects_other_students(cast: Cast, client: Client, attempt: Attempt, name: str) -> None:
    client.force_login(cast.other_student)
    assert client.get(reverse(name, args=[attempt.pk])).status_code == 404


@pytest.mark.parametrize("name", ["attempts:detail", "attempts:live"])
def test_it_rejects_other_teachers(cast: Cast, client: Client, attempt: Attempt, name: str) -> None:
    client.force_login(cast.other_teacher)
    assert client.get(reverse(name, args=[attempt.pk])).status_code == 404


def test_the_live_fragments_are_out_of_band_swaps(
    cast: Cast, client: Client, attempt: Attempt
) -> None:
    client.force_login(cast.student)
    body = client.get(reverse("attempts:live", args=[attempt.pk])).content.decode()
    assert body.count('hx-swap-oob="true"') == 3  # status, feedback, history badge
    assert "No verdict was given" in body
