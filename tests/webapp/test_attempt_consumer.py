"""ws/attempts/<pk>/ : the user is checked in connect(), the state is replayed, and each notice
from the worker is rendered for the watcher."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser

from tests.webapp.cast import Cast, make_cast
from webapp.attempts import consumers, live
from webapp.attempts.consumers import CLOSE_FORBIDDEN, CLOSE_UNAUTHENTICATED, SETTLE_S
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


def _communicator(attempt: Attempt, user: Any, query: str = "") -> WebsocketCommunicator:
    path = f"/ws/attempts/{attempt.pk}/" + (f"?{query}" if query else "")
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), path)
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


def _queued(cast: Cast) -> Attempt:
    return Attempt.objects.create(student=cast.student, exercise=cast.exercise, proof="  rfl")


async def _move(attempt: Attempt, status: str, **fields: Any) -> None:
    """What the worker does at each step: write the row, then send the notice."""
    await database_sync_to_async(Attempt.objects.filter(pk=attempt.pk).update)(
        status=status, **fields
    )
    attempt.status = status
    await database_sync_to_async(live.push)(attempt)


async def test_a_notice_is_rendered_for_the_watcher_from_the_database(
    world: tuple[Cast, Attempt],
) -> None:
    cast, _ = world
    attempt = await database_sync_to_async(_queued)(cast)
    communicator = _communicator(attempt, cast.student)
    await communicator.connect()
    assert 'data-status="queued"' in await communicator.receive_from()  # the replay
    await _move(attempt, "checking")
    assert 'data-status="checking"' in await communicator.receive_from(timeout=2)
    await _move(attempt, "done", valid=True)
    assert "Lean accepts this proof" in await communicator.receive_from(timeout=2)
    await _move(attempt, "done")  # a late notice changes nothing once the end was sent
    assert await communicator.receive_nothing(timeout=3 * SETTLE_S)
    await communicator.disconnect()


async def test_a_quick_checks_steps_fold_into_one_render(
    world: tuple[Cast, Attempt], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(consumers, "SETTLE_S", 0.5)  # the three steps land well within it
    cast, _ = world
    attempt = await database_sync_to_async(_queued)(cast)
    communicator = _communicator(attempt, cast.student)
    await communicator.connect()
    await communicator.receive_from()  # the replay
    await _move(attempt, "checking")
    await _move(attempt, "coaching")
    await _move(attempt, "done", valid=False)
    final = await communicator.receive_from(timeout=2)
    assert 'data-status="done"' in final and "Lean found problems" in final
    assert await communicator.receive_nothing(timeout=3 * SETTLE_S)
    await communicator.disconnect()


async def test_a_page_already_showing_the_state_gets_no_replay(world: tuple[Cast, Attempt]) -> None:
    cast, _ = world
    attempt = await database_sync_to_async(_queued)(cast)
    shown = _communicator(attempt, cast.student, query=f"shown={attempt.live_marker}")
    assert (await shown.connect())[0]
    assert await shown.receive_nothing(timeout=3 * SETTLE_S)
    await _move(attempt, "checking")  # what comes next still arrives
    assert 'data-status="checking"' in await shown.receive_from(timeout=2)
    await shown.disconnect()
    # A page that rendered an older state (queued, before the sweeper re-queued it) is sent
    # the current one.
    stale = _communicator(attempt, cast.student, query="shown=queued-0")
    await database_sync_to_async(Attempt.objects.filter(pk=attempt.pk).update)(
        status="queued", requeues=1
    )
    await stale.connect()
    assert 'data-status="queued"' in await stale.receive_from()
    await stale.disconnect()


async def test_a_finished_attempt_is_replayed_whatever_the_page_shows(
    world: tuple[Cast, Attempt],
) -> None:
    cast, attempt = world  # done: teachers' reviews may change what it shows
    communicator = _communicator(attempt, cast.student, query=f"shown={attempt.live_marker}")
    await communicator.connect()
    assert "simp made no progress" in await communicator.receive_from()
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
