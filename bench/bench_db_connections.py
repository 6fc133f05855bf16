"""What a database connection per request or per task costs: a query on a reused connection
against the same query on a new one, in one run, as the ratio between them.

    .venv/bin/python bench/bench_db_connections.py                                   # SQLite
    .venv/bin/python bench/bench_db_connections.py --database-url postgres://postgres@127.0.0.1:5432/test

Why it matters: Django's ASGI handler runs each request in a thread of its own and
connections are per thread, so the web lends PostgreSQL connections from a per-process pool
(docs/OPERATIONS.md, "Start"); Celery workers keep one connection per process across tasks
(webapp/celery.py). The CPU column is this process's only: a new PostgreSQL connection also
costs the server a process. `--markdown` prints the figures as bench/README.md's table.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import md_table  # noqa: E402


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure(connection: object, fresh: bool, n: int) -> tuple[float, float]:
    """(wall ms, CPU ms) per `SELECT 1`, on a new connection each time or on one kept."""
    connection.close()  # type: ignore[attr-defined]
    connection.ensure_connection()  # type: ignore[attr-defined]
    wall, cpu = time.perf_counter(), _cpu()
    for _ in range(n):
        if fresh:
            connection.close()  # type: ignore[attr-defined]
        with connection.cursor() as cursor:  # type: ignore[attr-defined]
            cursor.execute("SELECT 1")
    return 1000 * (time.perf_counter() - wall) / n, 1000 * (_cpu() - cpu) / n


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default="", help="default: the embedded SQLite")
    parser.add_argument("-n", type=int, default=200, help="queries per measurement")
    parser.add_argument(
        "--markdown", action="store_true", help="also print bench/README.md's table"
    )
    args = parser.parse_args()
    machine = md_table.machine()
    os.environ["DJANGO_SETTINGS_MODULE"] = "webapp.settings.embedded"
    if args.database_url:
        os.environ["DATABASE_URL"] = args.database_url
    import django

    django.setup()
    from django.db import connection

    print(f"{connection.vendor}: {args.n} x SELECT 1, twice each, alternating")
    rows: dict[bool, list[tuple[float, float]]] = {False: [], True: []}
    for fresh in (False, True, False, True):
        rows[fresh].append(measure(connection, fresh, args.n))
    kept = min(rows[False])
    new = min(rows[True])
    for label, (wall, cpu) in (("reused connection", kept), ("new connection", new)):
        print(f"  {label:<18} wall {wall:6.2f} ms  cpu {cpu:6.2f} ms  per query")
    print(f"  new / reused: wall {new[0] / kept[0]:.1f}x, cpu {new[1] / max(kept[1], 1e-6):.1f}x")
    if args.markdown:
        md_table.print_table(
            ["database", "per `SELECT 1`", "reused connection", "new connection", "new / reused"],
            [
                (
                    connection.vendor,
                    "wall ms",
                    f"{kept[0]:.2f}",
                    f"{new[0]:.2f}",
                    f"{new[0] / kept[0]:.1f}x",
                ),
                (
                    connection.vendor,
                    "CPU ms (this process)",
                    f"{kept[1]:.2f}",
                    f"{new[1]:.2f}",
                    f"{new[1] / max(kept[1], 1e-6):.1f}x",
                ),
            ],
            machine,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
