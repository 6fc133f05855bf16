"""`failed to synthesize`: an instance Lean needs (a number type, `Decidable`) does not exist."""

from __future__ import annotations

import re

from tutor.coach.goals import (
    shorten,
)
from tutor.coach.rules.base import (
    Advice,
    Context,
    one,
)
from tutor.lean.types import Diagnostic


def advise(d: Diagnostic, ctx: Context) -> list[Advice]:
    line = d.line
    body = " ".join(d.message.split("\n", 2)[1:2]).strip() or d.message
    decidable = re.search(r"Decidable\s*\(?\s*∀\s*\(?\s*(\w+)", d.message)
    if decidable:
        var = decidable.group(1)
        return one(
            line,
            f"Do start with `intro {var}` (or `induction {var}`) on line {line} instead of "
            f"`decide`: it cannot check a statement for all {var}, there are infinitely many; "
            "prove the body for an arbitrary value.",
        )
    numeral = re.match(r"OfNat\s+\((.+)\)\s+(\d+)$", body)
    if numeral and numeral.group(1).lstrip().startswith("∃"):
        n = numeral.group(2)
        return one(
            line,
            f"Do give the witness with `exact ⟨{n}, ?_⟩` or `exists {n}` on line {line}: a "
            f"number alone is not a proof of `{shorten(numeral.group(1), 30)}`; you also prove "
            "the property.",
        )
    if ctx.mathlib and re.match(r"(OfNat|HAdd|HMul|HSub|HDiv|HPow)\b", body):
        return one(
            line,
            f"Do give the numbers on line {line} an explicit type, such as `(2 : ℝ)`: Lean "
            f"could not find the instance `{shorten(body, 30)}` for the type it guessed.",
        )
    return one(
        line,
        f"Do check the types on line {line}: Lean needs an instance `{shorten(body, 30)}` "
        "that does not exist, so an operation is used on a type that lacks it.",
    )
