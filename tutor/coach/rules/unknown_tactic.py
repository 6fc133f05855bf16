"""`unknown tactic`: a Lean 3 tactic, or one from a library the course does not have."""

from __future__ import annotations

import re

from tutor.coach import fixes
from tutor.coach.goals import Shape, shorten, split_target
from tutor.coach.names import (
    MATHLIB_TACTICS,
)
from tutor.coach.rules.base import (
    Advice,
    Context,
    impossible_case,
    one,
    refuted_claim,
    scene_at,
)
from tutor.lean.types import Diagnostic

_LEAN3_NAMES = {"begin": "Lean 3 `begin ... end`"}


def advise(d: Diagnostic, ctx: Context) -> list[Advice]:
    line = d.line
    words = ctx.text.line(line).strip().split()
    tactic = words[0] if words else ""
    scene = scene_at(d, ctx)
    goal = fixes.goal_at_first_step(scene)
    if tactic == "assume":
        names = " ".join(w.strip(",") for w in words[1:]) or "h"
        return one(
            line,
            f"Do write `intro {names}` on line {line}: `assume` is Lean 3; Lean 4 introduces "
            "premises and ∀ variables with `intro`.",
        )
    if tactic == "from" and len(words) > 1:
        term = " ".join(words[1:])
        return one(
            line,
            f"Do write `exact {term}` on line {line}: `from` is Lean 3; in a Lean 4 tactic block "
            "a finished proof term is given with `exact`.",
        )
    if tactic in ("use", "existsi") and len(words) > 1 and goal is not None:
        shape = split_target(goal.target).shape
        if shape in (Shape.FORALL, Shape.IMPLIES):
            return one(
                line,
                f"Do start with `intro` on line {line}: the goal `{shorten(goal.target, 24)}` is "
                f"a {'∀' if shape is Shape.FORALL else '→'} first, and its ∃ comes after it; then "
                "give the witness with `exists` (`use` is not part of core Lean).",
            )
    if tactic in ("use", "existsi") and len(words) > 1:
        value = " ".join(words[1:]).strip(",")
        return one(
            line,
            f"Do write `exists {value}` on line {line} (or `refine ⟨{value}, ?_⟩`): `{tactic}` "
            "is not part of core Lean, which this course uses; core Lean gives the witness of an ∃ "
            "with `exists`.",
        )
    impossible = impossible_case(line, goal) if goal else None
    if impossible:
        return [impossible]
    refuted = refuted_claim(ctx, line, goal.target) if goal else None
    if refuted:
        return refuted
    if tactic in MATHLIB_TACTICS and not ctx.mathlib:
        step = fixes.closing_step(goal.target, scene) if goal else None
        if step:
            return one(
                line,
                f"Do use `{step}` on line {line} instead of `{tactic}`: `{tactic}` is "
                "not part of core Lean, which this course uses, and "
                f"`{step}` closes this goal.",
            )
        if goal is not None and re.fullmatch(r"[\d\s+*\-^/%().=<>≤≥≠]+", goal.target):
            return one(
                line,
                f"Do use `decide` on line {line} instead of `{tactic}`: `{tactic}` is not part of "
                "core Lean, and `decide` evaluates a closed statement about numerals.",
            )
        return one(
            line,
            f"Don't use `{tactic}` on line {line}: it is not part of core Lean, which this "
            "course uses. Use core tactics such as `simp`, `omega`, `exact` or `rw` with core "
            "lemmas.",
        )
    return one(
        line,
        f"Do check the tactic name `{tactic}` on line {line}: Lean 4 knows no such tactic. "
        "Core tactics include `intro`, `exact`, `apply`, `constructor`, `cases`, `induction`, "
        "`rw`, `simp` and `omega`.",
    )
