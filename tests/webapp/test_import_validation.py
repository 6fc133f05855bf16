"""Import validation: every line is checked on its own (names, types, lengths, nesting), a bad
line is reported with its number and never stops the others, and the course page survives any
name already stored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from tests.webapp.cast import Cast
from webapp.courses.importing import import_records, parse_jsonl
from webapp.courses.models import Course, Exercise

GOOD = {"name": "good_one", "formal_statement": "theorem good_one : True := by"}


def _line(**fields: object) -> str:
    return json.dumps({**GOOD, **fields})


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (_line(name="evil/name"), "may use only letters, digits"),
        (_line(name=".."), "may use only letters, digits"),
        (_line(name="a b"), "may use only letters, digits"),
        (_line(name="trailing\n"), "may use only letters, digits"),
        (_line(name="x" * 201), "'name' has 201 characters; at most 200"),
        (_line(title=["a", "list"]), "'title' must be a string, not list"),
        (_line(split={"a": 1}), "'split' must be a string, not dict"),
        (_line(world=7), "'world' must be a string, not int"),
        (_line(split="s" * 41), "'split' has 41 characters; at most 40"),
        (_line(header="h" * 20_001), "'header' has 20,001 characters"),
        (_line(informal_prefix="a\x00b"), "contains a NUL character"),
        ('{"name": "x", "formal_statement": "t := by", "goal": "\\ud800"}', "lone surrogate"),
        ("[" * 200_000, "nested deeper than 8 levels"),
        ('{"name": ' + "[" * 50 + "]" * 50 + "}", "nested deeper than 8 levels"),
        (json.dumps([GOOD]), "expected a JSON object"),
    ],
)
def test_each_bad_line_gets_its_own_message(line: str, message: str) -> None:
    records, errors = parse_jsonl([line, _line(name="after_it")])
    assert [r["name"] for r in records] == ["after_it"]  # the next line still counts
    assert len(errors) == 1 and errors[0].startswith("line 1: "), errors
    assert message in errors[0]


def test_brackets_inside_strings_are_not_nesting() -> None:
    records, errors = parse_jsonl([_line(informal_prefix='[[[[[[[[[[[[[[[[[[[[ \\" {{{{{{{{{{{')])
    assert errors == [] and len(records) == 1


def test_unicode_names_are_fine() -> None:
    records, errors = parse_jsonl([_line(name="théorème_1.2-b")])
    assert errors == [] and records[0].line == 1


@pytest.mark.django_db
def test_a_line_the_database_refuses_does_not_abort_the_rest() -> None:
    course = Course.objects.create(slug="c", title="C")
    records, _ = parse_jsonl([_line(name="first"), _line(name="second")])
    broken = dict(GOOD, name=None)  # not from parse_jsonl: the database itself refuses it
    report = import_records(course, [records[0], broken, records[1]])
    assert (report.created, report.updated) == (2, 0)
    assert len(report.errors) == 1 and report.errors[0].startswith("line 2: not stored")
    assert set(Exercise.objects.values_list("name", flat=True)) == {"first", "second"}


@pytest.mark.django_db
def test_the_import_form_reports_lines_and_keeps_the_good_ones(cast: Cast, client: Client) -> None:
    client.force_login(cast.admin)
    text = "\n".join(
        [_line(name="ok_1"), "[" * 200_000, _line(name="evil/name"), _line(name="ok_2")]
    )
    upload = SimpleUploadedFile("p.jsonl", text.encode())
    response = client.post(
        reverse("courses:import"),
        {"course_slug": "imported", "file": upload},
        follow=True,
    )
    assert response.status_code == 200
    page = response.content.decode()
    assert "2 created" in page and "line 2: nested deeper" in page and "line 3: name" in page
    assert set(
        Exercise.objects.filter(world__course__slug="imported").values_list("name", flat=True)
    ) == {"ok_1", "ok_2"}


@pytest.mark.django_db
def test_the_command_survives_bad_bytes_and_bad_lines(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_bytes(
        _line(name="ok_1").encode() + b"\n" + b'{"name": "bad\xff"}\n' + _line(name="ok_2").encode()
    )
    call_command("import_problems", str(path), "--course", "cmd")
    assert Exercise.objects.filter(world__course__slug="cmd").count() == 2


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["evil/name", "..", "has space", "new\nline"])
def test_the_course_page_survives_any_stored_name(cast: Cast, client: Client, name: str) -> None:
    # Stored before names were checked, or written to the database directly.
    Exercise.objects.create(
        world=cast.exercise.world, order=2, name=name, formal_statement="theorem t : True := by"
    )
    client.force_login(cast.student)
    response = client.get(reverse("courses:course", args=[cast.course.slug]))
    assert response.status_code == 200
    page = response.content.decode()
    assert "cannot be opened" in page
    assert reverse("courses:exercise", args=[cast.course.slug, cast.exercise.name]) in page


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["evil/name", "..", "ends_in_newline\n"])
def test_the_admin_form_refuses_a_bad_name(cast: Cast, name: str) -> None:
    from django.core.exceptions import ValidationError

    exercise = Exercise(world=cast.exercise.world, name=name, formal_statement="t := by")
    with pytest.raises(ValidationError, match="part of the web address"):
        exercise.full_clean()
