"""The project's prepared reads (webapp/core/prepared.py) against the plain querysets they
stand for, in process: CPU per read, and each as a ratio of the plain one in the same run.

    .venv/bin/python bench/bench_orm_reads.py            # 2000 reads of each
    .venv/bin/python bench/bench_orm_reads.py --reads 500

It builds the embedded settings' database in a temporary folder (seed_demo, as
bench/bench_submit_path.py does), makes one student with one checked attempt (messages,
suggestions), and times, alternately, each read both ways with the same keys.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


def cpu_us(fn: Callable[[], Any], n: int) -> float:
    fn()  # compiled (the prepared one) and warm before timing
    started = time.process_time()
    for _ in range(n):
        fn()
    return (time.process_time() - started) / n * 1e6


def _plain(read: Any, keys: dict[str, Any]) -> list[Any]:
    return list(read.queryset(**keys))


def _prepared(read: Any, keys: dict[str, Any]) -> list[Any]:
    return read.all(**keys)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reads", type=int, default=2000)
    args = parser.parse_args()
    from bench_submit_path import setup_django

    setup_django(tempfile.mkdtemp(prefix="bench-orm-"))
    from django.contrib.auth.models import User

    from webapp.accounts import backends
    from webapp.accounts.models import Classroom
    from webapp.attempts import access, actions, consumers, live, tasks
    from webapp.attempts.models import Attempt, LineDiagnostic, Suggestion
    from webapp.core import sessions
    from webapp.courses import access as course_access
    from webapp.courses.models import Exercise

    classroom = Classroom.objects.first()
    assert classroom is not None, "seed_demo made no class"
    student = User.objects.create(username="bench-orm")
    classroom.students.add(student)
    exercise = Exercise.objects.filter(world__course__classrooms=classroom).first()
    assert exercise is not None
    attempt = Attempt.objects.create(
        student=student, exercise=exercise, proof="  simp\n  rfl", status="done", valid=False
    )
    for line in (1, 2):
        LineDiagnostic.objects.create(attempt=attempt, line=line, severity="error", message="m")
        Suggestion.objects.create(attempt=attempt, line=line, text="try this")
    course = exercise.world.course
    store = sessions.SessionStore()
    store["bench"] = "yes"
    store.save()
    session_key = store.session_key
    reads: list[tuple[str, Any, dict[str, Any]]] = [
        ("her exercise, by pk", course_access._JOINED[frozenset({"pk"})],
         {"student": student.pk, "pk": exercise.pk}),
        ("her exercise, by course and name",
         course_access._JOINED[frozenset({"world__course__slug", "name"})],
         {"student": student.pk, "slug": course.slug, "name": exercise.name}),
        ("her attempt, with exercise, course, student", access._OWN_ATTEMPT[()],
         {"pk": attempt.pk, "student": student.pk}),
        ("the check's attempt, with exercise", tasks._ATTEMPT_WITH_EXERCISE, {"pk": attempt.pk}),
        ("her attempt on her exercise page", consumers._OWN_BY_PK,
         {"student": student.pk, "exercise": exercise.pk, "pk": attempt.pk}),
        ("an attempt's messages", live._DIAGNOSTICS, {"attempt": attempt.pk}),
        ("an attempt's suggestions, with reviews", live._SUGGESTIONS, {"attempt": attempt.pk}),
        ("her unfinished attempts (the submit)", actions._UNFINISHED,
         {"student": student.pk, "exercise": exercise.pk}),
        ("a session, by its key", sessions._BY_KEY, {"key": session_key}),
        ("the signed-in user", backends._USER_BY_PK, {"pk": student.pk}),
    ]  # fmt: skip
    print(f"CPU per read, {args.reads} reads each (µs); plain = the queryset, compiled each time")
    for name, read, keys in reads:
        plain = cpu_us(partial(_plain, read, keys), args.reads)
        prepared = cpu_us(partial(_prepared, read, keys), args.reads)
        print(f"  {name:46s} plain {plain:7.1f}  prepared {prepared:7.1f}  "
              f"ratio {prepared / plain:.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
