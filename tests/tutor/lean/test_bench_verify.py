"""bench/bench_verify.py runs and prints every figure docs/LEAN.md ("Cost") says it prints:
on the doubles here, so the `--real --header "import Mathlib"` run the real-Lean CI job
makes is the same code path with another checker, and it says plainly when Lean is absent."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tutor.lean.real_lean import REAL_REPL

ROOT = Path(__file__).resolve().parents[3]
BENCH = ROOT / "bench" / "bench_verify.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(BENCH), *args], cwd=ROOT, capture_output=True, text=True, timeout=240
    )


def test_on_the_doubles_it_prints_every_figure() -> None:
    done = _run("-n", "1", "--gap", "0", "--header", "")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    lines = done.stdout.splitlines()
    for label in (
        "unverified check (baseline)",
        "verified check, 0 s apart",
        "verified check, back to back",
        "of which: the pickle",
        "the export step",
        "the verifier's answer",
        "budget (verified <= 1.5 x unverified on a warm pool):",
        "cold start, first check of a fresh pool",
        "cold start, the verifier's import",
        "peak memory: REPL",
    ):
        line = next((line for line in lines if label in line), None)
        assert line is not None, f"{label!r} not printed:\n{done.stdout}"
        if "peak memory" not in label and "budget" not in label:
            assert any(unit in line for unit in (" ms ", " s ")), line
    peak = next(line for line in lines if line.startswith("peak memory"))
    # Each process's peak (REPL, verifier, export step) is a measured figure, not a placeholder.
    figures = [float(x) for x in re.findall(r"(\d+(?:\.\d+)?) MB", peak)]
    assert len(figures) == 3 and all(f > 0 for f in figures), peak


@pytest.mark.skipif(REAL_REPL.command is not None, reason="a Lean REPL is installed here")
def test_real_without_lean_says_so_and_fails() -> None:
    done = _run("--real", "--header", "import Mathlib", "-n", "1")
    assert done.returncode == 1
    assert done.stdout.startswith("Lean or its verifier is unavailable:"), done.stdout
    assert "make lean" in done.stdout
