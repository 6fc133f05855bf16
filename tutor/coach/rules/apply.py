"""`apply` / `exact` / `constructor` failed: the term's conclusion does not unify with the goal."""

from __future__ import annotations

import re

from tutor.coach import fixes
from tutor.coach.goals import (
    Shape,
    shorten,
    split_target,
)
from tutor.coach.rules.base import (
    Advice,
    Context,
    goal_here,
    goals_of,
    one,
    scene_at,
)
from tutor.coach.source import AttemptText
from tutor.lean.types import Diagnostic


def constructor_failed(d: Diagnostic, ctx: Context) -> list[Advice]:
    goals = goals_of(d)
    shape = split_target(goals[0].target).shape if goals else Shape.OTHER
    if shape in (Shape.IMPLIES, Shape.FORALL):
        intro_line = _previous_intro_line(ctx.text, d.line)
        if intro_line is not None:
            return one(
                intro_line,
                f"Do introduce every premise on line {intro_line}: the goal is still "
                f"`{shorten(goals[0].target, 40)}`, so name the next premise there too (for "
                "example `intro hp hq`) before using `constructor`.",
            )
        return one(
            d.line,
            f"Do start with `intro` before line {d.line}: the goal "
            f"`{shorten(goals[0].target, 40)}` is an implication, and `constructor` only "
            "splits ∧, ↔ and similar goals.",
        )
    return one(
        d.line,
        f"Don't use `constructor` on line {d.line}: the goal is not a structure such as "
        "∧ or ↔. Check its shape and pick a tactic that fits it.",
    )


def _previous_intro_line(text: AttemptText, line: int) -> int | None:
    base = text.indent(line)
    for number in range(line - 1, 0, -1):
        if not text.is_code(number):
            continue
        if text.indent(number) < base:
            return None
        if re.match(r"^\s*intros?\b", text.line(number)):
            return number
    return None


# ---------------------------------------------------------------- rules added for issue 15


def advise(d: Diagnostic, ctx: Context) -> list[Advice]:
    lowered = d.message.lower()
    if "constructor" in lowered.split("\n", 1)[0]:
        return constructor_failed(d, ctx)
    line = d.line
    scene = scene_at(d, ctx)
    goal = goal_here(d, scene)
    step = fixes.closing_step(goal.target, scene, goal.hypotheses) if goal else None
    why = "its conclusion does not match the goal"
    if step:
        return one(
            line,
            f"Do use `{step}` on line {line} instead: the lemma cannot be applied because "
            f"{why}, and `{shorten(goal.target if goal else '', 30)}` is linear arithmetic.",
        )
    return one(
        line,
        f"Do check that the conclusion of the lemma on line {line} matches the goal: apply "
        "could not unify them. Find a lemma whose conclusion is the goal, with `exact?`.",
    )
