"""Every request context's cache object shares one Redis connection pool per process
(webapp.core.cache): under ASGI each request has a context of its own, and Django's stock
RedisCache opened a new pool, and a new Redis connection, for each."""

from __future__ import annotations

import asyncio
import os
import time
from typing import Any

import pytest
from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.core.cache import caches
from django.test import RequestFactory

from webapp.core.cache import SharedPoolRedisCache


def _cache(alias_object: object) -> SharedPoolRedisCache:
    assert isinstance(alias_object, SharedPoolRedisCache), "CACHES must use the shared pool"
    return alias_object


def test_cache_objects_of_different_requests_share_one_pool() -> None:
    first = _cache(caches.create_connection("default"))
    second = _cache(caches.create_connection("default"))
    assert first is not second  # what Django makes per request context
    first.set("shared-pool-probe", 41)
    assert second.get("shared-pool-probe") == 41
    assert first._cache._get_connection_pool(True) is second._cache._get_connection_pool(True)


def test_fifty_request_contexts_use_a_handful_of_redis_connections() -> None:
    pools = set()

    def one_request(i: int) -> None:
        caches["default"].set(f"ctx-probe-{i}", i)
        pools.add(id(_cache(caches["default"])._cache._get_connection_pool(True)))

    async def serve() -> None:
        async def request(i: int) -> None:
            async with ThreadSensitiveContext():  # as Django's ASGI handler wraps each request
                await sync_to_async(one_request)(i)

        await asyncio.gather(*(request(i) for i in range(50)))

    asyncio.run(serve())
    # Django's own RedisCache gave 50 pools here, one per request.
    assert len(pools) == 1


def test_cache_calls_reuse_one_redis_client() -> None:
    """Django built a redis-py client object per call (and its callback table each time)."""
    cache = _cache(caches["default"])
    cache.set("one-client-probe", 1)
    first = cache._cache.get_client(write=True)
    assert cache.get("one-client-probe") == 1
    assert cache._cache.get_client(write=True) is first
    assert cache._cache.get_client() is first  # one server: reads use the same pool
    other = _cache(caches.create_connection("default"))
    assert other._cache.get_client(write=True) is first  # shared across request contexts


def test_incr_is_one_atomic_round_trip(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rate limiter counts every submit with incr: one trip, not EXISTS then INCRBY."""
    cache = _cache(caches["default"])
    cache.set("incr-probe", 5, timeout=60)
    client = cache._cache.get_client(write=True)
    sent: list[str] = []
    real = client.execute_command

    def counting(*args: Any, **options: Any) -> Any:
        sent.append(str(args[0]))
        return real(*args, **options)

    monkeypatch.setattr(client, "execute_command", counting)
    assert cache.incr("incr-probe") == 6
    assert cache.incr("incr-probe", 10) == 16
    assert [name.upper() for name in sent] in (
        ["EVALSHA", "EVALSHA"],
        ["EVALSHA", "EVAL", "EVALSHA"],
    )
    assert 0 < client.ttl(cache.make_and_validate_key("incr-probe")) <= 60  # the TTL stays


def test_incr_of_a_missing_key_raises_and_creates_nothing() -> None:
    cache = _cache(caches["default"])
    cache.delete("incr-missing")
    with pytest.raises(ValueError, match="not found"):
        cache.incr("incr-missing")
    assert cache.get("incr-missing") is None


def test_the_submit_limit_counts_in_two_round_trips(
    rf: RequestFactory, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from django.contrib.auth.models import AnonymousUser

    from webapp.core.limits import over_limit

    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "submit": "3/m"}
    cache = _cache(caches["default"])
    client = cache._cache.get_client(write=True)
    request = rf.post("/submit", REMOTE_ADDR=f"10.9.{os.getpid() % 250}.{time.time_ns() % 250}")
    request.user = AnonymousUser()
    sent: list[str] = []
    real = client.execute_command

    def counting(*args: Any, **options: Any) -> Any:
        sent.append(str(args[0]).upper())
        return real(*args, **options)

    monkeypatch.setattr(client, "execute_command", counting)
    verdicts = [over_limit(request, "submit") for _ in range(4)]
    assert verdicts == [False, False, False, True]
    # The first: SET NX (the window's counter made); each later one: SET NX, then one script.
    assert sent.count("SET") == 4
    assert sent.count("EXISTS") == 0 and sent.count("INCRBY") == 0
    assert len(sent) - sent.count("EVAL") == 4 + 3
