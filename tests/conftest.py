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


# Where real Lean must run (the real-Lean CI job sets it), a test marked `lean` that skips
# because no real REPL, verifier or manifest was found is a failure: without it, a job whose
# install went wrong would pass green having checked nothing. Other skips (no Mathlib in the
# core-only leg, no bubblewrap) stay skips.
REQUIRE_REAL_LEAN = "LEANCOACH_REQUIRE_REAL_LEAN"
_NO_REAL_LEAN = (
    "needs a real Lean 4 REPL",
    "LEAN_REPL_CMD points at the test double",
    "no kernel verifier",
    "the self-test reads the manifest",
)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> object:
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if not (report.skipped and os.environ.get(REQUIRE_REAL_LEAN) == "1"):
        return
    if item.get_closest_marker("lean") is None:
        return
    longrepr = report.longrepr
    reason = str(longrepr[2]) if isinstance(longrepr, tuple) else str(longrepr)
    if any(text in reason for text in _NO_REAL_LEAN):
        report.outcome = "failed"
        report.longrepr = f"{REQUIRE_REAL_LEAN}=1, yet this real-Lean test skipped: {reason}"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Run the end-to-end tests last: Playwright's sync API keeps an event loop running in the
    main thread for as long as the browser lives, which would break later asyncio tests."""
    items.sort(key=lambda item: "/tests/e2e/" in str(item.path))
