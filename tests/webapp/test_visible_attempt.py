"""visible_attempt: the lookup an attempt's page and its socket make on every open. It must
give exactly what visible_attempts gives, for every role and every owner, while a user's own
attempt costs one query (no groups read)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser

from tests.webapp.cast import Cast
from webapp.attempts.access import visible_attempt, visible_attempts
from webapp.attempts.models import Attempt

ROLES = ["student", "other_student", "teacher", "other_teacher", "admin", "outsider"]


@pytest.fixture
def attempts(cast: Cast) -> list[Attempt]:
    """One attempt by each member of the cast (teachers and admins try exercises too)."""
    return [
        Attempt.objects.create(student=getattr(cast, role), exercise=cast.exercise, proof="  rfl")
        for role in ROLES
    ]


@pytest.mark.parametrize("role", ROLES)
def test_it_follows_the_rule_for_every_role_and_owner(
    cast: Cast, attempts: list[Attempt], role: str
) -> None:
    user = getattr(cast, role)
    allowed = set(visible_attempts(user).values_list("pk", flat=True))
    assert allowed  # everyone sees at least their own
    for attempt in attempts:
        found = visible_attempt(user, attempt.pk)
        assert (found is not None) == (attempt.pk in allowed), (role, attempt.student.username)
        if found is not None:
            assert found.pk == attempt.pk
            assert found.exercise.world.course == cast.course and found.student.username
    assert visible_attempt(user, 10**6) is None


def test_nobody_logged_in_sees_nothing(attempts: list[Attempt]) -> None:
    assert visible_attempt(AnonymousUser(), attempts[0].pk) is None


@pytest.mark.parametrize("role", ROLES)
def test_ones_own_attempt_is_one_query(
    cast: Cast, attempts: list[Attempt], role: str, django_assert_num_queries: Any
) -> None:
    user = getattr(cast, role)
    own = attempts[ROLES.index(role)]
    with django_assert_num_queries(1):
        found = visible_attempt(user, own.pk, defer=("check_result",))
        assert found is not None and found.exercise.world.course.slug == cast.course.slug


def test_a_teacher_on_her_students_attempt_takes_the_whole_rule(
    cast: Cast, attempts: list[Attempt], django_assert_max_num_queries: Any
) -> None:
    with django_assert_max_num_queries(3):  # the own-attempt miss, her groups, the rule
        assert visible_attempt(cast.teacher, attempts[0].pk) is not None
