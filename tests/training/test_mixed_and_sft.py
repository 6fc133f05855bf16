"""The mixed mode's schedule inside a real run, and SFT from reference proofs and snapshots."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from transformers import AutoTokenizer

from tests.training.conftest import PROBLEMS
from training.api import run_stage
from training.config import tiny_cpu_config
from training.sft import proof_example
from tutor.coach.fixed import FixedCoach
from tutor.prover.problem import Problem


def test_mixed_run_uses_seed_000_weights_and_both_losses(
    tiny_model_dir: Path, problems_file: Path, tmp_path: Path, rollout_factory: Any
):
    config = tiny_cpu_config(str(tiny_model_dir), str(problems_file), name="mixed")
    config.run.output_dir, config.checkpoints.registry = (
        str(tmp_path / "runs"),
        str(tmp_path / "reg"),
    )
    config.training.reinforce.algorithm = "mixed"
    config.training.reinforce.total_steps, config.training.reinforce.switch_step = 2, 0
    records: list[dict[str, Any]] = []
    result = run_stage(
        "mixed",
        config,
        callback=records.append,
        coach=FixedCoach(),
        rollout_factory=lambda m, t: rollout_factory(m, t, config.model),
    )
    assert result.steps_done == 2
    assert [r["feedback_weight"] for r in records] == [0.3, 0.6]  # progress 0 and 0.5
    for r in records:
        assert r["loss"] == pytest.approx(
            r["feedback_weight"] * r["fd_loss"] + (1 - r["feedback_weight"]) * r["grpo_loss"]
        )
        assert r["fd_kl"] >= 0 and r["trajectories"] == 2


def test_sft_example_masks_only_the_assistant_tool_call(tiny_model_dir: Path):
    tok = AutoTokenizer.from_pretrained(tiny_model_dir)
    example = proof_example(Problem.from_dict(PROBLEMS[0]), tok, max_length=4096)
    assert example is not None
    answer = str(tok.decode([t for t, m in zip(example.token_ids, example.mask, strict=True) if m]))
    assert (
        answer.lstrip().startswith("<tool_call>")
        and "lean_write_file" in answer
        and "simp" in answer
    )
    assert answer.endswith("<|im_end|>")
    assert sum(example.mask[: example.prompt_length]) == 0
    assert proof_example(Problem(id="x", statement="theorem x : True := by"), tok, 4096) is None
