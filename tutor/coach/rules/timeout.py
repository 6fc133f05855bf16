"""`(deterministic) timeout`: Lean ran out of heartbeats on a step."""

from __future__ import annotations

from tutor.coach.rules.base import (
    Advice,
    Context,
    one,
)
from tutor.lean.types import Diagnostic


def advise(d: Diagnostic, ctx: Context) -> list[Advice]:
    line = d.line
    return one(
        line,
        f"Don't rely on heavy automation on line {line}: Lean ran out of time there. Split "
        "the step into smaller `have` steps or use a targeted tactic such as `rw` or `omega`.",
    )
