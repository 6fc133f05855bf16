"""`invalid field` / `invalid projection`: `.1`, `.left` or a dotted name on a term that has no
such part, most often an ∨ fact used as if it were an ∧."""

from __future__ import annotations

import re

from tutor.coach.context import facts_in_scope, proofs_of, same, traced_goal
from tutor.coach.goals import Shape, shorten, split_target
from tutor.coach.rules import other
from tutor.coach.rules.base import Advice, Context, one
from tutor.lean.types import Diagnostic

_HAS_TYPE = re.compile(r"has type\s*\n\s+(.+)", re.IGNORECASE)
_HEAD = re.compile(r"([\w'₀-₉]+)\.(?:1|2|left|right|elim|mp|mpr)\b")


def advise(d: Diagnostic, ctx: Context) -> list[Advice]:
    source = ctx.text.line(d.line)
    head = _HEAD.search(source)
    facts = facts_in_scope(ctx.statement, ctx.text, d.line)
    printed = _HAS_TYPE.search(d.message)
    typ = (
        printed.group(1).strip() if printed else dict(facts).get(head.group(1) if head else "", "")
    )
    if (
        head
        and typ
        and split_target(typ).shape not in (Shape.OR, Shape.AND, Shape.IFF, Shape.EXISTS)
    ):
        whole = _whole_fact(d, ctx, head.group(1), typ, facts)
        if whole:
            return [whole]
    if not head or split_target(typ).shape is not Shape.OR:
        return other.advise(d, ctx)
    name = head.group(1)
    goal = traced_goal(ctx.statement, ctx.text, d.line)
    uses = re.compile(rf"(?<![\w.']){re.escape(name)}(?![\w'])")
    proofs = [p for p in proofs_of(goal, facts) if not uses.search(p)] if goal else []
    why = (
        f"`{name} : {shorten(typ, 20)}` is an ∨, which has no parts `.1` or `.2`: it says only "
        "that one side holds, not which"
    )
    if proofs:
        return one(d.line, f"Do write `exact {proofs[0]}` on line {d.line}: {why}.")
    return one(
        d.line,
        f"Do split `{name}` with `cases {name} with | inl h => ... | inr h => ...` on line "
        f"{d.line}: {why}, so you prove the goal once for each side.",
    )


def _whole_fact(
    d: Diagnostic, ctx: Context, name: str, typ: str, facts: list[tuple[str, str]]
) -> Advice | None:
    """`hp.1` where `hp : p` is no ∧ (nor ↔, ∃): it has no parts; when `hp` itself is the goal,
    the whole fact is the step."""
    goal = traced_goal(ctx.statement, ctx.text, d.line)
    if goal is None or not same(typ, goal):
        return None
    return Advice(
        d.line,
        f"Do write `exact {name}` on line {d.line}: `{name} : {shorten(typ, 20)}` is not an ∧, so "
        "it has no parts `.1` or `.2`, and it already states the goal.",
    )
