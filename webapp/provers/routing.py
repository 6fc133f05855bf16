"""Websocket routes of this app (collected by webapp.routing)."""

from __future__ import annotations

from typing import Any

from django.urls import path

from webapp.provers.consumers import ProverRunConsumer

websocket_urlpatterns: list[Any] = [
    path("ws/prover/runs/<int:pk>/", ProverRunConsumer.as_asgi()),
]
