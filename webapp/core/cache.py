"""Django's Redis cache with one connection pool per process.

Django keeps cache objects per request context (asgiref Local), and under ASGI every request
runs in a context of its own, so each request built a new RedisCache, a new connection pool
and a new TCP connection to Redis for its first cache call (the rate limiter's, on every
submit): a connect, a health check and a teardown per request. Here every RedisCache of the
process shares one client per (servers, options), and with it redis-py's thread-safe pool
(which also starts afresh in a forked Celery child: redis-py checks the pid).

Django also made a new redis-py client object for every cache call. redis-py builds its
response-callback table in each one (about 160 entries): the rate limiter's two calls per
submit and the coach's stamp read per check paid for it every time. One client per pool is
kept instead: a client holds no connection of its own (the pool lends one per command), so
threads share it as they share the pool.
"""

from __future__ import annotations

import threading
from typing import Any

from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from django.utils.functional import cached_property

_clients: dict[tuple[tuple[str, ...], str], RedisCacheClient] = {}
_lock = threading.Lock()


# INCRBY only on a key that is there (Django's contract: incr of a missing key raises), in one
# trip: Django's client asked EXISTS and then INCRBY, two round trips, and between them the key
# could expire and INCRBY make it anew without a TTL.
_INCR_IF_PRESENT = """
if redis.call('exists', KEYS[1]) == 1 then return redis.call('incrby', KEYS[1], ARGV[1]) end
return false
"""


class OneClientPerPool(RedisCacheClient):
    _pool_class: Any  # set by RedisCacheClient.__init__ (absent from django-stubs)
    _pools: dict[int, Any]
    _client: Any
    _get_connection_pool: Any

    def __init__(self, servers: list[str], **options: Any) -> None:
        super().__init__(servers, **options)
        self._redis_by_pool: dict[int, Any] = {}
        self._scripts_by_client: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        pool = self._get_connection_pool(write)
        client = self._redis_by_pool.get(id(pool))  # pools live as long as this object
        if client is None:
            client = self._redis_by_pool.setdefault(id(pool), self._client(connection_pool=pool))
        return client

    def incr(self, key: Any, delta: int) -> int:
        """The rate limiter's counter (every submit): one round trip, atomic."""
        client = self.get_client(key, write=True)
        script = self._scripts_by_client.get(id(client))
        if script is None:  # redis-py's Script sends EVALSHA, and the source once if missing
            script = self._scripts_by_client.setdefault(
                id(client), client.register_script(_INCR_IF_PRESENT)
            )
        value = script(keys=[key], args=[delta])
        if value is None:
            raise ValueError(f"Key '{key}' not found.")
        return int(value)


class SharedPoolRedisCache(RedisCache):
    _servers: list[str]  # set by RedisCache.__init__ (absent from django-stubs)
    _options: dict[str, Any]
    _class: type[RedisCacheClient]

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = OneClientPerPool

    @cached_property
    def _cache(self) -> Any:
        key = (tuple(self._servers), repr(sorted(self._options.items())))
        with _lock:
            client = _clients.get(key)
            if client is None:
                client = _clients[key] = self._class(self._servers, **self._options)
        return client
