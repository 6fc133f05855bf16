"""`invalid calc step`: a step does not start where the previous one ended."""

from __future__ import annotations

import re

from tutor.coach import fixes
from tutor.coach.context import proofs_of
from tutor.coach.goals import (
    shorten,
)
from tutor.coach.rules.base import (
    Advice,
    Context,
    one,
)
from tutor.lean.types import Diagnostic

_CALC_LHS = re.compile(
    r"left-hand[ -]side is\s*\n\s+(?P<lhs>[^\n]+?)(?:\s*:\s*\S+)?\n.*?right-hand[ -]side is\s*\n\s+"
    r"(?P<rhs>[^\n]+?)(?:\s*:\s*\S+)?$",
    re.DOTALL | re.MULTILINE,
)


# Lean 4.2x: "invalid 'calc' step, left-hand side is\n  a : T\nbut is expected to be\n  b : T":
# the chain's first left-hand side is not the goal's.
_EXPECTED = re.compile(
    r"left-hand[ -]side is\s*\n\s+(?P<lhs>[^\n]+?)(?:\s*:\s*\S+)?\n\s*but is expected to be\s*\n"
    r"\s+(?P<goal>[^\n]+?)(?:\s*:\s*\S+)?$",
    re.MULTILINE,
)


def _wrong_start(d: Diagnostic, ctx: Context, lhs: str, goal: str) -> Advice:
    """A calc chain must start from the goal's left-hand side; one whose last step ends there
    was written backwards, from the right-hand side."""
    ends_there = any(
        re.search(rf"_\s*(=|≤|<)\s*{re.escape(goal)}\s*:=", ctx.text.line(n))
        for n in range(d.line, ctx.text.n_lines + 1)
    )
    why = (
        "your chain is written backwards: it ends at the goal's left-hand side, where it "
        "should start; reverse the steps"
        if ends_there
        else "the first step's left-hand side must be the goal's"
    )
    return Advice(
        d.line,
        f"Do start the calc chain from `{shorten(goal, 20)}` on line {d.line}, not from "
        f"`{shorten(lhs, 20)}`: {why}.",
    )


def advise(d: Diagnostic, ctx: Context) -> list[Advice]:
    match = _CALC_LHS.search(d.message)
    if match:
        lhs, rhs = match.group("lhs").strip(), match.group("rhs").strip()
        if lhs == rhs:
            return one(
                d.line,
                f"Do remove the step on line {d.line}, or start it with `_`: it restates "
                f"`{lhs}`, where the previous step already ended, so it proves nothing new.",
            )
        chained = _rechained_step(d, ctx, lhs, rhs)
        if chained:
            return [chained]
        return one(
            d.line,
            f"Do start the step on line {d.line} with `_` (as in `_ = ...`): each calc step must "
            f"begin where the previous one ended, `{shorten(rhs, 20)}`, not `{shorten(lhs, 20)}`.",
        )
    expected = _EXPECTED.search(d.message)
    if expected:
        return [_wrong_start(d, ctx, expected.group("lhs").strip(), expected.group("goal").strip())]
    return one(
        d.line,
        f"Do check the calc step on line {d.line}: each step is `_ = rhs := proof`, starting "
        "where the previous one ended, and the steps must chain to the goal.",
    )


def _rechained_step(d: Diagnostic, ctx: Context, lhs: str, previous: str) -> Advice | None:
    """The step `c = b := h` after a step ending at `b`: written backwards, so the chained step
    is `_ = c`, proved from the facts in scope (here `h.symm`)."""
    step = re.match(
        r"^\s*(?P<l>.+?)\s*(?P<op>=|≤|<)\s*(?P<r>.+?)\s*:=\s*(?P<proof>.+?)\s*$",
        ctx.text.line(d.line),
    )
    if not step or step.group("l").strip() != lhs:
        return None
    op, right = step.group("op"), step.group("r").strip()
    target = lhs if right == previous and op == "=" else right
    facts = fixes.Scene(ctx.statement, ctx.text, d.line).facts()
    proofs = proofs_of(f"{previous} {op} {target}", facts)
    if not proofs:
        return None
    return Advice(
        d.line,
        f"Do write `_ {op} {shorten(target, 20)} := {proofs[0]}` on line {d.line}: a calc step "
        f"starts with `_`, where the previous one ended (`{shorten(previous, 20)}`), and "
        f"`{shorten(proofs[0], 20)}` proves `{shorten(previous, 12)} {op} {shorten(target, 12)}`.",
    )
