"""Suite-wide fixtures. Services come from the environment: `make test` sets REDIS_URL (embedded
Redis unless given) and DATABASE_URL when testing against PostgreSQL."""

from __future__ import annotations

import os

import pytest

# Shared fixtures (the tiny model for prover and training tests).
pytest_plugins = ["tests.support.fixtures"]


@pytest.fixture(scope="session")
def redis_url() -> str:
    url = os.environ.get("REDIS_URL")
    if not url:
        pytest.fail("REDIS_URL is not set: run the suite with `make test`, which provides Redis")
    return url


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Run the end-to-end tests last: Playwright's sync API keeps an event loop running in the
    main thread for as long as the browser lives, which would break later asyncio tests."""
    items.sort(key=lambda item: "/tests/e2e/" in str(item.path))
