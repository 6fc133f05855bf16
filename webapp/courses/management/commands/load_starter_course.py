"""python manage.py load_starter_course: create or refresh the shipped core-Lean course."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from webapp.courses.importing import load_starter_course


class Command(BaseCommand):
    help = "Create or refresh the starter course (core Lean 4, no Mathlib)."

    def handle(self, *args: Any, **options: Any) -> None:
        course, report = load_starter_course()
        self.stdout.write(f"{course.slug}: {report.summary()}")
