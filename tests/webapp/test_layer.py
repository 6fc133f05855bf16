"""webapp.core.layer against the Redis channel layer the product runs with: delayed sends wait
on the process's sending loop, are replaced or cancelled there, and never follow a send made
after their cancel."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from webapp.core.layer import cancel_later, group_send_later, group_send_many


@pytest.fixture
def redis_layer(settings: Any) -> Any:
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [settings.REDIS_URL], "prefix": f"test-{uuid.uuid4().hex[:8]}:"},
        }
    }
    layer = get_channel_layer()
    assert type(layer).__name__ == "RedisChannelLayer"
    return layer


def _listen(layer: Any) -> tuple[str, str]:
    group = f"g{uuid.uuid4().hex[:8]}"
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(group, channel)
    return group, channel


def _received(layer: Any, channel: str, wait_s: float) -> list[str]:
    async def drain() -> list[str]:
        texts: list[str] = []
        while True:
            try:
                message = await asyncio.wait_for(layer.receive(channel), timeout=wait_s)
            except TimeoutError:
                return texts
            texts.append(message["text"])

    return async_to_sync(drain)()


def test_a_delayed_send_arrives_after_its_delay(redis_layer: Any) -> None:
    group, channel = _listen(redis_layer)
    group_send_later("k1", (group,), {"type": "t", "text": "step"}, 0.1)
    assert _received(redis_layer, channel, wait_s=1.0) == ["step"]


def test_a_cancelled_one_never_follows_the_send_after_it(redis_layer: Any) -> None:
    group, channel = _listen(redis_layer)
    group_send_later("k2", (group,), {"type": "t", "text": "step"}, 0.2)
    cancel_later("k2")
    group_send_many((group,), {"type": "t", "text": "end"})
    assert _received(redis_layer, channel, wait_s=0.5) == ["end"]


def test_a_newer_delayed_send_replaces_the_older(redis_layer: Any) -> None:
    group, channel = _listen(redis_layer)
    group_send_later("k3", (group,), {"type": "t", "text": "first"}, 0.3)
    group_send_later("k3", (group,), {"type": "t", "text": "second"}, 0.1)
    assert _received(redis_layer, channel, wait_s=0.6) == ["second"]


def test_a_quiet_receive_outlasts_the_socket_timeout(settings: Any) -> None:
    """The product's layer (webapp.core.layer.RedisChannelLayer with the boundary's socket
    timeout) waits on a quiet channel as long as it must: its blocking BZPOPMIN is shorter
    than the socket timeout, so Redis answers "nothing yet" before the socket gives up. With
    channels_redis' own 5 s (a class attribute, brpop_timeout) the receive would fail with a
    TimeoutError after the 2 s socket timeout; this test fails if that attribute stops being
    read."""
    from tutor import redis_boundary
    from webapp.core.layer import RedisChannelLayer

    host = redis_boundary.channel_layer_host(settings.REDIS_URL)
    layer = RedisChannelLayer(hosts=[host], prefix=f"test-{uuid.uuid4().hex[:8]}:")
    quiet_s = host["socket_timeout"] + 1.0

    async def receive_after_quiet() -> dict[str, Any]:
        channel = await layer.new_channel()
        waiting = asyncio.ensure_future(layer.receive(channel))
        await asyncio.sleep(quiet_s)
        assert not waiting.done(), waiting.exception()
        await layer.send(channel, {"type": "x", "text": "late"})
        try:
            return await asyncio.wait_for(waiting, timeout=5)
        finally:
            await layer.flush()

    assert async_to_sync(receive_after_quiet)()["text"] == "late"
