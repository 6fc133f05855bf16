"""Websocket routes of this app (collected by webapp.routing)."""

from __future__ import annotations

from typing import Any

websocket_urlpatterns: list[Any] = []
