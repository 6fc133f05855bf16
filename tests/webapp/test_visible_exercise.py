"""visible_exercise: the exercise lookup every submit, exercise page and page socket makes.
It must give exactly what the rule of visible_courses gives, for every role, while a
student's own exercise costs one query (no groups read, no subquery)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser

from tests.webapp.cast import Cast
from webapp.courses.access import visible_courses, visible_exercise
from webapp.courses.models import Course, Exercise, World

ROLES = ["student", "other_student", "teacher", "other_teacher", "admin", "outsider"]


@pytest.fixture
def exercises(cast: Cast) -> list[Exercise]:
    """The cast's exercise, one in a course only the other class has (Sam joins it too, so
    she is in two classes), and one in a course no class has."""
    other = Course.objects.create(slug="other", title="Other")
    world = World.objects.create(course=other, slug="w", title="W", order=1)
    in_other = Exercise.objects.create(world=world, order=1, name="o1",
                                       formal_statement="theorem o1 : True := by")  # fmt: skip
    cast.other_classroom.courses.add(other, cast.course)  # the cast course in both classes
    cast.other_classroom.students.add(cast.student)
    orphan = Course.objects.create(slug="orphan", title="Orphan")
    world = World.objects.create(course=orphan, slug="w", title="W", order=1)
    nowhere = Exercise.objects.create(world=world, order=1, name="n1",
                                      formal_statement="theorem n1 : True := by")  # fmt: skip
    return [cast.exercise, in_other, nowhere]


@pytest.mark.parametrize("role", ROLES)
def test_it_follows_the_course_rule_for_every_role(
    cast: Cast, exercises: list[Exercise], role: str
) -> None:
    user = getattr(cast, role)
    allowed = set(visible_courses(user).values_list("pk", flat=True))
    for exercise in exercises:
        found = visible_exercise(user, pk=exercise.pk)
        expected = exercise.world.course_id in allowed
        assert (found is not None) == expected, (role, exercise.name)
        if found is not None:
            assert found.pk == exercise.pk and found.world.course.slug  # world and course read
    # The other lookups the pages use; a miss is None, as for a refusal.
    by_name = visible_exercise(user, world__course__slug=cast.course.slug, name=cast.exercise.name)
    assert (by_name is not None) == (cast.course.pk in allowed)
    assert visible_exercise(user, pk=10**6) is None


def test_nobody_logged_in_sees_nothing(cast: Cast) -> None:
    assert visible_exercise(AnonymousUser(), pk=cast.exercise.pk) is None


def test_a_students_own_exercise_is_one_query(
    cast: Cast, exercises: list[Exercise], django_assert_num_queries: Any
) -> None:
    with django_assert_num_queries(1):  # in two classes with the course: still one row
        exercise = visible_exercise(cast.student, pk=cast.exercise.pk)
        assert exercise is not None and exercise.world.course == cast.course
