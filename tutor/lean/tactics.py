"""Tactic-level goal states from the REPL's `allTactics` option (the goal view's data).

The REPL answers a command sent with `"allTactics": true` with a `tactics` list, one entry
per tactic, nested ones included (see ../shared/data/lean_transcripts/repl/all_tactics*):
    {"tactic": "exact hp", "proofState": 0, "pos": {"line": 2, "column": 2},
     "endPos": {"line": 2, "column": 10}, "goals": "P : Prop\\nhp : P\\n⊢ P",
     "usedConstants": []}
`goals` is the state *before* the tactic. Lean reports no state after it, so the state after
a step is read off the next step that starts where this one ends; see TacticStep.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tutor.lean.types import TacticStep


def parse_tactics(entries: list[dict[str, Any]], line_offset: int) -> list[TacticStep]:
    """The reply's `tactics`, in document order, lines shifted by line_offset."""
    steps = []
    for entry in entries:
        pos = entry.get("pos") or {}
        end = entry.get("endPos") or pos
        steps.append(
            TacticStep(
                line=int(pos.get("line", 0)) + line_offset,
                column=int(pos.get("column", 0)),
                end_line=int(end.get("line", 0)) + line_offset,
                end_column=int(end.get("column", 0)),
                tactic=str(entry.get("tactic", "")),
                goals_before=str(entry.get("goals", "")),
            )
        )
    return sorted(steps, key=lambda s: (s.line, s.column, -s.end_line, -s.end_column))


def with_goals_after(steps: list[TacticStep], proof_done: bool) -> list[TacticStep]:
    """Each step's goals after it: those before the first step starting at or after its end.
    For the last steps, "no goals" only when the proof was accepted; otherwise unknown."""
    result = []
    for step in steps:
        end = (step.end_line, step.end_column)
        following = next((s for s in steps if (s.line, s.column) >= end), None)
        if following is not None:
            after: str | None = following.goals_before
        else:
            after = "" if proof_done else None
        result.append(replace(step, goals_after=after))
    return result
