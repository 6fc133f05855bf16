from __future__ import annotations

from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "webapp.core"
    label = "core"
    verbose_name = "LeanCoach core"

    def ready(self) -> None:
        # Celery task counts and run times for /metrics (they fire in worker processes only).
        from webapp.core import warmup
        from webapp.core.metrics import connect_celery_signals

        connect_celery_signals()
        # A worker's pool processes prepare their first task's sending and Lean REPL.
        warmup.connect_worker_signals()
