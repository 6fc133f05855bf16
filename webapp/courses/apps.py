from __future__ import annotations

from django.apps import AppConfig


class CoursesConfig(AppConfig):
    name = "webapp.courses"
    label = "courses"
