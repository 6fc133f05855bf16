"""python manage.py import_problems FILE.jsonl --course SLUG [--title TITLE]"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from webapp.courses.importing import import_records, parse_jsonl
from webapp.courses.models import Course


class Command(BaseCommand):
    help = "Import problems (miniF2F JSONL fields) into a course, creating it if needed."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument("--course", required=True, help="course slug")
        parser.add_argument("--title", help="title when the course is created")

    def handle(self, *args: Any, file: Path, course: str, title: str | None, **opts: Any) -> None:
        if not file.is_file():
            raise CommandError(f"{file} is not a file")
        # A bad byte becomes U+FFFD and fails its own line, not the whole file.
        with file.open(encoding="utf-8", errors="replace") as handle:
            records, errors = parse_jsonl(handle)
        target, _ = Course.objects.get_or_create(slug=course, defaults={"title": title or course})
        report = import_records(target, records)
        report.errors[:0] = errors
        self.stdout.write(f"{target.slug}: {report.summary()}")
        if not records:
            raise CommandError("no usable problems in the file")
