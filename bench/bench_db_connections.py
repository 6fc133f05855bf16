"""What a database connection per request or per task costs: a query on a reused connection
against the same query on a new one, in one run, as the ratio between them.

    .venv/bin/python bench/bench_db_connections.py                                   # SQLite
    .venv/bin/python bench/bench_db_connections.py --database-url postgres://postgres@127.0.0.1:5432/test

Until the fourth serving session both happened on every submit: Django's ASGI handler ran each
request in a thread of its own (connections are per thread), and Celery's Django fixup
closed the worker's connection around every task (and PostgreSQL's pool with it).
webapp/core/asgi_handler.py and webapp/celery.py now keep them. Measured here on 2026-12-01
(a slow, noisy machine), two runs: SQLite 0.02-0.03 ms reused, 0.67-0.72 ms new (24-34x);
the local PostgreSQL 0.13-0.14 ms reused, 6.6-8 ms of wall time new (1.7-2.2 ms of client
CPU; the server forks a process too), 53-57x. The CPU column is this process's only.
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
    args = parser.parse_args()
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
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
