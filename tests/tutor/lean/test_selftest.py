"""The self-test (`make lean-check`) on real Lean: every golden case as expected. Its run on
the doubles, through the installer, is in test_installer.py."""

from __future__ import annotations

import io

import pytest

from tests.tutor.lean.real_lean import REAL_LEAN_HOME, REAL_REPL, needs_real_lean
from tutor.lean import selftest

pytestmark = [pytest.mark.lean, needs_real_lean]


def test_every_golden_case_comes_out_as_expected_on_real_lean(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if REAL_REPL.source != "installer":
        pytest.skip("the self-test reads the manifest `make lean` writes")
    # As `make lean-check` runs it: the installed manifest, not the suite's doubles.
    monkeypatch.setenv("LEANCOACH_LEAN_HOME", str(REAL_LEAN_HOME))
    monkeypatch.delenv("LEANCOACH_VERIFIER_CMD", raising=False)
    out = io.StringIO()
    result = selftest.run(out=out)
    assert result["ok"], out.getvalue()
    assert selftest.last_result() == result
