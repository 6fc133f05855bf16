"""Messages without a rule of their own: matched on their wording (no goals, rfl, decide,
constructor, an ∨ used as an ∧, instances, applying a non-function)."""

from __future__ import annotations

import re

from tutor.coach import fixes
from tutor.coach.advice import next_step
from tutor.coach.context import proofs_of, traced_goal
from tutor.coach.goals import (
    shorten,
)
from tutor.coach.rules.apply import constructor_failed
from tutor.coach.rules.base import (
    Advice,
    Context,
    goals_of,
    one,
)
from tutor.lean.types import Diagnostic


def advise(d: Diagnostic, ctx: Context) -> list[Advice]:
    line = d.line
    lowered = " ".join(d.message.lower().replace("`", "'").split())
    first = shorten(d.message.splitlines()[0] if d.message else "", 60)
    if lowered.startswith("no goals"):
        return one(
            line,
            f"Don't keep the tactic on line {line}: the goal was already closed before it, so "
            "Lean has nothing left to prove. Delete this line.",
        )
    if (
        "'rfl' failed" in lowered
        or "rfl tactic" in lowered
        or "not definitionally equal" in lowered
    ):
        goals = goals_of(d)
        step = next_step(goals[0], ctx.mathlib) if goals else "use `simp` or `omega` instead"
        return one(
            line,
            f"Don't use `rfl` on line {line}: the two sides are not equal by computation "
            f"alone. Instead, {step}.",
        )
    if "decide" in lowered[:40]:
        return one(
            line,
            f"Don't use `decide` on line {line}: it only evaluates closed, decidable "
            "statements. Check that the statement is true, then use `omega` or `simp`.",
        )
    if "'constructor' failed" in lowered:
        return constructor_failed(d, ctx)
    if "invalid field" in lowered and "or." in lowered:
        return one(
            line,
            f"Do split the disjunction on line {line} with `cases h with | inl h1 => ... | "
            "inr h2 => ...`: an `∨` hypothesis has no `.left` or `.right`, you must handle "
            "both cases.",
        )
    if "'apply' failed" in lowered or "failed to unify" in lowered:
        return one(
            line,
            f"Do check that the conclusion of the lemma on line {line} matches the goal: "
            "apply could not unify them. Rewrite the goal first, or find a fitting lemma "
            "with `exact?`.",
        )
    if "binders" in lowered or "introN" in d.message:
        return one(
            line,
            f"Don't introduce more names on line {line} than the goal has ∀ or → binders; "
            "check the goal first and use `intro` only for what is there.",
        )
    if "failed to synthesize" in lowered:
        return one(
            line,
            f"Do give the numbers on line {line} an explicit type, such as `(2 : ℝ)`: Lean "
            f"could not find an instance it needs ({first}).",
        )
    if "function expected" in lowered:
        turned = _function_expected(d, ctx)
        if turned:
            return [turned]
        return one(
            line,
            f"Do check what you apply on line {line}: only a hypothesis of ∀ or → shape can "
            "be applied to arguments, and this term is not a function.",
        )
    return one(
        line,
        f"Do fix line {line}: Lean reports '{first}'. Look at the goal just before this line "
        "and choose a step that fits its shape.",
    )


_FUNCTION_EXPECTED = re.compile(
    r"Function expected at\s+(?P<head>.+?)\s+but this term has type\s+(?P<type>.+?)"
    r"(?:\s+Note: Expected a function because this term is being applied to the argument"
    r"\s+(?P<arg>.+?))?\s*$",
    re.S,
)


def _function_expected(d: Diagnostic, ctx: Context) -> Advice | None:
    """`hp hpq` with `hp : p`: a fact is applied as if it were a function. When the facts in
    scope build the goal (here `hpq hp`, the application the other way round), say so."""
    match = _FUNCTION_EXPECTED.search(d.message)
    if not match:
        return None
    head = " ".join(match.group("head").split())
    facts = fixes.Scene(ctx.statement, ctx.text, d.line).facts()
    goal = traced_goal(ctx.statement, ctx.text, d.line)
    source = ctx.text.line(d.line).strip()
    if goal is not None and source.startswith("exact "):
        proofs = proofs_of(goal, facts)
        if proofs:
            return Advice(
                d.line,
                f"Do write `exact {proofs[0]}` on line {d.line}: `{shorten(head, 16)}` proves "
                f"`{shorten(match.group('type').strip(), 20)}`, which is not a function, so it "
                "cannot take an argument; the function is the one whose premise it proves.",
            )
    return None
