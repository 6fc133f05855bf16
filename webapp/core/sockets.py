"""A cap on the live sockets one signed-in user holds open, across every web process.

Each socket of a signed-in user takes one of WS_PER_USER slots in the shared cache (keys
"ws-slot:<user>:<n>", added only if free) for as long as it is open, and keeps it alive by
touching it every SLOT_TTL_S / 2; a slot whose process died frees itself within SLOT_TTL_S.
A socket that finds no free slot is accepted and closed at once with CLOSE_TOO_MANY (4429,
like HTTP 429) and a reason: a websocket refused before its accept reaches the browser as a
bare failed handshake, without a code (ASGI spec, "Close - send event": a close before accept
is answered with HTTP 403). The htmx websocket extension reconnects only after codes 1006,
1011, 1012 and 1013 (htmx-ext-ws 2.0.4, dist/ws.js `socket.onclose`), so a refused page stays
closed, and static/js/live-notices.js says why on the page.

Anonymous sockets pass through: every consumer closes them itself. When the cache does not
answer, sockets are let through (logged): a cap must not take every page's live updates down
with Redis.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.cache import cache

log = logging.getLogger(__name__)

CLOSE_TOO_MANY = 4429
REASON = "Too many live LeanCoach pages open: close some and reload this one."
SLOT_TTL_S = 60


def _slot_key(user_id: int, n: int) -> str:
    return f"ws-slot:{user_id}:{n}"


def take_slot(user_id: int, limit: int) -> str | None:
    """The key of a free slot, now taken for this socket; None when all `limit` are taken.
    Raises when the cache is unreachable."""
    token = secrets.token_hex(8)
    for n in range(limit):
        key = _slot_key(user_id, n)
        if cache.add(key, token, timeout=SLOT_TTL_S):
            return key
    return None


def _keep(key: str) -> None:
    cache.touch(key, timeout=SLOT_TTL_S)


def _free(key: str) -> None:
    cache.delete(key)


# Cache calls run in the executor's threads, not the one thread every consumer of the
# process shares for its database reads (asgiref's thread_sensitive default).
_take_slot = sync_to_async(take_slot, thread_sensitive=False)
_keep_slot = sync_to_async(_keep, thread_sensitive=False)
_free_slot = sync_to_async(_free, thread_sensitive=False)


async def _keep_alive(key: str) -> None:
    while True:
        await asyncio.sleep(SLOT_TTL_S / 2)
        try:
            await _keep_slot(key)
        except Exception as exc:  # noqa: BLE001 - the cache is down: the slot expires, no harm
            log.warning("could not keep socket slot %s: %s", key, exc)


async def _refuse(receive: Any, send: Any) -> None:
    message = await receive()
    if message.get("type") != "websocket.connect":
        return
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.close", "code": CLOSE_TOO_MANY, "reason": REASON})


class SocketCapMiddleware:
    """ASGI middleware inside Channels' AuthMiddlewareStack (it reads scope["user"])."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        user = scope.get("user")
        limit = int(getattr(settings, "WS_PER_USER", 0))
        user_id = getattr(user, "pk", None) if getattr(user, "is_authenticated", False) else None
        if scope["type"] != "websocket" or limit <= 0 or user_id is None:
            return await self.inner(scope, receive, send)
        try:
            key = await _take_slot(user_id, limit)
        except Exception as exc:  # noqa: BLE001 - redis-py raises many types
            log.warning("socket cap not checked (cache unreachable): %s", exc)
            return await self.inner(scope, receive, send)
        if key is None:
            log.info("user %s has %s live sockets: refused one more", user_id, limit)
            return await _refuse(receive, send)
        keeper = asyncio.create_task(_keep_alive(key))
        try:
            return await self.inner(scope, receive, send)
        finally:
            keeper.cancel()
            try:
                await _free_slot(key)
            except Exception as exc:  # noqa: BLE001 - it expires within SLOT_TTL_S instead
                log.warning("could not free socket slot %s: %s", key, exc)
