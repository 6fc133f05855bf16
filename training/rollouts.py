"""The one rollout path FD and GRPO share: the prover's agent loop on the live policy.

A rollout function takes problems, a number of samples per problem and a temperature, and
returns trajectories grouped consecutively (all samples of problem 0, then problem 1, ...),
which is the layout group_advantages expects. The default comes from the prover
(tutor.prover) driving the *training* model in memory through its HF policy, in the Lean tool
environment of tutor.lean; tests pass a checker pointed at the REPL test double.

Coach feedback is attached here too (`attach_feedback`), because FD and the mixed mode both
need it per rollout, and the snapshot path (continual distillation) brings it ready-made.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tutor.lean.types import Diagnostic
from tutor.prover.problem import Problem
from tutor.prover.trajectory import Trajectory

log = logging.getLogger(__name__)

RolloutFn = Callable[[Sequence[Problem], int, float], list[Trajectory]]


def prover_rollout(
    model: Any,
    tokenizer: Any,
    *,
    checker: Any,
    tools_factory: Any,
    model_config: Any,
    seed: int | None = None,
    name: str = "training-policy",
) -> RolloutFn:
    """Rollouts by the prover's agent (tutor.prover.agent.rollout) on the in-memory model.

    model/tokenizer: the live policy (its weights change every step; nothing is reloaded).
    checker: gives the final verdict (tutor.lean.checker.LeanChecker; in tests, one whose
    REPL is the test double). tools_factory(problem, attempt) -> the attempt's tool workspace.
    """
    from tutor.prover.agent import AgentConfig
    from tutor.prover.agent import rollout as agent_rollout
    from tutor.prover.policy.hf import HFPolicy

    policy = HFPolicy(model, tokenizer, name=name)
    calls = 0

    def rollout(problems: Sequence[Problem], samples: int, temperature: float) -> list[Trajectory]:
        nonlocal calls
        calls += 1
        config = AgentConfig(
            max_turns=model_config.max_turns,
            max_turn_tokens=model_config.max_new_tokens,
            max_total_tokens=model_config.max_total_tokens,
            temperature=temperature,
            top_p=model_config.top_p,
            seed=None if seed is None else seed * 100_003 + calls,
        )
        was_training = model.training
        model.eval()
        try:
            return agent_rollout(
                policy,
                list(problems),
                n=samples,
                config=config,
                checker=checker,
                tools_factory=tools_factory,
            )
        finally:
            model.train(was_training)

    return rollout


def vllm_rollout(
    model: Any,
    tokenizer: Any,
    *,
    checker: Any,
    tools_factory: Any,
    model_config: Any,
    sync_dir: str,
    seed: int | None = None,
) -> RolloutFn:
    """Rollouts on GPU hosts through a vLLM engine (tutor.prover.policy.vllm.VLLMPolicy).

    Weight sync: every model_config.vllm_sync_every calls the live weights are written with
    save_pretrained into sync_dir/a or sync_dir/b (alternating) and sync_dir/SERVING is
    pointed at them; the prover's rollout calls policy.reload_if_changed() before sampling,
    which restarts the engine on the new weights. Correct but costly for large models
    (an engine restart per sync); an in-place weight update through vLLM's worker API is the
    faster path and is not implemented here. Needs `pip install .[gpu]` (vllm).
    Untested on this project's CPU-only CI.
    """
    import json
    import os
    from pathlib import Path

    from tutor.prover.agent import AgentConfig
    from tutor.prover.agent import rollout as agent_rollout
    from tutor.prover.policy.vllm import VLLMPolicy, VLLMPolicyConfig

    root = Path(sync_dir)
    slot = root / "SERVING"
    policy: VLLMPolicy | None = None
    calls = 0
    side = "b"

    def sync() -> None:
        nonlocal side
        side = "a" if side == "b" else "b"
        model.save_pretrained(root / side, safe_serialization=True)
        tokenizer.save_pretrained(root / side)
        tmp = slot.with_suffix(".tmp")
        tmp.write_text(json.dumps({"path": side}), encoding="utf-8")
        os.replace(tmp, slot)  # the engine reloads on its next rollout (fingerprint changed)

    def rollout(problems: Sequence[Problem], samples: int, temperature: float) -> list[Trajectory]:
        nonlocal policy, calls
        if calls % model_config.vllm_sync_every == 0:
            sync()
        calls += 1
        if policy is None:
            options = VLLMPolicyConfig(
                gpu_memory_utilization=model_config.vllm_gpu_memory_utilization
            )
            policy = VLLMPolicy.load(str(slot), options)
        config = AgentConfig(
            max_turns=model_config.max_turns,
            max_turn_tokens=model_config.max_new_tokens,
            max_total_tokens=model_config.max_total_tokens,
            temperature=temperature,
            top_p=model_config.top_p,
            seed=None if seed is None else seed * 100_003 + calls,
        )
        return agent_rollout(
            policy,
            list(problems),
            n=samples,
            config=config,
            checker=checker,
            tools_factory=tools_factory,
        )

    return rollout


# --- coach feedback ---------------------------------------------------------------------


@dataclass
class FeedbackOutcome:
    """attach_feedback's result: which trajectories got feedback, and what failed."""

    with_feedback: list[Trajectory]
    texts: list[str]
    failures: list[str] = field(default_factory=list)


def attach_feedback(
    coach: Any, trajectories: Sequence[Trajectory], problems_by_id: dict[str, Problem] | None = None
) -> FeedbackOutcome:
    """Ask the coach about each rollout: (statement, the rollout's final proof, Lean's messages).

    A trajectory that already carries feedback (snapshot data: teacher-approved) keeps it.
    A coach error on one trajectory drops that trajectory from the FD batch and is reported;
    nothing is invented in its place.
    """
    from tutor.coach.types import Feedback

    kept, texts, failures = [], [], []
    for trajectory in trajectories:
        if trajectory.feedback is None:
            try:
                problem = (problems_by_id or {}).get(trajectory.problem_id)
                feedback = coach.advise(
                    trajectory.statement,
                    _attempt_text(trajectory),
                    _diagnostics(trajectory),
                    reference_proof=problem.reference_proof if problem else None,
                )
            except Exception as exc:  # noqa: BLE001 - one bad call must not end the run
                failures.append(f"{trajectory.problem_id}: {type(exc).__name__}: {exc}")
                continue
            trajectory.feedback = feedback.to_dict()
        kept.append(trajectory)
        texts.append(Feedback.from_dict(trajectory.feedback).as_text())
    return FeedbackOutcome(kept, texts, failures)


def _attempt_text(trajectory: Trajectory) -> str:
    if trajectory.final_proof:
        return trajectory.final_proof
    # No proof was submitted: the coach reads what the model wrote instead.
    return "\n".join(turn.text for turn in trajectory.turns)


def _diagnostics(trajectory: Trajectory) -> list[Diagnostic]:
    if not trajectory.check:
        return []
    return [Diagnostic.from_dict(d) for d in trajectory.check.get("diagnostics", [])]


def assistant_text(trajectory: Trajectory) -> str:
    return "\n".join(turn.text for turn in trajectory.turns)
