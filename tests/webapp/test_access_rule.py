"""The one rule for a student's work: a teacher sees an attempt (its suggestions, its prover
runs) only when ONE of her classes both holds the student and has the attempt's course.

The hole this closes: Sam is in Tess's class (course A) and in Otto's class (course B). Sam's
attempt on course B is Otto's to see and review, not Tess's, even though Sam is her student."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from tests.webapp.cast import Cast, make_cast
from tests.webapp.test_console_consumers import connect
from webapp.accounts.access import may_see_work
from webapp.accounts.models import Classroom
from webapp.attempts.access import reviewable_suggestions, visible_attempts
from webapp.attempts.export import export_training_snapshot
from webapp.attempts.models import Attempt, CuratedFeedback, Suggestion
from webapp.courses.models import Course, Exercise, World
from webapp.provers.access import can_see_run, visible_runs
from webapp.provers.models import ProverRun

HTMX: dict[str, Any] = {"HTTP_HX_REQUEST": "true"}  # extra WSGI keys for Client.post


@dataclass
class TwoClasses:
    cast: Cast
    attempt: Attempt  # Sam's attempt in Otto's course
    suggestion: Suggestion
    run: ProverRun


def _two_classes() -> TwoClasses:
    cast = make_cast()
    course_b = Course.objects.create(slug="otto-course", title="Otto's course")
    world = World.objects.create(course=course_b, slug="w", title="W", order=1)
    exercise_b = Exercise.objects.create(
        world=world, order=1, name="b_one", formal_statement="theorem b_one : 1 = 1 := by"
    )
    # Tess's class keeps only the cast course; Otto's class teaches course B, and Sam is in it.
    cast.other_classroom.courses.set([course_b])
    cast.other_classroom.students.add(cast.student)
    attempt = Attempt.objects.create(
        student=cast.student, exercise=exercise_b, proof="  rfl", status="done", valid=False
    )
    suggestion = Suggestion.objects.create(
        attempt=attempt, line=1, text="Otto's course advice", source="compiler"
    )
    run = ProverRun.objects.create(exercise=exercise_b, user=cast.student, status="finished")
    return TwoClasses(cast, attempt, suggestion, run)


@pytest.fixture
def two(db: None) -> TwoClasses:
    return _two_classes()


def test_the_rule_itself(two: TwoClasses) -> None:
    cast, course_b, now = two.cast, two.attempt.exercise.world.course_id, timezone.now()
    assert may_see_work(cast.other_teacher, cast.student.pk, course_b, now)
    assert not may_see_work(cast.teacher, cast.student.pk, course_b, now)  # not her course
    assert may_see_work(cast.teacher, cast.student.pk, cast.course.pk, now)
    assert not may_see_work(cast.other_teacher, cast.student.pk, cast.course.pk, now)
    assert may_see_work(cast.student, cast.student.pk, course_b, now)  # her own work
    assert not may_see_work(cast.other_student, cast.student.pk, course_b, now)
    assert may_see_work(cast.admin, cast.student.pk, course_b, now)


def test_querysets_follow_the_rule(two: TwoClasses) -> None:
    cast = two.cast
    assert list(visible_attempts(cast.teacher)) == []
    assert list(visible_attempts(cast.other_teacher)) == [two.attempt]
    assert list(reviewable_suggestions(cast.teacher)) == []
    assert list(reviewable_suggestions(cast.other_teacher)) == [two.suggestion]
    assert list(visible_runs(cast.teacher)) == []
    assert list(visible_runs(cast.other_teacher)) == [two.run]
    assert not can_see_run(cast.teacher, two.run) and can_see_run(cast.other_teacher, two.run)


def test_the_other_classes_teacher_cannot_read_or_edit_the_suggestion(
    two: TwoClasses, client: Client
) -> None:
    client.force_login(two.cast.teacher)
    assert client.get(reverse("attempts:detail", args=[two.attempt.pk])).status_code == 404
    assert client.get(reverse("attempts:live", args=[two.attempt.pk])).status_code == 404
    queue = client.get(reverse("attempts:review") + "?show=all").content.decode()
    assert "Otto&#x27;s course advice" not in queue
    url = reverse("attempts:review_suggestion", args=[two.suggestion.pk])
    response = client.post(url, {"verdict": "edited", "text": "Tess was here"}, **HTMX)
    assert response.status_code == 404
    assert not CuratedFeedback.objects.exists()
    two.suggestion.refresh_from_db()
    assert two.suggestion.review == "pending"
    # The student's page never says "edited by your teacher".
    client.force_login(two.cast.student)
    page = client.get(reverse("attempts:detail", args=[two.attempt.pk])).content.decode()
    assert "edited by your teacher" not in page and "Tess was here" not in page


def test_the_teacher_of_that_class_reviews_it(two: TwoClasses, client: Client) -> None:
    client.force_login(two.cast.other_teacher)
    assert client.get(reverse("attempts:detail", args=[two.attempt.pk])).status_code == 200
    url = reverse("attempts:review_suggestion", args=[two.suggestion.pk])
    response = client.post(url, {"verdict": "edited", "text": "Otto's edit"}, **HTMX)
    assert response.status_code == 200
    assert CuratedFeedback.objects.get().text == "Otto's edit"


def test_the_export_drops_verdicts_given_outside_the_rule(two: TwoClasses, tmp_path: Path) -> None:
    Classroom.objects.update(use_for_training=True)  # consent: only then anything is exported
    # A verdict stored before the fix (through the hole), and a legitimate one.
    CuratedFeedback.objects.create(
        suggestion=two.suggestion, teacher=two.cast.teacher, verdict="edited", text="hole"
    )
    assert export_training_snapshot(tmp_path / "a.jsonl").feedback == 0
    CuratedFeedback.objects.filter(suggestion=two.suggestion).update(
        teacher=two.cast.other_teacher, text="legit"
    )
    assert export_training_snapshot(tmp_path / "b.jsonl").feedback == 1
    assert '"legit"' in (tmp_path / "b.jsonl").read_text()
    CuratedFeedback.objects.filter(suggestion=two.suggestion).update(teacher=two.cast.admin)
    assert export_training_snapshot(tmp_path / "c.jsonl").feedback == 1


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("who", "allowed"), [("teacher", False), ("other_teacher", True), ("student", True)]
)
async def test_websockets_follow_the_rule(who: str, allowed: bool) -> None:
    two = await sync_to_async(_two_classes)()
    for path in (f"/ws/attempts/{two.attempt.pk}/", f"/ws/prover/runs/{two.run.pk}/"):
        communicator, connected = await connect(path, getattr(two.cast, who))
        assert connected is allowed, path
        await communicator.disconnect()


def test_a_verdict_stored_through_the_hole_never_shows_to_the_student(
    two: TwoClasses, client: Client
) -> None:
    # As the hole left it: Tess's edit on a suggestion of Otto's course.
    CuratedFeedback.objects.create(
        suggestion=two.suggestion, teacher=two.cast.teacher, verdict="edited", text="Tess was here"
    )
    Suggestion.objects.filter(pk=two.suggestion.pk).update(review="edited")
    client.force_login(two.cast.student)
    page = client.get(reverse("attempts:detail", args=[two.attempt.pk])).content.decode()
    assert "Otto&#x27;s course advice" in page  # the coach's own text
    assert "Tess was here" not in page and "edited by your teacher" not in page
    # Otto's own edit does show.
    CuratedFeedback.objects.filter(suggestion=two.suggestion).update(
        teacher=two.cast.other_teacher, text="Otto's edit"
    )
    page = client.get(reverse("attempts:detail", args=[two.attempt.pk])).content.decode()
    assert "Otto&#x27;s edit" in page and "edited by your teacher" in page
