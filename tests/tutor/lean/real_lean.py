"""The real Lean REPL and its kernel verifier, detected once at import (before the tests'
environment isolation points LEANCOACH_LEAN_HOME elsewhere and the suite's
LEANCOACH_VERIFIER_CMD at the double)."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tutor.lean.detect import DetectedRepl, detect_repl, lean_home, manifest_path
from tutor.lean.kernel_check import VerifyConfig, config_from_environment

REAL_REPL: DetectedRepl = detect_repl()
REAL_LEAN_HOME: Path = lean_home()
_IS_FAKE = any("tests/fakes" in word for word in (REAL_REPL.command or []))


def _manifest() -> dict[str, Any]:
    try:
        data = json.loads(manifest_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


REAL_MANIFEST: dict[str, Any] = _manifest()
_USER_VERIFIER = os.environ.get("LEANCOACH_VERIFIER_CMD")


def real_verify_config() -> VerifyConfig:
    """The installed verifier (the manifest's, or LEANCOACH_VERIFIER_CMD when the user set
    it to something other than the double), never the suite's double."""
    config = config_from_environment(REAL_MANIFEST)
    if _USER_VERIFIER and "tests/fakes" not in _USER_VERIFIER:
        return config
    command = REAL_MANIFEST.get("verifier_command")
    return replace(config, verifier_command=tuple(command) if command else None)


needs_real_lean = pytest.mark.skipif(
    REAL_REPL.command is None or _IS_FAKE,
    reason=(
        "needs a real Lean 4 REPL: " + REAL_REPL.reason
        if REAL_REPL.command is None
        else "LEAN_REPL_CMD points at the test double, not real Lean"
    ),
)
