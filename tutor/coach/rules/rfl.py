"""`rfl` failed: the two sides are not equal by computation alone."""

from __future__ import annotations

from tutor.coach import fixes
from tutor.coach.advice import derived_step, next_step
from tutor.coach.goals import (
    shorten,
)
from tutor.coach.rules.base import (
    Advice,
    Context,
    goal_here,
    impossible_case,
    one,
    refuted_claim,
    scene_at,
)
from tutor.lean.types import Diagnostic


def advise(d: Diagnostic, ctx: Context) -> list[Advice]:
    line = d.line
    scene = scene_at(d, ctx)
    goal = goal_here(d, scene)
    if goal is None:
        return one(
            line,
            f"Don't use `rfl` on line {line}: the two sides are not equal by computation "
            "alone. Rewrite with a lemma about this operation first.",
        )
    impossible = impossible_case(line, goal)
    if impossible:
        return [impossible]
    refuted = refuted_claim(ctx, line, goal.target)
    if refuted:
        return refuted
    built = derived_step(goal)
    if built:
        return one(line, f"Don't use `rfl` on line {line}; instead, {built}.")
    facts = [(n, h.type) for h in goal.hypotheses for n in h.names]
    step = fixes.closing_step(goal.target, scene, goal.hypotheses)
    ih = next((n for n, t in facts if n.startswith("ih")), None)
    if step:
        extra = (
            f" (the induction hypothesis `{ih}` is not even needed)"
            if ih and step == "omega"
            else ""
        )
        return one(
            line,
            f"Do use `{step}` on line {line} instead of `rfl`: `{shorten(goal.target, 30)}` is "
            f"not true by computation alone{extra}.",
        )
    return one(
        line,
        f"Don't use `rfl` on line {line}: `{shorten(goal.target, 30)}` is not true by "
        f"computation alone. Instead, {next_step(goal, ctx.mathlib)}.",
    )
