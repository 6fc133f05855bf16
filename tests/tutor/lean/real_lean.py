"""The real Lean REPL, detected once at import (before the tests' env isolation)."""

from __future__ import annotations

import pytest

from tutor.lean.detect import DetectedRepl, detect_repl

REAL_REPL: DetectedRepl = detect_repl()
_IS_FAKE = any("tests/fakes" in word for word in (REAL_REPL.command or []))

needs_real_lean = pytest.mark.skipif(
    REAL_REPL.command is None or _IS_FAKE,
    reason=(
        "needs a real Lean 4 REPL: " + REAL_REPL.reason
        if REAL_REPL.command is None
        else "LEAN_REPL_CMD points at the test double, not real Lean"
    ),
)
