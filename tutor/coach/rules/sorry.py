"""`declaration uses sorry`: Lean reports it at the theorem's name; the fix replaces the `sorry`."""

from __future__ import annotations

from tutor.coach.advice import next_step
from tutor.coach.goals import (
    Goal,
    Hypothesis,
    shorten,
)
from tutor.coach.rules.base import (
    Advice,
    Context,
)
from tutor.coach.source import proof_conclusion, statement_hypotheses
from tutor.lean.types import Diagnostic


def advise(d: Diagnostic, ctx: Context) -> list[Advice]:
    span = ctx.text.declaration_span(d.line)
    lines = ctx.text.sorry_lines(span)
    anchor = lines[0] if lines else d.line
    more = f" (and {len(lines) - 1} more below)" if len(lines) > 1 else ""
    goal = _goal_at_whole_proof_sorry(ctx, span[0], anchor)
    if goal is not None:
        text = (
            f"Do replace the `sorry` on line {anchor}{more} with a real proof of "
            f"`{shorten(goal.target, 50)}`: {next_step(goal, ctx.mathlib)}."
        )
    else:
        text = (
            f"Do replace the `sorry` on line {anchor}{more} with a proof of that step; "
            "Lean accepts nothing that contains `sorry`, so the theorem is not proved yet."
        )
    return [
        Advice(anchor, text),
        Advice(
            anchor,
            "Don't leave `sorry` as a placeholder in a submitted proof: the checker counts "
            "any proof that uses it as unproved, even when everything else checks.",
        ),
    ]


def _goal_at_whole_proof_sorry(ctx: Context, decl_line: int, sorry_line: int) -> Goal | None:
    """The goal a `sorry` stands for when it is the first step of the proof."""
    tactics = ctx.text.tactic_lines((decl_line, sorry_line))
    if not tactics or tactics[0].line != sorry_line or not tactics[0].text.startswith("sorry"):
        return None
    header = "\n".join(ctx.text.lines[decl_line - 1 : sorry_line])
    conclusion = proof_conclusion(header)
    if conclusion is None:
        return None
    hyps = [Hypothesis((name,), typ) for name, typ in statement_hypotheses(header)]
    return Goal(conclusion, hyps)
