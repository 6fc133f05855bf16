"""Import problems into a course from JSONL (the fields of miniF2F-style data files).

Required per line: name, formal_statement. Optional: split, informal_prefix, goal, header,
and this project's extras world, world_title, title, reference_proof, and the lesson: intro
(Markdown), unlocks (list of tactic/lemma names) and hints (list of up to 3 strings). Lines without a world
go to a world named after their split (or "problems"). Re-importing updates exercises by
name, so an import can be repeated safely.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import DatabaseError, transaction
from django.utils.text import slugify

from webapp.courses.models import EXERCISE_NAME_RE, Course, Exercise, World

logger = logging.getLogger(__name__)

MAX_LINES = 5000
# Problem records are flat objects of strings: anything nested deeper is not a problem, and
# a line of 200,000 `[` must not reach the JSON parser's recursion.
MAX_JSON_DEPTH = 8
REQUIRED = ("name", "formal_statement")
TEXT_FIELDS = ("split", "informal_prefix", "goal", "header", "title", "reference_proof", "intro")
WORLD_FIELDS = ("world", "world_title")
# Column sizes (webapp.courses.models); long texts get a generous cap so one line cannot
# store megabytes.
MAX_CHARS = {
    "name": 200,
    "title": 200,
    "split": 40,
    "world": 80,
    "world_title": 200,
    "formal_statement": 20_000,
    "informal_prefix": 20_000,
    "goal": 20_000,
    "header": 20_000,
    "reference_proof": 20_000,
    "intro": 20_000,
}


class Record(dict):
    """One parsed problem, remembering its line in the file (for per-line errors)."""

    line: int = 0


LIST_FIELDS = ("unlocks", "hints")


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


def parse_jsonl(lines: Iterable[str]) -> tuple[list[Record], list[str]]:
    """Records and the errors of lines that are not usable problems (with line numbers).
    A bad line never stops the others."""
    records: list[Record] = []
    errors: list[str] = []
    for number, raw in enumerate(lines, start=1):
        if number > MAX_LINES:
            errors.append(f"stopped after {MAX_LINES} lines; split the file")
            break
        if not raw.strip():
            continue
        problem, record = _parse_line(raw)
        if problem is None:
            problem = _problem_in(record)
        if problem or not isinstance(record, dict):
            errors.append(f"line {number}: {problem}")
            continue
        parsed = Record(record)
        parsed.line = number
        records.append(parsed)
    return records, errors


def _parse_line(raw: str) -> tuple[str | None, object]:
    if json_depth_exceeds(raw, MAX_JSON_DEPTH):
        return f"nested deeper than {MAX_JSON_DEPTH} levels (a problem is one flat object)", None
    try:
        return None, json.loads(raw)
    except json.JSONDecodeError as exc:
        return f"not JSON ({exc.msg})", None
    except RecursionError:  # the depth scan should have caught it; never let it escape
        return "nested too deeply", None


def json_depth_exceeds(text: str, limit: int) -> bool:
    """Whether brackets outside strings nest deeper than `limit` (stops at the first excess)."""
    depth, in_string, escaped = 0, False, False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False


def _problem_in(record: object) -> str | None:
    if not isinstance(record, dict):
        return "expected a JSON object"
    for key in REQUIRED:
        if not isinstance(record.get(key), str) or not record[key].strip():
            return f"missing {key!r}"
    for key in (*REQUIRED, *TEXT_FIELDS, *WORLD_FIELDS):
        value = record.get(key)
        if value is None:
            continue
        if not isinstance(value, str):
            return f"{key!r} must be a string, not {type(value).__name__}"
        if len(value) > MAX_CHARS[key]:
            return f"{key!r} has {len(value):,} characters; at most {MAX_CHARS[key]:,}"
        if "\x00" in value:
            return f"{key!r} contains a NUL character"
        if any("\ud800" <= char <= "\udfff" for char in value):
            return f"{key!r} contains a lone surrogate (not valid Unicode text)"
    if not EXERCISE_NAME_RE.fullmatch(record["name"]):
        return (
            f"name {record['name'][:60]!r} may use only letters, digits, '_', '.' and '-' "
            "(it is part of the exercise's web address)"
        )
    for key in LIST_FIELDS:
        value = record.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            return f"{key!r} must be a list of non-empty strings"
    if len(record.get("hints", [])) > Exercise.MAX_HINTS:
        return f"at most {Exercise.MAX_HINTS} hints per exercise"
    if ":=" not in record["formal_statement"]:
        return "formal_statement must end with ':= by' (the student writes the proof)"
    return None


def import_records(course: Course, records: Sequence[dict]) -> ImportReport:
    """Each record in its own savepoint: a line the database refuses is reported and the
    others are still imported."""
    report = ImportReport()
    worlds: dict[str, World] = {}
    next_order = _next_exercise_orders(course)
    for index, record in enumerate(records, start=1):
        line = getattr(record, "line", 0) or index
        try:
            with transaction.atomic():
                world = _world_for(course, record, worlds)
                created = _upsert_exercise(world, record, next_order)
        except (DatabaseError, ValidationError, ValueError, TypeError) as exc:
            logger.warning("import line %s refused: %s", line, exc)
            report.errors.append(f"line {line}: not stored ({type(exc).__name__}: {exc})"[:300])
            worlds.clear()  # a world created in the rolled-back savepoint is gone
            continue
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
    slug = slugify(record.get("world") or record.get("split") or "problems")[:80] or "problems"
    if slug not in cache:
        next_order = course.worlds.count() + 1
        cache[slug], _ = World.objects.get_or_create(
            course=course, slug=slug, defaults={"title": title, "order": next_order}
        )
    return cache[slug]


def _upsert_exercise(world: World, record: dict, next_order: dict[int, int]) -> bool:
    values: dict[str, object] = {key: record.get(key, "") for key in TEXT_FIELDS}
    values.update({key: list(record.get(key, [])) for key in LIST_FIELDS})
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
