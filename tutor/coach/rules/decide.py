"""`decide` failed: the proposition is false, or it has variables `decide` cannot evaluate."""

from __future__ import annotations

from tutor.coach import fixes
from tutor.coach.goals import (
    shorten,
)
from tutor.coach.rules.base import (
    Advice,
    Context,
    one,
    scene_at,
    wrong_witness,
)
from tutor.lean.types import Diagnostic


def advise(d: Diagnostic, ctx: Context) -> list[Advice]:
    line = d.line
    lowered = d.message.lower()
    if "proved that the proposition" in lowered:
        prop = d.message.split("\n")[1].strip() if "\n" in d.message else "the statement"
        witness = wrong_witness(ctx, line, prop)
        if witness:
            return [witness]
        return one(
            line,
            f"Don't try to prove `{shorten(prop, 30)}` as stated: `decide` evaluated it and "
            "found it is false. Check the numbers in the statement or in your earlier steps.",
        )
    scene = scene_at(d, ctx)
    goal = fixes.goal_at_first_step(scene)
    step = fixes.closing_step(goal.target, scene) if goal else None
    if step:
        return one(
            line,
            f"Do use `{step}` on line {line} instead of `decide`: the goal has variables, so "
            "`decide` cannot evaluate it, and it is linear arithmetic that omega proves.",
        )
    return one(
        line,
        f"Don't use `decide` on line {line}: it only evaluates statements without variables. "
        "Prove this one step by step for an arbitrary value instead.",
    )
