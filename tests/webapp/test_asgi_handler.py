"""The web's ASGI handler runs the middleware chain in one trip into a thread per request
(webapp/core/asgi_handler.py); Django's own handler, with our middleware, crossed between the
event loop and threads once per middleware hook."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import SyncToAsync
from channels.testing import HttpCommunicator
from django.core.handlers.asgi import ASGIHandler

from webapp.core.asgi_handler import SyncChainASGIHandler

pytestmark = pytest.mark.django_db(transaction=True)


async def _trips_into_threads(
    handler: Any, monkeypatch: pytest.MonkeyPatch, path: str
) -> tuple[int, int]:
    trips: list[object] = []
    original = SyncToAsync.__call__

    def counting(self: SyncToAsync, *args: Any, **kwargs: Any) -> Any:  # type: ignore[type-arg]
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
