"""Fixtures for the Lean checker tests: every check here runs the protocol double
tests/fakes/fake_repl.py as a real subprocess."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.tutor.lean.real_lean import REAL_REPL, real_verify_config
from tutor.lean import LeanChecker, LeanConfig

FAKE_REPL = Path(__file__).resolve().parents[2] / "fakes" / "fake_repl.py"
FAKE_COMMAND = [sys.executable, str(FAKE_REPL)]


@pytest.fixture(autouse=True)
def isolated_lean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test sees the developer's real Lean install or production flags."""
    for name in (
        "LEAN_REPL_CMD",
        "LEAN_REPL_CWD",
        "LEANCOACH_REQUIRE_SANDBOX",
        "LEANCOACH_SECCOMP",
        "LEANCOACH_CGROUP_ROOT",
        "LEANCOACH_LIBRARY_SRC",
        "LEANCOACH_BWRAP",
        "LEANCOACH_SANDBOX_PATHS",
        "FAKE_REPL_WORDING",
        "FAKE_REPL_TACTICS",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LEANCOACH_LEAN_HOME", str(tmp_path / "lean-home"))


@pytest.fixture
def make_checker() -> Iterator[Callable[..., LeanChecker]]:
    """Build checkers on the fake REPL (unsandboxed unless asked); all closed afterwards."""
    made: list[LeanChecker] = []

    def build(**overrides: Any) -> LeanChecker:
        options: dict[str, Any] = {
            "timeout_s": 5.0,
            # The product's default: the double enforces what `import Mathlib` needs under it
            # (tests/fakes/lean_rules.py); a test of the memory cap passes its own.
            "memory_mb": LeanConfig().memory_mb,
            "max_processes": 2,
            "acquire_timeout_s": 5.0,
            "header_timeout_s": 10.0,
            "sandbox": False,
        }
        # The doubles read their switches (wording, tactic table, memory, ...) from FAKE_*
        # variables; the checker passes the REPL only what it is given explicitly.
        fake_env = {k: v for k, v in os.environ.items() if k.startswith("FAKE_")}
        options["extra_env"] = fake_env
        options.update(overrides)
        checker = LeanChecker(list(FAKE_COMMAND), **options)
        made.append(checker)
        return checker

    yield build
    for checker in made:
        checker.close()


@pytest.fixture
def checker(make_checker: Callable[..., LeanChecker]) -> LeanChecker:
    return make_checker()


def info_of(result: Any, prefix: str) -> str:
    """The first info message starting with prefix (the fake's `stats`/`environ` output)."""
    for diagnostic in result.diagnostics:
        if diagnostic.severity == "info" and diagnostic.message.startswith(prefix):
            return str(diagnostic.message)
    raise AssertionError(f"no info message starting with {prefix!r} in {result.diagnostics}")


def stats_of(result: Any) -> dict[str, int]:
    text = info_of(result, "pid=")
    return {key: int(value) for key, value in (part.split("=") for part in text.split())}


@pytest.fixture(scope="module")
def real_checker() -> Iterator[LeanChecker]:
    """One checker on the real Lean REPL per test module (tests marked `lean`)."""
    checker = LeanChecker(
        REAL_REPL.command,
        cwd=REAL_REPL.cwd,
        sandbox_paths=REAL_REPL.sandbox_paths,
        timeout_s=120,
        max_processes=1,
        verify=real_verify_config(),
    )
    yield checker
    checker.close()
