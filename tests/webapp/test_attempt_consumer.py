"""ws/attempts/<pk>/ : the user is checked in connect(), the state is replayed, pushes arrive."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser

from tests.webapp.cast import Cast, make_cast
from webapp.attempts.consumers import CLOSE_FORBIDDEN, CLOSE_UNAUTHENTICATED
from webapp.attempts.models import Attempt, LineDiagnostic
from webapp.attempts.routing import websocket_urlpatterns

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def world() -> tuple[Cast, Attempt]:
    cast = make_cast()
    attempt = Attempt.objects.create(
        student=cast.student, exercise=cast.exercise, proof="  simp", status="done", valid=False
    )
    LineDiagnostic.objects.create(
        attempt=attempt, line=1, severity="error", message="simp made no progress"
    )
    return cast, attempt


def _communicator(attempt: Attempt, user: Any) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(
        URLRouter(websocket_urlpatterns), f"/ws/attempts/{attempt.pk}/"
    )
    communicator.scope["user"] = user
    return communicator


async def test_it_replays_the_current_state_on_connect(world: tuple[Cast, Attempt]) -> None:
    cast, attempt = world
    communicator = _communicator(attempt, cast.student)
    connected, _ = await communicator.connect()
    assert connected
    html = await communicator.receive_from()
    assert 'id="attempt-status"' in html and 'id="attempt-feedback"' in html
    assert "simp made no progress" in html and 'data-marker="error"' in html
    await communicator.disconnect()


async def test_it_forwards_pushes_to_the_browser(world: tuple[Cast, Attempt]) -> None:
    cast, attempt = world
    communicator = _communicator(attempt, cast.student)
    await communicator.connect()
    await communicator.receive_from()  # the replay
    await get_channel_layer().group_send(
        attempt.group_name, {"type": "attempt.update", "html": "<p id='x'>1</p>"}
    )
    assert await communicator.receive_from() == "<p id='x'>1</p>"
    await get_channel_layer().group_send(
        attempt.group_name, {"type": "attempt.finished", "html": "<p id='x'>2</p>"}
    )
    assert await communicator.receive_from() == "<p id='x'>2</p>"
    await communicator.disconnect()


async def test_her_teacher_may_watch(world: tuple[Cast, Attempt]) -> None:
    cast, attempt = world
    communicator = _communicator(attempt, cast.teacher)
    connected, _ = await communicator.connect()
    assert connected
    await communicator.disconnect()


async def test_it_rejects_other_students(world: tuple[Cast, Attempt]) -> None:
    cast, attempt = world
    connected, code = await _communicator(attempt, cast.other_student).connect()
    assert (connected, code) == (False, CLOSE_FORBIDDEN)


async def test_it_rejects_other_teachers(world: tuple[Cast, Attempt]) -> None:
    cast, attempt = world
    connected, code = await _communicator(attempt, cast.other_teacher).connect()
    assert (connected, code) == (False, CLOSE_FORBIDDEN)


async def test_it_rejects_anonymous_users(world: tuple[Cast, Attempt]) -> None:
    _, attempt = world
    connected, code = await _communicator(attempt, AnonymousUser()).connect()
    assert (connected, code) == (False, CLOSE_UNAUTHENTICATED)


async def test_a_reconnect_gets_the_latest_state(world: tuple[Cast, Attempt]) -> None:
    cast, attempt = world
    first = _communicator(attempt, cast.student)
    await first.connect()
    await first.receive_from()
    await first.disconnect()
    await database_sync_to_async(Attempt.objects.filter(pk=attempt.pk).update)(valid=True)
    again = _communicator(attempt, cast.student)
    await again.connect()
    assert "Lean accepts this proof" in await again.receive_from()
    await again.disconnect()
