"""Under FSDP the losses take the same memory-bounded path as on one process: final hidden
states at the response positions and the output head applied chunk by chunk inside the
sharded model's registered forward method (training.batches.reduce_response_rows), not the
full [B, L, V] logits. Two gloo ranks (FSDP2 fully_shard on CPU) against one process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from tests.training.dist_workers import fsdp_losses, spawn_ranks


@pytest.mark.slow
def test_fsdp_losses_and_gradients_equal_one_process_on_the_chunked_path(
    tiny_model_dir: Path, tmp_path: Path
) -> None:
    fsdp_losses(0, 1, 0, str(tiny_model_dir), str(tmp_path))
    spawn_ranks(fsdp_losses, str(tiny_model_dir), str(tmp_path))
    one = json.loads((tmp_path / "losses-1.json").read_text())
    two = json.loads((tmp_path / "losses-2.json").read_text())
    # Both runs saw hidden-state rows [N, H], never logits [N, V]: the chunked path.
    assert set(one["widths"]) == set(two["widths"]) == {one["hidden_size"]}
    assert len(two["widths"]) == 4  # every trajectory, split over the ranks
    assert one["fd"].keys() == two["fd"].keys() == {"0", "1", "2", "3"}
    assert all(v > 1e-4 for v in one["fd"].values()), "teacher and student must differ"
    # Tolerance: fp32 on CPU; sharded all-gathers reorder no sums in the forward, so the
    # losses agree to rounding (1e-5 relative); gradients pass a reduce-scatter (1e-4).
    for key in one["fd"]:
        assert two["fd"][key] == pytest.approx(one["fd"][key], rel=1e-5, abs=1e-7)
        assert two["logprob"][key] == pytest.approx(one["logprob"][key], rel=1e-5)
    g1 = torch.load(tmp_path / "grads-1.pt")
    g2 = torch.load(tmp_path / "grads-2.pt")
    assert any(g is not None and g.abs().max() > 0 for g in g1.values())
    for name, grad in g1.items():
        if grad is None:
            assert g2[name] is None, name
            continue
        torch.testing.assert_close(g2[name], grad, rtol=1e-4, atol=1e-7, msg=name)
