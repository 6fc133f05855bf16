"""Ask the prover: who may ask about an exercise, who may watch or cancel a run."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest
from django.test import Client
from django.urls import reverse

from tests.webapp.cast import Cast, make_cast
from webapp.courses.models import Course, Exercise, World
from webapp.provers.models import ProverRun


@pytest.fixture
def cast(db: None) -> Cast:
    return make_cast()


@pytest.fixture
def delay():
    with mock.patch("webapp.provers.actions.enqueue") as delay:
        yield delay


@pytest.fixture
def sams_run(cast: Cast) -> ProverRun:
    return ProverRun.objects.create(exercise=cast.exercise, user=cast.student)


def _ask(client: Client, exercise: Exercise, **extra: Any) -> Any:
    return client.post(reverse("provers:ask", args=[exercise.pk]), {"mode": "agent"}, **extra)


def test_a_student_asks_about_an_exercise_of_her_class(
    client: Client,
    cast: Cast,
    delay,
    django_capture_on_commit_callbacks,
) -> None:
    client.force_login(cast.student)
    with django_capture_on_commit_callbacks(execute=True):
        response = _ask(client, cast.exercise)
    run = ProverRun.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/prover/runs/{run.pk}/"
    assert (run.user, run.exercise, run.mode, run.status) == (
        cast.student,
        cast.exercise,
        "agent",
        "queued",
    )
    delay.assert_called_once_with("prover.run_prover", run.pk)


def test_the_student_page_can_embed_the_panel(client: Client, cast: Cast, delay) -> None:
    client.force_login(cast.student)
    response = client.post(reverse("provers:ask", args=[cast.exercise.pk]),
                           {"mode": "search", "embed": "1"}, HTTP_HX_REQUEST="true")  # fmt: skip
    run = ProverRun.objects.get()
    html = response.content.decode()
    assert f'ws-connect="/ws/prover/runs/{run.pk}/"' in html and "<html" not in html
    assert run.mode == "search"


def test_it_rejects_exercises_outside_the_users_classes(client: Client, cast: Cast, delay) -> None:
    course = Course.objects.create(slug="private", title="Private")
    world = World.objects.create(course=course, slug="w", title="W")
    private = Exercise.objects.create(
        world=world, name="p", formal_statement="theorem p : True := by"
    )
    client.force_login(cast.student)
    refused = _ask(client, private)
    # Not hers and not there at all answer alike: no oracle for which exercise ids exist.
    missing = client.post(reverse("provers:ask", args=[private.pk + 1000]), {"mode": "agent"})
    assert refused.status_code == missing.status_code == 404
    assert refused.content == missing.content
    client.force_login(cast.outsider)
    assert _ask(client, cast.exercise).status_code == 404
    assert not ProverRun.objects.exists() and not delay.called


def test_teachers_of_the_course_and_admins_may_ask(client: Client, cast: Cast, delay) -> None:
    for user in (cast.teacher, cast.admin):
        client.force_login(user)
        assert _ask(client, cast.exercise).status_code == 302
    assert ProverRun.objects.count() == 2


def test_anonymous_users_are_sent_to_login(client: Client, cast: Cast, sams_run: ProverRun) -> None:
    for response in (
        _ask(client, cast.exercise),
        client.get(reverse("provers:run", args=[sams_run.pk])),
        client.get(reverse("provers:run_panel", args=[sams_run.pk])),
        client.post(reverse("provers:cancel", args=[sams_run.pk])),
    ):
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_a_second_run_while_one_is_going_is_refused_with_a_message(
    client: Client,
    cast: Cast,
    sams_run: ProverRun,
    delay,
) -> None:
    client.force_login(cast.student)
    response = _ask(client, cast.exercise, HTTP_HX_REQUEST="true")
    assert "already have a prover run going" in response.content.decode()
    # Back to the exercise, whatever the Referer says (no open redirect).
    response = _ask(client, cast.exercise, HTTP_REFERER="https://evil.example/", follow=False)
    assert response["Location"] == reverse(
        "courses:exercise", args=[cast.course.slug, cast.exercise.name]
    )
    assert ProverRun.objects.count() == 1 and not delay.called


def test_an_unknown_mode_is_refused(client: Client, cast: Cast, delay) -> None:
    client.force_login(cast.student)
    response = client.post(reverse("provers:ask", args=[cast.exercise.pk]), {"mode": "magic"},
                           HTTP_HX_REQUEST="true")  # fmt: skip
    assert "Unknown prover mode" in response.content.decode() and not ProverRun.objects.exists()


@pytest.mark.parametrize("view", ["provers:run", "provers:run_panel"])
def test_a_student_sees_her_own_run(
    client: Client, cast: Cast, sams_run: ProverRun, view: str
) -> None:
    client.force_login(cast.student)
    response = client.get(reverse(view, args=[sams_run.pk]))
    assert response.status_code == 200
    assert f'ws-connect="/ws/prover/runs/{sams_run.pk}/"' in response.content.decode()


@pytest.mark.parametrize("view", ["provers:run", "provers:run_panel"])
@pytest.mark.parametrize("who", ["other_student", "other_teacher", "outsider"])
def test_it_hides_runs_from_everyone_else(
    client: Client, cast: Cast, sams_run: ProverRun, view, who
) -> None:
    client.force_login(getattr(cast, who))
    assert client.get(reverse(view, args=[sams_run.pk])).status_code == 404


@pytest.mark.parametrize("view", ["provers:run", "provers:run_panel"])
def test_her_teacher_sees_that_the_prover_was_asked(
    client: Client, cast: Cast, sams_run: ProverRun, view: str
) -> None:
    client.force_login(cast.teacher)
    assert client.get(reverse(view, args=[sams_run.pk])).status_code == 200


def test_her_teacher_cannot_cancel_it(client: Client, cast: Cast, sams_run: ProverRun) -> None:
    client.force_login(cast.teacher)
    assert client.post(reverse("provers:cancel", args=[sams_run.pk])).status_code == 403
    sams_run.refresh_from_db()
    assert not sams_run.cancel_requested


def test_admins_see_any_run(client: Client, cast: Cast, sams_run: ProverRun) -> None:
    client.force_login(cast.admin)
    assert client.get(reverse("provers:run", args=[sams_run.pk])).status_code == 200


def test_the_owner_cancels_a_queued_run_at_once(
    client: Client, cast: Cast, sams_run: ProverRun
) -> None:
    client.force_login(cast.student)
    client.post(reverse("provers:cancel", args=[sams_run.pk]))
    sams_run.refresh_from_db()
    assert sams_run.status == "cancelled" and sams_run.cancel_requested


def test_a_running_run_is_asked_to_stop(client: Client, cast: Cast, sams_run: ProverRun) -> None:
    ProverRun.objects.filter(pk=sams_run.pk).update(status="running")
    client.force_login(cast.student)
    response = client.post(reverse("provers:cancel", args=[sams_run.pk]), HTTP_HX_REQUEST="true")
    sams_run.refresh_from_db()
    assert sams_run.status == "running" and sams_run.cancel_requested
    assert "process ends within 5 seconds" in response.content.decode()


def test_others_cannot_cancel(client: Client, cast: Cast, sams_run: ProverRun) -> None:
    client.force_login(cast.other_student)
    assert client.post(reverse("provers:cancel", args=[sams_run.pk])).status_code == 404
    sams_run.refresh_from_db()
    assert not sams_run.cancel_requested
