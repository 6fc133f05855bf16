"""The Celery app. Three queues, one per kind of work, so each can get its own hosts:

- `lean`   Lean checking + coach feedback (CPU hosts with sandboxed REPL pools)
- `prover` prover runs on the policy model (GPU hosts in production)
- `train`  training runs and continual distillation (GPU nodes)

Tasks are named "<queue>.<what>" and routed by that prefix; anything else goes to `lean`.
"""

from __future__ import annotations

import os

from celery import Celery
from kombu import Exchange, Queue

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings.dev")

QUEUES = ("lean", "prover", "train")

app = Celery("leancoach")
app.config_from_object("django.conf:settings", namespace="CELERY")
# Each queue gets its own exchange and routing key: a bare Queue(name) would bind to the
# default exchange with the default key, and a task sent to one queue would reach all three.
app.conf.task_queues = [Queue(name, Exchange(name), routing_key=name) for name in QUEUES]
app.conf.task_default_queue = "lean"
app.conf.task_routes = {f"{name}.*": {"queue": name} for name in QUEUES}
app.autodiscover_tasks()
