"""A Celery worker keeps its database connection from one task to the next, as a web request
thread does, and still drops one that is too old (webapp/celery.py; CELERY_DB_REUSE_MAX in
the settings turns off the Django fixup's closing of every connection around every task)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from celery.fixups.django import DjangoWorkerFixup  # type: ignore[attr-defined]
from celery.signals import task_postrun, task_prerun
from django.db import connection

from webapp.celery import app as celery_app

pytestmark = pytest.mark.django_db(transaction=True)


def _needs_closable_connections() -> None:
    """Django never closes an in-memory SQLite database (the embedded test run's): these
    checks need one whose connections close (file SQLite, PostgreSQL in CI)."""
    if connection.vendor == "sqlite" and connection.is_in_memory_db():  # type: ignore[attr-defined]
        pytest.skip("the test database is in-memory SQLite, whose connection Django never closes")


def _run_task_edges(fixup: DjangoWorkerFixup, task: Any) -> None:
    """What a worker process does around a task: the fixup's hooks and the signals."""
    fixup.on_task_prerun(sender=task)
    task_prerun.send(sender=task, task_id="t", task=task, args=(), kwargs={})
    task_postrun.send(sender=task, task_id="t", task=task, args=(), kwargs={}, retval=None)
    fixup.on_task_postrun(sender=task)


@pytest.fixture
def task() -> Any:
    from webapp.attempts.tasks import check_attempt

    return check_attempt


def test_a_task_keeps_the_connection_of_the_last(
    task: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _needs_closable_connections()
    monkeypatch.setitem(connection.settings_dict, "CONN_MAX_AGE", 60)
    connection.close()
    connection.ensure_connection()
    connection.close_at = time.monotonic() + 60
    before = connection.connection
    for _ in range(3):
        _run_task_edges(DjangoWorkerFixup(celery_app), task)
        connection.ensure_connection()
    assert connection.connection is before


def test_a_connection_past_its_age_is_closed_at_the_tasks_edge(task: Any) -> None:
    _needs_closable_connections()
    connection.ensure_connection()
    connection.close_at = time.monotonic() - 1  # CONN_MAX_AGE has passed
    _run_task_edges(DjangoWorkerFixup(celery_app), task)
    assert connection.connection is None


def test_the_fixups_own_closing_is_off() -> None:
    assert DjangoWorkerFixup(celery_app).db_reuse_max >= 10**9
