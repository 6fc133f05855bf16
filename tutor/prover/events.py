"""Events a prover run streams to its caller (the web layer pushes them to the browser).

Every event is a small dataclass with `type` and `to_dict()`; `attempt` says which of the
n parallel attempts it belongs to. Callbacks must be quick and must not raise: the run
catches and logs callback errors rather than dying in the middle of an attempt.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

log = logging.getLogger(__name__)


@dataclass
class ProverEvent:
    type: ClassVar[str] = "event"
    attempt: int

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, **asdict(self)}


@dataclass
class Started(ProverEvent):
    type: ClassVar[str] = "started"
    problem_id: str = ""
    mode: str = ""
    model: str = ""


@dataclass
class ModelTurn(ProverEvent):
    type: ClassVar[str] = "model_turn"
    turn: int = 0
    text: str = ""
    n_tokens: int = 0
    finish_reason: str = ""


@dataclass
class ToolCall(ProverEvent):
    type: ClassVar[str] = "tool_call"
    turn: int = 0
    name: str = ""
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass
class LeanResult(ProverEvent):
    type: ClassVar[str] = "lean_result"
    turn: int = 0
    tool: str = ""
    valid: bool | None = None
    could_not_check: bool = False
    output: str = ""


@dataclass
class CoachSuggestion(ProverEvent):
    type: ClassVar[str] = "coach_suggestion"
    feedback: dict[str, Any] = field(default_factory=dict)  # tutor.coach Feedback.to_dict()


@dataclass
class SearchExpansion(ProverEvent):
    type: ClassVar[str] = "search_expansion"
    iteration: int = 0
    node: int = 0
    goals: list[str] = field(default_factory=list)
    tactic: str = ""
    source: str = ""  # "model" | "portfolio"
    status: str = ""  # "progress" | "error" | "solved" | "duplicate"
    exploration_rate: float = 0.0


@dataclass
class SearchTree(ProverEvent):
    """The whole search tree after a change (tutor.prover.tree views: id, parent, tactic,
    prior, goals, status, visits, value), with progress; the last one carries `outcome`.
    Sent whole rather than as diffs: trees are a few hundred nodes, and a late watcher
    needs only the latest one."""

    type: ClassVar[str] = "search_tree"
    algorithm: str = ""  # "best_first" | "mcts"
    nodes: list[dict[str, Any]] = field(default_factory=list)
    expansions: int = 0
    depth: int = 0
    elapsed_s: float = 0.0
    budget: int = 0  # max expansions
    time_limit_s: float = 0.0
    workers: int = 1
    outcome: dict[str, Any] | None = None  # {"reason", "proof", "path"} at the end


@dataclass
class Finished(ProverEvent):
    type: ClassVar[str] = "finished"
    verdict: str = ""
    stop_reason: str = ""
    proof: str | None = None
    elapsed_s: float = 0.0


EventCallback = Callable[[ProverEvent], None]


def emit(callback: EventCallback | None, event: ProverEvent) -> None:
    """Deliver one event; a failing callback is logged, never fatal to the run."""
    if callback is None:
        return
    try:
        callback(event)
    except Exception:  # the run's result matters more than one lost progress message
        log.exception("prover event callback failed on %s", event.type)
