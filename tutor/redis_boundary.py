"""The one boundary to Redis: how every part of LeanCoach connects to it, with what timeouts.

Redis carries the Celery broker and result backend, the Channels layer, Django's cache (rate
limits, the session cache), the coach's feedback cache, the prover's shared search tree and
the /metrics counters. Each of those builds its client here or from the options here, so a
Redis that stops answering costs every caller at most a second or two, never a hung request:

- `client(url)`: the process's redis-py client for `url` (one connection pool per URL and
  process; redis-py's pool starts afresh in a forked child, it checks the pid);
- `ping(url)`: None when Redis answers within the timeout, else what went wrong;
- `django_cache`, `channel_layer_host`, `celery_settings`: the same timeouts written the way
  django-redis, channels_redis and Celery read them (the settings call these; no Django here:
  tutor/ may not import it, and webapp/ uses this module too).

Timeouts: a command waits TIMEOUT_S for its answer and a connection CONNECT_TIMEOUT_S to open
(redis-py's socket_timeout / socket_connect_timeout, redis/connection.py AbstractConnection
__init__). Blocking reads wait longer on purpose and are bounded by their own server-side
timeout: Celery's BRPOP (kombu's brpop_timeout, 1 s) and the channel layer's BZPOPMIN
(webapp.core.layer sets it below TIMEOUT_S).
"""

from __future__ import annotations

import os
import threading
from typing import Any

import redis

# Seconds a command waits for Redis's answer, and a new connection for Redis to accept it.
TIMEOUT_S = 1.0
CONNECT_TIMEOUT_S = 1.0
# An idle pooled connection is pinged before reuse after this many seconds (redis-py's
# health_check_interval): one closed by a Redis restart is replaced, not handed out broken.
HEALTH_CHECK_INTERVAL_S = 10

# The client type the boundary hands out, for callers' annotations (they import no redis).
Client = redis.Redis

# What a call through this boundary raises when Redis is away or stalls (redis-py wraps most
# socket errors in its own, and lets some OSErrors through).
ERRORS: tuple[type[Exception], ...] = (redis.RedisError, OSError)

_clients: dict[tuple[str, float, int], Client] = {}
_lock = threading.Lock()


def connection_options(timeout_s: float = TIMEOUT_S) -> dict[str, Any]:
    """redis-py's connection keywords (Redis(...), ConnectionPool.from_url(...))."""
    return {
        "socket_timeout": timeout_s,
        "socket_connect_timeout": min(CONNECT_TIMEOUT_S, timeout_s),
        "health_check_interval": HEALTH_CHECK_INTERVAL_S,
    }


def client(url: str, timeout_s: float = TIMEOUT_S) -> Client:
    """This process's client for `url` with the timeouts above. Thread-safe: the client holds
    no connection of its own, its pool lends one per command."""
    key = (url, timeout_s, os.getpid())
    found = _clients.get(key)
    if found is None:
        with _lock:
            found = _clients.get(key)
            if found is None:
                found = redis.Redis.from_url(url, **connection_options(timeout_s))
                _clients[key] = found
    return found


def ping(url: str, timeout_s: float = TIMEOUT_S) -> str | None:
    """None when Redis at `url` answers PING within `timeout_s`, else the reason. A client
    of its own, closed after: a health probe must not wait behind the shared pool."""
    probe = redis.Redis.from_url(url, **connection_options(timeout_s))
    try:
        probe.ping()
    except ERRORS as exc:
        return f"{type(exc).__name__}: {exc}"
    finally:
        probe.close()
    return None


def redacted(url: str) -> str:
    """`url` with its password hidden, for pages and logs."""
    if "@" not in url:
        return url
    scheme, _, rest = url.partition("://")
    return f"{scheme}://***@{rest.split('@', 1)[1]}"


# --- the same timeouts, as each library reads them ---------------------------------------


def django_cache(url: str, key_prefix: str, *, ignore_errors: bool = False) -> dict[str, Any]:
    """A CACHES entry for django-redis (django_redis/pool.py ConnectionFactory reads
    SOCKET_TIMEOUT, SOCKET_CONNECT_TIMEOUT and CONNECTION_POOL_KWARGS; its pools are kept per
    URL and process). `ignore_errors`: a Redis error reads as a miss and a write is dropped
    (django_redis/cache.py omit_exception, IGNORE_EXCEPTIONS), for a cache in front of the
    database such as the sessions'."""
    return {
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": url,
        "KEY_PREFIX": key_prefix,
        "OPTIONS": {
            "SOCKET_TIMEOUT": TIMEOUT_S,
            "SOCKET_CONNECT_TIMEOUT": CONNECT_TIMEOUT_S,
            "CONNECTION_POOL_KWARGS": {"health_check_interval": HEALTH_CHECK_INTERVAL_S},
            "IGNORE_EXCEPTIONS": ignore_errors,
        },
    }


def channel_layer_host(url: str, timeout_s: float = 2 * TIMEOUT_S) -> dict[str, Any]:
    """One entry of channels_redis' `hosts`: a dict with `address` is passed whole to
    redis.asyncio.ConnectionPool.from_url (channels_redis/utils.py create_pool). Twice
    TIMEOUT_S: a receive's BZPOPMIN waits up to its own timeout (webapp.core.layer keeps it
    at TIMEOUT_S) before Redis answers."""
    return {"address": url, **connection_options(timeout_s)}


def celery_settings() -> dict[str, Any]:
    """Celery's Redis settings (celery/app/defaults.py; namespace-free names, the caller adds
    its prefix): the broker's transport options (kombu/transport/redis.py Channel reads
    socket_timeout, socket_connect_timeout, health_check_interval) and the result backend's
    (celery/backends/redis.py reads redis_socket_timeout, redis_socket_connect_timeout,
    redis_backend_health_check_interval)."""
    return {
        "broker_transport_options": {
            "socket_timeout": 2 * TIMEOUT_S,
            "socket_connect_timeout": CONNECT_TIMEOUT_S,
            "health_check_interval": HEALTH_CHECK_INTERVAL_S,
        },
        "redis_socket_timeout": 2 * TIMEOUT_S,
        "redis_socket_connect_timeout": CONNECT_TIMEOUT_S,
        "redis_backend_health_check_interval": HEALTH_CHECK_INTERVAL_S,
    }
