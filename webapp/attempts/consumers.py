"""Live updates of one attempt. connect() checks the user and replays the current state, so
a reloading or reconnecting browser is never stuck waiting for a message it missed.

The worker sends notices, not pages (webapp/attempts/live.py): the consumer renders the
state for its own user when told the attempt changed. An unfinished step waits SETTLE_S
first, so a check that ends within it costs one render, not one per step; the end state is
rendered at once. Renders run one at a time, each reading the database afresh, so the page
never steps back to an older state.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from webapp.attempts import live
from webapp.attempts.access import visible_attempts
from webapp.attempts.models import Attempt

CLOSE_UNAUTHENTICATED = 4401
CLOSE_FORBIDDEN = 4403

# How long an unfinished step waits before it is rendered: short enough that "Lean is
# checking" shows at once, long enough that a quick check goes straight to its verdict.
SETTLE_S = 0.1


@dataclass
class _State:
    allowed: bool  # the user may see the attempt (and it exists)
    html: str | None = None  # None: nothing to send (the page shows this state already)
    ended: bool = True


@database_sync_to_async
def _current_state(user: Any, attempt_pk: int, shown: str = "") -> _State:
    """The attempt's fragments for this user, read with the access check. None for an
    unfinished state the page already shows (`shown`, its live_marker); a finished attempt
    is always sent (teachers' reviews may have changed it since the page was drawn)."""
    attempt = visible_attempts(user).defer("check_result").filter(pk=attempt_pk).first()
    if attempt is None:
        return _State(allowed=False)
    if shown and not attempt.is_finished and attempt.live_marker == shown:
        return _State(allowed=True, html=None, ended=False)
    return _State(allowed=True, html=live.render_fragments(attempt), ended=attempt.is_finished)


def _shown(scope: dict[str, Any]) -> str:
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    return (query.get("shown") or [""])[0]


class AttemptConsumer(AsyncWebsocketConsumer):
    group: str | None = None
    render_lock: asyncio.Lock
    attempt_pk = 0
    ended = False  # the end state was sent: later notices change nothing
    settling: asyncio.Task[None] | None = None

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        self.attempt_pk = int(self.scope["url_route"]["kwargs"]["pk"])
        self.render_lock = asyncio.Lock()
        # Join first, then read the state (one trip to the database, with the access check):
        # a notice sent in between arrives after the read, so nothing falls into a gap. A
        # notice carries no content, and whoever may not see the attempt leaves at once.
        self.group = Attempt.group_for(self.attempt_pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        state = await _current_state(user, self.attempt_pk, _shown(self.scope))
        if not state.allowed:  # not yours, or no such attempt: the same answer for both
            await self.channel_layer.group_discard(self.group, self.channel_name)
            self.group = None
            await self.close(code=CLOSE_FORBIDDEN)
            return
        await self.accept()
        self.ended = state.ended
        if state.html is not None:
            await self.send(text_data=state.html)

    async def disconnect(self, code: int) -> None:
        if self.settling is not None:
            self.settling.cancel()
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """The browser only listens; whatever it sends is ignored."""

    async def attempt_changed(self, event: dict[str, Any]) -> None:
        if self.ended:
            return
        if event.get("finished"):
            # A settling render still asleep then finds the end state sent and does nothing.
            await self._send_state()
        elif self.settling is None or self.settling.done():
            self.settling = asyncio.create_task(self._send_state_after(SETTLE_S))

    async def _send_state_after(self, seconds: float) -> None:
        await asyncio.sleep(seconds)
        await self._send_state()

    async def _send_state(self) -> None:
        async with self.render_lock:
            if self.ended:
                return
            state = await _current_state(self.scope["user"], self.attempt_pk)
            self.ended = state.ended
            if not state.allowed:  # no longer the user's to see
                await self.close(code=CLOSE_FORBIDDEN)
            elif state.html is not None:
                await self.send(text_data=state.html)
