"""`declaration uses sorry`: Lean reports it at the theorem's name; the fix replaces the `sorry`."""

from __future__ import annotations

import re

from tutor.coach.advice import first_step, next_step
from tutor.coach.context import facts_in_scope, traced_goal
from tutor.coach.goals import (
    Goal,
    Hypothesis,
    shorten,
)
from tutor.coach.rules.base import (
    Advice,
    Context,
    bullet_part,
    one,
)
from tutor.coach.source import proof_conclusion, statement_hypotheses
from tutor.coach.verify import candidates_in
from tutor.lean.types import Diagnostic


def advise(d: Diagnostic, ctx: Context) -> list[Advice]:
    span = ctx.text.declaration_span(d.line)
    lines = ctx.text.sorry_lines(span)
    anchor = lines[0] if lines else d.line
    more = f" (and {len(lines) - 1} more below)" if len(lines) > 1 else ""
    goal = _goal_at_whole_proof_sorry(ctx, span[0], anchor) or _goal_of_step(ctx, anchor)
    if goal is None:
        step = _induction_step(ctx, anchor)
        if step is not None:
            return one(
                anchor,
                f"Do replace the `sorry` (a placeholder) on line {anchor}{more} with the inductive "
                "step, using "
                f"the induction hypothesis `{step}`, which this branch names and never uses: "
                f"try `simp [{step}]` (plain `simp` may already do, or `simp_all`), or "
                f"`rw [{step}]` once the goal shows what `{step}` speaks about.",
            )
        return one(
            anchor,
            f"Do replace the `sorry` on line {anchor}{more} with a proof of that step: the "
            "`sorry` still stands in for a missing proof, so Lean does not count the theorem "
            "as proved yet.",
        )
    # The student wrote no step at all: the shape's first step is advice, the whole answer
    # (`exact ⟨h.2, h.1⟩`, `omega`) is a hint, offered as one (Advice.reveals).
    start = first_step(goal, ctx.mathlib)
    answer = next_step(goal, ctx.mathlib)
    target = shorten(goal.target, 50)
    if start is None:
        advice = [
            Advice(
                anchor,
                f"Do replace the `sorry` on line {anchor}{more}, a placeholder, with a real proof "
                f"of `{target}`: work out from your hypotheses why it holds, one step at a time.",
            )
        ]
    else:
        advice = [
            Advice(
                anchor,
                f"Do replace the `sorry` on line {anchor}{more}, a placeholder, with a real proof "
                f"of `{target}`: {start}.",
            )
        ]
    if answer != start and candidates_in(answer):
        advice.append(
            Advice(anchor, f"Do replace the `sorry` on line {anchor}: {answer}.", reveals=True)
        )
    return advice


_STEP_ALTERNATIVE = re.compile(
    r"^\|\s*(?:succ|cons)\b(?P<names>(?:\s+[\w'₀-₉]+)*)\s*=>\s*(?P<rest>.*)$"
)


def _induction_step(ctx: Context, line: int) -> str | None:
    """The induction hypothesis's name when the `sorry` on `line` is the inductive step of an
    `induction ... with` (`| succ k ih => sorry`) and the branch never uses it."""
    code = ctx.text.line(line).split("--", 1)[0].strip()
    match = _STEP_ALTERNATIVE.match(code)
    if match is None or not re.fullmatch(r"sorry", match.group("rest").strip()):
        return None
    names = match.group("names").split()
    start, _ = ctx.text.declaration_span(line)
    above = " ".join(ctx.text.line(n) for n in range(start, line))
    if not names or not re.search(r"\binduction\b", above):
        return None
    return names[-1]


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


_HAVE = re.compile(r"^(?:·\s*)?have\s+[\w'₀-₉]*\s*:\s*(?P<type>.+?)\s*:=\s*(?:by\s+)?sorry\s*$")


def _goal_of_step(ctx: Context, line: int) -> Goal | None:
    """The goal a `sorry` stands for inside the proof: the statement of `have h : T := by
    sorry`, or the part of an ∧ / ↔ that the bullet after `constructor` proves, with the
    hypotheses in scope there (the statement's and what the proof introduced)."""
    code = ctx.text.line(line).split("--", 1)[0].strip()
    facts = facts_in_scope(ctx.statement, ctx.text, line)
    hyps = [Hypothesis((name,), typ) for name, typ in facts if typ and name != "_"]
    have = _HAVE.match(code)
    if have:
        return Goal(have.group("type"), hyps)
    if code == "sorry":
        # A `sorry` after steps that only introduced names: the goal they leave.
        traced = traced_goal(ctx.statement, ctx.text, line)
        return Goal(traced, hyps) if traced else None
    if not re.fullmatch(r"·\s*sorry", code):
        return None
    part = bullet_part(ctx, line)
    return Goal(part, hyps) if part else None
