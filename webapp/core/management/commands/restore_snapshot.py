"""Restore a snapshot made by `manage.py snapshot`: the database and the checkpoint registry.

    python manage.py restore_snapshot DIR --yes

Stop the web and the workers first (docs/OPERATIONS.md). The checksums are verified before
anything changes; the current registry is kept beside it as `<root>.before-restore-<time>`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from webapp.core.snapshots import restore_snapshot


class Command(BaseCommand):
    help = "Restore the database and the checkpoint registry from a snapshot folder."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("folder")
        parser.add_argument("--yes", action="store_true", help="really replace current data")

    def handle(self, *args: Any, folder: str, yes: bool = False, **options: Any) -> None:
        if not yes:
            raise CommandError("this replaces the database and the registry: add --yes")
        try:
            manifest = restore_snapshot(Path(folder))
        except (OSError, ValueError) as exc:
            raise CommandError(f"not restored: {exc}") from exc
        self.stdout.write(f"Restored the snapshot of {manifest['created']} from {folder}.")
