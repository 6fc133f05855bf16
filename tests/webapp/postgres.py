"""A PostgreSQL database of the test's own (created, then dropped), for the tests that need
a real server: the restart fault test and the web's connection bound. Skips, saying why,
where PostgreSQL is not reachable."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from typing import Any

import pytest


def _server_url() -> str:
    """The PostgreSQL server to use: LEANCOACH_FAULT_PG_URL, else DATABASE_URL when it is a
    PostgreSQL one, else the local default; the database part is replaced by the test's own."""
    url = os.environ.get("LEANCOACH_FAULT_PG_URL") or os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        url = "postgres://postgres@127.0.0.1:5432/postgres"
    return url.rsplit("/", 1)[0]


def _admin(server: str) -> Any:
    psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed")
    try:
        return psycopg.connect(f"{server}/postgres", autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as exc:
        pytest.skip(f"PostgreSQL is not reachable at {server} ({exc})")


@pytest.fixture
def pg_database() -> Iterator[tuple[str, Any]]:
    server = _server_url()
    admin = _admin(server)
    name = f"leancoach_test_{secrets.token_hex(4)}"
    admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"{server}/{name}", (admin, name)
    finally:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()
