"""Fixtures for the prover tests: the Lean REPL protocol double (tests/fakes/fake_repl.py)
run as a real subprocess behind the real LeanChecker, and the tiny model."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.fixtures import tiny_model_dir  # noqa: F401  (re-exported fixture)
from tutor.lean import LeanChecker, LeanConfig

FAKE_REPL = Path(__file__).resolve().parents[2] / "fakes" / "fake_repl.py"


@pytest.fixture(autouse=True)
def no_real_lean(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test picks up a developer's Lean install, serving slot or production flags."""
    for name in (
        "LEAN_REPL_CMD",
        "LEANCOACH_REQUIRE_SANDBOX",
        "LEANCOACH_SERVING_CHECKPOINT",
        "LEANCOACH_PROVER_MODEL",
        "LEANCOACH_PROVER_BACKEND",
        "FAKE_REPL_TACTICS",
    ):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def make_checker(tmp_path: Path) -> Iterator[Callable[..., LeanChecker]]:
    """LeanChecker on the fake REPL; `tactics` becomes its FAKE_REPL_TACTICS table."""
    made: list[LeanChecker] = []

    def build(tactics: list[dict[str, Any]] | None = None, **overrides: Any) -> LeanChecker:
        command = [sys.executable, str(FAKE_REPL)]
        if tactics is not None:
            table = tmp_path / f"tactics{len(made)}.json"
            table.write_text(json.dumps(tactics, ensure_ascii=False))
            # The checker passes the REPL only a few environment variables: set it via env(1).
            command = ["env", f"FAKE_REPL_TACTICS={table}", *command]
        options: dict[str, Any] = {
            "timeout_s": 5.0,
            # The product's default: the REPL double, like Lean, cannot import Mathlib under
            # less (tests/fakes/lean_rules.py).
            "memory_mb": LeanConfig().memory_mb,
            "max_processes": 2,
            "acquire_timeout_s": 5.0,
            "header_timeout_s": 10.0,
            "sandbox": False,
            "require_sandbox": False,
        }
        options.update(overrides)
        checker = LeanChecker(command, **options)
        made.append(checker)
        return checker

    yield build
    for checker in made:
        checker.close()


@pytest.fixture(scope="session")
def tiny_policy(tiny_model_dir: Path) -> Any:  # noqa: F811
    import torch

    from tutor.prover.policy.hf import HFPolicy

    torch.set_num_threads(1)
    return HFPolicy.load(tiny_model_dir)
