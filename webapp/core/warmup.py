"""Work a process does once at start instead of on its first requests or tasks.

The cached template loader compiles a template the first time a request renders it, so
after every start or deploy each web process would pay the compile of every page and
fragment it serves first, in the first requests (bench/bench_web.py's first submit burst
runs on fresh processes, the second on warm ones).

A process's first submit would also set up Celery's sending side (the app's task registry,
the result backend object, kombu's Redis transport and the broker connection), and a
worker's first check the channel layer and the cache client: several times the CPU of the
next ones, in the first burst after a start, with everyone else's. So both are done here,
at the process's start.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


def compile_templates() -> int:
    """Compile the project's templates (templates/) into the cached loader; returns how many.

    Nothing to do where templates are not cached (DEBUG re-reads them on every request). A
    template that fails to compile is logged and left for its page to report, as before."""
    from django.conf import settings
    from django.template import engines

    engine = engines["django"]
    if not _caches_templates(engine):
        return 0
    started = time.monotonic()
    compiled = 0
    for folder in settings.TEMPLATES[0]["DIRS"]:
        root = Path(str(folder))
        for path in sorted(root.rglob("*.html")):
            name = path.relative_to(root).as_posix()
            try:
                engine.get_template(name)
            except Exception:  # noqa: BLE001 - its page shows the error, as without warm-up
                log.warning("template %s does not compile", name, exc_info=True)
                continue
            compiled += 1
    log.info("compiled %d templates in %.2f s", compiled, time.monotonic() - started)
    return compiled


def _caches_templates(engine: object) -> bool:
    from django.template.loaders.cached import Loader as CachedLoader

    pending = list(getattr(getattr(engine, "engine", None), "template_loaders", []))
    while pending:
        loader = pending.pop()
        if isinstance(loader, CachedLoader):
            return True
        pending.extend(getattr(loader, "loaders", []))
    return False


def prepare_sending() -> bool:
    """Set up what the first submit (web) or check (worker) would: Celery's app and result
    backend, one broker connection in the producer pool, the channel layer and the cache's
    Redis client. False (logged) when the broker or Redis cannot be reached now: the first
    request then does it, and reports what it finds, as without warm-up."""
    started = time.monotonic()
    try:
        from channels.layers import get_channel_layer
        from django.core.cache import cache

        from webapp.celery import app

        app.finalize(auto=True)
        _ = app.backend  # one per process (CELERY_RESULT_BACKEND_THREAD_SAFE), every send's
        _ = app.events.Dispatcher  # every send builds its (disabled) event dispatcher
        with app.producer_or_acquire() as producer:  # released into the pool, connected
            producer.connection.ensure_connection(max_retries=1, interval_start=0, timeout=2)
            # What the first send to each queue does (its binding, and the channel's
            # connection for commands): declared once per channel, then skipped.
            for queue in app.amqp.queues.values():
                producer.maybe_declare(queue)
        get_channel_layer()
        cache.get("warmup-probe")
    except Exception as exc:  # noqa: BLE001 - the first request meets it and says what
        log.warning("sending side not prepared ahead of the first request: %s", exc)
        return False
    log.info("prepared task sending in %.2f s", time.monotonic() - started)
    return True


def prepare_sending_in_pool(**_: Any) -> threading.Thread:
    """worker_process_init: a pool process sets up the channel layer, the cache client and
    the broker connection its first task would; in a thread, so an unreachable Redis does not
    hold the start that Celery times."""
    thread = threading.Thread(target=prepare_sending, name="prepare-sending", daemon=True)
    thread.start()
    return thread


def prestart_lean_in_pool(**_: Any) -> threading.Thread | None:
    """worker_process_init: a pool process of a `lean` worker starts its Lean REPL while it
    waits for its first check (webapp.attempts.tasks.prestart_lean). In a thread: Celery
    gives a starting pool process a few seconds, and a real REPL's imports take longer."""
    from webapp.celery import consumed_queues

    if "lean" not in consumed_queues():
        return None
    from webapp.attempts.tasks import prestart_lean

    def run() -> None:
        try:
            prestart_lean()
        except Exception:  # noqa: BLE001 - the first check starts it instead, and says why
            log.exception("Lean REPL prestart failed")

    thread = threading.Thread(target=run, name="lean-prestart", daemon=True)
    thread.start()
    return thread


def connect_worker_signals() -> None:
    """Both of the above run in each worker pool process as it starts."""
    from celery.signals import worker_process_init

    worker_process_init.connect(prepare_sending_in_pool, weak=False)
    worker_process_init.connect(prestart_lean_in_pool, weak=False)
