"""Websocket routes of this app (collected by webapp.routing)."""

from __future__ import annotations

from typing import Any

from django.urls import path

from webapp.attempts.consumers import AttemptConsumer, ExerciseLiveConsumer

websocket_urlpatterns: list[Any] = [
    path("ws/attempts/<int:pk>/", AttemptConsumer.as_asgi()),
    path("ws/exercises/<int:pk>/live/", ExerciseLiveConsumer.as_asgi()),
]
