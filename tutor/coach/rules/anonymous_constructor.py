"""`invalid constructor ⟨...⟩`: `⟨_, _⟩` where the goal is no structure (e.g. an ∨)."""

from __future__ import annotations

from tutor.coach.context import facts_in_scope, proofs_of
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
    expected = _expected(d.message)
    if split_target(expected).shape is Shape.OR:
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
    return one(
        d.line,
        f"Do check the goal on line {d.line}: `⟨_, _⟩` only builds a structure such as ∧ or ∃, "
        f"and `{shorten(expected, 30)}` is not one.",
    )


def _expected(message: str) -> str:
    """The type Lean expected, printed on the line(s) after the message's first line."""
    lines = [line.strip() for line in message.split("\n")[1:] if line.strip()]
    return lines[0] if lines else ""
