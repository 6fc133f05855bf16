"""Fixtures for the web app's tests: the named cast (tests/webapp/cast.py) and the Lean
checker wired to the REPL protocol double or to "no Lean here" (tests/webapp/doubles.py), and
a PostgreSQL database of the test's own (tests/webapp/postgres.py)."""

from __future__ import annotations

from tests.webapp.cast import cast
from tests.webapp.doubles import fake_lean, no_lean
from tests.webapp.postgres import pg_database

__all__ = ["cast", "fake_lean", "no_lean", "pg_database"]
