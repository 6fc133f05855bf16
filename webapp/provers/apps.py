from __future__ import annotations

from django.apps import AppConfig


class ProversConfig(AppConfig):
    name = "webapp.provers"
    label = "provers"
