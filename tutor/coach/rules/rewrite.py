"""`rewrite failed` / `motive is not type correct`: the rule's left side is not in the goal."""

from __future__ import annotations

import re

from tutor.coach import fixes
from tutor.coach.goals import (
    Shape,
    parse_goals,
    shorten,
    split_target,
)
from tutor.coach.rules.base import (
    Advice,
    Context,
    one,
    strip_sort,
)
from tutor.coach.source import statement_hypotheses
from tutor.lean.types import Diagnostic

_PATTERN = re.compile(r"pattern(?: in the target expression)?\s*\n\s+(.+?)\n", re.DOTALL)


def advise(d: Diagnostic, ctx: Context) -> list[Advice]:
    line = d.line
    lowered = d.message.lower()
    if "motive is not type correct" in lowered:
        return one(
            line,
            f"Do use `simp only [h]` instead of `rw` on line {line}: rewriting there breaks "
            "a term that depends on the rewritten expression (motive is not type correct).",
        )
    match = _PATTERN.search(d.message)
    pattern = strip_sort(match.group(1)) if match else ""
    goals = parse_goals(d.goal) if d.goal else parse_goals(_after_pattern(d.message))
    if pattern and goals:
        for name, typ in goals[0].named_facts():
            hyp = split_target(typ)
            flipped = (
                hyp.shape in (Shape.EQ, Shape.IFF)
                and hyp.left.strip() == pattern
                and _occurs_as_term(hyp.right.strip(), goals[0].target)
            )
            if flipped:
                return one(
                    line,
                    f"Do rewrite right to left with `rw [← {name}]` on line {line}: the "
                    f"goal contains `{shorten(hyp.right, 30)}`, not `{shorten(pattern, 30)}`.",
                )
    shown = f"`{shorten(pattern, 40)}`" if pattern else "the rule's left side"
    types = dict(statement_hypotheses(ctx.statement))
    if goals and fixes.is_linear_arith(goals[0].target, types):
        return one(
            line,
            f"Do prove `{shorten(goals[0].target, 30)}` with `omega` on line {line} instead of "
            f"`rw`: {shown} does not appear literally in the goal, and the goal is linear "
            "arithmetic that omega decides.",
        )
    return one(
        line,
        f"Do check that {shown} appears literally in the goal before `rw` on line {line}: "
        "rw only rewrites exact matches. Use `rw [← h]` for the other direction, "
        "`simp only [h]`, or `rw [h] at h'` for a hypothesis.",
    )


def _occurs_as_term(term: str, target: str) -> bool:
    """`term` appears in `target` as a whole term and is not a bare numeral: `rw [← h]` with
    `h : k * 0 = 0` would turn every `0` of the goal into `k * 0`, not undo one rewrite."""
    if not term or re.fullmatch(r"\d+", term):
        return False
    return re.search(rf"(?<![\w.']){re.escape(term)}(?![\w'])", target) is not None


def _after_pattern(message: str) -> str:
    # The goal context follows the pattern block in rewrite messages.
    parts = message.split("\n")
    for i, part in enumerate(parts):
        if part and not part.startswith(" ") and i > 1 and (" : " in part or part.startswith("⊢")):
            return "\n".join(parts[i:])
    return ""
