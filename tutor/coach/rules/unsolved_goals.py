"""`unsolved goals`: the proof stops while goals are open. Lean reports it at `by`, `·`, `=>`
or `}`; the fix goes after the last tactic of that block."""

from __future__ import annotations

import re

from tutor.coach import fixes
from tutor.coach.advice import next_step
from tutor.coach.algebra import ac_step
from tutor.coach.goals import (
    Goal,
    shorten,
)
from tutor.coach.rules.base import (
    Advice,
    Context,
    case_phrase,
    goals_of,
    impossible_case,
    refuted_claim,
)
from tutor.coach.source import AttemptText
from tutor.lean.types import Diagnostic


def advise(d: Diagnostic, ctx: Context) -> list[Advice]:
    anchor = ctx.text.block_last_line(d.line, d.column, d.end_line, d.end_column)
    goals = goals_of(d)
    if not goals:
        return [Advice(anchor, f"Do add the missing steps after line {anchor}: {_UNSOLVED_TAIL}")]
    goal = goals[0]
    if impossible_case(anchor, goal) is None:
        refuted = refuted_claim(ctx, anchor, goal.target)
        if refuted:
            return refuted
    bare = _bare_commutativity(ctx, anchor, goal)
    if bare:
        return [bare]
    more = f" ({len(goals)} goals remain)" if len(goals) > 1 else ""
    text = (
        f"Do add a step after line {anchor}: the goal {case_phrase(goal)}"
        f"`{shorten(goal.target)}` is still open{more}; {next_step(goal, ctx.mathlib)}."
    )
    advice = [Advice(anchor, text)]
    dagger = next((n for h in goal.hypotheses for n in h.names if "✝" in n), None)
    origin = _origin_line(ctx.text, anchor) if dagger else None
    if dagger and origin is not None:
        advice.insert(
            0,
            Advice(
                origin,
                f"Do name the variables on line {origin} (for `induction`, write `induction n "
                f"with` and `| succ k ih => ...`, or use `rename_i`): `{dagger}` is an "
                "inaccessible name Lean made up, which you cannot type.",
            ),
        )
    if anchor != d.line and ctx.text.token_at(d.line, d.column) == "by":
        advice.append(
            Advice(
                anchor,
                "Don't change the statement line where Lean shows the error: `by` only marks "
                f"the block, and the proof simply stops too early after line {anchor}.",
            )
        )
    return advice


_BARE_COMM = re.compile(r"^(?:·\s*)?rw\s*\[\s*(?:←\s*)?((?:Nat\.|Int\.)?(?:add|mul)_comm)\s*\]\s*$")


def _bare_commutativity(ctx: Context, anchor: int, goal: Goal) -> Advice | None:
    """`rw [Nat.add_comm]` with no arguments rewrites the first sum it matches (often the whole
    side), which leaves a goal that is still true by reordering: say so, and name the closing
    step (omega on ℕ/ℤ, else the reordering)."""
    match = _BARE_COMM.match(ctx.text.line(anchor).strip())
    reordered = ac_step(goal.target) if match else None
    if not match or not reordered:
        return None
    lemma = match.group(1)
    op = "sum" if "add" in lemma else "product"
    types = goal.variable_types()
    closer = "omega" if fixes.is_linear_arith(goal.target, types) else reordered
    return Advice(
        anchor,
        f"Do name the terms to swap on line {anchor}, as in `rw [{lemma} x y]`, or close the goal "
        f"with `{closer}`: with no arguments `{lemma}` rewrites the first {op} it matches (the "
        f"outermost, leftmost one), leaving `{shorten(goal.target, 30)}`.",
    )


def _origin_line(text: AttemptText, line: int) -> int | None:
    """The `induction` / `cases` / `intro` line above `line` that made inaccessible names."""
    for number in range(line, 0, -1):
        if re.match(r"^\s*(induction|cases|intro|rcases|match)\b", text.line(number)):
            return number
    return None


_UNSOLVED_TAIL = "the proof ends while goals are still open; finish each remaining goal."
