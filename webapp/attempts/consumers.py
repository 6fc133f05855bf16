"""Live updates of one attempt. connect() checks the user and replays the current state, so
a reloading or reconnecting browser is never stuck waiting for a message it missed."""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from webapp.attempts import live
from webapp.attempts.access import visible_attempts

CLOSE_UNAUTHENTICATED = 4401
CLOSE_FORBIDDEN = 4403


@database_sync_to_async
def _look_up(user: Any, attempt_pk: int) -> tuple[str | None, str | None]:
    """The attempt's group if the user may watch it (else None), and, for a finished attempt,
    its state rendered in the same trip to the database: nothing will change it any more, so
    it may be read before joining the group."""
    attempt = visible_attempts(user).defer("check_result").filter(pk=attempt_pk).first()
    if attempt is None:
        return None, None
    return attempt.group_name, live.render_fragments(attempt) if attempt.is_finished else None


@database_sync_to_async
def _current_state(user: Any, attempt_pk: int) -> str:
    return live.render_fragments(visible_attempts(user).defer("check_result").get(pk=attempt_pk))


class AttemptConsumer(AsyncWebsocketConsumer):
    group: str | None = None

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        pk = int(self.scope["url_route"]["kwargs"]["pk"])
        group, final_state = await _look_up(user, pk)
        if group is None:  # not yours, or no such attempt: the same answer for both
            await self.close(code=CLOSE_FORBIDDEN)
            return
        # Join first, then replay from the database: an update sent in between arrives after
        # the replay, so nothing falls into a gap. A finished attempt sends no more updates:
        # its state, read with the access check, is already the one to replay.
        self.group = group
        await self.channel_layer.group_add(group, self.channel_name)
        await self.accept()
        await self.send(text_data=final_state or await _current_state(user, pk))

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """The browser only listens; whatever it sends is ignored."""

    async def attempt_update(self, event: dict[str, Any]) -> None:
        await self.send(text_data=event["html"])

    async def attempt_finished(self, event: dict[str, Any]) -> None:
        await self.send(text_data=event["html"])
