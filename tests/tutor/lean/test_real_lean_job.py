"""The real-Lean CI job (.github/workflows/real-lean.yml) and the tests it runs, read as text:
what would make that job fail for a reason that is not Lean's.

Nothing here runs Lean; the job itself is the first run (docs/LEAN.md, "Installing Lean").
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tutor.lean.real_lean import REAL_REPL

ROOT = Path(__file__).resolve().parents[3]
WORKFLOW = ROOT / ".github" / "workflows" / "real-lean.yml"


def _marked_test_files() -> list[Path]:
    files = [*ROOT.glob("tests/tutor/lean/*.py"), *ROOT.glob("tests/security/*.py")]
    return [f for f in files if "mark.lean" in f.read_text(encoding="utf-8")]


def test_every_real_checker_sees_the_toolchain_inside_the_sandbox() -> None:
    # Under bubblewrap (the job installs it) a process sees only the folders it is given:
    # a checker built on the detected REPL without its `sandbox_paths` (the toolchain and
    # the Lean home, from the manifest) runs a REPL that cannot read Init's .olean files, so
    # every check fails before Lean says anything about the test's input.
    offenders = []
    for path in _marked_test_files():
        text = path.read_text(encoding="utf-8")
        for call in re.finditer(r"LeanChecker\(\s*REAL_REPL\.command(?P<args>[^)]*)\)", text):
            if "sandbox_paths=REAL_REPL.sandbox_paths" not in call.group("args"):
                line = text.count("\n", 0, call.start()) + 1
                offenders.append(f"{path.relative_to(ROOT)}:{line}")
    assert offenders == []


def test_the_job_installs_lean_before_it_runs_the_marked_tests() -> None:
    text = WORKFLOW.read_text(encoding="utf-8")
    steps = [m.group(1).strip() for m in re.finditer(r"^\s+run:\s*(.+)$", text, re.MULTILINE)]
    install = next(i for i, s in enumerate(steps) if s.startswith("make install"))
    lean = steps.index("make lean")
    tests = next(i for i, s in enumerate(steps) if "-m lean" in s)
    assert install < lean < tests
    assert 'PYTEST_ARGS="-m lean tests/tutor/lean tests/security' in steps[tests]
    # The manifest the tests detect lives where `make lean` wrote it.
    assert "LEANCOACH_LEAN_HOME:" in text and "ELAN_HOME:" in text


def test_what_the_job_names_exists() -> None:
    text = WORKFLOW.read_text(encoding="utf-8")
    for script in re.findall(r"\.venv/bin/python (\S+\.py)", text):
        assert (ROOT / script).is_file(), script
    for pattern in re.findall(r"'([^']+)'", text.split("hashFiles(", 1)[1].split(")", 1)[0]):
        assert list(ROOT.glob(pattern)), pattern
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for target in ("install", "lean", "test"):
        assert re.search(rf"^{target}:", makefile, re.MULTILINE), target


def test_the_job_fails_when_its_real_lean_tests_would_skip() -> None:
    text = WORKFLOW.read_text(encoding="utf-8")
    step = text[text.index("- name: Tests marked for real Lean") :].split("\n      - name:")[0]
    assert re.search(r'LEANCOACH_REQUIRE_REAL_LEAN:\s*"1"', step), step


@pytest.mark.skipif(REAL_REPL.command is not None, reason="a Lean REPL is installed here")
def test_a_required_real_lean_test_that_finds_no_lean_fails(tmp_path: Path) -> None:
    """Run a marked test file with no Lean to be found: a skip by default, a failure under
    LEANCOACH_REQUIRE_REAL_LEAN=1 (tests/conftest.py)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"LEAN_REPL_CMD", "LEANCOACH_REQUIRE_REAL_LEAN", "DJANGO_SETTINGS_MODULE"}
    }
    env["LEANCOACH_LEAN_HOME"] = str(tmp_path)  # no manifest there
    command = [sys.executable, "-m", "pytest", "-m", "lean", "-q", "-p", "no:cacheprovider",
               "tests/tutor/lean/test_selftest.py"]  # fmt: skip

    def run(**extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            command, cwd=ROOT, env={**env, **extra}, capture_output=True, text=True, timeout=240
        )

    plain = run()
    assert plain.returncode == 0 and "1 skipped" in plain.stdout, plain.stdout[-2000:]
    required = run(LEANCOACH_REQUIRE_REAL_LEAN="1")
    assert required.returncode == 1, required.stdout[-2000:]
    assert "LEANCOACH_REQUIRE_REAL_LEAN=1, yet this real-Lean test skipped" in required.stdout
