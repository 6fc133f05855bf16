"""The consumers' messages go to their handlers without Channels' extra trip to the sync
thread (webapp.core.consumers): the page's `shown` and each notice are handled, and
close_old_connections still runs around every database read, in the reading thread."""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from tests.webapp.cast import Cast, make_cast
from webapp.attempts import live
from webapp.attempts.models import Attempt
from webapp.routing import websocket_urlpatterns

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def cast() -> Cast:
    return make_cast()


async def test_a_verdict_reaches_the_page_with_no_hop_per_message(
    cast: Cast, monkeypatch: pytest.MonkeyPatch
) -> None:
    hops: list[str] = []
    closes: list[str] = []

    async def hop() -> None:
        hops.append("dispatch")

    def close() -> None:
        closes.append("read")

    monkeypatch.setattr("channels.consumer.aclose_old_connections", hop)
    monkeypatch.setattr("channels.db.close_old_connections", close)
    page = WebsocketCommunicator(
        URLRouter(websocket_urlpatterns), f"/ws/exercises/{cast.exercise.pk}/live/"
    )
    page.scope["user"] = cast.student
    connected, _ = await page.connect()
    assert connected
    attempt: Attempt = await database_sync_to_async(Attempt.objects.create)(
        student=cast.student, exercise=cast.exercise, proof="  rfl"
    )
    shown = {"shown": f"{attempt.pk}:{attempt.live_marker}", "HEADERS": {}}
    await page.send_to(text_data=json.dumps(shown))
    await database_sync_to_async(Attempt.objects.filter(pk=attempt.pk).update)(
        status=Attempt.Status.DONE, valid=True
    )
    attempt.status = Attempt.Status.DONE
    reads_before = len(closes)
    await database_sync_to_async(live.push)(attempt)
    message: Any = await page.receive_output(timeout=5)
    assert "Lean accepts this proof" in message["text"]
    assert hops == []  # neither `shown` nor the notice went through Channels' hop
    assert len(closes) - reads_before >= 2  # the render's read: closed before and after
    await page.disconnect()
