"""Membership in a set written by a property (`x ∈ {n | n > 1}`), met by an arithmetic tactic:
`omega`, `linarith` and `norm_num` read `∈` as an unknown proposition and never look inside
the braces. Unfolded with Mathlib's `Set.mem_setOf_eq`, it is the property itself."""

from __future__ import annotations

from tutor.coach import evidence, linear
from tutor.coach.context import facts_in_scope, traced_goal
from tutor.coach.goals import Goal, shorten
from tutor.coach.hypotheses import set_builder
from tutor.coach.rules.base import Advice, Context
from tutor.lean.types import Diagnostic


def unfold_membership(d: Diagnostic, ctx: Context, goal: Goal | None, tactic: str) -> Advice | None:
    """The advice when the goal at this line (or the hypothesis linarith negated it into) is a
    set-builder membership: unfold it first, and say which tactic then closes it when the
    property follows from the facts."""
    if not ctx.mathlib or not evidence.in_library("Set.mem_setOf_eq", True):
        return None
    candidates = [traced_goal(ctx.statement, ctx.text, d.line)]
    if goal is not None:
        candidates += [goal.target] + [h.type for h in goal.hypotheses if "∉" in h.type]
    for text in candidates:
        found = set_builder(text) if text else None
        if text is None or found is None:
            continue
        prop, _ = found
        facts = facts_in_scope(ctx.statement, ctx.text, d.line)
        types = {**(goal.variable_types() if goal else {})}
        domain = evidence.domain_of_text(prop, types) if types else evidence.domain_of_text(prop)
        closer = linear.closer(prop, facts, domain, ctx.mathlib)
        then = f", then `{closer}` proves it from your hypotheses" if closer else ""
        return Advice(
            d.line,
            f"Do unfold the set membership before `{tactic}` on line {d.line}: write `simp only "
            f"[Set.mem_setOf_eq]` (or `show {shorten(prop, 30)}`){then}. `{tactic}` reads "
            f"`{shorten(text.strip(), 24)}` as an unknown and never looks inside the braces.",
        )
    return _hypothesis_membership(d, ctx, goal, tactic)


def _hypothesis_membership(
    d: Diagnostic, ctx: Context, goal: Goal | None, tactic: str
) -> Advice | None:
    """A hypothesis `hx : x ∈ {y | y > 2}` the tactic needed: it sees only an unknown there,
    so the property is unfolded in `hx` first (`simp only [Set.mem_setOf_eq] at hx`)."""
    facts = facts_in_scope(ctx.statement, ctx.text, d.line)
    if goal is not None:
        facts = facts + [(n, h.type) for h in goal.hypotheses for n in h.names]
    target = traced_goal(ctx.statement, ctx.text, d.line)
    for name, typ in dict.fromkeys(facts):
        found = set_builder(typ or "")
        if found is None or not found[1] or "✝" in name or target is None:
            continue
        unfolded = [(n, found[0] if n == name else t) for n, t in facts if "✝" not in n]
        domain = evidence.domain_of_text(target + " " + found[0])
        if linear.closer(target, unfolded, domain, ctx.mathlib) is None:
            continue  # unfolding it is not shown to be what the goal needs
        return Advice(
            d.line,
            f"Do unfold the membership in `{name}` before `{tactic}` on line {d.line}: write "
            f"`simp only [Set.mem_setOf_eq] at {name}` (then `{name} : "
            f"{shorten(found[0], 20)}`). `{tactic}` reads `{shorten(typ, 24)}` as an unknown and "
            "never looks inside the set-builder braces.",
        )
    return None
