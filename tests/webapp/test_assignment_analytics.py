"""What the class gets wrong: per exercise of an assignment, from the class's attempts only,
in a fixed number of queries; the drill-down and the grade book."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from datetime import timedelta

from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from tests.webapp.cast import Cast
from tutor.lean.types import DiagnosticKind
from webapp.assignments.analytics import exercise_analytics
from webapp.assignments.models import Assignment
from webapp.assignments.wording import duration_text, error_kind_label, suggestion_kind_label
from webapp.attempts import live
from webapp.attempts.models import Attempt, LineDiagnostic, Suggestion
from webapp.courses.models import HintOpening
from webapp.provers.models import ProverRun

T0 = timezone.now() - timedelta(hours=5)


def _assignment(cast: Cast, *, due: timedelta = timedelta(days=1)) -> Assignment:
    a = Assignment.objects.create(
        classroom=cast.classroom,
        title="Week 1",
        opens_at=timezone.now() - timedelta(days=2),
        due_at=timezone.now() + due,
    )
    a.exercises.add(cast.exercise)
    return a


def _try(
    cast: Cast,
    student: User,
    minutes: int,
    *,
    valid: bool,
    errors: Sequence[tuple[str, int]] = (),
    tips: Sequence[str] = (),
) -> Attempt:
    attempt = Attempt.objects.create(
        student=student, exercise=cast.exercise, proof="  simp", status="done", valid=valid
    )
    Attempt.objects.filter(pk=attempt.pk).update(created_at=T0 + timedelta(minutes=minutes))
    for kind, line in errors:
        LineDiagnostic.objects.create(
            attempt=attempt, line=line, severity="error", kind=kind, message=kind
        )
    for tip in tips:
        Suggestion.objects.create(attempt=attempt, line=1, text=tip, kind="do")
    return attempt


def _student(cast: Cast, name: str) -> User:
    user = User.objects.create_user(name)
    cast.classroom.students.add(user, through_defaults={"joined_at": T0 - timedelta(days=1)})
    return user


def _class_of_three(cast: Cast) -> tuple[User, User, User]:
    sam, bea, cal = cast.student, _student(cast, "bea"), _student(cast, "cal")
    # Sam: wrong, wrong, right after 20 minutes, having read "Try rfl." just before.
    _try(cast, sam, 0, valid=False, errors=[("unsolved_goals", 1)])
    _try(
        cast, sam, 10, valid=False, errors=[("unsolved_goals", 1), ("syntax", 2)], tips=["Try rfl."]
    )
    _try(cast, sam, 20, valid=True)
    # Bea: wrong, right after 4 minutes, having read "Try rfl." too.
    _try(cast, bea, 0, valid=False, errors=[("unsolved_goals", 2)], tips=["Try rfl."])
    _try(cast, bea, 4, valid=True)
    # Cal: never solves; opens hints and asks the prover.
    _try(cast, cal, 0, valid=False, errors=[("type_mismatch", 1)])
    HintOpening.objects.create(student=cal, exercise=cast.exercise, index=0)
    HintOpening.objects.create(student=cal, exercise=cast.exercise, index=1)
    HintOpening.objects.create(student=bea, exercise=cast.exercise, index=0)
    ProverRun.objects.create(exercise=cast.exercise, user=cal, status="finished")
    ProverRun.objects.create(exercise=cast.exercise, user=cal, status="failed")
    return sam, bea, cal


def test_it_tells_who_solved_how_fast_and_what_went_wrong(cast: Cast) -> None:
    _class_of_three(cast)
    # Olly is in Otto's class: his many errors are not Tess's class's.
    for minute in range(3):
        _try(cast, cast.other_student, minute, valid=False, errors=[("syntax", 9)])
    stats = exercise_analytics(cast.classroom, cast.exercise)
    assert (stats.class_size, stats.tried) == (3, 3)
    assert [(s.username, s.attempts) for s in stats.solvers] == [("bea", 2), ("sam", 3)]
    assert stats.median_attempts == 2.5
    assert stats.median_time == timedelta(minutes=12)  # median of 4 and 20 minutes
    assert [(e.kind, e.count, e.students) for e in stats.errors] == [
        ("unsolved_goals", 3, 2),
        ("syntax", 1, 1),
        ("type_mismatch", 1, 1),
    ]
    # Lines as the editor and the coach number them: the one-line statement is line 1.
    assert stats.errors[0].lines == [(2, 2), (3, 1)]
    assert [(s.kind, s.text, s.times) for s in stats.suggestions] == [("do", "Try rfl.", 2)]
    assert stats.hints_by_index == [(1, 2), (2, 1)] and stats.hint_students == 2
    assert (stats.prover_runs, stats.prover_students) == (2, 1)
    assert stats.attempts_histogram == [("1", 0), ("2", 1), ("3", 1), ("4", 0), ("5+", 0)]


def test_the_analytics_page_draws_its_charts_without_scripts(cast: Cast, client: Client) -> None:
    _class_of_three(cast)
    a = _assignment(cast)
    client.force_login(cast.teacher)
    response = client.get(reverse("assignments:exercise", args=[a.pk, cast.exercise.pk]))
    body = response.content.decode()
    assert body.count("<svg") == 2 and "goals left unsolved" in body and "Try rfl." in body
    assert "<script>" not in body and "script-src 'self'" in response["Content-Security-Policy"]
    fragment = client.get(
        reverse("assignments:exercise", args=[a.pk, cast.exercise.pk]),
        headers={"HX-Request": "true"},
    ).content.decode()
    assert fragment.lstrip().startswith('<div id="exercise-analytics">')


def test_the_analytics_page_speaks_plainly(cast: Cast, client: Client) -> None:
    """Durations in words, kinds in words, and the editor's line numbers."""
    sam, bea, _ = _class_of_three(cast)
    # A solve 3.04 s after the first try (a timedelta prints as 0:00:03.041167).
    quick = _student(cast, "quin")
    first = _try(cast, quick, 0, valid=False, errors=[("syntax", 1)])
    Attempt.objects.filter(pk=first.pk).update(created_at=T0)
    second = _try(cast, quick, 0, valid=True)
    Attempt.objects.filter(pk=second.pk).update(
        created_at=T0 + timedelta(seconds=3, microseconds=41167)
    )
    Suggestion.objects.filter(attempt__student=bea).update(kind="dont")
    a = _assignment(cast)
    client.force_login(cast.teacher)
    body = client.get(reverse("assignments:exercise", args=[a.pk, cast.exercise.pk])).content
    text = body.decode()
    assert "0:00:03" not in text and "0:20:00" not in text and "h:mm:ss" not in text
    assert "3 s after the first try" in text and "20 min after the first try" in text
    assert "Median: 2 attempts, 4 min from the first try" in text  # of 3 s, 4 and 20 min
    # Lean's kinds and the coach's in words, never the stored tokens.
    assert "goals left unsolved" in text and ">unsolved_goals<" not in text
    assert "syntax error" in text and "type mismatch" in text
    assert ">do<" not in text and ">dont<" not in text
    assert 'class="badge suggestion-kind">Warning</span> Try rfl.' in text
    # Sam's error at proof line 1 sits on line 2 of what the editor shows (the statement is
    # line 1): the analytics say the line the editor and the coach say.
    attempt = Attempt.objects.filter(student=sam, diagnostics__kind="unsolved_goals").first()
    assert attempt is not None
    marks = live.editor_data(attempt)["diagnostics"]
    assert {m["line"] for m in marks if m["kind"] == "unsolved_goals"} == {2}
    assert "line 2: 2, line 3: 1" in text and "line 1: 2" not in text


def _analytics_queries(client: Client, url: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


def test_analytics_ask_no_more_queries_for_a_bigger_class(cast: Cast, client: Client) -> None:
    _class_of_three(cast)
    a = _assignment(cast)
    url = reverse("assignments:exercise", args=[a.pk, cast.exercise.pk])
    results = reverse("assignments:detail", args=[a.pk])
    client.force_login(cast.teacher)
    client.get(url)
    small, small_results = _analytics_queries(client, url), _analytics_queries(client, results)
    for i in range(12):
        student = _student(cast, f"s{i}")
        _try(cast, student, 0, valid=False, errors=[("syntax", 1)], tips=["Check the syntax."])
        _try(cast, student, 3, valid=True)
        HintOpening.objects.create(student=student, exercise=cast.exercise, index=0)
    assert _analytics_queries(client, url) == small
    assert _analytics_queries(client, results) == small_results


def test_the_drill_down_lists_the_class_attempts_by_error_kind(cast: Cast, client: Client) -> None:
    _class_of_three(cast)
    _try(cast, cast.other_student, 0, valid=False, errors=[("type_mismatch", 1)])
    a = _assignment(cast)
    client.force_login(cast.teacher)
    url = reverse("assignments:attempts", args=[a.pk, cast.exercise.pk])
    body = client.get(url, {"kind": "type_mismatch"}).content.decode()
    assert "1 attempt." in body and "cal" in body and "olly" not in body
    assert "6 attempts." in client.get(url).content.decode()


def test_another_teacher_cannot_read_her_class_analytics(cast: Cast, client: Client) -> None:
    a = _assignment(cast)
    client.force_login(cast.other_teacher)
    for name in ("assignments:exercise", "assignments:attempts"):
        assert client.get(reverse(name, args=[a.pk, cast.exercise.pk])).status_code == 404


def _rows(client: Client, cast: Cast, fmt: str) -> list[list[str]]:
    url = reverse("assignments:grades_csv", args=[cast.classroom.pk])
    response = client.get(url, {"format": fmt})
    assert response["Content-Type"].startswith("text/csv")
    assert f"-{fmt}-" in response["Content-Disposition"]
    return list(csv.reader(io.StringIO(response.content.decode())))


def _grade_book(cast: Cast, client: Client) -> None:
    """Two assignments: Week 1 (Sam's and Bea's solves came after its due date) and one
    titled like a spreadsheet formula; Bea has a school address and a name."""
    _class_of_three(cast)
    User.objects.filter(username="bea").update(
        email="bea@school.example", first_name="Bea", last_name="Bell"
    )
    _assignment(cast, due=-timedelta(hours=5, minutes=10))
    on_time = _assignment(cast, due=timedelta(days=1))
    on_time.title = "=HYPERLINK()"  # a formula in a spreadsheet unless quoted
    on_time.save()
    client.force_login(cast.teacher)


# Per assignment: points, then the flags late, hint, prover as 1 or 0 (never in the points).
# Week 1 was due before Sam's and Bea's solves; the other is due tomorrow.
BEA = ["1", "1", "1", "0", "1", "0", "1", "0"]
CAL = ["0", "0", "1", "1", "0", "0", "1", "1"]
SAM = ["1", "1", "0", "0", "1", "0", "0", "0"]


def test_the_grade_book_for_canvas_follows_its_import_format(cast: Cast, client: Client) -> None:
    """Canvas's Gradebook importer (instructure/canvas-lms app/models/gradebook_importer.rb):
    `Student`, `ID`, then `SIS User ID` and `SIS Login ID`, the student columns end with
    `Section`; a row starting `Points Possible`; columns marked `read only` on that row are
    dropped; every other column is an assignment, matched by title, its cells scores."""
    _grade_book(cast, client)
    header, points, *rows = _rows(client, cast, "canvas")
    assert header[:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert points[0] == "Points Possible" and points[1:5] == ["", "", "", ""]
    read_only = [i for i, cell in enumerate(points) if "read only" in cell]
    graded = [i for i in range(5, len(header)) if i not in read_only]
    assert [header[i] for i in graded] == ["Week 1", "'=HYPERLINK()"]
    assert [header[i] for i in read_only] == [
        f"{title}: {flag}"
        for title in ("Week 1", "'=HYPERLINK()")
        for flag in ("late", "hint", "prover")
    ]
    assert [float(points[i]) for i in graded] == [1.0, 1.0]  # one exercise each
    assert [row[:5] for row in rows] == [
        ["Bea Bell", "", "", "bea@school.example", "Tess's class"],
        ["cal", "", "", "cal", "Tess's class"],
        ["sam", "", "", "sam", "Tess's class"],
    ]
    for row in rows:
        assert all(float(row[i]) >= 0 for i in graded)  # numeric, as Canvas reads scores
    assert [row[5:] for row in rows] == [BEA, CAL, SAM]


def test_the_grade_book_for_moodle_follows_its_import_format(cast: Cast, client: Client) -> None:
    """Moodle's CSV grade import (moodle/moodle grade/import/csv/classes/load_data.php): a
    header, then only rows it can match to a user (email address or username); a column
    mapped to a grade item must hold a number."""
    _grade_book(cast, client)
    header, *rows = _rows(client, cast, "moodle")
    assert header == [
        "Username",
        "Email address",
        "Full name",
        "Week 1 (out of 1)",
        "Week 1: late",
        "Week 1: hint",
        "Week 1: prover",
        "'=HYPERLINK() (out of 1)",
        "'=HYPERLINK(): late",
        "'=HYPERLINK(): hint",
        "'=HYPERLINK(): prover",
    ]
    assert [row[:3] for row in rows] == [
        ["bea", "bea@school.example", "Bea Bell"],
        ["cal", "", "cal"],
        ["sam", "", "sam"],
    ]
    assert all(float(cell) in (0, 1) for row in rows for cell in row[3:])
    assert [row[3:] for row in rows] == [BEA, CAL, SAM]
    # Without a format: the same file (Moodle's is also a plain spreadsheet).
    plain = client.get(reverse("assignments:grades_csv", args=[cast.classroom.pk])).content
    assert list(csv.reader(io.StringIO(plain.decode()))) == [header, *rows]


def test_the_grade_book_refuses_an_unknown_format(cast: Cast, client: Client) -> None:
    client.force_login(cast.teacher)
    url = reverse("assignments:grades_csv", args=[cast.classroom.pk])
    response = client.get(url, {"format": "excel"})
    assert response.status_code == 400 and b"canvas, moodle" in response.content


def test_the_class_page_offers_both_grade_books(cast: Cast, client: Client) -> None:
    client.force_login(cast.teacher)
    body = client.get(reverse("accounts:classroom", args=[cast.classroom.pk])).content.decode()
    url = reverse("assignments:grades_csv", args=[cast.classroom.pk])
    assert f'{url}?format=canvas">for Canvas' in body and f"{url}?format=moodle" in body


def test_the_grade_book_is_the_teachers_only(cast: Cast, client: Client) -> None:
    client.force_login(cast.other_teacher)
    assert (
        client.get(reverse("assignments:grades_csv", args=[cast.classroom.pk])).status_code == 404
    )


def test_the_results_page_opens_an_exercise_analytics_in_place(cast: Cast, client: Client) -> None:
    a = _assignment(cast)
    client.force_login(cast.teacher)
    body = client.get(reverse("assignments:detail", args=[a.pk])).content.decode()
    url = reverse("assignments:exercise", args=[a.pk, cast.exercise.pk])
    assert f'hx-get="{url}" hx-target="#analytics-panel"' in body
    assert 'id="analytics-panel"' in body


def test_the_grade_book_asks_no_more_queries_for_a_bigger_class(cast: Cast, client: Client) -> None:
    _class_of_three(cast)
    _assignment(cast)
    _assignment(cast, due=timedelta(days=2))
    url = reverse("assignments:grades_csv", args=[cast.classroom.pk])
    client.force_login(cast.teacher)
    client.get(url)
    small = _analytics_queries(client, url)
    for i in range(10):
        student = _student(cast, f"g{i}")
        _try(cast, student, 1, valid=True)
    _assignment(cast, due=timedelta(days=3))
    assert _analytics_queries(client, url) == small


def test_durations_and_kinds_read_as_words() -> None:
    assert [
        duration_text(timedelta(seconds=s)) for s in (0, 3.041167, 125, 720, 4804, 183_600)
    ] == ["0 s", "3 s", "2 min 5 s", "12 min", "1 h 20 min", "2 d 3 h"]
    # Every kind Lean's messages are sorted into has its words; unknown ones keep theirs.
    assert all("_" not in error_kind_label(kind) for kind in DiagnosticKind)
    assert error_kind_label("brand_new_kind") == "brand new kind"
    assert [suggestion_kind_label(k) for k in ("do", "dont")] == ["Advice", "Warning"]
