"""A `lean` worker's pool process starts its REPL, with the header most exercises use, as
it starts (webapp.core.warmup, webapp.attempts.tasks.prestart_lean): the first check after a
(re)start does not wait for Lean to start and import Mathlib. Other workers start none."""

from __future__ import annotations

import logging
from types import SimpleNamespace
from typing import Any

import pytest

from tests.webapp.cast import Cast
from webapp import celery as worker_app
from webapp.attempts import checking
from webapp.core import warmup
from webapp.courses.models import Exercise

pytestmark = pytest.mark.django_db(transaction=True)

MATHLIB = "import Mathlib\nimport Aesop\nset_option maxHeartbeats 400000\n"


class Recorder:
    def __init__(self) -> None:
        self.headers: list[str] = []

    def prestart(self, header: str = "") -> bool:
        self.headers.append(header)
        return True


def _worker_consuming(*queues: str) -> None:
    queue_set = SimpleNamespace(consume_from={name: object() for name in queues})
    instance = SimpleNamespace(app=SimpleNamespace(amqp=SimpleNamespace(queues=queue_set)))
    worker_app._remember_queues(sender="w@host", instance=instance)


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    made = Recorder()
    monkeypatch.setattr(checking, "checker_factory", lambda: made)
    monkeypatch.setattr(worker_app, "_consumed_queues", frozenset())
    return made


def test_a_lean_worker_starts_the_repl_with_the_most_used_header(
    cast: Cast, recorder: Recorder
) -> None:
    world = cast.exercise.world
    for i in range(2):
        Exercise.objects.create(world=world, order=10 + i, name=f"m{i}", header=MATHLIB,
                                formal_statement=f"theorem m{i} : True := by")  # fmt: skip
    _worker_consuming("lean", "prover", "train")  # make run's one worker
    thread: Any = warmup.prestart_lean_in_pool()
    assert thread is not None
    thread.join(timeout=10)
    assert recorder.headers == [MATHLIB]


def test_no_exercise_means_the_empty_header(recorder: Recorder) -> None:
    _worker_consuming("lean")
    thread: Any = warmup.prestart_lean_in_pool()
    thread.join(timeout=10)
    assert recorder.headers == [""]


def test_other_workers_start_no_repl(recorder: Recorder) -> None:
    _worker_consuming("prover", "train")
    assert warmup.prestart_lean_in_pool() is None
    assert recorder.headers == []


def test_without_lean_it_says_no_and_starts_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    from tutor.lean import LeanChecker

    missing = LeanChecker(["/nonexistent/repl"], sandbox=False)
    monkeypatch.setattr(checking, "checker_factory", lambda: missing)
    assert checking.prestart(MATHLIB) is False
    assert missing.pool.stats.spawned == 0


def test_unreadable_exercises_start_nothing_and_say_why(
    recorder: Recorder, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A worker that comes up before the migrations ran: a warning, no traceback, no REPL."""
    from django.db import OperationalError

    from webapp.attempts import tasks

    # Its own level: an embedded Celery worker started by an earlier test (test_healthz.py)
    # leaves the root logger at ERROR, which would drop the warning before caplog sees it.
    caplog.set_level(logging.WARNING, logger=tasks.log.name)

    def unreadable() -> str:
        raise OperationalError("no such table: courses_exercise")

    monkeypatch.setattr(tasks, "_most_used_header", unreadable)
    assert tasks.prestart_lean() is False
    assert recorder.headers == []
    assert "exercises unreadable" in caplog.text and "no such table" in caplog.text
