"""The web's ASGI handler runs the middleware chain in one trip into a thread per request
(webapp/core/asgi_handler.py); Django's own handler, with our middleware, crossed between the
event loop and threads once per middleware hook. Its threads live as long as the handler and
keep their database connections; Django's started a thread and a connection per request."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from asgiref.sync import SyncToAsync
from channels.testing import HttpCommunicator
from django.core.handlers.asgi import ASGIHandler

from webapp.core.asgi_handler import REQUEST_THREADS, SyncChainASGIHandler

REQUESTS = 3 * REQUEST_THREADS

pytestmark = pytest.mark.django_db(transaction=True)


async def _trips_into_threads(
    handler: Any, monkeypatch: pytest.MonkeyPatch, path: str
) -> tuple[int, int]:
    trips: list[object] = []
    original = SyncToAsync.__call__

    def counting(self: SyncToAsync, *args: Any, **kwargs: Any) -> Any:  # type: ignore[type-arg,unused-ignore]
        trips.append(self.func)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(SyncToAsync, "__call__", counting)
    response = await HttpCommunicator(
        handler, "GET", path, headers=[(b"host", b"localhost")]
    ).get_response()
    monkeypatch.undo()
    return response["status"], len(trips)


async def test_a_request_enters_a_thread_once_for_the_whole_chain(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    status, ours = await _trips_into_threads(
        SyncChainASGIHandler(), monkeypatch, "/accounts/login/"
    )
    assert status == 200
    _, djangos = await _trips_into_threads(ASGIHandler(), monkeypatch, "/accounts/login/")
    # Ours: the request_started and request_finished signals and the chain itself.
    assert ours <= 3, ours
    assert djangos >= ours + 5, (djangos, ours)


async def test_the_served_application_uses_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEANCOACH_ASGI_SERVER", "")  # restored after: the import sets it
    from webapp.asgi import django_asgi_app

    assert isinstance(django_asgi_app, SyncChainASGIHandler)


def _signed_in_cookie() -> bytes:
    from django.test import Client

    from tests.webapp.cast import make_cast

    client = Client()
    client.force_login(make_cast().student)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


async def _threads_and_connections_for(
    handler: Any, cookie: bytes, monkeypatch: pytest.MonkeyPatch
) -> tuple[int, int]:
    """Threads started and database connections opened by REQUESTS requests after a first
    one (her dashboard: the session and the user are read from the database)."""
    from django.db.backends.base.base import BaseDatabaseWrapper

    async def get() -> int:
        headers = [(b"host", b"localhost"), (b"cookie", cookie)]
        response = await HttpCommunicator(handler, "GET", "/me/", headers=headers).get_response(
            timeout=20
        )
        return int(response["status"])

    await get()
    started: list[object] = []
    opened: list[object] = []
    start, connect = threading.Thread.start, BaseDatabaseWrapper.connect

    def counted_start(thread: threading.Thread) -> None:
        started.append(thread)
        start(thread)

    def counted_connect(wrapper: BaseDatabaseWrapper) -> None:
        opened.append(wrapper)
        connect(wrapper)

    monkeypatch.setattr(threading.Thread, "start", counted_start)
    monkeypatch.setattr(BaseDatabaseWrapper, "connect", counted_connect)
    statuses = [await get() for _ in range(REQUESTS)]
    monkeypatch.undo()
    assert statuses == [200] * REQUESTS, statuses
    return len(started), len(opened)


async def test_requests_reuse_threads_and_their_database_connections(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from asgiref.sync import sync_to_async

    cookie = await sync_to_async(_signed_in_cookie)()
    threads, connections = await _threads_and_connections_for(
        SyncChainASGIHandler(), cookie, monkeypatch
    )
    # At most one per pool thread, however many requests: a request may find every thread
    # still busy for a moment (a finished thread signals itself idle just after the request's
    # answer), and the pool then grows, up to its size.
    assert threads < REQUEST_THREADS and connections < REQUEST_THREADS, (threads, connections)
    djangos = await _threads_and_connections_for(ASGIHandler(), cookie, monkeypatch)
    assert min(djangos) >= REQUESTS, djangos  # what it replaces: one of each per request
