"""bench/gpu_smoke.py runs end to end on its --tiny CPU shapes (the GPU run uses the same
code): every check it makes passes or says it does not apply on CPU, and the exit code
follows the checks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import torch

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_gpu_smoke_tiny_runs_every_check(tmp_path: Path):
    out = tmp_path / "smoke.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"):
        env.pop(name, None)
    done = subprocess.run(
        [sys.executable, "bench/gpu_smoke.py", "--tiny", "--out", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    lines = {line["check"]: line for line in json.loads(out.read_text())["lines"]}
    for name in (
        "FD step loss is finite and > 0",
        "FD step moved the fp32 master weights",
        "GRPO step loss is finite",
        "chunked vs full FD loss, relative difference",
        "chunked vs full gradients, cosine",
        "FSDP step + checkpoint written",
        "resumed weights equal",
        "resumed EMA teacher equal",
        "resumed AdamW moments equal",
        "next loss after resume",
    ):
        assert lines[name]["passed"] is True, lines[name]
    # On CPU the GPU-only thresholds say so instead of passing silently.
    assert lines["FD peak memory vs training.memory"]["passed"] is None
    assert "PASS" in done.stdout and "all checks passed" in done.stdout


@pytest.mark.parametrize(("passed", "code"), [(True, 0), (None, 0), (False, 1)])
def test_the_exit_code_follows_the_checks(
    passed: bool | None, code: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
):
    """One FAIL line makes the run exit 1 (a line that does not apply here does not)."""
    from bench import gpu_smoke

    def one_check(report: Any, *args: Any) -> None:
        report.check("a check", 1.0, passed, "a threshold")

    monkeypatch.setattr(gpu_smoke, "slice_steps", one_check)
    monkeypatch.setattr(gpu_smoke, "fsdp_round_trip", lambda *args: None)
    out = tmp_path / "smoke.json"
    monkeypatch.setattr(sys, "argv", ["gpu_smoke.py", "--tiny", "--out", str(out)])
    assert gpu_smoke.main() == code
    printed = capsys.readouterr().out
    assert ("gpu_smoke: FAILED" in printed) == (code == 1), printed
    [line] = [line for line in json.loads(out.read_text())["lines"] if line["check"] == "a check"]
    assert line["passed"] is passed


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the message of a host without a GPU")
def test_without_a_gpu_it_says_so_and_exits_2(monkeypatch: pytest.MonkeyPatch, capsys: Any):
    from bench import gpu_smoke

    monkeypatch.setattr(sys, "argv", ["gpu_smoke.py"])
    assert gpu_smoke.main() == 2
    assert "no CUDA device here" in capsys.readouterr().out
