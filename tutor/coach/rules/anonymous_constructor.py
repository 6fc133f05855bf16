"""`invalid constructor ⟨...⟩`: `⟨_, _⟩` where the goal is no structure (e.g. an ∨)."""

from __future__ import annotations

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
    expected = " ".join(d.message.split("\n")[1:2]).strip()
    if split_target(expected).shape is Shape.OR:
        return one(
            d.line,
            f"Do prove one side of the ∨ on line {d.line} with `Or.inl` or `Or.inr` (or the "
            "tactics `left` / `right`): `⟨_, _⟩` builds ∧ and ∃, but an ∨ needs just one side.",
        )
    return one(
        d.line,
        f"Do check the goal on line {d.line}: `⟨_, _⟩` only builds a structure such as ∧ or ∃, "
        f"and `{shorten(expected, 30)}` is not one.",
    )
