"""The checkpoint registry: metadata, retention, best-by-evaluation, blue/green serving."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file
from transformers import AutoModelForCausalLM

from training.checkpoints import CheckpointRegistry
from tutor.prover.policy.models import resolve_model_source


@pytest.fixture(scope="module")
def tiny(tiny_model_dir: Path):
    return AutoModelForCausalLM.from_pretrained(tiny_model_dir)


def _save(reg: CheckpointRegistry, model, step: int, loss: float = 1.0):
    return reg.save(
        "r",
        step,
        model,
        stage="fd",
        config={"fd": {"top_k": 25}},
        metrics={"loss": loss},
        data_snapshot={"train": "x.jsonl"},
    )


def test_save_writes_safetensors_and_readable_metadata(tmp_path: Path, tiny):
    reg = CheckpointRegistry(tmp_path)
    info = _save(reg, tiny, 5)
    assert info.path == tmp_path / "runs" / "r" / "step-000005"
    weights = load_file(str(info.path / "model.safetensors"))
    assert torch.equal(weights["model.embed_tokens.weight"], tiny.model.embed_tokens.weight)
    meta = json.loads((info.path / "meta.json").read_text())
    assert (
        meta["step"] == 5 and meta["config"]["fd"]["top_k"] == 25 and meta["metrics"]["loss"] == 1.0
    )
    assert meta["data_snapshot"] == {"train": "x.jsonl"} and meta["stable"] is True
    assert not list(info.path.parent.glob("*.tmp"))


def test_retention_keeps_last_three_stable_plus_best_and_serving(tmp_path: Path, tiny):
    reg = CheckpointRegistry(tmp_path)
    infos = [_save(reg, tiny, s, loss=float("nan") if s == 6 else 1.0) for s in (1, 2, 3, 4, 5, 6)]
    assert reg.record_eval(infos[0].path, {"pass@1": 0.9}, "pass@1")  # step 1 is the best
    assert not reg.record_eval(infos[3].path, {"pass@1": 0.5}, "pass@1")
    assert reg.promote(infos[1].path).ok  # step 2 serves
    removed = reg.apply_retention("r", keep_last=3)
    kept = [i.step for i in reg.list("r")]
    # Stable ones: 1..5 (6 has a NaN metric). Last three stable: 3, 4, 5; plus best 1 and serving 2.
    assert kept == [1, 2, 3, 4, 5]
    assert [p.name for p in removed] == ["step-000006"]
    latest = reg.latest("r")
    assert latest is not None and latest.step == 5


def test_best_by_evaluation_not_last(tmp_path: Path, tiny):
    reg = CheckpointRegistry(tmp_path)
    a, b, c = (_save(reg, tiny, s) for s in (10, 20, 30))
    reg.record_eval(a.path, {"pass@1": 0.4}, "pass@1")
    reg.record_eval(b.path, {"pass@1": 0.7}, "pass@1")
    reg.record_eval(c.path, {"pass@1": 0.2}, "pass@1")  # late collapse
    assert reg.best("r") == (b.path, 0.7)


def test_promote_and_rollback_blue_green(tmp_path: Path, tiny):
    reg = CheckpointRegistry(tmp_path)
    a, b = _save(reg, tiny, 1), _save(reg, tiny, 2)
    assert reg.promote(a.path).ok
    state = reg.promote(b.path).serving
    assert state is not None
    assert (
        state.path == "runs/r/step-000002"
        and state.previous == "runs/r/step-000001"
        and state.version == 2
    )
    # The prover reads serving.json itself ({"path": ...} relative to the file).
    assert resolve_model_source(tmp_path / "serving.json").directory == str(b.path.resolve())
    back = reg.rollback("bad outputs")
    assert back.serving is not None
    assert (
        back.ok
        and back.serving.path == "runs/r/step-000001"
        and back.serving.previous == "runs/r/step-000002"
    )
    assert (
        json.loads((tmp_path / "serving.json").read_text())["history"][-1]["action"] == "rollback"
    )


def test_promote_refuses_unstable_and_incomplete(tmp_path: Path, tiny):
    reg = CheckpointRegistry(tmp_path)
    bad = _save(reg, tiny, 1, loss=float("inf"))
    assert not reg.promote(bad.path).ok
    assert not reg.promote(tmp_path / "nowhere").ok
    assert not reg.rollback().ok
    assert reg.serving() is None
