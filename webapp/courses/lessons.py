"""Lessons around exercises: the introduction as safe HTML, the inventory of tactics and
lemmas unlocked along a world, the hints a student has opened, and the world map."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Prefetch
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

from webapp.courses.models import Course, Exercise, HintOpening

# Raw HTML in the source is escaped, not passed through; markdown-it also refuses
# javascript:/vbscript:/data: links. So the output is safe to insert as is.
_MARKDOWN = MarkdownIt("commonmark", {"html": False})


def render_markdown(text: str) -> SafeString:
    return mark_safe(_MARKDOWN.render(text))  # noqa: S308 - html disabled above


def render_inline_markdown(text: str) -> SafeString:
    """One paragraph's inline Markdown (`code`, *emphasis*) without the `<p>` around it: a
    hint or a coach suggestion sits inside a list item or a line of its own."""
    return mark_safe(_MARKDOWN.renderInline(text))  # noqa: S308 - html disabled above


# A Lean comment around the informal statement (miniF2F writes `/-- ... -/`): its markers
# are Lean's syntax, not the statement's words.
_COMMENT = re.compile(r"^\s*/-[-!]?\s*(.*?)\s*-/\s*$", re.DOTALL)


def informal_prose(text: str) -> str:
    """The informal statement without the Lean comment markers around it (or `--` line
    comments); anything else is left as written."""
    found = _COMMENT.match(text)
    if found:
        return found.group(1)
    lines = text.strip().split("\n")
    if lines and all(line.lstrip().startswith("--") for line in lines):
        return "\n".join(line.lstrip()[2:].strip() for line in lines)
    return text.strip()


@dataclass
class Inventory:
    new: list[str]  # unlocked by this exercise
    known: list[str]  # unlocked earlier in the same world


def inventory(exercise: Exercise) -> Inventory:
    earlier = exercise.world.exercises.filter(order__lt=exercise.order).order_by("order")
    known: list[str] = []
    for unlocks in earlier.values_list("unlocks", flat=True):
        known += [u for u in unlocks or [] if u not in known]
    return Inventory(new=[u for u in exercise.unlocks or [] if u not in known], known=known)


@dataclass
class HintState:
    opened: list[tuple[int, SafeString]]  # (index, hint as HTML) shown so far, in order
    next_index: int | None  # the hint that can be opened next, if any
    total: int


def hint_state(student: Any, exercise: Exercise) -> HintState:
    hints = list(exercise.hints or [])[: Exercise.MAX_HINTS]
    opened_indexes = set(
        HintOpening.objects.filter(student=student, exercise=exercise).values_list(
            "index", flat=True
        )
    )
    opened = [
        (i, render_inline_markdown(hints[i])) for i in range(len(hints)) if i in opened_indexes
    ]
    # Hints open one by one: the next is the first one not opened yet.
    next_index = next((i for i in range(len(hints)) if i not in opened_indexes), None)
    return HintState(opened=opened, next_index=next_index, total=len(hints))


# The index a coach hint is counted under: one past the exercise's own hints, so teachers see
# it among the hints a student used (and it never shows as one of the exercise's hints).
COACH_HINT_INDEX = Exercise.MAX_HINTS


def hints_exhausted(student_id: int, exercise_id: int) -> bool:
    """Every hint of the exercise is open for the student (true when it has none)."""
    hints = Exercise.objects.filter(pk=exercise_id).values_list("hints", flat=True).first()
    total = len((hints or [])[: Exercise.MAX_HINTS])
    opened = HintOpening.objects.filter(
        student_id=student_id, exercise_id=exercise_id, index__lt=total
    ).count()
    return opened >= total


def do_count_coach_hint(student_id: int, exercise_id: int) -> None:
    """The coach gave the student an answer (advice that reveals a step): count it as a hint,
    once per exercise, like the exercise's own."""
    with transaction.atomic():
        HintOpening.objects.get_or_create(
            student_id=student_id, exercise_id=exercise_id, index=COACH_HINT_INDEX
        )


class HintRefused(ValueError):
    pass


def do_open_hint(student: Any, exercise: Exercise, index: int) -> HintOpening:
    """Record that the student opened hint `index`; only the next one in order may open."""
    state = hint_state(student, exercise)
    if state.next_index is None or index != state.next_index:
        already = HintOpening.objects.filter(student=student, exercise=exercise, index=index)
        if already.exists():
            return already.get()
        raise HintRefused("Hints open one at a time, in order.")
    try:
        with transaction.atomic():
            return HintOpening.objects.create(student=student, exercise=exercise, index=index)
    except IntegrityError:  # a double click: it is open either way
        return HintOpening.objects.get(student=student, exercise=exercise, index=index)


@dataclass
class MapLevel:
    exercise: Exercise
    solved: bool
    attempts: int
    is_next: bool


@dataclass
class MapWorld:
    title: str
    levels: list[MapLevel]
    solved: int
    next_level: MapLevel | None  # the first unsolved level: where to go, what it unlocks


def world_map(course: Course, progress: dict[int, Any]) -> list[MapWorld]:
    worlds = []
    # The map shows titles, links and unlocks: not statements, proofs or lesson texts.
    listed = Exercise.objects.only("pk", "world", "order", "name", "title", "unlocks")
    for world in course.worlds.prefetch_related(Prefetch("exercises", queryset=listed)):
        levels = []
        next_level = None
        for exercise in world.exercises.all():
            row = progress.get(exercise.pk)
            solved = bool(row and row.solved)
            level = MapLevel(exercise, solved, row.attempts if row else 0, False)
            if not solved and next_level is None:
                level.is_next = True
                next_level = level
            levels.append(level)
        worlds.append(
            MapWorld(world.title, levels, sum(1 for lv in levels if lv.solved), next_level)
        )
    return worlds
