"""The Celery app. Three queues, one per kind of work, so each can get its own hosts:

- `lean`   Lean checking + coach feedback (CPU hosts with sandboxed REPL pools)
- `prover` prover runs on the policy model (GPU hosts in production)
- `train`  training runs and continual distillation (GPU nodes)

Tasks are named "<queue>.<what>" and routed by that prefix; anything else goes to `lean`.
A fourth queue, `sweep`, takes the periodic sweeper alone where settings.SWEEP_QUEUE says
so (`make run`), for a worker that consumes nothing else.

A worker consuming `lean` (or `prover`) re-queues, each time its consumer (re)connects to the
broker, the checks (or prover runs) cut off mid-run: marked started but run by no live worker
(webapp.attempts.sweeper.sweep_cut_off). A worker killed with its pool, or a stack restarted
after a crash, has them checked again within seconds of coming back, not after the
sweeper's deadline.

Writes queue them by name (`enqueue`), so the modules that queue work (actions) and the ones
that do it (tasks) never import each other. This module imports none of the apps' modules.
"""

from __future__ import annotations

import os
from typing import Any

from celery import Celery
from celery.signals import celeryd_after_setup, task_postrun, task_prerun
from kombu import Exchange, Queue

# Whether the process was given its settings: any `python -m webapp.<module>` imports this
# package, so the default below also lands in commands that `python -m webapp.embedded`
# wraps; it passes them the environment it was given, not this default.
SETTINGS_GIVEN = "DJANGO_SETTINGS_MODULE" in os.environ
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings.dev")

QUEUES = ("lean", "prover", "train")
SWEEP = "sweep"  # the sweeper's own queue (module docstring); not required of every stack

app = Celery("leancoach")
app.config_from_object("django.conf:settings", namespace="CELERY")
# Each queue gets its own exchange and routing key: a bare Queue(name) would bind to the
# default exchange with the default key, and a task sent to one queue would reach all three.
app.conf.task_queues = [Queue(name, Exchange(name), routing_key=name) for name in (*QUEUES, SWEEP)]
app.conf.task_default_queue = "lean"
app.conf.task_routes = {f"{name}.*": {"queue": name} for name in QUEUES}


class QueueTimeLimits:
    """Task annotations: each task gets the (soft, hard) time limits of its queue (settings
    CELERY_QUEUE_TIME_LIMITS), so a hung check or run is stopped and its object ended."""

    def annotate(self, task: Any) -> dict[str, int] | None:
        from django.conf import settings

        queue = str(task.name).split(".", 1)[0]
        limits = getattr(settings, "CELERY_QUEUE_TIME_LIMITS", {}).get(queue)
        if not limits:
            return None
        soft, hard = limits
        return {"soft_time_limit": soft, "time_limit": hard}


app.conf.task_annotations = [QueueTimeLimits()]


@task_prerun.connect
@task_postrun.connect
def _check_database_connections(task: Any = None, **_: Any) -> None:
    """Before and after each task, what Django does at each request's edges: close a
    connection that is too old, broken or in an error state; keep the rest (settings
    CELERY_DB_REUSE_MAX says why the fixup's closing is off). Not for eager tasks: they run
    inside the caller's request or test, whose connection is not theirs to close."""
    if task is not None and getattr(task.request, "is_eager", False):
        return
    from django.db import close_old_connections

    close_old_connections()


# What this worker consumes, read in the main process after `-Q` applied; its pool
# processes, forked after, inherit it.
_consumed_queues: frozenset[str] = frozenset()


@celeryd_after_setup.connect
def _remember_queues(sender: Any = None, instance: Any = None, **_: Any) -> None:
    global _consumed_queues
    _consumed_queues = frozenset(instance.app.amqp.queues.consume_from)


def consumed_queues() -> frozenset[str]:
    """The queues this worker process takes (empty outside a worker)."""
    return _consumed_queues


def enqueue(name: str, *args: Any) -> None:
    """Queue the task registered as `name` with `args`, routed by its name's queue prefix
    (task_routes above). The task row in the database is every task's result: nothing is
    stored in the result backend, and the sender does not subscribe to one
    (celery/app/base.py send_task: on_task_call unless ignore_result). Raises what the broker
    raises when it cannot take the message. Every name queued is a registered task
    (tests/webapp/test_celery_routing.py reads them from the code)."""
    app.send_task(name, args=args, ignore_result=True)


# Loaded by name when a worker builds its consumer (celery/bootsteps.py Blueprint.load_step:
# symbol_by_name), so this module still imports none of the apps' modules.
app.steps["consumer"].add("webapp.attempts.sweeper:CutOffWork")

app.autodiscover_tasks()
