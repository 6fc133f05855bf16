"""GET /courses/<slug>/ and /courses/<slug>/<exercise>/: who may open them, what they show."""

from __future__ import annotations

from django.test import Client
from django.urls import reverse

from tests.webapp.cast import Cast
from webapp.accounts.models import Classroom
from webapp.attempts.models import Attempt, LineDiagnostic, Progress, Suggestion
from webapp.courses.models import Course


def _exercise_url(cast: Cast) -> str:
    return reverse("courses:exercise", args=[cast.course.slug, cast.exercise.name])


def test_it_shows_the_statement_read_only_and_an_editor(cast: Cast, client: Client) -> None:
    client.force_login(cast.student)
    response = client.get(_exercise_url(cast))
    body = response.content.decode()
    assert response.status_code == 200
    assert "theorem cast_add_zero (n : Nat) : n + 0 = n := by" in body
    assert 'aria-label="Statement (read-only)"' in body
    assert "data-lean-editor" in body and "js/editor.bundle.js" in body
    # No attempt yet: the history's list is truly empty, so CSS (ol:empty) shows the note
    # until a submit's answer adds the first row.
    assert '<ol></ol>\n  <p class="muted history-none">None yet.</p>' in body


def test_it_shows_the_latest_attempt_with_markers_goals_and_suggestions(
    cast: Cast,
    client: Client,
) -> None:
    attempt = Attempt.objects.create(
        student=cast.student,
        exercise=cast.exercise,
        proof="  simp\n  omega",
        status="done",
        valid=False,
    )
    LineDiagnostic.objects.create(
        attempt=attempt,
        line=2,
        severity="error",
        kind="omega_failed",
        message="omega could not prove the goal",
        goal="n : Nat\n⊢ n = n",
    )
    Suggestion.objects.create(
        attempt=attempt, line=2, text="Try rfl here instead.", source="compiler"
    )
    client.force_login(cast.student)
    body = client.get(_exercise_url(cast)).content.decode()
    assert 'data-line="2" data-marker="error"' in body
    assert "omega could not prove the goal" in body and "⊢ n = n" in body
    assert "Try rfl here instead." in body
    assert "  simp\n  omega</textarea>" in body  # the last proof is back in the editor
    # One socket for the page, told which attempt and state the page draws; none per panel.
    shown = f"{attempt.pk}%3A{attempt.live_marker}"
    assert f'ws-connect="/ws/exercises/{cast.exercise.pk}/live/?shown={shown}"' in body
    assert body.count("ws-connect") == 1 and "ws-send" not in body


def test_it_hides_other_students_attempts(cast: Cast, client: Client) -> None:
    Attempt.objects.create(
        student=cast.other_student, exercise=cast.exercise, proof="  secret_tactic"
    )
    client.force_login(cast.student)
    assert "secret_tactic" not in client.get(_exercise_url(cast)).content.decode()


def test_it_rejects_students_outside_the_course(cast: Cast, client: Client) -> None:
    hidden = Course.objects.create(slug="hidden", title="Hidden")
    Classroom.objects.create(name="Other", teacher=cast.other_teacher).courses.add(hidden)
    client.force_login(cast.student)
    response = client.get(reverse("courses:course", args=["hidden"]))
    assert response.status_code == 404
    assert "not part of your classes" in response.content.decode()


def test_it_rejects_outsiders(cast: Cast, client: Client) -> None:
    client.force_login(cast.outsider)
    assert client.get(_exercise_url(cast)).status_code == 404


def test_it_redirects_anonymous_users_to_login(cast: Cast, client: Client) -> None:
    response = client.get(_exercise_url(cast))
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))


def test_a_wrong_course_gets_a_clear_message(cast: Cast, client: Client) -> None:
    client.force_login(cast.student)
    response = client.get(reverse("courses:exercise", args=["no-such-course", cast.exercise.name]))
    assert response.status_code == 404
    assert "no-such-course" in response.content.decode()


def test_the_course_page_shows_progress(cast: Cast, client: Client) -> None:
    Progress.objects.create(student=cast.student, exercise=cast.exercise, attempts=2, solved=True)
    client.force_login(cast.student)
    body = client.get(reverse("courses:course", args=[cast.course.slug])).content.decode()
    assert "Solved 1 of 1 (100%)" in body and "solved</span>" in body


def test_teachers_and_admins_may_open_the_course(cast: Cast, client: Client) -> None:
    for user in (cast.teacher, cast.admin):
        client.force_login(user)
        assert client.get(_exercise_url(cast)).status_code == 200
