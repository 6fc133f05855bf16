"""What every rule shares: the context a rule reads, its answer, and the helpers several
kinds of message use (the goal Lean printed, the statement's goal at the first step, false
claims about ℕ numerals, impossible cases)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from tutor.coach import fixes
from tutor.coach.context import contradiction
from tutor.coach.goals import (
    Goal,
    parse_goals,
    shorten,
)
from tutor.coach.source import AttemptText
from tutor.lean.types import Diagnostic


@dataclass
class Context:
    statement: str
    text: AttemptText
    mathlib: bool


@dataclass(frozen=True)
class Advice:
    line: int | None
    text: str


def one(line: int | None, text: str) -> list[Advice]:
    """A rule's answer when it has exactly one suggestion (the shape most rules return)."""
    return [Advice(line, text)]


def scene_at(d: Diagnostic, ctx: Context) -> fixes.Scene:
    return fixes.Scene(ctx.statement if ctx.statement.strip() else ctx.text.text, ctx.text, d.line)


def goals_of(d: Diagnostic) -> list[Goal]:
    return parse_goals(d.goal or d.message)


def goal_here(d: Diagnostic, scene: fixes.Scene) -> Goal | None:
    """The first goal the message prints, else the statement's when the line is the first step."""
    goals = goals_of(d)
    return goals[0] if goals else fixes.goal_at_first_step(scene)


def case_phrase(goal: Goal) -> str:
    return f"of case `{goal.case}` " if goal.case else ""


def projected(term: str) -> str:
    """`term` ready for `.symm`: an application must be parenthesised, or `.symm` would apply
    to its last argument (`f h₁ h₂.symm` is `f h₁ (h₂.symm)`)."""
    return f"({term})" if re.search(r"\s", term.strip()) else term


def strip_sort(text: str) -> str:
    return re.sub(r"\s*:\s*(Prop|Type\S*|Sort\S*)\s*$", "", " ".join(text.split()))


OTHER_NUMBERS = re.compile(r"ℤ|ℝ|ℚ|ℂ|\b(?:Int|Real|Rat|Float|Fin|UInt\d+)\b")


def false_claim_of(target: str, ctx: Context) -> str | None:
    """The false-numerals clause, only where every numeral is ℕ: a goal prints `2 - 3 < 0` the
    same whether it is about ℕ (false) or ℤ (true), so any other number type rules it out."""
    if OTHER_NUMBERS.search(ctx.statement + "\n" + ctx.text.text):
        return None
    return fixes.false_numeral_claim(target)


def impossible_case(line: int, goal: Goal) -> Advice | None:
    """The goal may be false, but the hypotheses of this case contradict each other (a `cases`
    branch such as `n = 0` beside `h : n ≠ 0`): the case is closed from them, not from the goal."""
    facts = [(n, h.type) for h in goal.hypotheses for n in h.names if "✝" not in n]
    term = contradiction(facts)
    if term is None:
        return None
    return Advice(
        line,
        f"Do close this case with `exact {term}` on line {line} (or `contradiction`): "
        f"{case_phrase(goal)}its hypotheses contradict each other, so the goal "
        f"`{shorten(goal.target, 24)}` never has to be proved from the numbers.",
    )


def false_claim_advice(line: int, claim: str) -> Advice:
    return Advice(
        line,
        f"Don't try to prove it with any tactic on line {line}: {claim}, so nothing can prove "
        "it. Check the numbers in the statement or in your earlier steps.",
    )


def same_text(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())
