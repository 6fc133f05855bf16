"""Sending to a Channels group from synchronous code (Celery tasks, actions): the boundary to
the channel layer for every push of the live pages.

asgiref's async_to_sync, called where no event loop runs (a Celery worker), starts a thread
and an event loop for each call, and channels_redis keeps its Redis connections per event
loop, so every push would open a new connection, most of a push's cost in a check
(bench/bench_web.py's submit burst prints the Redis connections opened). Here one event loop
per process, on a daemon
thread started at the first send (after Celery's fork: a child makes its own), carries every
send, so the layer's connections are reused. The in-memory layer (a single process) keeps
async_to_sync: its queues belong to the loop of whoever reads them.

The same loop keeps the delayed sends (group_send_later): a timer on it, not a thread per
send, and a delayed send that a later send replaces is cancelled on the loop, in order.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Hashable
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer
from channels_redis.core import RedisChannelLayer as ChannelsRedisLayer

from tutor.redis_boundary import TIMEOUT_S

log = logging.getLogger(__name__)


class RedisChannelLayer(ChannelsRedisLayer):
    """channels_redis' layer (settings CHANNEL_LAYERS), with its blocking receive shorter
    than its connections' socket timeout (tutor/redis_boundary.py channel_layer_host).
    channels_redis receives with BZPOPMIN for `brpop_timeout` seconds (5, a class attribute:
    channels_redis/core.py RedisChannelLayer, read in receive_single); longer than the
    socket timeout, every quiet receive would end in a TimeoutError instead of an empty
    answer. A quiet process asks once a second."""

    brpop_timeout = int(TIMEOUT_S)


_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_loop_pid = 0
# Delayed sends waiting on the sending loop, by key; read and written on that loop only.
_later: dict[Hashable, asyncio.TimerHandle] = {}
_delays_pid = 0  # the process that scheduled a delayed send (a forked child has none)


def _sending_loop() -> asyncio.AbstractEventLoop:
    global _loop, _loop_pid
    with _lock:
        if _loop is None or _loop_pid != os.getpid() or _loop.is_closed():
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="channel-layer", daemon=True).start()
            _loop, _loop_pid = loop, os.getpid()
            _later.clear()  # a forked child's copy: its timers belong to the parent's loop
        return _loop


def group_send(group: str, message: dict[str, Any]) -> None:
    """Send `message` to `group`; errors (Redis unreachable) reach the caller as before."""
    group_send_many((group,), message)


def group_send_many(groups: tuple[str, ...], message: dict[str, Any]) -> None:
    """Send `message` to each group, together: one trip to the sending loop for all."""
    layer = get_channel_layer()
    if layer is None:  # no channel layer configured: nothing is watching
        return
    if isinstance(layer, InMemoryChannelLayer):
        async_to_sync(_send_all)(layer, groups, message)
        return
    asyncio.run_coroutine_threadsafe(_send_all(layer, groups, message), _sending_loop()).result()


async def _send_all(layer: Any, groups: tuple[str, ...], message: dict[str, Any]) -> None:
    await asyncio.gather(*(layer.group_send(group, message) for group in groups))


def group_send_later(
    key: Hashable, groups: tuple[str, ...], message: dict[str, Any], delay_s: float
) -> None:
    """Send `message` to `groups` in `delay_s`, unless cancel_later(key) or another
    group_send_later(key) comes first. Returns at once; a failed send is logged."""
    global _delays_pid
    if get_channel_layer() is None:
        return
    loop = _sending_loop()
    _delays_pid = os.getpid()
    loop.call_soon_threadsafe(_schedule, loop, key, groups, message, delay_s)


def cancel_later(key: Hashable) -> None:
    """Drop the delayed send under `key`, if it has not gone yet. Queued on the sending loop
    ahead of whatever is sent after this call, so a cancelled send never follows it."""
    if _delays_pid == os.getpid():  # this process has scheduled some: else nothing to drop
        _sending_loop().call_soon_threadsafe(_cancel, key)


def _schedule(
    loop: asyncio.AbstractEventLoop,
    key: Hashable,
    groups: tuple[str, ...],
    message: dict[str, Any],
    delay_s: float,
) -> None:
    _cancel(key)
    _later[key] = loop.call_later(delay_s, _fire, loop, key, groups, message)


def _cancel(key: Hashable) -> None:
    handle = _later.pop(key, None)
    if handle is not None:
        handle.cancel()


def _fire(
    loop: asyncio.AbstractEventLoop, key: Hashable, groups: tuple[str, ...], message: dict[str, Any]
) -> None:
    _later.pop(key, None)
    layer = get_channel_layer()
    if isinstance(layer, InMemoryChannelLayer):  # its queues belong to their readers' loops
        done = loop.run_in_executor(None, lambda: async_to_sync(_send_all)(layer, groups, message))
    else:
        done = asyncio.ensure_future(_send_all(layer, groups, message), loop=loop)
    done.add_done_callback(lambda sent: _log_failure(key, sent))


def _log_failure(key: Hashable, sent: asyncio.Future[Any]) -> None:
    if not sent.cancelled() and sent.exception() is not None:
        log.warning("a delayed send (%s) failed: %s", key, sent.exception())
