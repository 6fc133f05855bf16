"""`invalid constructor ⟨...⟩`: `⟨_, _⟩` where the goal is no structure (e.g. an ∨)."""

from __future__ import annotations

import re

from tutor.coach.context import facts_in_scope, proofs_of, traced_goal
from tutor.coach.goals import (
    Shape,
    shorten,
    split_target,
)
from tutor.coach.rules.base import (
    Advice,
    Context,
    one,
)
from tutor.lean.types import Diagnostic


def advise(d: Diagnostic, ctx: Context) -> list[Advice]:
    expected = _expected(d.message) or traced_goal(ctx.statement, ctx.text, d.line) or ""
    counted = _FIELDS.search(d.message)
    if counted:
        return [_field_count(d, ctx, expected, counted)]
    if split_target(expected).shape is Shape.OR or re.search(r"`Or` has 2 constructors", d.message):
        facts = facts_in_scope(ctx.statement, ctx.text, d.line)
        proofs = [p for p in proofs_of(expected, facts) if p.startswith("Or.")]
        if proofs:
            side = "left" if proofs[0].startswith("Or.inl") else "right"
            return one(
                d.line,
                f"Do write `exact {proofs[0]}` on line {d.line}: an ∨ is proved by one side, and "
                f"`⟨_, _⟩` builds ∧ and ∃ only; your facts prove the {side} side of "
                f"`{shorten(expected, 24)}`.",
            )
        return one(
            d.line,
            f"Do prove just one side of the ∨ on line {d.line}, the one your facts give: "
            "`⟨_, _⟩` builds ∧ and ∃, but an ∨ is proved by choosing a side (`left` or `right`).",
        )
    shown = f"`{shorten(expected, 30)}`" if expected else "this goal"
    return one(
        d.line,
        f"Do check the goal on line {d.line}: `⟨_, _⟩` only builds a structure such as ∧ or ∃, "
        f"and {shown} is not one.",
    )


# Lean 4.2x+: "The constructor `And.intro` has 2 explicit fields, but 3 were given".
_FIELDS = re.compile(
    r"constructor `?([\w.]+)`? has (\d+) explicit fields?, but (\d+) (?:were|was) given"
)


def _field_count(d: Diagnostic, ctx: Context, expected: str, counted: re.Match[str]) -> Advice:
    """`⟨hp, hq, hp⟩` for an ∧: the constructor takes as many parts as it has fields; the term
    that builds the goal from the facts when there is one."""
    name, fields, given = counted.group(1), counted.group(2), counted.group(3)
    facts = facts_in_scope(ctx.statement, ctx.text, d.line)
    proofs = [p for p in proofs_of(expected, facts) if p.startswith("⟨")] if expected else []
    fix = f" Write `exact {proofs[0]}`." if proofs else ""
    return Advice(
        d.line,
        f"Do give `⟨…⟩` exactly {fields} parts on line {d.line}: `{name}` takes {fields}, and "
        f"{given} were given.{fix}",
    )


def _expected(message: str) -> str:
    """The type Lean expected, printed on the line(s) after the message's first line."""
    lines = [line.strip() for line in message.split("\n")[1:] if line.strip()]
    return lines[0] if lines else ""
