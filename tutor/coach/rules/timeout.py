"""`(deterministic) timeout` / `maximum recursion depth`: Lean ran out of time or depth on a
step. A `decide` on a closed claim about big numbers is the common case: it unfolds the
definitions down to `Nat.succ`; Mathlib's `norm_num` proves such claims by its extensions."""

from __future__ import annotations

import re

from tutor.coach import evidence
from tutor.coach.context import traced_goal
from tutor.coach.goals import shorten
from tutor.coach.rules.base import (
    Advice,
    Context,
    one,
)
from tutor.lean.types import Diagnostic


def advise(d: Diagnostic, ctx: Context) -> list[Advice]:
    line = d.line
    decided = _decide_on_big_numbers(d, ctx)
    if decided:
        return [decided]
    return one(
        line,
        f"Don't rely on heavy automation on line {line}: Lean ran out of time there. Split "
        "the step into smaller `have` steps or use a targeted tactic such as `rw` or `omega`.",
    )


_PRIME = re.compile(r"^\s*(¬\s*)?\(?\s*Nat\.Prime\s+(\d+)\s*\)?\s*$")


def _is_prime(n: int) -> bool:
    return n >= 2 and all(n % k for k in range(2, int(n**0.5) + 1))


def closed_truth(claim: str) -> bool | None:
    """Whether a claim without variables holds: `Nat.Prime 91`, `¬ Nat.Prime 97`, or closed
    arithmetic on ℕ (evidence.holds); None when it cannot be evaluated."""
    prime = _PRIME.match(claim)
    if prime:
        n = int(prime.group(2))
        if n > 10**7:
            return None
        return _is_prime(n) != bool(prime.group(1))
    if not re.fullmatch(r"[\d\s+*^%().=<>≤≥≠]+", claim):
        # A type, a variable, `-` or `/` (whose value depends on ℕ, ℤ or ℝ): not evaluated.
        return None
    return evidence.holds(claim, evidence.NAT)


def _decide_on_big_numbers(d: Diagnostic, ctx: Context) -> Advice | None:
    source = ctx.text.line(d.line).split("--", 1)[0].strip().lstrip("·").strip()
    if source != "decide" or not ctx.mathlib:
        return None
    goal = traced_goal(ctx.statement, ctx.text, d.line)
    truth = closed_truth(goal) if goal else None
    if goal is None or truth is None:
        return None
    if not truth:
        return Advice(
            d.line,
            f"Don't try to prove `{shorten(goal, 24)}` on line {d.line}: evaluated, it is false, "
            "so no tactic proves it; check the numbers in the statement.",
        )
    return Advice(
        d.line,
        f"Do use `norm_num` on line {d.line} instead of `decide`: `{shorten(goal, 24)}` is true, "
        "but `decide` evaluates it by unfolding definitions step by step, too deep for numbers "
        "this size; norm_num's extensions (primes, arithmetic) prove it directly.",
    )
