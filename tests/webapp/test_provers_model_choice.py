"""Which model a prover worker loads: an explicit spec, else the serving slot (so promotions
reach the workers), else the base GGUF with a note that it is untrained."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import override_settings

from webapp.provers.engine import prover_model_spec


@pytest.fixture(autouse=True)
def _no_explicit_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LEANCOACH_PROVER_MODEL", raising=False)


def test_an_explicit_model_wins(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "serving.json").write_text('{"path": "runs/x/step-000001"}')
    monkeypatch.setenv("LEANCOACH_PROVER_MODEL", "/models/goedel")
    with override_settings(CHECKPOINT_ROOT=tmp_path):
        assert prover_model_spec() == ("/models/goedel", None)


def test_the_serving_slot_is_followed(tmp_path: Path) -> None:
    (tmp_path / "serving.json").write_text('{"path": "runs/x/step-000001"}')
    with override_settings(CHECKPOINT_ROOT=tmp_path):
        assert prover_model_spec() == (str(tmp_path), None)


def test_without_a_serving_model_the_base_model_is_used_and_said(tmp_path: Path) -> None:
    with override_settings(CHECKPOINT_ROOT=tmp_path):
        spec, note = prover_model_spec()
    assert spec == "smollm2"
    # Said in plain words: what a student reads names no command or path.
    assert note is not None and "small base model" in note
    assert "prepare_prover_model" not in note and "manage.py" not in note and "/" not in note
