"""Django's Redis cache with one connection pool per process.

Django keeps cache objects per request context (asgiref Local), and under ASGI every request
runs in a context of its own, so each request built a new RedisCache, a new connection pool
and a new TCP connection to Redis for its first cache call (the rate limiter's, on every
submit): a connect, a health check and a teardown per request. Here every RedisCache of the
process shares one client per (servers, options), and with it redis-py's thread-safe pool
(which also starts afresh in a forked Celery child: redis-py checks the pid).
"""

from __future__ import annotations

import threading
from typing import Any

from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from django.utils.functional import cached_property

_clients: dict[tuple[tuple[str, ...], str], RedisCacheClient] = {}
_lock = threading.Lock()


class SharedPoolRedisCache(RedisCache):
    _servers: list[str]  # set by RedisCache.__init__ (absent from django-stubs)
    _options: dict[str, Any]
    _class: type[RedisCacheClient]

    @cached_property
    def _cache(self) -> Any:
        key = (tuple(self._servers), repr(sorted(self._options.items())))
        with _lock:
            client = _clients.get(key)
            if client is None:
                client = _clients[key] = self._class(self._servers, **self._options)
        return client
