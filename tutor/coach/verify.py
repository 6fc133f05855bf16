"""Verified hints: try the coach's concrete step in Lean before offering it.

When a Lean REPL is available, the compiler coach hands each suggestion that names a concrete
tactic (`intro hp`, `exact Nat.mul_comm a b`, `omega`...) to a HintVerifier. It sends the
statement with the proof cut at the failing line and a `sorry` there (one `cmd`), takes the
sorry's proof state, and runs the candidate as a tactic on it (REPL tactic mode). A candidate
is offered only when it closes the goal or leaves goals different from the ones it started
with (it advances); otherwise the suggestion is replaced by a conceptual hint that names no
step. The verifier never sees the reference proof, and a candidate is one tactic, so a hint
names the next step and never pastes a solution.

Budget (VerifyConfig.budget_s, default 0.3 s per suggestion). How it was sized: the pooled REPL
already holds the imported environment (tutor.lean.pool), so a check is one `cmd` that
elaborates a single short theorem up to a `sorry` plus one tactic step on a small goal; the
REPL's recorded transcripts show such steps as single round trips. No Lean runs where this
was built, so the figure is a cap enforced with the REPL timeouts, not a measurement: the cut
command gets the whole budget, the tactic what is left, and when the budget runs out the
suggestion falls back to the conceptual hint (never an unverified concrete step once
verification was asked for). Without a verifier (no Lean) the coach stays on the unverified
path, which the bench measures (p95 well under 50 ms).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

_TACTIC_START = re.compile(
    r"^(intro|intros|exact|exact_mod_cast|apply|constructor|omega|simp|simp only|rw|decide|"
    r"exists|refine|obtain|rcases|rintro|cases|left|right|rfl|contradiction|exfalso|unfold|"
    r"use|subst|linarith|nlinarith|positivity|norm_num|ring|ac_rfl|specialize)\b"
)


class TacticSession(Protocol):
    """What tutor.lean.checker.ReplSession offers (kept structural: no import of tutor.lean's
    process code here)."""

    def command(
        self, code: str, env: int | None = None, timeout_s: float | None = None
    ) -> dict[str, Any]: ...

    def tactic(self, tactic: str, proof_state: int, timeout_s: float | None = None) -> Any: ...


@dataclass(frozen=True)
class VerifyConfig:
    budget_s: float = 0.3  # per suggestion: the cut command plus one tactic step
    max_candidates: int = 2  # concrete steps tried per suggestion


@dataclass(frozen=True)
class Verdict:
    candidate: str
    ok: bool  # closes or advances the goal
    why: str
    elapsed_s: float


def candidates_in(text: str) -> list[str]:
    """The concrete one-step tactics a suggestion names (backticked), skeletons left out."""
    found = []
    for snippet in re.findall(r"`([^`]+)`", text):
        snippet = snippet.strip()
        if "..." in snippet or "|" in snippet or not _TACTIC_START.match(snippet):
            continue
        if snippet not in found:
            found.append(snippet)
    return found


def cut_document(attempt: str, line: int, after: bool = False) -> str | None:
    """The attempt with its proof cut at `line` (or just after it) and a `sorry` there."""
    lines = attempt.split("\n")
    if not 1 <= line <= len(lines):
        return None
    keep = lines[:line] if after else lines[: line - 1]
    source = lines[line - 1]
    indent = source[: len(source) - len(source.lstrip())] or "  "
    if not any(":=" in row for row in keep):
        return None  # the failing line is in the statement itself: nothing to cut
    return "\n".join([*keep, f"{indent}sorry"])


class HintVerifier:
    """Try candidates on the proof state at a line, within a time budget."""

    def __init__(
        self,
        session: Callable[[], AbstractContextManager[TacticSession]],
        config: VerifyConfig | None = None,
    ) -> None:
        self._session = session
        self.config = config or VerifyConfig()

    def check(
        self, attempt: str, line: int, candidates: list[str], after: bool = False
    ) -> list[Verdict]:
        document = cut_document(attempt, line, after)
        if document is None or not candidates:
            return []
        budget = self.config.budget_s
        verdicts: list[Verdict] = []
        with self._session() as session:
            # The budget is the check's own time on a ready REPL: acquiring one (which may start
            # the process on first use) is the pool's cost, bounded by its own timeouts.
            started = time.perf_counter()
            reply = session.command(document, timeout_s=budget)
            state = _sorry_state(reply, line + 1 if after else line)
            if state is None:
                return [Verdict(c, False, "no proof state at that line", 0.0) for c in candidates]
            proof_state, goal = state
            for candidate in candidates[: self.config.max_candidates]:
                left = budget - (time.perf_counter() - started)
                if left <= 0:
                    verdicts.append(Verdict(candidate, False, "budget spent", 0.0))
                    continue
                step_start = time.perf_counter()
                result = session.tactic(candidate, proof_state, timeout_s=left)
                ok, why = _judge(result, goal)
                verdicts.append(Verdict(candidate, ok, why, time.perf_counter() - step_start))
        return verdicts


def _sorry_state(reply: dict[str, Any], line: int) -> tuple[int, str] | None:
    sorries = reply.get("sorries") or []
    at_line = [s for s in sorries if (s.get("pos") or {}).get("line") == line]
    chosen = at_line[-1] if at_line else (sorries[-1] if sorries else None)
    if chosen is None or "proofState" not in chosen:
        return None
    return int(chosen["proofState"]), str(chosen.get("goal", ""))


def _judge(result: Any, goal: str) -> tuple[bool, str]:
    if getattr(result, "error", None):
        return False, f"Lean refused it: {str(result.error).splitlines()[0][:80]}"
    messages = getattr(result, "messages", [])
    if any(getattr(m, "severity", "") == "error" for m in messages):
        return False, "the step reports an error"
    goals = list(getattr(result, "goals", []))
    if getattr(result, "completed", False) or not goals:
        return True, "closes the goal"
    if goals != [goal]:
        return True, "advances the goal"
    return False, "leaves the goal unchanged"
