"""bench/gpu_smoke.py runs end to end on its --tiny CPU config (the GPU run uses the same code)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_gpu_smoke_tiny_runs_and_reports(tmp_path: Path):
    out = tmp_path / "smoke.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, "bench/gpu_smoke.py", "--tiny", "--out", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(out.read_text())
    assert result["precision"]["fp32_master_changed"] == 1.0
    assert result["precision"]["bf16_weights_changed"] < 0.1
    assert result["fd_reference_vs_chunked"]["abs_diff"] < 1e-6
    assert result["generate"]["tokens"] > 0
