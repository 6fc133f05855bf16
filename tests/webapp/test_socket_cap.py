"""One signed-in user cannot hold more than WS_PER_USER live sockets open (webapp/core/
sockets.py), through the real ASGI stack (origin check, session auth): the socket past the
cap is accepted and closed with code 4429 and a reason; closing one frees its slot; other
users are not affected."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from channels.testing.websocket import WebsocketCommunicator
from django.core.cache import cache

from tests.webapp.cast import Cast, make_cast
from tests.webapp.test_console_consumers import session_headers
from webapp.asgi import application
from webapp.attempts.models import Attempt
from webapp.core.sockets import CLOSE_TOO_MANY

pytestmark = pytest.mark.django_db(transaction=True)


def _world() -> tuple[Cast, Attempt, Attempt]:
    cast = make_cast()
    mine = Attempt.objects.create(student=cast.student, exercise=cast.exercise, proof="  rfl")
    theirs = Attempt.objects.create(
        student=cast.other_student, exercise=cast.exercise, proof="  rfl"
    )
    return cast, mine, theirs


async def _open(path: str, headers: list[tuple[bytes, bytes]]) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    return communicator


async def test_the_socket_past_the_cap_is_closed_with_a_clear_code(settings) -> None:
    settings.WS_PER_USER = 3
    cast, mine, theirs = await sync_to_async(_world)()
    await sync_to_async(cache.delete_many)(
        [f"ws-slot:{u.pk}:{n}" for u in (cast.student, cast.other_student) for n in range(3)]
    )
    headers = await sync_to_async(session_headers)(cast.student)
    path = f"/ws/attempts/{mine.pk}/"
    held = [await _open(path, headers) for _ in range(3)]
    for communicator in held:
        await communicator.receive_from(timeout=5)  # the replayed state: a live socket
    extra = await _open(path, headers)
    closed = await extra.receive_output(timeout=5)
    assert closed == {"type": "websocket.close", "code": CLOSE_TOO_MANY, "reason": closed["reason"]}
    assert "Too many live" in closed["reason"]
    # Another student is not affected.
    other = await _open(
        f"/ws/attempts/{theirs.pk}/", await sync_to_async(session_headers)(cast.other_student)
    )
    assert "attempt-status" in await other.receive_from(timeout=5)
    await other.disconnect()
    # Closing one of hers frees a slot at once.
    await held.pop().disconnect()
    again = await _open(path, headers)
    assert "attempt-status" in await again.receive_from(timeout=5)
    for communicator in [*held, again]:
        await communicator.disconnect()
