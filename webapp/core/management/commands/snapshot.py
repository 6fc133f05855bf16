"""Take a snapshot of the database and the checkpoint registry, keeping the newest N.

    python manage.py snapshot [--dir DIR] [--keep N]

Defaults: LEANCOACH_SNAPSHOT_DIR (else var/snapshots) and LEANCOACH_SNAPSHOT_KEEP (else 8).
Prints the snapshot folder. Restore with `python manage.py restore_snapshot DIR --yes`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand

from webapp.core.snapshots import SnapshotConfig, default_config, take_snapshot


class Command(BaseCommand):
    help = "Snapshot the database and the checkpoint registry (keep-N retention)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--dir", default=None, help="where snapshots live")
        parser.add_argument("--keep", type=int, default=None, help="how many to keep")

    def handle(self, *args: Any, dir: str | None = None, keep: int | None = None,
               **options: Any) -> None:  # fmt: skip
        base = default_config()
        config = SnapshotConfig(Path(dir) if dir else base.root, keep or base.keep)
        self.stdout.write(str(take_snapshot(config)))
