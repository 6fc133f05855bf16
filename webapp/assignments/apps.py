from __future__ import annotations

from django.apps import AppConfig


class AssignmentsConfig(AppConfig):
    name = "webapp.assignments"
    label = "assignments"
