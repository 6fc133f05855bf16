from __future__ import annotations

import ast
import re
from pathlib import Path
from unittest import mock

import pytest

from webapp.celery import QUEUES, enqueue
from webapp.celery import app as celery_app


@pytest.mark.parametrize("queue", QUEUES)
def test_tasks_are_routed_by_their_queue_prefix(queue: str) -> None:
    route = celery_app.amqp.router.route({}, f"{queue}.some_task")
    assert route["queue"].name == queue


def test_unprefixed_tasks_go_to_the_lean_queue() -> None:
    route = celery_app.amqp.router.route({}, "webapp.other.task")
    assert route["queue"].name == "lean"


def test_tasks_really_go_through_the_broker() -> None:
    # Eager mode would hide serialization and routing bugs: it is never the default.
    assert celery_app.conf.task_always_eager is False


@pytest.mark.parametrize("queue", QUEUES)
def test_each_queue_has_its_own_exchange_and_key(queue: str) -> None:
    # A task published for one queue must not be delivered to the others.
    declared = {q.name: q for q in celery_app.conf.task_queues}
    assert declared[queue].exchange.name == queue
    assert declared[queue].routing_key == queue
    route = celery_app.amqp.router.route({}, f"{queue}.some_task")
    assert route["queue"].routing_key == queue


ROOT = Path(__file__).resolve().parents[2]
QUEUED_BY_NAME = re.compile(r"""\benqueue\(\s*["']([\w.]+)["']""")


def _names_queued_in_the_code() -> set[str]:
    return {
        name
        for path in (ROOT / "webapp").rglob("*.py")
        for name in QUEUED_BY_NAME.findall(path.read_text())
    }


def test_every_task_queued_by_name_is_a_registered_task() -> None:
    """Writes queue tasks by name (webapp.celery.enqueue): a misspelt name would only show
    as an unknown-task error in a worker's log."""
    celery_app.loader.import_default_modules()  # what a worker imports at its start
    names = _names_queued_in_the_code()
    assert {"lean.check_attempt", "prover.run_prover", "train.run_training"} <= names
    assert names <= set(celery_app.tasks), names - set(celery_app.tasks)


def test_enqueue_sends_by_name_without_waiting_for_a_result() -> None:
    with mock.patch.object(celery_app, "send_task") as send:
        enqueue("lean.check_attempt", 7)
    send.assert_called_once_with("lean.check_attempt", args=(7,), ignore_result=True)


def test_actions_and_tasks_do_not_import_each_other() -> None:
    """No module of the web app imports, even inside a function, a module that imports it
    back through any chain (they were 14 in one cycle)."""
    graph: dict[str, set[str]] = {}
    modules = {
        ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): path
        for path in (ROOT / "webapp").rglob("*.py")
        if not {"migrations", "settings"} & set(path.parts)
    }
    for name, path in modules.items():
        imported: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                imported |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
            elif isinstance(node, ast.Import):
                imported |= {a.name for a in node.names}
        graph[name] = {other for other in imported if other in modules and other != name}
    for start in graph:
        seen: set[str] = set()
        todo = list(graph[start])
        while todo:
            current = todo.pop()
            assert current != start, f"{start} imports itself back through {sorted(seen)}"
            if current not in seen:
                seen.add(current)
                todo.extend(graph[current])
