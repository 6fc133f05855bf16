"""The prover: policy backends, the agentic whole-proof mode and step-level search.

    from tutor.prover import Problem, run_prover, ProverConfig     # one run (web worker)
    from tutor.prover import rollout, AgentConfig, Trajectory      # training rollouts

Heavy dependencies (torch, transformers, vllm) load only when a policy is loaded.
See docs/PROVER.md.
"""

from __future__ import annotations

from tutor.prover.agent import AgentConfig, initial_messages, rollout
from tutor.prover.events import ProverEvent
from tutor.prover.problem import Problem
from tutor.prover.search import ExplorationSchedule, SearchConfig, search
from tutor.prover.service import ProverConfig, ProverResult, get_policy, run_prover
from tutor.prover.trajectory import Trajectory, Verdict, read_jsonl, reward_for, write_jsonl

__all__ = [
    "AgentConfig",
    "ExplorationSchedule",
    "Problem",
    "ProverConfig",
    "ProverEvent",
    "ProverResult",
    "SearchConfig",
    "Trajectory",
    "Verdict",
    "get_policy",
    "initial_messages",
    "read_jsonl",
    "reward_for",
    "rollout",
    "run_prover",
    "search",
    "write_jsonl",
]
