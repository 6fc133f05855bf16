"""training.default_model.safetensors_base: trainers get a loadable folder for any model spec;
a GGUF (the default SmolLM2) is converted once into the registry and reused."""

from __future__ import annotations

from pathlib import Path

import pytest

from training.config import tiny_cpu_config
from training.default_model import safetensors_base
from training.session import load_model_and_tokenizer
from tutor.prover.policy.models import ModelNotFound


def test_a_model_folder_is_used_as_is(tiny_model_dir: Path, tmp_path: Path) -> None:
    assert safetensors_base(str(tiny_model_dir), tmp_path) == tiny_model_dir.resolve()
    assert not (tmp_path / "bases").exists()


@pytest.mark.slow
def test_the_smollm2_gguf_is_converted_once_and_trainers_load_it(tmp_path: Path) -> None:
    phases: list[str] = []
    try:
        first = safetensors_base("smollm2", tmp_path, on_phase=phases.append, heartbeat_s=1.0)
    except ModelNotFound as exc:
        pytest.skip(str(exc))
    # Every phase is said, with the tensor count, and the minutes of dequantising are not silent.
    assert "tensors) to safetensors: dequantising" in phases[0]
    assert any(p.endswith("s so far") for p in phases) and phases[-1].endswith(": done")
    assert first.parent == tmp_path / "bases" and (first / "config.json").is_file()
    weights = next(first.glob("*.safetensors"))
    stamp = weights.stat().st_mtime_ns
    assert safetensors_base("smollm2", tmp_path) == first  # reused, not converted again
    assert weights.stat().st_mtime_ns == stamp
    import torch

    model, tokenizer = load_model_and_tokenizer(
        tiny_cpu_config(str(first), ""), torch.device("cpu")
    )  # the check that failed with "has no config.json" on the GGUF
    assert model.config.vocab_size > 1000 and tokenizer("theorem").input_ids


def test_a_long_conversion_says_it_is_still_going() -> None:
    import time

    from training.default_model import with_heartbeat

    def slow() -> int:
        time.sleep(0.35)
        return 42

    said: list[str] = []
    result = with_heartbeat(slow, "converting", said.append, 0.1)
    assert result == 42 and len(said) >= 2 and all(s.endswith("s so far") for s in said)


def test_a_failed_conversion_raises_in_the_callers_thread() -> None:
    from training.default_model import with_heartbeat

    def broken() -> None:
        raise ValueError("bad GGUF")

    with pytest.raises(ValueError, match="bad GGUF"):
        with_heartbeat(broken, "converting", lambda text: None, 0.05)
