"""Import problems into a course from JSONL (the fields of miniF2F-style data files).

Required per line: name, formal_statement. Optional: split, informal_prefix, goal, header,
and this project's extras world, world_title, title, reference_proof. Lines without a world
go to a world named after their split (or "problems"). Re-importing updates exercises by
name, so an import can be repeated safely.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db import transaction
from django.utils.text import slugify

from webapp.courses.models import Course, Exercise, World

MAX_LINES = 5000
REQUIRED = ("name", "formal_statement")
TEXT_FIELDS = ("split", "informal_prefix", "goal", "header", "title", "reference_proof")


@dataclass
class ImportReport:
    created: int = 0
    updated: int = 0
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors

    def summary(self) -> str:
        text = f"{self.created} created, {self.updated} updated"
        if self.errors:
            text += f", {len(self.errors)} problem(s): " + "; ".join(self.errors[:5])
        return text


def parse_jsonl(lines: Iterable[str]) -> tuple[list[dict], list[str]]:
    """Records and the errors of lines that are not usable problems (with line numbers)."""
    records: list[dict] = []
    errors: list[str] = []
    for number, raw in enumerate(lines, start=1):
        if number > MAX_LINES:
            errors.append(f"stopped after {MAX_LINES} lines; split the file")
            break
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
        except json.JSONDecodeError as exc:
            errors.append(f"line {number}: not JSON ({exc.msg})")
            continue
        problem = _problem_in(record)
        if problem:
            errors.append(f"line {number}: {problem}")
            continue
        records.append(record)
    return records, errors


def _problem_in(record: object) -> str | None:
    if not isinstance(record, dict):
        return "expected a JSON object"
    for key in REQUIRED:
        if not isinstance(record.get(key), str) or not record[key].strip():
            return f"missing {key!r}"
    for key in TEXT_FIELDS:
        if key in record and not isinstance(record[key], str):
            return f"{key!r} must be a string"
    if ":=" not in record["formal_statement"]:
        return "formal_statement must end with ':= by' (the student writes the proof)"
    return None


def import_records(course: Course, records: list[dict]) -> ImportReport:
    report = ImportReport()
    with transaction.atomic():
        worlds: dict[str, World] = {}
        next_order = _next_exercise_orders(course)
        for record in records:
            world = _world_for(course, record, worlds)
            created = _upsert_exercise(world, record, next_order)
            report.created += int(created)
            report.updated += int(not created)
    return report


def _next_exercise_orders(course: Course) -> dict[int, int]:
    orders: dict[int, int] = {}
    for world in course.worlds.all():
        last = world.exercises.order_by("-order").values_list("order", flat=True).first()
        orders[world.pk] = (last or 0) + 1
    return orders


def _world_for(course: Course, record: dict, cache: dict[str, World]) -> World:
    title = record.get("world_title") or record.get("world") or record.get("split") or "Problems"
    slug = slugify(record.get("world") or record.get("split") or "problems") or "problems"
    if slug not in cache:
        next_order = course.worlds.count() + 1
        cache[slug], _ = World.objects.get_or_create(
            course=course, slug=slug, defaults={"title": title, "order": next_order}
        )
    return cache[slug]


def _upsert_exercise(world: World, record: dict, next_order: dict[int, int]) -> bool:
    values = {key: record.get(key, "") for key in TEXT_FIELDS}
    # Exercises are matched by name within the course, even if they change world.
    existing = Exercise.objects.filter(world__course=world.course, name=record["name"]).first()
    if existing:
        for key, value in values.items():
            setattr(existing, key, value)
        existing.formal_statement = record["formal_statement"]
        existing.world = world
        existing.save()
        return False
    order = next_order.get(world.pk, 1)
    next_order[world.pk] = order + 1
    Exercise.objects.create(
        world=world,
        order=order,
        name=record["name"],
        formal_statement=record["formal_statement"],
        **values,
    )
    return True


def load_starter_course() -> tuple[Course, ImportReport]:
    """Create or refresh the shipped core-Lean course (idempotent)."""
    from webapp.courses.data import core_lean

    course, _ = Course.objects.update_or_create(
        slug=core_lean.COURSE["slug"],
        defaults={
            "title": core_lean.COURSE["title"],
            "description": core_lean.COURSE["description"],
        },
    )
    return course, import_records(course, core_lean.problems())
