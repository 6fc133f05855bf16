"""Assignments: setting work for a class (time zones), what students see as due, what counts
as solved (Lean's verdict only), late work, and the permission edges."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from tests.webapp.cast import Cast
from webapp.accounts.models import Membership
from webapp.assignments.actions import AssignmentInput, InvalidInput, do_create_assignment
from webapp.assignments.charts import bar_chart
from webapp.assignments.models import Assignment
from webapp.assignments.standing import due_for, standings
from webapp.attempts.models import Attempt
from webapp.courses.models import Course, Exercise, HintOpening, World
from webapp.provers.models import ProverRun


def _second_exercise(cast: Cast) -> Exercise:
    return Exercise.objects.create(
        world=cast.exercise.world,
        order=2,
        name="cast_zero_add",
        formal_statement="theorem t : True := by",
    )


def _assignment(
    cast: Cast,
    title: str,
    *,
    opens: timedelta,
    due: timedelta,
    exercises: list[Exercise] | None = None,
) -> Assignment:
    now = timezone.now()
    a = Assignment.objects.create(
        classroom=cast.classroom, title=title, opens_at=now + opens, due_at=now + due
    )
    a.exercises.set(exercises or [cast.exercise])
    return a


def _attempt(
    cast: Cast, *, valid: bool | None, at: datetime, student=None, exercise=None
) -> Attempt:
    attempt = Attempt.objects.create(
        student=student or cast.student,
        exercise=exercise or cast.exercise,
        proof="  rfl",
        status="done" if valid is not None else "unavailable",
        valid=valid,
    )
    Attempt.objects.filter(pk=attempt.pk).update(created_at=at)
    attempt.refresh_from_db()
    return attempt


def test_a_teacher_sets_work_in_her_time_zone(cast: Cast, client: Client) -> None:
    second = _second_exercise(cast)
    client.force_login(cast.teacher)
    response = client.post(
        reverse("assignments:new", args=[cast.classroom.pk]),
        {
            "title": "Week 1",
            "opens": "2026-01-05T08:00",
            "due": "2026-01-09T17:00",
            "time_zone": "Europe/Paris",
            "worlds": [cast.exercise.world.pk],
        },
    )
    assignment = Assignment.objects.get(title="Week 1")
    assert response["Location"] == reverse("assignments:detail", args=[assignment.pk])
    # 17:00 in Paris in January is 16:00 UTC; the page shows the time as the teacher wrote it.
    assert assignment.due_at == datetime(2026, 1, 9, 16, 0, tzinfo=UTC)
    assert assignment.due_local.hour == 17 and assignment.time_zone == "Europe/Paris"
    assert set(assignment.exercises.all()) == {cast.exercise, second}  # the whole world
    page = client.get(response["Location"]).content.decode()
    assert "Fri 09 Jan 2026, 17:00 Europe/Paris" in page  # not the server's 16:00 UTC


def test_the_time_zone_starts_as_the_teachers_browser_zone(cast: Cast, client: Client) -> None:
    """The form names UTC (valid without a script) and marks the field for the page's script,
    which puts the browser's zone there; a form sent back with an error keeps hers."""
    client.force_login(cast.teacher)
    url = reverse("assignments:new", args=[cast.classroom.pk])
    page = client.get(url).content.decode()
    assert 'src="/static/js/time-zone.js"' in page
    assert 'name="time_zone" list="zones" value="UTC" data-browser-zone' in page
    assert '<option value="Asia/Tokyo">' in page  # the zones the script may choose from
    script = (settings.BASE_DIR / "static/js/time-zone.js").read_text()
    assert "Intl.DateTimeFormat().resolvedOptions().timeZone" in script
    assert "input[data-browser-zone]" in script
    sent_back = client.post(url, {"title": "", "time_zone": "Europe/Paris"})
    assert sent_back.status_code == 400
    body = sent_back.content.decode()
    assert 'value="Europe/Paris" aria-describedby' in body and "data-browser-zone" not in body


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"due": "2026-01-04T08:00"}, "must come after the opening time"),
        ({"time_zone": "Mars/Olympus"}, "Unknown time zone"),
        ({"exercises": []}, "Pick at least one exercise"),
        ({"title": "  "}, "Give the assignment a title"),
        ({"opens": "soon"}, "as a date and time"),
    ],
)
def test_it_refuses_bad_input(cast: Cast, change: dict[str, object], message: str) -> None:
    data = {
        "title": "W",
        "opens": "2026-01-05T08:00",
        "due": "2026-01-09T17:00",
        "time_zone": "UTC",
        "exercises": [str(cast.exercise.pk)],
    } | change
    with pytest.raises(InvalidInput, match=message):
        do_create_assignment(
            cast.classroom,
            cast.teacher,
            AssignmentInput(
                title=str(data["title"]),
                opens=str(data["opens"]),
                due=str(data["due"]),
                time_zone=str(data["time_zone"]),
                exercise_ids=tuple(data["exercises"]),  # type: ignore[arg-type]
            ),
        )


def test_it_refuses_exercises_from_courses_the_class_does_not_take(cast: Cast) -> None:
    other = Course.objects.create(slug="other", title="Other")
    world = World.objects.create(course=other, slug="w", title="W")
    foreign = Exercise.objects.create(
        world=world, name="x", formal_statement="theorem x : True := by"
    )
    data = AssignmentInput("W", "2026-01-05T08:00", "2026-01-09T17:00", "UTC", (str(foreign.pk),))
    with pytest.raises(InvalidInput, match="this class's courses only"):
        do_create_assignment(cast.classroom, cast.teacher, data)
    whole_world = AssignmentInput(
        "W", "2026-01-05T08:00", "2026-01-09T17:00", "UTC", (), (str(world.pk),)
    )
    with pytest.raises(InvalidInput, match="this class's courses only"):
        do_create_assignment(cast.classroom, cast.teacher, whole_world)


def test_another_teacher_cannot_set_work_for_her_class(cast: Cast, client: Client) -> None:
    client.force_login(cast.other_teacher)
    response = client.post(
        reverse("assignments:new", args=[cast.classroom.pk]),
        {
            "title": "Mine now",
            "opens": "2026-01-05T08:00",
            "due": "2026-01-09T17:00",
            "exercises": [cast.exercise.pk],
        },
    )
    assert response.status_code == 404 and not Assignment.objects.exists()


def test_students_see_what_is_due_soonest_first(cast: Cast, client: Client) -> None:
    later = _assignment(cast, "Later", opens=-timedelta(days=1), due=timedelta(days=9))
    sooner = _assignment(cast, "Sooner", opens=-timedelta(days=1), due=timedelta(days=2))
    _assignment(cast, "Not open yet", opens=timedelta(days=1), due=timedelta(days=3))
    other = Assignment.objects.create(
        classroom=cast.other_classroom,
        title="Otto's",
        opens_at=timezone.now(),
        due_at=timezone.now() + timedelta(days=1),
    )
    other.exercises.add(cast.exercise)
    assert [s.assignment for s in due_for(cast.student)] == [sooner, later]
    client.force_login(cast.student)
    body = client.get(reverse("accounts:dashboard")).content.decode()
    assert body.index("Sooner") < body.index("Later")
    assert "Not open yet" not in body and "Otto&#x27;s" not in body


def test_only_a_valid_verdict_solves_hints_and_the_prover_are_flags(cast: Cast) -> None:
    a = _assignment(cast, "W", opens=-timedelta(days=2), due=timedelta(days=1))
    _attempt(cast, valid=False, at=timezone.now())
    _attempt(cast, valid=None, at=timezone.now())  # Lean unavailable: no verdict, not solved
    HintOpening.objects.create(student=cast.student, exercise=cast.exercise, index=0)
    ProverRun.objects.create(
        exercise=cast.exercise, user=cast.student, status="finished", verdict="valid"
    )
    s = standings([a], [cast.student])[cast.student.pk, a.pk]
    assert (s.solved, s.total, s.hint, s.prover, s.late) == (0, 1, True, True, False)
    _attempt(cast, valid=True, at=timezone.now())
    s = standings([a], [cast.student])[cast.student.pk, a.pk]
    assert (s.solved, s.complete, s.score) == (1, True, 1.0)


def test_late_work_is_accepted_and_marked_late(cast: Cast, client: Client) -> None:
    a = _assignment(cast, "W", opens=-timedelta(days=3), due=-timedelta(days=1))
    _attempt(cast, valid=True, at=timezone.now())
    s = standings([a], [cast.student])[cast.student.pk, a.pk]
    assert s.solved == 1 and s.late
    client.force_login(cast.student)
    body = client.get(reverse("assignments:detail", args=[a.pk])).content.decode()
    assert "solved (Lean accepted)" in body and "late" in body


def test_a_solve_before_the_due_date_is_on_time(cast: Cast) -> None:
    a = _assignment(cast, "W", opens=-timedelta(days=3), due=-timedelta(days=1))
    _attempt(cast, valid=True, at=timezone.now() - timedelta(days=2))
    _attempt(cast, valid=True, at=timezone.now())  # solving it again later changes nothing
    assert not standings([a], [cast.student])[cast.student.pk, a.pk].late


def test_a_student_sees_only_her_own_standing(cast: Cast, client: Client) -> None:
    a = _assignment(cast, "W", opens=-timedelta(days=1), due=timedelta(days=1))
    classmate = cast.other_student
    cast.classroom.students.add(classmate)
    _attempt(cast, valid=True, at=timezone.now(), student=classmate)
    client.force_login(cast.student)
    body = client.get(reverse("assignments:detail", args=[a.pk])).content.decode()
    assert "0 of 1 solved" in body and classmate.username not in body


def test_an_assignment_not_yet_open_is_hidden_from_students(cast: Cast, client: Client) -> None:
    a = _assignment(cast, "W", opens=timedelta(days=1), due=timedelta(days=2))
    client.force_login(cast.student)
    assert client.get(reverse("assignments:detail", args=[a.pk])).status_code == 404


def test_the_teacher_sees_the_class_results(cast: Cast, client: Client) -> None:
    a = _assignment(cast, "W", opens=-timedelta(days=1), due=timedelta(days=1))
    _attempt(cast, valid=True, at=timezone.now())
    client.force_login(cast.teacher)
    body = client.get(reverse("assignments:detail", args=[a.pk])).content.decode()
    assert 'id="assignment-results"' in body and "sam" in body and "1 / 1" in body
    assert "<svg" in body  # the solved-per-exercise chart, drawn on the server


def test_removal_needs_confirmation_and_keeps_the_work(cast: Cast, client: Client) -> None:
    a = _assignment(cast, "W", opens=-timedelta(days=1), due=timedelta(days=1))
    _attempt(cast, valid=True, at=timezone.now())
    client.force_login(cast.teacher)
    client.post(reverse("assignments:delete", args=[a.pk]))
    assert Assignment.objects.filter(pk=a.pk).exists()
    client.post(reverse("assignments:delete", args=[a.pk]), {"confirm": "yes"})
    assert not Assignment.objects.filter(pk=a.pk).exists() and Attempt.objects.exists()


def _dashboard_queries(client: Client) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(reverse("accounts:dashboard")).status_code == 200
    return len(queries)


def test_the_dashboard_asks_as_many_queries_for_eight_assignments_as_for_one(
    cast: Cast, client: Client
) -> None:
    _assignment(cast, "A0", opens=-timedelta(days=1), due=timedelta(days=1))
    client.force_login(cast.student)
    client.get(reverse("accounts:dashboard"))  # warm the session and group caches
    one = _dashboard_queries(client)
    for i in range(1, 8):
        _assignment(cast, f"A{i}", opens=-timedelta(days=1), due=timedelta(days=i + 1))
    assert _dashboard_queries(client) == one


def test_bar_charts_scale_to_the_largest_value() -> None:
    chart = bar_chart("t", [("a", 2), ("b", 4), ("c", 0)])
    widths = [bar.width for bar in chart.bars]
    assert widths[1] == 2 * widths[0] and widths[2] == 0 and widths[1] > 0
    assert not chart.empty and bar_chart("t", [("a", 0)]).empty


def test_only_work_since_she_joined_the_class_is_graded(cast: Cast) -> None:
    """Her solve, hint and prover run from before she joined this class (another class on the
    same course) are not this class's to grade or to see; what she does after joining is."""
    a = _assignment(cast, "W", opens=-timedelta(days=5), due=timedelta(days=1))
    joined = timezone.now() - timedelta(days=1)
    Membership.objects.filter(classroom=cast.classroom, student=cast.student).update(
        joined_at=joined
    )
    before = joined - timedelta(days=1)
    _attempt(cast, valid=True, at=before)
    hint = HintOpening.objects.create(student=cast.student, exercise=cast.exercise, index=0)
    HintOpening.objects.filter(pk=hint.pk).update(opened_at=before)
    run = ProverRun.objects.create(exercise=cast.exercise, user=cast.student, status="finished")
    ProverRun.objects.filter(pk=run.pk).update(created_at=before)
    s = standings([a], [cast.student])[cast.student.pk, a.pk]
    assert (s.solved, s.hint, s.prover) == (0, False, False)
    after = _attempt(cast, valid=True, at=timezone.now())
    s = standings([a], [cast.student])[cast.student.pk, a.pk]
    assert (s.solved, s.hint, s.prover) == (1, False, False)
    assert s.exercises[0].solved_at == after.created_at
