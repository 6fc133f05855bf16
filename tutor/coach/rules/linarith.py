"""`linarith failed`: no linear combination of the hypotheses proves the goal."""

from __future__ import annotations

from tutor.coach.advice import nlinarith_hint
from tutor.coach.goals import (
    Goal,
    is_nonlinear,
)
from tutor.coach.rules.base import (
    Advice,
    Context,
    goals_of,
    one,
)
from tutor.lean.types import Diagnostic


def advise(d: Diagnostic, ctx: Context) -> list[Advice]:
    line = d.line
    goals = goals_of(d)
    goal = goals[0] if goals else Goal("False")
    context_text = " ".join(h.type for h in goal.hypotheses)
    types = " ".join(goal.variable_types().values())
    if is_nonlinear(context_text):
        return one(
            line,
            f"Do replace `linarith` on line {line} with `{nlinarith_hint(goal)}`: linarith "
            "only adds hypotheses linearly, and this goal needs products or squares.",
        )
    if any(t.strip() in ("ℕ", "Nat") for t in types.split()) and "-" in context_text:
        return one(
            line,
            f"Do use `omega` on line {line} instead of `linarith`: subtraction on ℕ is "
            "truncated at zero, which omega understands and linarith does not.",
        )
    facts = ", ".join(f"`{n}`" for n in goal.usable_fact_names()[:3]) or "your hypotheses"
    return one(
        line,
        f"Do give `linarith` the fact it is missing on line {line}: no linear combination "
        f"of {facts} proves the goal. Prove the missing inequality with `have` first, or "
        "pass it as `linarith [h]`.",
    )
