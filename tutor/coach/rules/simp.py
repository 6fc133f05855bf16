"""`simp made no progress`: none of simp's lemmas rewrote the goal."""

from __future__ import annotations

import re

from tutor.coach import fixes
from tutor.coach.goals import (
    shorten,
)
from tutor.coach.rules.base import (
    Advice,
    Context,
    goal_here,
    one,
    scene_at,
)
from tutor.coach.source import AttemptText
from tutor.lean.types import Diagnostic


def advise(d: Diagnostic, ctx: Context) -> list[Advice]:
    line = d.line
    tactic = shorten(ctx.text.line(line).strip(), 30) or "simp"
    scene = scene_at(d, ctx)
    if _starts_with_simp(ctx.text.line(line)) and _later_step_in_block(ctx.text, line):
        # No progress means the goal after this line is the goal before it: the steps that
        # follow see exactly what they would without it, so removing it is the whole fix here.
        return one(
            line,
            f"Don't keep `{tactic}` on line {line}: it made no progress, so it changes nothing "
            "and only stops the proof: remove it, and the next steps see the goal as it is.",
        )
    goal = goal_here(d, scene)
    step = fixes.closing_step(goal.target, scene, goal.hypotheses) if goal else None
    if goal is not None and step:
        return one(
            line,
            f"Don't keep `{tactic}` on line {line}: it made no progress on "
            f"`{shorten(goal.target, 30)}`. Use `{step}` there instead, which proves it "
            "directly.",
        )
    return one(
        line,
        f"Don't keep `{tactic}` on line {line}: simp made no progress, so none of its simp "
        "lemmas apply here. Name the lemma or definition it needs (`simp [f]`), or find the "
        "lemma for this goal with `exact?`.",
    )


def _starts_with_simp(source: str) -> bool:
    return re.match(r"^\s*(?:simp|dsimp|simp_all|norm_num|simp_arith)\b", source) is not None


def _later_step_in_block(text: AttemptText, line: int) -> bool:
    """True when a tactic follows `line` in the same block (same indent, not a new bullet)."""
    base = text.indent(line)
    for number in range(line + 1, text.n_lines + 1):
        if not text.is_code(number):
            continue
        code = text.line(number).strip()
        return text.indent(number) == base and not code.startswith(("·", "|", "case ", "next"))
    return False
