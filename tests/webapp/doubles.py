"""Wiring the web app's checking boundary to the Lean REPL protocol double (a real
subprocess, tests/fakes/fake_repl.py) and the real compiler coach."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tutor.lean import LeanChecker, LeanUnavailable
from webapp.attempts import checking

FAKE_REPL = Path(__file__).resolve().parents[1] / "fakes" / "fake_repl.py"


@pytest.fixture
def fake_lean(monkeypatch: pytest.MonkeyPatch) -> Iterator[LeanChecker]:
    """The checker the task uses, on the fake REPL. The coach is the product's default
    (make_coach with LEANCOACH_COACH_SOURCE unset: the compiler rules, no model), with hint
    verification off: the double has no tactic table here, so it would reject every step
    (tests/webapp/test_coach_teaching.py checks the verified path with a table)."""
    monkeypatch.delenv("LEANCOACH_COACH_SOURCE", raising=False)
    monkeypatch.setenv("LEANCOACH_VERIFY_HINTS", "0")
    checker = LeanChecker(
        [sys.executable, str(FAKE_REPL)],
        timeout_s=10.0,
        memory_mb=None,
        max_processes=1,
        acquire_timeout_s=10.0,
        header_timeout_s=10.0,
        sandbox=False,
    )
    monkeypatch.setattr(checking, "checker_factory", lambda: checker)
    yield checker
    checker.close()


class _NoLean:
    def check_proof(self, statement: str, proof: str, header: str = "") -> Any:
        raise LeanUnavailable("no Lean REPL on this machine (tests)")

    def explore_proof(self, statement: str, proof: str, header: str = "", **_: Any) -> Any:
        raise LeanUnavailable("no Lean REPL on this machine (tests)")


@pytest.fixture
def no_lean(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine without Lean: the checker raises LeanUnavailable, as get_checker's does."""
    monkeypatch.setattr(checking, "checker_factory", _NoLean)
