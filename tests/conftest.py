"""Suite-wide fixtures. Services come from the environment: `make test` sets REDIS_URL (embedded
Redis unless given) and DATABASE_URL when testing against PostgreSQL."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

import pytest

# Every "proved" is confirmed by the independent verification step (tutor/lean/kernel_check.py).
# With the REPL double standing in for Lean, its counterpart tests/fakes/fake_lean.py stands in
# for the kernel verifier (its `export` and `serve` modes); subprocesses the tests start
# inherit it.
_FAKE_LEAN = shlex.join(
    [sys.executable, str(Path(__file__).resolve().parent / "fakes" / "fake_lean.py")]
)
os.environ.setdefault("LEANCOACH_VERIFIER_CMD", _FAKE_LEAN)

# Shared fixtures (the tiny model for prover and training tests).
pytest_plugins = ["tests.support.fixtures"]


def pytest_sessionstart(session: pytest.Session) -> None:
    """The suite runs on webapp.settings.test (in-memory channel layer, fast hashing, relaxed
    rate limits): a DJANGO_SETTINGS_MODULE left in the environment would quietly win over it."""
    chosen = os.environ.get("DJANGO_SETTINGS_MODULE", "webapp.settings.test")
    if chosen != "webapp.settings.test" and not session.config.getoption("ds", None):
        raise pytest.UsageError(
            f"DJANGO_SETTINGS_MODULE={chosen} is set: the tests need webapp.settings.test "
            "(unset it, or pass --ds explicitly)"
        )


@pytest.fixture(scope="session")
def redis_url() -> str:
    url = os.environ.get("REDIS_URL")
    if not url:
        pytest.fail("REDIS_URL is not set: run the suite with `make test`, which provides Redis")
    return url


@pytest.fixture(autouse=True)
def _forget_coach_teaching_memo() -> object:
    """The coach's memo of teachers' reviews (webapp/attempts/teaching.py) is refreshed by
    signals; a test's rollback sends none, so each test starts without it."""
    yield
    teaching = sys.modules.get("webapp.attempts.teaching")
    if teaching is not None:
        teaching.forget_teaching_memo()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Run the end-to-end tests last: Playwright's sync API keeps an event loop running in the
    main thread for as long as the browser lives, which would break later asyncio tests."""
    items.sort(key=lambda item: "/tests/e2e/" in str(item.path))
