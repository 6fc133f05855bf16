from __future__ import annotations

from django.apps import AppConfig


class LtiConfig(AppConfig):
    name = "webapp.lti"
    label = "lti"
