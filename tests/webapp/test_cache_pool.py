"""Every request context's cache object shares one Redis connection pool per process
(webapp.core.cache): under ASGI each request has a context of its own, and Django's stock
RedisCache opened a new pool, and a new Redis connection, for each."""

from __future__ import annotations

import asyncio

from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.core.cache import caches

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
