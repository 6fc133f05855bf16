"""Importing problems (command and admin form), the starter course, verify_course, seeding."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.urls import reverse

from tests.support.shared_data import MISSING_REASON, SHARED_DATA
from tests.webapp.cast import Cast
from webapp.courses.data import core_lean
from webapp.courses.importing import load_starter_course, parse_jsonl
from webapp.courses.models import Course, Exercise

MINIF2F = SHARED_DATA / "minif2f.jsonl"
PROBLEM = {
    "name": "mathd_algebra_1",
    "split": "valid",
    "informal_prefix": "/-- Show 1 + 1 = 2. -/\n",
    "formal_statement": "theorem mathd_algebra_1 : (1 : ℕ) + 1 = 2 := by\n",
    "goal": "⊢ 1 + 1 = 2",
    "header": "import Mathlib\n",
}


def test_parse_reports_bad_lines_with_numbers() -> None:
    lines = [
        json.dumps(PROBLEM),
        "not json",
        json.dumps({"name": "x"}),
        "",
        json.dumps({**PROBLEM, "formal_statement": "theorem t : True"}),
    ]
    records, errors = parse_jsonl(lines)
    assert [r["name"] for r in records] == ["mathd_algebra_1"]
    assert errors[0].startswith("line 2: not JSON")
    assert errors[1] == "line 3: missing 'formal_statement'"
    assert errors[2].startswith("line 5: formal_statement must end with ':= by'")


@pytest.mark.django_db
def test_the_command_imports_and_reimports(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps(PROBLEM) + "\n")
    call_command("import_problems", str(path), "--course", "algebra")
    call_command("import_problems", str(path), "--course", "algebra")
    exercise = Exercise.objects.get()
    assert exercise.world.course.slug == "algebra" and exercise.world.slug == "valid"
    assert (exercise.header, exercise.goal) == ("import Mathlib\n", "⊢ 1 + 1 = 2")


@pytest.mark.django_db
@pytest.mark.skipif(not MINIF2F.exists(), reason=MISSING_REASON)
def test_the_command_reads_minif2f() -> None:
    call_command("import_problems", str(MINIF2F), "--course", "minif2f")
    total = sum(1 for line in MINIF2F.open(encoding="utf-8") if line.strip())
    assert Exercise.objects.filter(world__course__slug="minif2f").count() == total


@pytest.mark.django_db
def test_the_command_refuses_a_file_without_problems(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text("{}\n")
    with pytest.raises(CommandError, match="no usable problems"):
        call_command("import_problems", str(path), "--course", "x")


def test_the_admin_form_imports(cast: Cast, client: Client) -> None:
    client.force_login(cast.admin)
    upload = SimpleUploadedFile("p.jsonl", (json.dumps(PROBLEM) + "\nbroken\n").encode())
    response = client.post(
        reverse("courses:import"),
        {"course_slug": "algebra", "course_title": "Algebra", "file": upload},
        follow=True,
    )
    body = response.content.decode()
    assert "Algebra: 1 created, 0 updated, 1 problem(s): line 2: not JSON" in body
    assert Course.objects.get(slug="algebra").title == "Algebra"


def test_it_rejects_teachers_from_the_import_form(cast: Cast, client: Client) -> None:
    client.force_login(cast.teacher)
    assert client.get(reverse("courses:import")).status_code == 403
    upload = SimpleUploadedFile("p.jsonl", json.dumps(PROBLEM).encode())
    assert (
        client.post(reverse("courses:import"), {"course_slug": "a", "file": upload}).status_code
        == 403
    )
    assert not Course.objects.filter(slug="a").exists()


def test_it_rejects_students_from_the_import_form(cast: Cast, client: Client) -> None:
    client.force_login(cast.student)
    assert client.get(reverse("courses:import")).status_code == 403


def test_the_starter_course_is_core_lean_only() -> None:
    problems = core_lean.problems()
    assert len(problems) >= 40
    assert len({p["name"] for p in problems}) == len(problems)
    worlds = {p["world"] for p in problems}
    assert {"logic", "nat", "list"} <= worlds
    for p in problems:
        statement, proof = str(p["formal_statement"]), str(p["reference_proof"])
        assert statement.rstrip().endswith(":= by"), p["name"]
        assert f"theorem {p['name']} " in statement, p["name"]
        assert proof.strip() and "sorry" not in proof, p["name"]
        assert "Mathlib" not in str(p["header"]) + proof, p["name"]
        # Tactic blocks must be indented past the statement.
        assert all(line.startswith("  ") for line in proof.split("\n")), p["name"]


@pytest.mark.django_db
def test_loading_the_starter_course_is_idempotent() -> None:
    course, first = load_starter_course()
    _, second = load_starter_course()
    assert first.created == len(core_lean.problems()) and second.created == 0
    assert Exercise.objects.filter(world__course=course).count() == len(core_lean.problems())
    assert list(course.worlds.values_list("slug", flat=True)) == [
        "logic",
        "quantifiers",
        "nat",
        "list",
    ]


@pytest.mark.django_db
def test_verify_course_says_plainly_when_lean_is_missing(no_lean: None, capsys: Any) -> None:
    load_starter_course()
    with pytest.raises(CommandError, match="Cannot verify core-lean: Lean unavailable") as raised:
        call_command("verify_course", "core-lean")
    assert raised.value.returncode == 2
    assert "ok " not in capsys.readouterr().out  # nothing claimed as verified


def test_verify_course_runs_every_reference_proof_through_the_checker(
    cast: Cast, fake_lean: Any, capsys: Any
) -> None:
    Exercise.objects.create(
        world=cast.exercise.world,
        order=2,
        name="broken",
        formal_statement="theorem broken : True := by",
        reference_proof="  trivial -- fake: error type_mismatch",
    )
    with pytest.raises(CommandError, match="1 reference proof"):
        call_command("verify_course", cast.course.slug)
    out = capsys.readouterr().out
    assert (
        "ok   cast_add_zero" in out
        and "FAIL broken" in out
        and "1/2 reference proofs verified" in out
    )


@pytest.mark.django_db
def test_seed_demo_creates_the_demo_class() -> None:
    call_command("seed_demo")
    call_command("seed_demo")
    from webapp.accounts.models import Classroom

    classroom = Classroom.objects.get(name="Demo class")
    assert classroom.teacher.username == "teacher"
    assert list(classroom.students.values_list("username", flat=True)) == ["student"]
    assert list(classroom.courses.values_list("slug", flat=True)) == ["core-lean"]
