from __future__ import annotations

from django.apps import AppConfig


class AttemptsConfig(AppConfig):
    name = "webapp.attempts"
    label = "attempts"
