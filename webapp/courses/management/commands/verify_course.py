"""python manage.py verify_course SLUG: check every reference proof with the real checker.

Where Lean is not installed it says so plainly and exits with status 2: it never reports a
proof as verified without Lean having checked it.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from webapp.attempts.checking import run_check
from webapp.courses.models import Course, Exercise

UNAVAILABLE_EXIT = 2


class Command(BaseCommand):
    help = "Check every reference proof of a course with Lean (needs a Lean REPL)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("course", help="course slug, e.g. core-lean")

    def handle(self, *args: Any, course: str, **options: Any) -> None:
        target = Course.objects.filter(slug=course).first()
        if target is None:
            raise CommandError(
                f"no course {course!r} (load it first: load_starter_course / import_problems)"
            )
        exercises = Exercise.objects.filter(world__course=target).select_related("world")
        failed, missing = [], []
        for exercise in exercises:
            if not exercise.reference_proof.strip():
                missing.append(exercise.name)
                continue
            outcome = run_check(
                exercise.formal_statement, exercise.reference_proof, exercise.header
            )
            if outcome.unavailable:
                raise CommandError(
                    f"Cannot verify {course}: {outcome.unavailable}. Nothing was checked.",
                    returncode=UNAVAILABLE_EXIT,
                )
            ok = outcome.result is not None and outcome.result.valid and not outcome.failure
            self.stdout.write(f"{'ok  ' if ok else 'FAIL'} {exercise.name}")
            if not ok:
                failed.append(exercise.name)
                self._explain(outcome)
        checked = exercises.count() - len(missing)
        self.stdout.write(f"{checked - len(failed)}/{checked} reference proofs verified by Lean")
        if missing:
            self.stdout.write(
                f"{len(missing)} exercise(s) have no reference proof: {', '.join(missing)}"
            )
        if failed:
            raise CommandError(f"{len(failed)} reference proof(s) failed: {', '.join(failed)}")

    def _explain(self, outcome: Any) -> None:
        if outcome.failure:
            self.stdout.write(f"     {outcome.failure}")
        for d in outcome.result.errors if outcome.result else []:
            self.stdout.write(
                f"     line {d.line}: {d.message.splitlines()[0] if d.message else ''}"
            )
