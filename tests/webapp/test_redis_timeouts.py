"""Every Redis client has a timeout (issue 26, item 3; tutor/redis_boundary.py): against a
Redis that stops answering (a private redis-server under SIGSTOP: its port still accepts
connections, nothing answers), each call gives up within a couple of seconds instead of
waiting for as long as Redis stalls. Clients: Django's cache (rate limits) and the sessions'
cache, the channel layer, the Celery broker, the health probe, the /metrics counters, the
coach's feedback cache and the prover's shared search tree."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

import pytest
from celery import Celery
from django.conf import settings
from django.test import override_settings

from tutor import redis_boundary
from webapp.embedded import start_redis

pytestmark = pytest.mark.slow

# A call's own timeout (1-2 s) plus room for a loaded 2-core machine; a client with no
# timeout waits until the stall ends (STALL_S).
BOUND_S = 4.0
STALL_S = 30.0


@pytest.fixture
def stalled() -> Iterator[str]:
    """The URL of a Redis that accepted one connection, then stopped answering."""
    proc, url = start_redis()
    try:
        redis_boundary.client(url).ping()
        os.kill(proc.pid, signal.SIGSTOP)
        yield url
    finally:
        os.kill(proc.pid, signal.SIGCONT)
        proc.terminate()
        proc.wait(timeout=10)


def _gives_up_in_time(call: Callable[[], Any]) -> float:
    """Seconds until `call` returned or raised; fails if it outlasts BOUND_S. The call runs
    in a thread, so a client without a timeout fails the test instead of hanging it."""
    pool = ThreadPoolExecutor(1)
    started = time.monotonic()
    future = pool.submit(call)
    with contextlib.suppress(FutureTimeout):  # measured below
        future.exception(timeout=STALL_S)
    took = time.monotonic() - started
    pool.shutdown(wait=False)
    assert took <= BOUND_S, f"waited {took:.1f} s on a stalled Redis"
    return took


def _caches_at(url: str) -> dict[str, Any]:
    return {alias: {**config, "LOCATION": url} for alias, config in settings.CACHES.items()}


def test_the_cache_gives_up(stalled: str) -> None:
    from django.core.cache import caches

    with override_settings(CACHES=_caches_at(stalled)):
        _gives_up_in_time(lambda: caches["default"].get("k"))
        _gives_up_in_time(lambda: caches["default"].incr("k"))


def test_the_sessions_cache_reads_a_miss(stalled: str) -> None:
    from django.core.cache import caches

    with override_settings(CACHES=_caches_at(stalled)):
        sessions = caches[settings.SESSION_CACHE_ALIAS]
        _gives_up_in_time(lambda: sessions.get("a-session"))
        assert sessions.get("a-session", "miss") == "miss"  # no error: the database answers


def test_the_channel_layer_gives_up(stalled: str) -> None:
    from webapp.core.layer import RedisChannelLayer

    layer = RedisChannelLayer(hosts=[redis_boundary.channel_layer_host(stalled)])
    _gives_up_in_time(lambda: asyncio.run(layer.group_send("g", {"type": "x"})))


def test_the_broker_gives_up(stalled: str) -> None:
    sender = Celery("stall-test", broker=stalled)
    sender.conf.broker_transport_options = settings.CELERY_BROKER_TRANSPORT_OPTIONS
    sender.conf.broker_connection_timeout = 1
    try:
        _gives_up_in_time(lambda: sender.send_task("lean.check_attempt", args=[1]))
    finally:
        sender.close()


def test_the_health_probe_gives_up(stalled: str) -> None:
    _gives_up_in_time(lambda: redis_boundary.ping(stalled))
    assert redis_boundary.ping(stalled) is not None  # and says why


def test_the_metrics_counters_give_up(stalled: str) -> None:
    from webapp.core import metrics

    with override_settings(REDIS_URL=stalled):
        _gives_up_in_time(lambda: metrics._hash("tasks"))


def test_the_coach_cache_answers_a_miss(stalled: str) -> None:
    from tutor.coach.cache import CacheConfig, FeedbackCache

    cache = FeedbackCache(CacheConfig(url=stalled))
    _gives_up_in_time(lambda: cache.get("k"))
    assert cache.get("k") is None and cache.last_error  # a miss, with the reason kept


def test_the_search_tree_gives_up(stalled: str) -> None:
    from tutor.prover.tree import RedisTreeStore

    store = RedisTreeStore(stalled, "stall-test")
    _gives_up_in_time(store.delete)
