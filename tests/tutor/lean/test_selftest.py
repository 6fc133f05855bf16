"""The self-test (`make lean-check`) on real Lean: every golden case as expected. Its run on
the doubles, through the installer, is in test_installer.py."""

from __future__ import annotations

import io

import pytest

from tests.tutor.lean.real_lean import needs_real_lean
from tutor.lean import selftest

pytestmark = [pytest.mark.lean, needs_real_lean]


def test_every_golden_case_comes_out_as_expected_on_real_lean() -> None:
    out = io.StringIO()
    result = selftest.run(out=out)
    assert result["ok"], out.getvalue()
    assert selftest.last_result() == result
