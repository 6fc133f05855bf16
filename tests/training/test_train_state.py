"""True resume under FSDP: model shards, AdamW moments and the EMA teacher go through
torch.distributed.checkpoint, and a resumed 2-rank gloo run continues with the same losses
as an uninterrupted one (a toy model: the point is the state, not the architecture)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from tests.training.dist_workers import resume_matches, spawn_ranks
from training.train_state import load_train_state, save_train_state


def test_one_process_round_trip_restores_adam_moments(tmp_path: Path):
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 2)
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.1)
    model(torch.randn(3, 4)).sum().backward()
    optimizer.step()
    save_train_state(tmp_path / "s", model, optimizer)
    fresh = torch.nn.Linear(4, 2)
    fresh_opt = torch.optim.AdamW(fresh.parameters(), lr=0.1)
    load_train_state(tmp_path / "s", fresh, fresh_opt)
    torch.testing.assert_close(fresh.weight, model.weight)
    moments = fresh_opt.state[fresh.weight]["exp_avg_sq"]
    torch.testing.assert_close(moments, optimizer.state[model.weight]["exp_avg_sq"])


def test_missing_state_says_so(tmp_path: Path):
    model = torch.nn.Linear(2, 2)
    with pytest.raises(FileNotFoundError, match="cannot resume"):
        load_train_state(tmp_path / "nope", model, torch.optim.AdamW(model.parameters()))


@pytest.mark.slow
def test_two_rank_fsdp_resume_continues_with_the_same_losses(tmp_path: Path):
    spawn_ranks(resume_matches, str(tmp_path))
    losses = json.loads((tmp_path / "losses.json").read_text())
    assert losses["resumed"] == pytest.approx(losses["straight"], rel=1e-6, abs=1e-7)
    assert losses["straight"][3] != losses["straight"][2]  # it does train
