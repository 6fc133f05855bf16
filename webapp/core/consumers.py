"""The base of the project's websocket consumers.

Channels (4.2 on) runs Django's close_old_connections before every message handler, through
sync_to_async: a hop to the sync thread and back for every message, the page's `shown` and
each worker's notice included. Our handlers never touch the database on the event loop (they
cannot: Django refuses ORM calls there); every read goes through database_sync_to_async,
which closes old connections before and after itself, in the thread that holds them. So the
hop per message is skipped here: there are two per verdict on a student's page, and each
would wait its turn in the one thread that all the process's consumers share for their
database reads, behind the renders of a burst.
"""

from __future__ import annotations

from typing import Any

from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncWebsocketConsumer


class LiveSocketConsumer(AsyncWebsocketConsumer):
    async def dispatch(self, message: dict[str, Any]) -> None:
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)
