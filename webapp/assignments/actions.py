"""Writes of the assignments app. Each runs in a transaction."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.db import transaction

from webapp.accounts.models import Classroom
from webapp.assignments.models import Assignment
from webapp.courses.models import Exercise, World


class InvalidInput(ValueError):
    """Bad user input; the message is shown to the user as is."""


@dataclass(frozen=True)
class AssignmentInput:
    """What the teacher's form sends: local times as typed (`datetime-local`, no zone) and the
    zone they are meant in; exercises picked one by one and whole worlds (all their exercises)."""

    title: str
    opens: str
    due: str
    time_zone: str
    exercise_ids: tuple[str, ...] = ()
    world_ids: tuple[str, ...] = ()


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name.strip() or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        raise InvalidInput(f"Unknown time zone {name!r}: use a name like Europe/Paris.") from None


def _local_time(text: str, zone: ZoneInfo, what: str) -> datetime:
    try:
        naive = datetime.fromisoformat(text.strip())
    except ValueError:
        raise InvalidInput(f"Give the {what} as a date and time.") from None
    # An aware value (an API client sending an offset) keeps its offset; a typed one is local.
    return naive if naive.tzinfo else naive.replace(tzinfo=zone)


def _exercises(classroom: Classroom, data: AssignmentInput) -> list[Exercise]:
    """The picked exercises plus the worlds' exercises, only from the class's own courses."""
    allowed = Exercise.objects.filter(world__course__classrooms=classroom)
    ids = [i for i in data.exercise_ids if i.isdigit()]
    world_ids = [i for i in data.world_ids if i.isdigit()]
    singles = list(allowed.filter(pk__in=ids))
    worlds = World.objects.filter(pk__in=world_ids, course__classrooms=classroom)
    if len(singles) != len(set(ids)) or worlds.count() != len(set(world_ids)):
        raise InvalidInput("Pick exercises from this class's courses only.")
    picked = singles + list(allowed.filter(world__in=world_ids))
    unique = {e.pk: e for e in picked}
    if not unique:
        raise InvalidInput("Pick at least one exercise or world.")
    return list(unique.values())


def do_create_assignment(classroom: Classroom, teacher: Any, data: AssignmentInput) -> Assignment:
    title = data.title.strip()
    if not title:
        raise InvalidInput("Give the assignment a title.")
    zone = _zone(data.time_zone)
    opens = _local_time(data.opens, zone, "opening time")
    due = _local_time(data.due, zone, "due date")
    if due <= opens:
        raise InvalidInput("The due date must come after the opening time.")
    exercises = _exercises(classroom, data)
    with transaction.atomic():
        assignment = Assignment.objects.create(
            classroom=classroom,
            title=title[:200],
            opens_at=opens,
            due_at=due,
            time_zone=str(zone.key),
            created_by=teacher,
        )
        assignment.exercises.set(exercises)
    return assignment


def do_delete_assignment(assignment: Assignment) -> None:
    """Removes the assignment only: attempts, hints and prover runs stay with the students."""
    with transaction.atomic():
        assignment.delete()
