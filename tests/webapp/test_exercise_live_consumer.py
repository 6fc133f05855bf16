"""ws/exercises/<pk>/live/ : the student's exercise page keeps one socket for its life. It
follows her latest attempt there (each submit's answer tells it which state it draws), so a
submit pays no handshake; an older attempt that ends only updates its history line."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser

from tests.webapp.cast import Cast, make_cast
from webapp.attempts import consumers, live
from webapp.attempts.consumers import CLOSE_FORBIDDEN, CLOSE_UNAUTHENTICATED, SETTLE_S
from webapp.attempts.models import Attempt
from webapp.attempts.routing import websocket_urlpatterns

pytestmark = pytest.mark.django_db(transaction=True)

QUIET = 3 * SETTLE_S


@pytest.fixture
def cast() -> Cast:
    return make_cast()


def _page(cast: Cast, user: Any, shown: str = "") -> WebsocketCommunicator:
    path = f"/ws/exercises/{cast.exercise.pk}/live/" + (f"?shown={shown}" if shown else "")
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), path)
    communicator.scope["user"] = user
    return communicator


@database_sync_to_async
def _submit(cast: Cast, student: Any = None, proof: str = "  rfl") -> Attempt:
    return Attempt.objects.create(
        student=student or cast.student, exercise=cast.exercise, proof=proof
    )


async def _move(attempt: Attempt, status: str, **fields: Any) -> None:
    """What the worker does at each step: write the row, then send the notice."""
    await database_sync_to_async(Attempt.objects.filter(pk=attempt.pk).update)(
        status=status, **fields
    )
    attempt.status = status
    await database_sync_to_async(live.push)(attempt)


async def _tell(page: WebsocketCommunicator, attempt: Attempt, marker: str) -> None:
    """What the submit's answer does once swapped in (htmx ws-send, with its headers)."""
    await page.send_to(text_data=json.dumps({"shown": f"{attempt.pk}:{marker}", "HEADERS": {}}))


async def test_a_page_without_attempts_follows_her_first_submit(cast: Cast) -> None:
    page = _page(cast, cast.student)
    assert (await page.connect())[0]
    assert await page.receive_nothing(timeout=QUIET)  # nothing to show yet
    attempt = await _submit(cast)
    await _tell(page, attempt, "queued-0")  # the answer drew it queued: nothing to resend
    assert await page.receive_nothing(timeout=QUIET)
    await _move(attempt, "checking")
    assert 'data-status="checking"' in await page.receive_from(timeout=2)
    await _move(attempt, "done", valid=True)
    final = await page.receive_from(timeout=2)
    assert "Lean accepts this proof" in final and 'id="attempt-feedback"' in final
    await page.disconnect()


async def test_a_verdict_that_beats_the_answer_to_the_page_is_sent_again(cast: Cast) -> None:
    page = _page(cast, cast.student)
    await page.connect()
    attempt = await _submit(cast)
    await _move(attempt, "done", valid=False)  # the check ended before the answer arrived
    assert "Lean found problems" in await page.receive_from(timeout=2)
    # Then the answer swapped in its "queued" panel over it, and says so: the verdict again.
    await _tell(page, attempt, "queued-0")
    assert "Lean found problems" in await page.receive_from(timeout=2)
    # Told the state it already shows, nothing.
    await _tell(page, attempt, "done-0")
    assert await page.receive_nothing(timeout=QUIET)
    await page.disconnect()


async def test_the_page_is_drawn_once_not_replayed(cast: Cast) -> None:
    attempt = await _submit(cast)
    await _move(attempt, "done", valid=True)
    drawn = _page(cast, cast.student, shown=f"{attempt.pk}:done-0")
    assert (await drawn.connect())[0]
    assert await drawn.receive_nothing(timeout=QUIET)
    await drawn.disconnect()
    # A page drawn before the verdict, or before her last submit, gets the latest state.
    for stale in (f"{attempt.pk}:checking-0", f"{attempt.pk - 1}:done-0", ""):
        page = _page(cast, cast.student, shown=stale)
        await page.connect()
        assert "Lean accepts this proof" in await page.receive_from(timeout=2), stale
        await page.disconnect()


async def test_an_older_attempt_that_ends_updates_only_its_history_line(cast: Cast) -> None:
    page = _page(cast, cast.student)
    await page.connect()
    older = await _submit(cast, proof="  simp")
    newer = await _submit(cast, proof="  omega")
    await _tell(page, newer, "queued-0")
    await _move(older, "superseded")
    line = await page.receive_from(timeout=2)
    assert f'id="history-status-{older.pk}"' in line
    assert 'id="attempt-status"' not in line and 'id="attempt-feedback"' not in line
    await _move(newer, "done", valid=True)
    assert "Lean accepts this proof" in await page.receive_from(timeout=2)
    await page.disconnect()


async def test_other_students_attempts_never_reach_her_page(cast: Cast) -> None:
    page = _page(cast, cast.student)
    await page.connect()
    theirs = await _submit(cast, student=cast.other_student, proof="  secret_tactic")
    await _move(theirs, "done", valid=True)  # their notices go to their page's group
    assert await page.receive_nothing(timeout=QUIET)
    await _tell(page, theirs, "queued-0")  # naming their attempt shows nothing either
    assert await page.receive_nothing(timeout=QUIET)
    await page.disconnect()


async def test_malformed_messages_are_ignored(cast: Cast) -> None:
    page = _page(cast, cast.student)
    await page.connect()
    for text in ("not json", "[]", '{"shown": "x:y"}', '{"shown": null}', "{}"):
        await page.send_to(text_data=text)
    assert await page.receive_nothing(timeout=QUIET)
    attempt = await _submit(cast)
    await _move(attempt, "done", valid=True)  # still listening
    assert "Lean accepts this proof" in await page.receive_from(timeout=2)
    await page.disconnect()


async def test_only_those_who_may_open_the_exercise_connect(cast: Cast) -> None:
    assert (await _page(cast, cast.other_student).connect())[0]  # her own attempts, none yet
    connected, code = await _page(cast, cast.outsider).connect()
    assert (connected, code) == (False, CLOSE_FORBIDDEN)
    connected, code = await _page(cast, AnonymousUser()).connect()
    assert (connected, code) == (False, CLOSE_UNAUTHENTICATED)


@pytest.fixture
def short_wait(monkeypatch: pytest.MonkeyPatch) -> float:
    monkeypatch.setattr(consumers, "CATCH_UP_WAIT_S", 0.3)
    return 0.3


def _history_rows(html: str) -> list[str]:
    """The attempt pks in a history list, in order (each row holds its status badge)."""
    return re.findall(r'id="history-status-(\d+)"', html)


async def test_a_submit_in_another_tab_reaches_this_page_whole(
    cast: Cast, short_wait: float
) -> None:
    earlier = await _submit(cast, proof="  simp")
    await _move(earlier, "done", valid=False)
    page = _page(cast, cast.student, shown=f"{earlier.pk}:done-0")
    await page.connect()
    assert await page.receive_nothing(timeout=QUIET)
    elsewhere = await _submit(cast, proof="  omega")  # the other tab's answer goes there
    await _move(elsewhere, "done", valid=True)
    # At once, its changing parts (into this page's panel, the older attempt's)...
    parts = await page.receive_from(timeout=2)
    assert "Lean accepts this proof" in parts and 'id="attempt-panel"' not in parts
    # ...and after the wait for an answer that is not coming, the whole panel (the right id
    # and Refresh link) and the whole history list.
    whole = await page.receive_from(timeout=short_wait + 2)
    panel, _, history = whole.partition('<section id="history"')
    assert f'id="attempt-panel" class="attempt-panel card" data-attempt="{elsewhere.pk}"' in panel
    assert 'hx-swap-oob="true"' in panel.split(">", 1)[0] and "Lean accepts this proof" in panel
    assert 'hx-swap-oob="true"' in history.split(">", 1)[0]
    assert _history_rows(history) == [str(elsewhere.pk), str(earlier.pk)]
    assert await page.receive_nothing(timeout=short_wait + QUIET)  # once
    await page.disconnect()


async def test_her_own_submit_here_gets_no_catch_up(cast: Cast, short_wait: float) -> None:
    page = _page(cast, cast.student)
    await page.connect()
    attempt = await _submit(cast)
    await _move(attempt, "done", valid=True)  # the verdict beat the answer to the page
    assert "Lean accepts this proof" in await page.receive_from(timeout=2)
    await _tell(page, attempt, "queued-0")  # the answer: its row added, announced in time
    assert "Lean accepts this proof" in await page.receive_from(timeout=2)
    assert await page.receive_nothing(timeout=short_wait + QUIET)
    await page.disconnect()


async def test_a_page_drawn_before_her_last_submit_gets_its_history_on_connect(
    cast: Cast,
) -> None:
    older = await _submit(cast, proof="  simp")
    newer = await _submit(cast, proof="  omega")
    await _move(newer, "done", valid=True)
    page = _page(cast, cast.student, shown=f"{older.pk}:queued-0")
    await page.connect()
    first = await page.receive_from(timeout=2)
    assert "Lean accepts this proof" in first  # the latest panel, whole, and with it
    assert f'data-attempt="{newer.pk}" hx-swap-oob="true"' in first
    assert _history_rows(first.split('id="history"', 1)[1]) == [str(newer.pk), str(older.pk)]
    await page.disconnect()


async def test_a_page_that_closes_cancels_its_pending_redraw(
    cast: Cast, short_wait: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    drawn: list[int] = []
    real = consumers._catch_up

    async def recording(user: Any, exercise: Any, pk: int) -> str | None:
        drawn.append(pk)
        return await real(user, exercise, pk)

    monkeypatch.setattr(consumers, "_catch_up", recording)
    page = _page(cast, cast.student)
    await page.connect()
    attempt = await _submit(cast)
    await _move(attempt, "done", valid=True)
    assert "Lean accepts this proof" in await page.receive_from(timeout=2)
    await page.disconnect()  # before the wait ends
    await asyncio.sleep(short_wait + 0.3)
    assert drawn == []
    # The control: the same page left open draws it.
    page = _page(cast, cast.student, shown=f"{attempt.pk}:done-0")
    await page.connect()
    again = await _submit(cast, proof="  omega")
    await _move(again, "done", valid=True)
    assert "Lean accepts this proof" in await page.receive_from(timeout=2)
    assert 'id="history"' in await page.receive_from(timeout=short_wait + 2)
    assert drawn == [again.pk]
    await page.disconnect()
