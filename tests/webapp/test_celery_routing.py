from __future__ import annotations

import pytest

from webapp.celery import QUEUES
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
