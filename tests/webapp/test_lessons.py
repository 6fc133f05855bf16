"""Lessons (intro, unlocks, hints), the world map, and the editor's data (diagnostics,
suggestions and tactic goals in the editor's line numbering)."""

from __future__ import annotations

import json
from html import unescape
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from tests.webapp.cast import Cast
from webapp.attempts import live
from webapp.attempts.models import Attempt, CuratedFeedback, LineDiagnostic, Progress, Suggestion
from webapp.attempts.tasks import check_attempt
from webapp.courses.data import core_lean
from webapp.courses.importing import import_records, load_starter_course, parse_jsonl
from webapp.courses.lessons import render_markdown
from webapp.courses.models import Course, Exercise, HintOpening


def _exercise_url(cast: Cast) -> str:
    return reverse("courses:exercise", args=[cast.course.slug, cast.exercise.name])


def _hint_url(cast: Cast, index: int) -> str:
    return reverse("courses:open_hint", args=[cast.course.slug, cast.exercise.name, index])


def _with_lesson(cast: Cast) -> Exercise:
    cast.exercise.intro = "Use `rfl`.\n\n<script>alert(1)</script> [x](javascript:alert(1))"
    cast.exercise.unlocks = ["rfl"]
    cast.exercise.hints = ["Both sides compute.", "Try rfl.", "`rfl`."]
    cast.exercise.save()
    return cast.exercise


def test_every_starter_exercise_has_a_lesson() -> None:
    records = core_lean.problems()
    assert len(records) == 54
    for record in records:
        assert str(record["intro"]).strip(), record["name"]
        assert 1 <= len(record["hints"]) <= 3, record["name"]  # type: ignore[arg-type]
    # The first exercise of each world introduces something.
    assert records[0]["unlocks"] == ["intro", "exact"]


@pytest.mark.django_db
def test_the_starter_course_imports_its_lessons() -> None:
    course, report = load_starter_course()
    assert report.ok, report.summary()
    first = Exercise.objects.get(world__course=course, name="lc_id")
    assert first.unlocks == ["intro", "exact"] and len(first.hints) == 3
    assert "`intro hp`" in first.intro


@pytest.mark.django_db
def test_import_accepts_and_checks_intro_hints_and_unlocks() -> None:
    course = Course.objects.create(slug="c", title="C")
    good = {"name": "a", "formal_statement": "theorem a : True := by", "intro": "Hi", "hints": ["h1"], "unlocks": ["trivial"]}  # fmt: skip
    too_many = {**good, "name": "b", "hints": ["1", "2", "3", "4"]}
    not_list = {**good, "name": "c", "unlocks": "trivial"}
    records, errors = parse_jsonl(json.dumps(r) for r in (good, too_many, not_list))
    assert [r["name"] for r in records] == ["a"]
    assert "line 2: at most 3 hints" in errors[0]
    assert "line 3: 'unlocks' must be a list" in errors[1]
    import_records(course, records)
    exercise = Exercise.objects.get(name="a")
    assert (exercise.intro, exercise.hints, exercise.unlocks) == ("Hi", ["h1"], ["trivial"])


def test_markdown_is_rendered_without_raw_html_or_script_links() -> None:
    html = render_markdown("**bold** `code`\n\n<script>alert(1)</script> [x](javascript:alert(1))")
    assert "<strong>bold</strong>" in html and "<code>code</code>" in html
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert 'href="javascript:' not in html


def test_the_exercise_page_shows_the_intro_and_the_inventory(cast: Cast, client: Client) -> None:
    _with_lesson(cast)
    later = Exercise.objects.create(
        world=cast.exercise.world, order=2, name="later", formal_statement="theorem l : True := by",
        unlocks=["rfl", "trivial"],
    )  # fmt: skip
    client.force_login(cast.student)
    body = client.get(_exercise_url(cast)).content.decode()
    assert "<p>Use <code>rfl</code>.</p>" in body
    assert "<script>alert" not in body
    assert '<code class="unlock new">rfl</code>' in body
    url = reverse("courses:exercise", args=[cast.course.slug, later.name])
    body = client.get(url).content.decode()
    # Cumulative: rfl came earlier in the world, only trivial is new here.
    assert '<code class="unlock new">trivial</code>' in body
    assert '<code class="unlock">rfl</code>' in body


def test_hints_open_one_by_one_and_are_recorded(cast: Cast, client: Client) -> None:
    _with_lesson(cast)
    client.force_login(cast.student)
    body = client.get(_exercise_url(cast)).content.decode()
    assert "Show hint 1 of 3" in body and "Both sides compute." not in body
    # Skipping ahead is refused.
    response = client.post(_hint_url(cast, 1), HTTP_HX_REQUEST="true")
    assert "Hints open one at a time" in response.content.decode()
    assert not HintOpening.objects.exists()
    response = client.post(_hint_url(cast, 0), HTTP_HX_REQUEST="true")
    body = response.content.decode()
    assert "Both sides compute." in body and "Try rfl." not in body
    assert "Show hint 2 of 3" in body
    client.post(_hint_url(cast, 1))  # without htmx: a redirect back to the page
    body = client.get(_exercise_url(cast)).content.decode()
    assert "Both sides compute." in body and "Try rfl." in body and "Show hint 3 of 3" in body
    assert list(HintOpening.objects.values_list("index", flat=True)) == [0, 1]


def test_teachers_see_how_many_hints_a_student_opened(cast: Cast, client: Client) -> None:
    _with_lesson(cast)
    HintOpening.objects.create(student=cast.student, exercise=cast.exercise, index=0)
    attempt = Attempt.objects.create(student=cast.student, exercise=cast.exercise, proof="  rfl")
    client.force_login(cast.teacher)
    body = client.get(reverse("attempts:detail", args=[attempt.pk])).content.decode()
    assert "Hints opened by sam on this exercise: <strong>1 of 3</strong>" in body
    assert "data-lean-view" in body and 'id="goal-view"' in body


def test_the_world_map_marks_solved_and_next_with_what_it_unlocks(
    cast: Cast, client: Client
) -> None:
    later = Exercise.objects.create(
        world=cast.exercise.world, order=2, name="later", formal_statement="theorem l : True := by",
        unlocks=["trivial"],
    )  # fmt: skip
    Progress.objects.create(student=cast.student, exercise=cast.exercise, attempts=1, solved=True)
    client.force_login(cast.student)
    body = client.get(reverse("courses:course", args=[cast.course.slug])).content.decode()
    assert "1/2 solved" in body
    assert (
        f'href="{reverse("courses:exercise", args=[cast.course.slug, later.name])}" aria-current="step"'
        in body
    )
    assert 'which unlocks <code class="unlock new">trivial</code>' in body


def test_editor_data_uses_the_editors_line_numbers(cast: Cast) -> None:
    attempt = Attempt.objects.create(
        student=cast.student, exercise=cast.exercise, proof="  intro h\n  simp", status="done",
        valid=False,
        tactics=[{"line": 2, "column": 2, "end_line": 2, "end_column": 6, "tactic": "simp",
                  "goals_before": "⊢ p", "goals_after": None}],
    )  # fmt: skip
    LineDiagnostic.objects.create(attempt=attempt, line=2, column=2, end_line=2, end_column=6, severity="error", message="simp made no progress")  # fmt: skip
    LineDiagnostic.objects.create(attempt=attempt, line=0, column=40, severity="error", message="unsolved goals")  # fmt: skip
    Suggestion.objects.create(attempt=attempt, line=2, text="Try omega.")
    hidden = Suggestion.objects.create(attempt=attempt, line=1, text="Hidden.", review="rejected")
    # Rejected by Sam's teacher (the one access rule decides which verdicts count).
    CuratedFeedback.objects.create(suggestion=hidden, teacher=cast.teacher, verdict="rejected")
    data = live.editor_data(attempt)
    # The statement is one line: proof line 2 is editor line 3; line 0 is the statement line.
    assert [(d["line"], d["column"], d["end_column"]) for d in data["diagnostics"]] == [(1, 40, None), (3, 2, 6)]  # fmt: skip
    assert data["suggestions"] == [{"line": 3, "text": "Try omega."}]
    assert data["diagnostics"][1]["message"] == "simp made no progress"
    assert data["tactics"][0]["line"] == 3 and data["tactics"][0]["after"] is None


def test_the_page_carries_the_editor_data(cast: Cast, client: Client) -> None:
    Attempt.objects.create(student=cast.student, exercise=cast.exercise, proof="  rfl", status="done", valid=True)  # fmt: skip
    client.force_login(cast.student)
    body = client.get(_exercise_url(cast)).content.decode()
    start = body.index('data-lean-result="') + len('data-lean-result="')
    data = json.loads(unescape(body[start : body.index('"', start)]))
    assert data["valid"] is True and "proof" not in data  # the editor has the text already
    assert 'data-statement="theorem cast_add_zero (n : Nat) : n + 0 = n := by"' in body


@pytest.mark.usefixtures("fake_lean")
def test_a_check_stores_the_goals_before_and_after_each_tactic(cast: Cast, fake_lean: Any) -> None:
    Progress.objects.create(student=cast.student, exercise=cast.exercise, attempts=1)
    attempt = Attempt.objects.create(student=cast.student, exercise=cast.exercise, proof="  rfl")
    assert check_attempt(attempt.pk) == "done"
    attempt.refresh_from_db()
    assert attempt.tactics == [
        {"line": 1, "column": 2, "end_line": 1, "end_column": 5, "tactic": "rfl",
         "goals_before": "n : Nat\n⊢ n + 0 = n", "goals_after": ""}
    ]  # fmt: skip


def test_hints_render_code_spans_and_escape_html(cast: Cast, client: Client) -> None:
    cast.exercise.hints = ["Try `exact h` here, not <b>this</b>."]
    cast.exercise.save()
    client.force_login(cast.student)
    body = client.post(_hint_url(cast, 0), HTTP_HX_REQUEST="true").content.decode()
    assert "Try <code>exact h</code> here, not &lt;b&gt;this&lt;/b&gt;." in body
    assert "`exact h`" not in body


def test_the_informal_statement_shows_as_prose_not_a_lean_comment(
    cast: Cast, client: Client
) -> None:
    client.force_login(cast.student)
    body = client.get(_exercise_url(cast)).content.decode()  # the cast's is "/-- ... -/"
    assert '<div class="informal"><p>Adding zero changes nothing.</p>' in body
    assert "/--" not in body and "-/" not in body.split('class="informal"')[1].split("</div>")[0]


@pytest.mark.parametrize(
    ("written", "prose"),
    [
        ("/-- Implication is transitive. -/\n", "Implication is transitive."),
        ("/-! Two\n lines. -/", "Two\n lines."),
        ("-- one line\n-- and another", "one line\nand another"),
        ("Plain words with `x`.", "Plain words with `x`."),
    ],
)
def test_informal_prose_drops_only_the_comment_markers(written: str, prose: str) -> None:
    from webapp.courses.lessons import informal_prose

    assert informal_prose(written) == prose
