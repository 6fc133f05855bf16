"""Per-user (or per-client) rate limits over the Redis cache, with django-ratelimit's counter.
Rates live in settings.RATE_LIMITS; a view asks `over_limit` and shows `limit_message`."""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest
from django_ratelimit.core import get_usage

log = logging.getLogger(__name__)

WHAT = {
    "submit": "submissions",
    "prover": "prover requests",
    "join": "join-code tries",
    "login": "failed logins",
    "login_client": "failed logins",
    "live_goals": "goal requests while typing",
}


def over_limit(
    request: HttpRequest,
    name: str,
    *,
    key: str | Callable[[str, HttpRequest], str] = "user_or_ip",
    count: bool = True,
) -> bool:
    """With count, this request is counted and True means it goes past the limit; without,
    True means the limit is already used up (e.g. failed logins, counted only on failure)."""
    try:
        usage = get_usage(
            request, group=f"leancoach.{name}", key=key, rate=settings.RATE_LIMITS[name],
            increment=count,
        )  # fmt: skip
    except Exception as exc:  # noqa: BLE001 - the cache (Redis) is down: do not lock everyone out
        log.warning("rate limit %s not checked: %s", name, exc)
        return False
    if usage is None:
        return False
    if count:
        return bool(usage["should_limit"])
    return bool(usage["count"] >= usage["limit"])


def limit_message(name: str) -> str:
    return (
        f"Too many {WHAT.get(name, name)}: the limit is {settings.RATE_LIMITS[name]}. "
        "Wait a little and try again; nothing you typed was lost."
    )
