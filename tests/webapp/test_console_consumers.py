"""The training run websocket through the real ASGI stack (origin check, session auth):
admins get the run's state replayed on connect and every later push; nobody else connects."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing.websocket import WebsocketCommunicator
from django.contrib.auth.models import User
from django.test import Client

from tests.webapp.cast import make_cast
from webapp.asgi import application
from webapp.console.live import push
from webapp.console.models import TrainingMetric, TrainingRun

pytestmark = pytest.mark.django_db(transaction=True)


def session_headers(user: User | None) -> list[tuple[bytes, bytes]]:
    headers = [(b"origin", b"http://localhost")]
    if user is not None:
        client = Client()
        client.force_login(user)
        headers.append((b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode()))
    return headers


async def connect(path: str, user: User | None) -> tuple[WebsocketCommunicator, bool]:
    headers = await sync_to_async(session_headers)(user)
    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await communicator.connect()
    return communicator, connected


def _setup() -> tuple[Any, TrainingRun]:
    cast = make_cast()
    run = TrainingRun.objects.create(
        course=cast.course, created_by=cast.admin, status="running", step=1
    )
    TrainingMetric.objects.create(run=run, step=1, stage="fd", values={"loss": 0.75})
    return cast, run


async def test_an_admin_gets_the_current_state_then_live_pushes() -> None:
    cast, run = await sync_to_async(_setup)()
    communicator, connected = await connect(f"/ws/console/runs/{run.pk}/", cast.admin)
    assert connected
    replay = await communicator.receive_from(timeout=5)
    assert (
        'id="run-status"' in replay and "step 1 / 4" in replay and 'id="run-loss">0.75<' in replay
    )
    await sync_to_async(push)(run.group_name, '<div id="run-status">step 2</div>', final=True)
    assert await communicator.receive_from(timeout=5) == '<div id="run-status">step 2</div>'
    await communicator.disconnect()


async def test_a_reconnecting_admin_sees_the_end_state() -> None:
    cast, run = await sync_to_async(_setup)()
    await sync_to_async(TrainingRun.objects.filter(pk=run.pk).update)(status="finished", step=4)
    communicator, connected = await connect(f"/ws/console/runs/{run.pk}/", cast.admin)
    assert connected
    replay = await communicator.receive_from(timeout=5)
    assert 'data-status="finished"' in replay and "Stop</button>" not in replay
    await communicator.disconnect()


@pytest.mark.parametrize("who", ["student", "teacher", "outsider", None])
async def test_everyone_but_admins_is_refused(who: str | None) -> None:
    cast, run = await sync_to_async(_setup)()
    user = getattr(cast, who) if who else None
    communicator, connected = await connect(f"/ws/console/runs/{run.pk}/", user)
    assert not connected
    await communicator.disconnect()


async def test_an_unknown_run_is_refused() -> None:
    cast, run = await sync_to_async(_setup)()
    communicator, connected = await connect(f"/ws/console/runs/{run.pk + 99}/", cast.admin)
    assert not connected
    await communicator.disconnect()
