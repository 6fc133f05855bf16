"""Fixtures for the web app's tests: the named cast (tests/webapp/cast.py) and the Lean
checker wired to the REPL protocol double or to "no Lean here" (tests/webapp/doubles.py)."""

from __future__ import annotations

from tests.webapp.cast import cast
from tests.webapp.doubles import fake_lean, no_lean

__all__ = ["cast", "fake_lean", "no_lean"]
