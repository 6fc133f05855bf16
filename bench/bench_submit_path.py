"""The submit path's own CPU, in process: what one submit costs the web (the POST), the worker
(the check) and the student's page socket (the verdict's render), without serving machinery,
queues or other processes. Repeatable to a few percent on a noisy machine, where the stack's
figures (bench/bench_web.py) move by 20-50% between runs: the tool to compare code.

    .venv/bin/python bench/bench_submit_path.py            # 60 students, two rounds
    .venv/bin/python bench/bench_submit_path.py --students 30 --profile post
    .venv/bin/python bench/bench_submit_path.py --students 5 --rounds 1 --sql

It builds the embedded settings' database in a temporary folder (seed_demo), logs in N
students, and for each round: every student submits (Django's test client, one shared
handler: the view, the middleware, the template), each attempt is checked by calling the
`lean.check_attempt` task in process (the REPL test double, tests/fakes/fake_repl.py; the
notices go to Redis, REDIS_URL, default the local one's db 9), and the exercise page socket's
read and render of the verdict runs for each (webapp/attempts/consumers.py). It prints CPU
ms per submit for each part and, as the ratio's denominator, the student's GET of the
exercise page through the same client (the page she submits from), plus the queries each
part runs.
`--profile post|check|render` prints cProfile's top functions for one more round of it.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import shlex
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import md_table  # noqa: E402

PROOF = "theorem bench (n : Nat) : n + 0 = n := by\n  simp\n"


def setup_django(var: str) -> None:
    from webapp.launch import _serving_settings

    env: dict[str, str] = {}
    _serving_settings(env)  # what `make run` serves with
    os.environ.update(env)
    os.environ.pop("DATABASE_URL", None)
    os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/9")
    fake_repl = shlex.join([sys.executable, str(ROOT / "tests" / "fakes" / "fake_repl.py")])
    os.environ.update(LEANCOACH_VAR_DIR=var, LEANCOACH_CHECKPOINTS=f"{var}/checkpoints",
                      LEAN_REPL_CMD=fake_repl)  # fmt: skip
    import django

    django.setup()
    from django.core.management import call_command

    with open(os.devnull, "w") as quiet:
        call_command("migrate", "--noinput", verbosity=0, stdout=quiet)
        call_command("seed_demo", stdout=quiet)
        call_command("collectstatic", "--noinput", verbosity=0, stdout=quiet)


def cpu_ms_each(fn: Callable[[Any], Any], items: list[Any]) -> tuple[float, list[Any]]:
    started = time.process_time()
    results = [fn(item) for item in items]
    return (time.process_time() - started) / len(items) * 1000, results


def queries_of(fn: Callable[[], Any]) -> list[str]:
    from django.db import connection

    seen: list[str] = []

    def count(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        seen.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(count):
        fn()
    return seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--profile", choices=["post", "check", "render"], default="")
    parser.add_argument("--sql", action="store_true", help="print each part's queries")
    parser.add_argument(
        "--markdown", action="store_true", help="also print bench/README.md's table"
    )
    args = parser.parse_args()
    machine = md_table.machine()
    markdown_rows: list[tuple[str, ...]] = []
    os.chdir(ROOT)
    setup_django(tempfile.mkdtemp(prefix="bench-submit-"))

    from django.contrib.auth.models import User
    from django.test import Client
    from django.urls import reverse

    from webapp.accounts.models import Classroom
    from webapp.attempts import consumers, tasks
    from webapp.attempts.models import Attempt
    from webapp.courses.models import Exercise

    classroom = Classroom.objects.first()
    assert classroom is not None, "seed_demo made no class"
    course = classroom.courses.first()
    assert course is not None, "the demo class has no course"
    exercise = Exercise.objects.filter(world__course=course).order_by("world__order", "pk")[0]
    rounds = args.rounds + (1 if args.profile else 0)
    students = []
    for i in range(args.students * rounds + 3):  # the last three: the query counts
        user, _ = User.objects.get_or_create(username=f"bench{i}")
        classroom.students.add(user)
        students.append(user)
    clients: list[Client] = []
    for user in students:
        client = Client(HTTP_HOST="127.0.0.1", headers={"HX-Request": "true"})
        client.force_login(user)
        if clients:  # one handler (middleware loaded once), as one web process has
            client.handler = clients[0].handler
        clients.append(client)
    submit_url = reverse("attempts:submit", args=[exercise.pk])
    render = consumers._own_state.func  # the page socket's read and render, without the hop

    def post(i: int) -> tuple[int, int]:
        response = clients[i].post(submit_url, {"proof": PROOF})
        assert response.status_code == 200, response.status_code
        return i, Attempt.objects.filter(student=students[i]).order_by("-pk")[0].pk

    def check(pair: tuple[int, int]) -> None:
        tasks.check_attempt.run(pair[1])

    def show(pair: tuple[int, int]) -> None:
        state = render(students[pair[0]], exercise, pair[1])
        assert state.html and "done" in state.html

    page_url = exercise.get_absolute_url()
    assert page_url, "the exercise has no page"

    def exercise_page(i: int) -> None:
        assert clients[i].get(page_url).status_code == 200

    print(f"{args.students} students, exercise {exercise.name}; CPU ms per submit, in process")
    for n in range(args.rounds):
        batch = list(range(n * args.students, (n + 1) * args.students))
        base, _ = cpu_ms_each(exercise_page, batch)
        post_ms, pairs = cpu_ms_each(post, batch)
        check_ms, _ = cpu_ms_each(check, pairs)
        render_ms, _ = cpu_ms_each(show, pairs)
        total = post_ms + check_ms + render_ms
        print(f"  round {n + 1} ({'cold' if n == 0 else 'warm'}): post {post_ms:.2f}, check "
              f"{check_ms:.2f}, render {render_ms:.2f}; all {total:.2f} ms = "
              f"{total / base:.2f}x her exercise page's GET ({base:.2f} ms)")  # fmt: skip
        markdown_rows.append((
            f"{n + 1} ({'cold' if n == 0 else 'warm'})", f"{base:.2f}", f"{post_ms:.2f}",
            f"{check_ms:.2f}", f"{render_ms:.2f}", f"{total:.2f}", f"{total / base:.2f}x",
        ))  # fmt: skip
    last = len(students) - 1  # a first submit each, as in the rounds
    post_queries = queries_of(lambda: post(last))
    checked = post(last - 1)
    check_queries = queries_of(lambda: check(checked))
    shown = post(last - 2)
    check(shown)
    render_queries = queries_of(lambda: show(shown))
    print(f"  queries: post {len(post_queries)} (and the bench's own read of the new pk), "
          f"check {len(check_queries)}, render {len(render_queries)}")  # fmt: skip
    if args.markdown:
        markdown_rows.append(("queries", "", str(len(post_queries)), str(len(check_queries)),
                              str(len(render_queries)), "", ""))  # fmt: skip
        md_table.print_table(
            [
                "round",
                "her exercise page (GET), CPU ms",
                "submit POST",
                "check (worker)",
                "verdict's render (socket)",
                "whole submit",
                "x the page",
            ],
            markdown_rows,
            machine,
        )
    if args.sql:
        for part, sqls in (("post", post_queries), ("check", check_queries),
                           ("render", render_queries)):  # fmt: skip
            print(f"\n  {part}:")
            for sql in sqls:
                print(f"    {sql[:300]}")
    if args.profile:
        batch = list(range(args.rounds * args.students, (args.rounds + 1) * args.students))
        pairs = [post(i) for i in batch] if args.profile != "post" else []
        if args.profile == "render":
            for one in pairs:
                check(one)

        def work() -> None:
            for i, one in enumerate(pairs or batch):
                if args.profile == "post":
                    post(batch[i])
                elif args.profile == "check":
                    check(one)
                else:
                    show(one)

        profiler = cProfile.Profile()
        profiler.runcall(work)
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(40)


if __name__ == "__main__":
    main()
