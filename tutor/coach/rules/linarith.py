"""`linarith failed`: no linear combination of the hypotheses proves the goal."""

from __future__ import annotations

import re

from tutor.coach import fixes
from tutor.coach.advice import nlinarith_hint
from tutor.coach.context import normal
from tutor.coach.goals import (
    Goal,
    is_nonlinear,
    split_target,
)
from tutor.coach.rules.base import (
    Advice,
    Context,
    goals_of,
    one,
    scene_at,
)
from tutor.lean.types import Diagnostic


def advise(d: Diagnostic, ctx: Context) -> list[Advice]:
    line = d.line
    goals = goals_of(d)
    goal = goals[0] if goals else Goal("False")
    context_text = " ".join(h.type for h in goal.hypotheses)
    types = " ".join(goal.variable_types().values())
    tactic = "nlinarith" if "nlinarith" in ctx.text.line(line) else "linarith"
    product = _product_lemma(ctx, d, goal)
    if product:
        return one(
            line,
            f"Do write `exact {product}` on line {line} instead of `{tactic}`: the goal is a "
            "product of two factors whose signs your hypotheses give, which is that lemma.",
        )
    if is_nonlinear(context_text):
        if tactic == "nlinarith":
            return one(
                line,
                f"Do give `nlinarith` the square it needs on line {line}: write "
                f"`{nlinarith_hint(goal)}`; it multiplies hypotheses in pairs but only uses "
                "squares you list.",
            )
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


_PRODUCT_LEMMAS = {"≤": "mul_nonneg", "<": "mul_pos"}


def _product_lemma(ctx: Context, d: Diagnostic, goal: Goal) -> str | None:
    """`mul_nonneg ha hb` for a `0 ≤ a * b` goal with `ha : 0 ≤ a`, `hb : 0 ≤ b` (and `mul_pos`
    for `<`), when the course has Mathlib's lemmas."""
    stated = fixes.goal_at_first_step(scene_at(d, ctx))
    if stated is None or not ctx.mathlib:
        return None
    split = split_target(normal(stated.target))
    match = re.fullmatch(r"([\w'₀-₉]+)\s*\*\s*([\w'₀-₉]+)", normal(split.right))
    if split.op not in _PRODUCT_LEMMAS or normal(split.left) != "0" or match is None:
        return None
    facts = dict((normal(t), n) for n, t in stated.named_facts())
    names = [facts.get(f"0 {split.op} {factor}") for factor in match.groups()]
    if not all(names):
        return None
    return f"{_PRODUCT_LEMMAS[split.op]} {names[0]} {names[1]}"
