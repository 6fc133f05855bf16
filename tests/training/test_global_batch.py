"""Global batch semantics: fd.batch_size, grpo.problems_per_step and
training.pretrain.batch_size are per step in all, split over the ranks. One process and two
gloo ranks (FSDP, as under torchrun) take the same step: the same number of trajectories,
the same gradient and the same logged loss."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from tests.training.dist_workers import one_step_gradient, spawn_ranks
from training import distributed

PROBLEMS = [
    {
        "name": f"p{i}",
        "formal_statement": f"theorem p{i} (n : Nat) : n + {i} = {i} + n := by",
        "header": "",
        "reference_proof": "omega" if i != 3 else None,
    }
    for i in range(4)
]


def test_per_rank_divides_the_global_batch_or_says_how_to_fix_it():
    assert distributed.per_rank(128, "fd.batch_size", world=8) == 16
    assert distributed.per_rank(64, "grpo.problems_per_step", world=8) == 8
    with pytest.raises(ValueError, match=r"fd.batch_size = 100 .* 8 ranks.*104"):
        distributed.per_rank(100, "fd.batch_size", world=8)


@pytest.mark.slow
@pytest.mark.parametrize("stage", ["fd", "grpo", "sft"])
def test_one_and_two_ranks_take_the_same_step(
    stage: str, tiny_model_dir: Path, tmp_path: Path
) -> None:
    problems = tmp_path / "problems.jsonl"
    problems.write_text("".join(json.dumps(p) + "\n" for p in PROBLEMS))
    args = (str(tiny_model_dir), str(problems), str(tmp_path), stage)
    one_step_gradient(0, 1, 0, *args)
    spawn_ranks(one_step_gradient, *args)
    one = torch.load(tmp_path / f"delta-{stage}-1.pt")
    two = torch.load(tmp_path / f"delta-{stage}-2.pt")
    m1 = json.loads((tmp_path / f"metrics-{stage}-1.json").read_text())
    m2 = json.loads((tmp_path / f"metrics-{stage}-2.json").read_text())
    # The global batch, not that many per rank (SFT: the 3 problems with a reference proof,
    # training.pretrain.batch_size being the batch of a step in all).
    n = {"fd": 4, "grpo": 8, "sft": 3}[stage]
    assert m1["trajectories"] == m2["trajectories"] == n
    if stage != "sft":
        assert m1["batch_per_rank"] == n and m2["batch_per_rank"] == n // 2
    assert m1["tokens"] == m2["tokens"]
    # The logged loss is the optimised one: the token mean over both ranks' tokens (the ranks
    # hold different numbers of tokens here), not a mean of the two ranks' means.
    assert m2["loss"] == pytest.approx(m1["loss"], rel=1e-5)
    assert any(d.abs().max() > 0 for d in one.values()), "the step must move the weights"
    for name in one:
        torch.testing.assert_close(two[name], one[name], rtol=1e-4, atol=1e-7, msg=name)
