"""python manage.py export_training_snapshot OUT.jsonl"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand

from webapp.attempts.export import export_training_snapshot


class Command(BaseCommand):
    help = (
        "Export problems, attempts, prover trajectories and curated feedback as a JSONL snapshot."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("out", type=Path, help="where to write the snapshot (.jsonl)")

    def handle(self, *args: Any, out: Path, **options: Any) -> None:
        counts = export_training_snapshot(out)
        summary = ", ".join(f"{n} {kind}" for kind, n in counts.as_dict().items())
        self.stdout.write(f"wrote {out}: {summary}")
