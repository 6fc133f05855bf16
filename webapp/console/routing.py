"""Websocket routes of this app (collected by webapp.routing)."""

from __future__ import annotations

from typing import Any

from django.urls import path

from webapp.console.consumers import TrainingRunConsumer

websocket_urlpatterns: list[Any] = [
    path("ws/console/runs/<int:pk>/", TrainingRunConsumer.as_asgi()),
]
