"""Sending to a Channels group from synchronous code (Celery tasks, actions): the boundary to
the channel layer for every push of the live pages.

asgiref's async_to_sync, called where no event loop runs (a Celery worker), starts a thread
and an event loop for each call, and channels_redis keeps its Redis connections per event
loop, so every push also opened a new connection: measured, two thirds of a push's cost in a
check (bench/bench_web.py's submit burst). Here one event loop per process, on a daemon
thread started at the first send (after Celery's fork: a child makes its own), carries every
send, so the layer's connections are reused. The in-memory layer (a single process) keeps
async_to_sync: its queues belong to the loop of whoever reads them.
"""

from __future__ import annotations

import asyncio
import os
import threading
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_loop_pid = 0


def _sending_loop() -> asyncio.AbstractEventLoop:
    global _loop, _loop_pid
    with _lock:
        if _loop is None or _loop_pid != os.getpid() or _loop.is_closed():
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="channel-layer", daemon=True).start()
            _loop, _loop_pid = loop, os.getpid()
        return _loop


def group_send(group: str, message: dict[str, Any]) -> None:
    """Send `message` to `group`; errors (Redis unreachable) reach the caller as before."""
    group_send_many((group,), message)


def group_send_many(groups: tuple[str, ...], message: dict[str, Any]) -> None:
    """Send `message` to each group, together: one trip to the sending loop for all."""
    layer = get_channel_layer()
    if layer is None:  # no channel layer configured: nothing is watching
        return

    async def send_all() -> None:
        await asyncio.gather(*(layer.group_send(group, message) for group in groups))

    if isinstance(layer, InMemoryChannelLayer):
        async_to_sync(send_all)()
        return
    asyncio.run_coroutine_threadsafe(send_all(), _sending_loop()).result()
