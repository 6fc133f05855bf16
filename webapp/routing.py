"""Websocket routes of every app, collected in one list for webapp.asgi."""

from __future__ import annotations

from typing import Any

from webapp.attempts import routing as attempts
from webapp.console import routing as console
from webapp.provers import routing as provers

websocket_urlpatterns: list[Any] = [
    *attempts.websocket_urlpatterns,
    *provers.websocket_urlpatterns,
    *console.websocket_urlpatterns,
]
