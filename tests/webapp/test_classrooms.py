"""Dashboards, joining a class by code, teachers' classes and per-student progress."""

from __future__ import annotations

import html
import re

from django.test import Client
from django.urls import reverse

from tests.webapp.cast import Cast
from webapp.accounts.models import JOIN_CODE_ALPHABET, Classroom, new_join_code
from webapp.attempts.models import Attempt, Progress


def test_join_codes_avoid_ambiguous_characters() -> None:
    code = new_join_code()
    assert len(code) == 8 and set(code) <= set(JOIN_CODE_ALPHABET) and not set(code) & set("0O1IL")


def test_a_student_joins_with_a_code(cast: Cast, client: Client) -> None:
    client.force_login(cast.other_student)
    code = cast.classroom.join_code
    response = client.post(
        reverse("accounts:join"), {"code": f" {code[:4].lower()} {code[4:]} "}, follow=True
    )
    assert "You joined Tess&#x27;s class" in response.content.decode()
    assert cast.classroom.students.filter(pk=cast.other_student.pk).exists()


def test_a_wrong_code_says_so(cast: Cast, client: Client) -> None:
    client.force_login(cast.student)
    response = client.post(reverse("accounts:join"), {"code": "NOPE2345"}, follow=True)
    assert "No class has the join code NOPE2345" in response.content.decode()


def test_it_rejects_teachers_joining(cast: Cast, client: Client) -> None:
    client.force_login(cast.other_teacher)
    assert (
        client.post(reverse("accounts:join"), {"code": cast.classroom.join_code}).status_code == 403
    )


def test_a_teacher_creates_a_class(cast: Cast, client: Client) -> None:
    client.force_login(cast.teacher)
    response = client.post(
        reverse("accounts:create_classroom"), {"name": "Period 3", "courses": [cast.course.pk]}
    )
    classroom = Classroom.objects.get(name="Period 3")
    assert response["Location"] == reverse("accounts:classroom", args=[classroom.pk])
    assert classroom.teacher == cast.teacher and list(classroom.courses.all()) == [cast.course]


def test_it_rejects_students_creating_classes(cast: Cast, client: Client) -> None:
    client.force_login(cast.student)
    assert client.post(reverse("accounts:create_classroom"), {"name": "Mine"}).status_code == 403
    assert not Classroom.objects.filter(name="Mine").exists()


def test_the_class_page_shows_progress_per_student(cast: Cast, client: Client) -> None:
    # The class page counts the attempts made in the class (webapp.courses.progress).
    for valid in (False, False, True):
        Attempt.objects.create(student=cast.student, exercise=cast.exercise, proof="  rfl",
                               status="done", valid=valid)  # fmt: skip
    Progress.objects.create(student=cast.student, exercise=cast.exercise, attempts=3, solved=True)
    client.force_login(cast.teacher)
    body = client.get(reverse("accounts:classroom", args=[cast.classroom.pk])).content.decode()
    assert "<td>sam</td><td>1 / 1 solved" in body
    assert "olly" not in body
    assert cast.classroom.join_code in body


def test_the_class_page_title_is_the_class_name_and_the_consent_form_shows_once(
    cast: Cast, client: Client
) -> None:
    client.force_login(cast.teacher)
    body = client.get(reverse("accounts:classroom", args=[cast.classroom.pk])).content.decode()
    title = re.search(r"<title>(.*?)</title>", body, re.S)
    assert title is not None
    assert html.unescape(title.group(1)).strip() == f"{cast.classroom.name} · LeanCoach"
    assert body.count('id="training-consent"') == 1


def test_it_rejects_other_teachers_from_the_class_page(cast: Cast, client: Client) -> None:
    client.force_login(cast.other_teacher)
    assert client.get(reverse("accounts:classroom", args=[cast.classroom.pk])).status_code == 403
    response = client.post(
        reverse("accounts:classroom_courses", args=[cast.classroom.pk]), {"courses": []}
    )
    assert response.status_code == 403
    assert cast.classroom.courses.exists()


def test_it_rejects_students_from_the_class_page(cast: Cast, client: Client) -> None:
    client.force_login(cast.student)
    assert client.get(reverse("accounts:classroom", args=[cast.classroom.pk])).status_code == 403


def test_a_teacher_sets_the_courses_of_her_class(cast: Cast, client: Client) -> None:
    client.force_login(cast.teacher)
    client.post(reverse("accounts:classroom_courses", args=[cast.classroom.pk]), {"courses": []})
    assert not cast.classroom.courses.exists()


def test_the_student_dashboard_lists_her_courses_and_progress(cast: Cast, client: Client) -> None:
    client.force_login(cast.student)
    body = client.get(reverse("accounts:dashboard")).content.decode()
    assert "Cast course" in body and "solved 0 of 1" in body and "Join class" in body
    assert "Classes you teach" not in body


def test_the_teacher_dashboard_lists_only_her_classes(cast: Cast, client: Client) -> None:
    client.force_login(cast.teacher)
    body = client.get(reverse("accounts:dashboard")).content.decode()
    assert cast.classroom.name.replace("'", "&#x27;") in body
    assert "Otto" not in body


def test_the_dashboard_needs_a_login(client: Client) -> None:
    assert client.get(reverse("accounts:dashboard")).status_code == 302
