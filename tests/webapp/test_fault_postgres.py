"""Fault injection (issue 14): PostgreSQL "restarts" under a real web server and worker while
checks are in flight. The shared server cannot be restarted from a test, so the restart is
simulated the way clients see one: every backend of the stack's own database is terminated
(pg_terminate_backend), which drops each open connection exactly as a restart does.

The test creates and drops its own database (never the shared ones) and its own Redis; it
skips, saying why, where PostgreSQL is not reachable."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.webapp.test_fault_injection import (
    _log_in,
    _manage,
    _stack_env,
    _start_web_and_worker,
    _wait,
)
from webapp.embedded import free_port, start_redis

pytestmark = pytest.mark.slow

UNFINISHED = {"queued", "checking", "coaching"}

PREPARE = """
from django.contrib.auth.models import User
from webapp.courses.models import Exercise
u = User.objects.get(username="student"); u.set_password("pg-fault-pass-123"); u.save()
print(",".join(str(pk) for pk in Exercise.objects.order_by("pk").values_list("pk", flat=True)))
"""


def _terminate_backends(admin: Any, name: str) -> int:
    rows = admin.execute(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        "WHERE datname = %s AND pid <> pg_backend_pid()",
        (name,),
    ).fetchall()
    return sum(1 for (ok,) in rows if ok)


def _rows(url: str) -> list[tuple[str, str, int]]:
    import psycopg

    with psycopg.connect(url, connect_timeout=5) as db:  # a fresh one: old ones get killed
        cur = db.execute("SELECT status, status_detail, exercise_id FROM attempts_attempt")
        return [(str(s), str(d), int(e)) for s, d, e in cur.fetchall()]


@pytest.mark.timeout(180)
def test_a_postgres_restart_during_checks_leaves_nothing_stuck(
    tmp_path: Path, pg_database: tuple[str, Any]
) -> None:
    import httpx

    url, (admin, name) = pg_database
    redis_proc, redis_url = start_redis()
    web_port = free_port()
    procs: list[subprocess.Popen[bytes]] = []
    try:
        env = {**_stack_env(tmp_path, redis_url), "DATABASE_URL": url}
        _manage(env, "migrate", "--noinput", "-v", "0")
        _manage(env, "seed_demo")
        out = _manage(env, "shell", "-c", PREPARE).strip().splitlines()[-1]
        exercises = [int(pk) for pk in out.split(",")]
        assert len(exercises) >= 6, exercises
        procs += _start_web_and_worker(env, tmp_path, web_port, concurrency=2)
        with httpx.Client(base_url=f"http://127.0.0.1:{web_port}", timeout=30) as client:
            login = _log_in(client, "student", "pg-fault-pass-123")
            assert login.status_code == 302, login.text[-500:]
            headers = {"X-CSRFToken": client.cookies["csrftoken"], "HX-Request": "true"}
            answers: list[tuple[int, int, bool]] = []  # (exercise, status, accepted)

            def submit(i: int) -> None:
                exercise = exercises[i % 6]  # repeats: supersede and refusal paths too
                r = client.post(f"/attempts/submit/{exercise}/", headers=headers,
                                data={"proof": f"  -- fake: sleep 2\n  sorry -- {i}"})  # fmt: skip
                refused = r.headers.get("HX-Retarget") == "#form-errors"
                if refused:  # a refusal is shown next to the editor, with the reason
                    assert "form-error" in r.text and len(r.text.strip()) > 40, r.text
                answers.append((exercise, r.status_code, not refused))

            for i in range(3):
                submit(i)
            _wait(lambda: any(s == "checking" for s, _, _ in _rows(url)), 60, "a check to start")
            killed = _terminate_backends(admin, name)  # the "restart", with checks in flight
            for i in range(3, 9):
                submit(i)
            time.sleep(0.5)
            killed += _terminate_backends(admin, name)  # and once more, mid-burst
            for i in range(9, 12):
                submit(i)

            def all_ended() -> bool:
                return all(s not in UNFINISHED for s, _, _ in _rows(url))

            _wait(all_ended, 90, "every attempt to end")
            # The web recovered by itself: pages and their data load after the restarts.
            import psycopg

            with psycopg.connect(url) as db:
                row = db.execute("SELECT max(id) FROM attempts_attempt").fetchone()
            assert row is not None
            last = row[0]
            page = client.get(f"/attempts/{last}/")
            home = client.get("/", follow_redirects=True)
        assert killed >= 2, "the simulated restart closed no connection"
        assert [code for _, code, _ in answers] == [200] * len(answers), answers
        assert home.status_code == 200 and page.status_code == 200, page.text[-500:]
        rows = _rows(url)
        assert len(rows) == sum(1 for _, _, accepted in answers if accepted)  # none lost
        for status, detail, _ in rows:
            assert status in {"done", "failed", "superseded", "unavailable"}, (status, detail)
            assert status == "done" or detail, (status, detail)
        assert sum(1 for s, _, _ in rows if s == "done") >= 1
        worker_log = (tmp_path / "worker.log").read_text(errors="replace")
        refused = sum(1 for _, _, accepted in answers if not accepted)
        print(f"killed {killed} connections; {refused} submits refused; "
              f"ends: {sorted(s for s, _, _ in rows)}")  # fmt: skip
        # The check that was in flight lost its connection and was retried by its task (not
        # left to the sweeper): the restart happened while it was checking.
        assert "database connection lost" in worker_log, worker_log[-3000:]
    finally:
        for proc in procs:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        redis_proc.terminate()
        redis_proc.wait(timeout=10)
