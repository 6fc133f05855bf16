"""Deterministic rollouts for tests that compare runs (1 vs 2 ranks, resumed vs not): the
same problem always yields the same trajectory, with no model sampling and no Lean. A test
double: never imported by product code."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from training.batches import render_prompt_ids
from tutor.prover.problem import Problem
from tutor.prover.trajectory import Trajectory


def scripted_trajectory(
    tokenizer: Any, problem: Problem, temperature: float, sample: int = 0
) -> Trajectory:
    """Sample j of a problem: even samples write the reference proof (reward 1 when there
    is one), odd ones `sorry` (reward 0), so GRPO groups have non-zero advantages."""
    messages = [{"role": "user", "content": f"Prove:\n{problem.statement}"}]
    prompt = render_prompt_ids(tokenizer, messages, [])
    good = sample % 2 == 0 and problem.reference_proof is not None
    text = f"```lean\n{problem.reference_proof if good else 'sorry'}\n```"
    y = list(tokenizer.encode(text, add_special_tokens=False))
    return Trajectory(
        problem_id=problem.id,
        statement=problem.statement,
        mode="agent",
        prompt_messages=messages,
        tools=[],
        token_ids=prompt + y,
        mask=[0] * len(prompt) + [1] * len(y),
        logprobs=[0.0] * len(prompt) + [-1.0] * len(y),
        prompt_length=len(prompt),
        final_proof=text,
        reward=1.0 if good else 0.0,
        sampling={"temperature": temperature},
    )


def scripted_rollout_factory(model: Any, tokenizer: Any) -> Any:
    def rollout(
        problems: Sequence[Problem], samples: int, temperature: float, *, seed: int | None = None
    ) -> list[Trajectory]:
        return [
            scripted_trajectory(tokenizer, p, temperature, j)
            for p in problems
            for j in range(samples)
        ]

    return rollout
