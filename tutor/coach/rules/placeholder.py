"""`don't know how to synthesize placeholder`: a `_` that stands for a proof Lean cannot find."""

from __future__ import annotations

import re

from tutor.coach.goals import (
    Shape,
    shorten,
    split_target,
)
from tutor.coach.rules import other
from tutor.coach.rules.base import (
    Advice,
    Context,
    goals_of,
    one,
    same_text,
)
from tutor.lean.types import Diagnostic


def advise(d: Diagnostic, ctx: Context) -> list[Advice]:
    """`exact h1 _ _` where a `_` stands for a proof: Lean fills `_` only from the types, never
    by proving something, so the message's context shows the proof that is still owed."""
    implicit = re.search(r"implicit argument\s*['`]?([^'`\s]+)", d.message)
    if implicit:
        name = implicit.group(1)
        return one(
            d.line,
            f"Do tell Lean the implicit argument `{name}` on line {d.line}: nothing in the term "
            f"fixes it, so name it (`({name} := ...)`) or add a type ascription such as "
            "`(0 : ℕ)` to the value it comes from.",
        )
    goals = goals_of(d)
    if not goals or "_" not in ctx.text.line(d.line) or "placeholder" not in d.message:
        return other.advise(d, ctx)
    source = ctx.text.line(d.line).split("--", 1)[0]
    if re.match(r"\s*(?:·\s*)?refine\b", source) and re.search(r"(?<![?\w'])_(?![\w'])", source):
        # `refine ⟨_, _⟩` meant the parts as goals to prove next: in Lean 4 that is `?_`; a
        # plain `_` must be filled by unification, and a proof never is.
        fixed = re.sub(r"(?<![?\w'])_(?![\w'])", "?_", source.strip())
        return one(
            d.line,
            f"Do write `{fixed}` on line {d.line}: in `refine`, `?_` leaves a part as a new goal "
            f"for the next steps, while `_` asks Lean to find it itself, which it cannot do for "
            f"a proof such as `{shorten(goals[0].target, 30)}`.",
        )
    goal = goals[0]
    if split_target(goal.target).shape is Shape.OTHER:
        return other.advise(d, ctx)  # maybe a value or a type, not a proposition: no proof to name
    owed = shorten(goal.target, 40)
    fits = next(
        (n for n, t in goal.named_facts() if "✝" not in n and same_text(t, goal.target)), None
    )
    if fits:
        return one(
            d.line,
            f"Do put `{fits}` in place of the `_` on line {d.line} that stands for a proof of "
            f"`{owed}`: Lean fills `_` only from the types, and `{fits}` states exactly that.",
        )
    return one(
        d.line,
        f"Do replace the `_` on line {d.line} with a proof of `{owed}`, or prove it first "
        "with `have`: Lean fills `_` only when the types force the value, never a proof.",
    )
