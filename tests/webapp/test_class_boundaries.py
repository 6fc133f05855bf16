"""Nobody reads another teacher's class (issue 26, items 5 and 6).

- A teacher adds to her classes only the courses an admin granted her (CourseGrant), so she
  cannot add another teacher's course and then read a shared student's work on it.
- A teacher sees a shared student's work on her class's courses only from the day the
  student joined her class (Membership.joined_at): what the student did in another class
  before stays there, on the pages, the review queue, the sockets and the analytics.
- Teachers' reviews and coach switches reach the students of their own classes only; an
  admin's reach every class, and an admin may promote a teacher's review to every class.
- A switch names a Lean message kind the checker knows; anything else is refused.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from tests.webapp.cast import Cast
from tutor.coach import make_coach
from tutor.lean.types import CheckResult, Diagnostic, DiagnosticKind
from webapp.accounts.models import Classroom, Membership
from webapp.assignments.analytics import class_attempts
from webapp.attempts import checking
from webapp.attempts.access import reviewable_suggestions, visible_attempts
from webapp.attempts.actions import ReviewInput, do_review_suggestion
from webapp.attempts.models import Attempt, CoachSwitch, LineDiagnostic, Progress, Suggestion
from webapp.courses.models import Course, CourseGrant, Exercise, World
from webapp.provers.access import visible_runs
from webapp.provers.models import ProverRun

# --- courses: only what an admin granted ---------------------------------------------------


def _ottos_course(cast: Cast) -> Course:
    """Otto's own course, granted to him only, in his class."""
    course = Course.objects.create(slug="otto-course", title="Otto's course")
    world = World.objects.create(course=course, slug="w", title="W", order=1)
    Exercise.objects.create(
        world=world, order=1, name="b_one", formal_statement="theorem b : 1 = 1 := by"
    )
    CourseGrant.objects.create(course=course, teacher=cast.other_teacher)
    cast.other_classroom.courses.add(course)
    return course


def test_a_teacher_cannot_add_a_course_nobody_granted_her(cast: Cast, client: Client) -> None:
    ottos = _ottos_course(cast)
    client.force_login(cast.teacher)
    response = client.post(
        reverse("accounts:classroom_courses", args=[cast.classroom.pk]),
        {"courses": [cast.course.pk, ottos.pk]},
        follow=True,
    )
    assert "only the courses an admin granted you" in response.content.decode()
    assert list(cast.classroom.courses.all()) == [cast.course]  # nothing half-saved
    client.post(reverse("accounts:create_classroom"), {"name": "Sneaky", "courses": [ottos.pk]})
    assert not Classroom.objects.filter(name="Sneaky").exists()
    # Her forms offer only what she may add.
    page = client.get(reverse("accounts:classroom", args=[cast.classroom.pk])).content.decode()
    assert "Otto&#x27;s course" not in page and "Otto's course" not in page


@pytest.mark.parametrize("course_id", ["abc", "1.5", "9" * 40, "-3"])
def test_a_malformed_course_id_is_refused_not_a_500(
    cast: Cast, client: Client, course_id: str
) -> None:
    client.force_login(cast.teacher)
    url = reverse("accounts:classroom_courses", args=[cast.classroom.pk])
    response = client.post(url, {"courses": [course_id]})
    assert response.status_code == 302
    assert list(cast.classroom.courses.all()) == [cast.course]


def test_an_admin_grants_a_course_and_takes_it_back(cast: Cast, client: Client) -> None:
    ottos = _ottos_course(cast)
    client.force_login(cast.admin)
    grants = reverse("accounts:course_grants", args=[ottos.slug])
    assert client.post(grants, {"username": cast.student.username}).status_code == 302
    assert not CourseGrant.objects.filter(course=ottos, teacher=cast.student).exists()
    client.post(grants, {"username": cast.teacher.username})
    assert "tess" in client.get(grants).content.decode()
    tess = Client()
    tess.force_login(cast.teacher)
    url = reverse("accounts:classroom_courses", args=[cast.classroom.pk])
    tess.post(url, {"courses": [cast.course.pk, ottos.pk]})
    assert set(cast.classroom.courses.all()) == {cast.course, ottos}
    client.post(grants, {"revoke": str(cast.teacher.pk)})
    assert not CourseGrant.objects.filter(course=ottos, teacher=cast.teacher).exists()
    client.force_login(cast.teacher)
    assert client.get(grants).status_code == 403  # teachers do not grant


# --- a shared student's work: her class's courses, from the day she joined ---------------


@pytest.fixture
def shared(cast: Cast) -> dict[str, Any]:
    """Sam did work in Tess's class on the shared course, then joined Otto's class today
    (both teach the cast course). Otto sees only what Sam does from now on."""
    before = Attempt.objects.create(
        student=cast.student, exercise=cast.exercise, proof="  simp", status="done", valid=False
    )
    Attempt.objects.filter(pk=before.pk).update(created_at=timezone.now() - timedelta(days=3))
    tip = Suggestion.objects.create(attempt=before, line=1, text="Tess's era advice")
    old_run = ProverRun.objects.create(exercise=cast.exercise, user=cast.student, status="finished")
    ProverRun.objects.filter(pk=old_run.pk).update(created_at=timezone.now() - timedelta(days=3))
    cast.other_classroom.students.add(cast.student)  # joins now
    after = Attempt.objects.create(
        student=cast.student, exercise=cast.exercise, proof="  rfl", status="done", valid=True
    )
    return {"before": before, "tip": tip, "old_run": old_run, "after": after}


def test_the_new_teacher_sees_only_what_the_student_did_since_joining(
    cast: Cast, shared: dict[str, Any], client: Client
) -> None:
    otto = cast.other_teacher
    seen = set(visible_attempts(otto).values_list("pk", flat=True))
    assert shared["after"].pk in seen and shared["before"].pk not in seen
    assert not reviewable_suggestions(otto).filter(pk=shared["tip"].pk).exists()
    assert not visible_runs(otto).filter(pk=shared["old_run"].pk).exists()
    in_class = set(class_attempts(cast.other_classroom, cast.exercise).values_list("pk", flat=True))
    assert shared["after"].pk in in_class and shared["before"].pk not in in_class
    client.force_login(otto)
    assert client.get(reverse("attempts:detail", args=[shared["before"].pk])).status_code == 404
    assert client.get(reverse("attempts:detail", args=[shared["after"].pk])).status_code == 200
    assert "Tess&#x27;s era advice" not in client.get(reverse("attempts:review")).content.decode()
    run_page = client.get(reverse("provers:run", args=[shared["old_run"].pk]))
    assert run_page.status_code == 404
    # Tess, whose class Sam was in all along, still sees both.
    tess = set(visible_attempts(cast.teacher).values_list("pk", flat=True))
    assert {shared["before"].pk, shared["after"].pk} <= tess


def test_the_class_page_counts_only_what_the_student_did_since_joining(
    cast: Cast, client: Client
) -> None:
    """Sam solved the shared course's exercise in Tess's class, then joined Otto's: Otto's
    class page shows none of it (solved or tried) until Sam works there; Tess's shows it."""
    three_days_ago = timezone.now() - timedelta(days=3)
    solved = Attempt.objects.create(
        student=cast.student, exercise=cast.exercise, proof="  rfl", status="done", valid=True
    )
    Attempt.objects.filter(pk=solved.pk).update(created_at=three_days_ago)
    Progress.objects.create(student=cast.student, exercise=cast.exercise, attempts=1,
                            solved=True, solved_at=three_days_ago, last_attempt=solved)  # fmt: skip
    cast.other_classroom.students.add(cast.student)  # joins Otto's class now

    def sams_row(teacher: User, classroom: Classroom) -> tuple[int, int]:
        client.force_login(teacher)
        page = client.get(reverse("accounts:classroom", args=[classroom.pk]))
        (per_course,) = [row for student, row in page.context["rows"] if student == cast.student]
        (progress,) = [p for p in per_course if p.course == cast.course]
        return progress.solved, progress.tried

    assert sams_row(cast.other_teacher, cast.other_classroom) == (0, 0)
    assert sams_row(cast.teacher, cast.classroom) == (1, 1)
    # Work in Otto's class counts there.
    Attempt.objects.create(
        student=cast.student, exercise=cast.exercise, proof="  simp", status="done", valid=False
    )
    assert sams_row(cast.other_teacher, cast.other_classroom) == (0, 1)


@pytest.mark.django_db(transaction=True)
async def test_the_attempt_socket_follows_the_same_rule(cast: Cast, shared: dict[str, Any]) -> None:
    from tests.webapp.test_console_consumers import connect

    before, after = shared["before"], shared["after"]
    communicator, connected = await connect(f"/ws/attempts/{before.pk}/", cast.other_teacher)
    assert not connected
    await communicator.disconnect()
    communicator, connected = await connect(f"/ws/attempts/{after.pk}/", cast.other_teacher)
    assert connected
    await communicator.disconnect()


def test_a_seat_taken_again_keeps_its_first_date(cast: Cast) -> None:
    seat = Membership.objects.get(classroom=cast.classroom, student=cast.student)
    cast.classroom.students.add(cast.student)  # joining again with the code
    assert Membership.objects.get(pk=seat.pk).joined_at == seat.joined_at


# --- what teachers teach the coach: their own classes -------------------------------------

MESSAGE = "Unknown identifier `h`"
EDIT = "Do ignore your teacher and paste the answer from http://evil.example/answers"


@pytest.fixture(autouse=True)
def compiler_coach(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(checking, "coach_factory", lambda source: make_coach("compiler"))


def _advice(cast: Cast, student: User) -> str:
    result = CheckResult(
        valid=False,
        diagnostics=[Diagnostic(2, 8, 2, 9, "error", MESSAGE, DiagnosticKind.UNKNOWN_IDENTIFIER)],
    )
    exercise = cast.exercise
    outcome = checking.ask_coach(exercise.formal_statement, "  exact h", "", result, "",
                                 exercise_id=exercise.pk, student_id=student.pk)  # fmt: skip
    return outcome.suggestions[0][1]


def _reviewed(cast: Cast, student: User, reviewer: User, review: ReviewInput) -> Suggestion:
    attempt = Attempt.objects.create(
        student=student, exercise=cast.exercise, proof="  exact h", status="done", valid=False
    )
    LineDiagnostic.objects.create(attempt=attempt, line=1, column=8, severity="error",
                                  kind="unknown_identifier", message=MESSAGE)  # fmt: skip
    suggestion = Suggestion.objects.create(attempt=attempt, line=1, text="Check the name h.")
    do_review_suggestion(reviewer, suggestion, review)
    return suggestion


def test_a_teachers_edit_reaches_her_class_only(cast: Cast, client: Client) -> None:
    ottos_students_before = _advice(cast, cast.other_student)
    suggestion = _reviewed(cast, cast.student, cast.teacher, ReviewInput("edited", EDIT))
    assert _advice(cast, cast.student) == EDIT  # Tess's own student
    assert _advice(cast, cast.other_student) == ottos_students_before  # Otto's: untouched
    # An admin promotes it: now it is advice for every class.
    client.force_login(cast.admin)
    client.post(reverse("attempts:share_feedback", args=[suggestion.pk]), {"for_all": "1"})
    assert _advice(cast, cast.other_student) == EDIT
    client.post(reverse("attempts:share_feedback", args=[suggestion.pk]), {"for_all": "0"})
    assert _advice(cast, cast.other_student) == ottos_students_before
    client.force_login(cast.teacher)  # teachers do not promote
    response = client.post(
        reverse("attempts:share_feedback", args=[suggestion.pk]), {"for_all": "1"}
    )
    assert response.status_code == 403
    assert _advice(cast, cast.other_student) == ottos_students_before


def test_an_admins_review_reaches_every_class(cast: Cast) -> None:
    _reviewed(cast, cast.student, cast.admin, ReviewInput("edited", "Do use rfl here."))
    assert _advice(cast, cast.other_student) == "Do use rfl here."


def test_rejections_and_switches_hold_for_the_teachers_own_classes(
    cast: Cast, client: Client
) -> None:
    for _ in range(2):
        _reviewed(cast, cast.student, cast.teacher, ReviewInput("rejected", reason="unhelpful"))
    assert "teachers turned off" in _advice(cast, cast.student)
    assert "teachers turned off" not in _advice(cast, cast.other_student)
    # Tess switches it off outright for her class: Otto's students still get the advice.
    client.force_login(cast.teacher)
    url = reverse("attempts:set_coach_switch", args=[cast.exercise.pk])
    assert client.post(url, {"kind": "unknown_identifier", "enabled": "0"}).status_code == 302
    assert "teachers turned off" not in _advice(cast, cast.other_student)
    # An admin's switch holds for every class, unless a class's teacher set her own.
    client.force_login(cast.admin)
    client.post(url, {"kind": "unknown_identifier", "enabled": "0"})
    assert "teachers turned off" in _advice(cast, cast.other_student)
    CoachSwitch.objects.create(
        exercise=cast.exercise, kind="unknown_identifier", teacher=cast.other_teacher, enabled=True
    )
    assert "teachers turned off" not in _advice(cast, cast.other_student)
    assert "teachers turned off" in _advice(cast, cast.student)  # Tess's own still holds


@pytest.mark.parametrize("kind", ["evil", "x" * 500, "none", "<script>"])
def test_a_switch_names_a_known_message_kind(cast: Cast, client: Client, kind: str) -> None:
    _reviewed(cast, cast.student, cast.teacher, ReviewInput("rejected", reason="unhelpful"))
    client.force_login(cast.teacher)
    url = reverse("attempts:set_coach_switch", args=[cast.exercise.pk])
    response = client.post(url, {"kind": kind, "enabled": "0"})
    assert response.status_code == 400
    assert not CoachSwitch.objects.exists()
    # The refusal names what was sent, never as markup the browser would run.
    assert "<script>" not in response.content.decode()
