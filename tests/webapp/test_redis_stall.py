"""Fault test: a Redis that stops answering (SIGSTOP of a private redis-server: its port still
accepts connections, nothing answers) must not hang the site (issue 26, item 3). While it is
stopped, pages that do not need Redis answer, /healthz says `down` within 5 s, a submit gets
a clear "submit again" with the proof kept; once it answers again, everything recovers by
itself and a new submit is checked. Every client has a timeout of 1-2 s
(tutor/redis_boundary.py); without them, each of these waited for as long as Redis stalled.

The stack is the real one: uvicorn with webapp.asgi, a Celery worker on the `lean` queue and
the Lean REPL test double, on a SQLite database in the test's folder."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from tests.webapp.test_fault_injection import (
    SET_PASSWORD,
    _all_statuses,
    _log_in,
    _manage,
    _stack_env,
    _start_web_and_worker,
    _wait,
)
from webapp.embedded import free_port, start_redis

pytestmark = pytest.mark.slow

# Bounds for answers during the stall. The session's cache read and write each wait out one
# socket timeout (1 s) before the database answers; the rest is the page itself on a shared
# 2-core machine.
PAGE_BOUND_S = 6.0
HEALTH_BOUND_S = 5.0
SUBMIT_BOUND_S = 20.0


def _timed_get(client: httpx.Client, path: str) -> tuple[int, float, str]:
    started = time.monotonic()
    answer = client.get(path)
    return answer.status_code, time.monotonic() - started, answer.text


@pytest.mark.timeout(240)
def test_a_stalled_redis_hangs_nothing_and_everything_recovers(tmp_path: Path) -> None:
    port, web_port = free_port(), free_port()
    redis_proc, url = start_redis(port)
    procs: list[subprocess.Popen[bytes]] = []
    stopped = False
    try:
        env = _stack_env(tmp_path, url)
        _manage(env, "migrate", "--noinput", "-v", "0")
        _manage(env, "seed_demo")
        exercises = [
            int(pk) for pk in _manage(env, "shell", "-c", SET_PASSWORD).split()[-1].split(",")
        ]
        procs += _start_web_and_worker(env, tmp_path, web_port, concurrency=1)
        base = f"http://127.0.0.1:{web_port}"
        with (
            httpx.Client(base_url=base, timeout=60) as student,
            httpx.Client(base_url=base, timeout=60) as anonymous,
        ):
            assert _log_in(student, "student", "burst-pass-123").status_code == 302
            headers = {"X-CSRFToken": student.cookies["csrftoken"], "HX-Request": "true"}
            assert student.get("/me/").status_code == 200  # her session is cached in Redis

            os.kill(redis_proc.pid, signal.SIGSTOP)
            stopped, stalled_at = True, time.monotonic()

            # /healthz: `down` within 5 s of the stall (its answer is cached 2 s at most).
            health = 200
            while health != 503 and time.monotonic() - stalled_at < 30:
                health, _, _ = _timed_get(anonymous, "/healthz")
                if health != 503:
                    time.sleep(0.2)
            down_after = time.monotonic() - stalled_at
            assert health == 503, "healthz never said down"
            assert down_after <= HEALTH_BOUND_S, f"healthz said down after {down_after:.1f} s"

            code, took, _ = _timed_get(anonymous, "/accounts/login/")
            assert code == 200 and took <= PAGE_BOUND_S, (code, took)
            code, took, page = _timed_get(student, "/me/")
            assert code == 200 and took <= PAGE_BOUND_S, (code, took)
            assert "student" in page  # still signed in: the database holds her session

            started = time.monotonic()
            answer = student.post(f"/attempts/submit/{exercises[0]}/",
                                  data={"proof": "  sorry -- in the stall"}, headers=headers)  # fmt: skip
            took = time.monotonic() - started
            assert answer.status_code == 200 and took <= SUBMIT_BOUND_S, (answer.status_code, took)
            assert "submit it again" in answer.text, answer.text[-1500:]
            rows = _all_statuses(tmp_path)
            assert rows and rows[-1][0] == "failed", rows  # stored, with the reason shown

            os.kill(redis_proc.pid, signal.SIGCONT)
            stopped, resumed_at = False, time.monotonic()

            # Everything comes back by itself: /healthz leaves `down`, a submit is checked.
            _wait(lambda: anonymous.get("/healthz").status_code == 200, 30, "healthz to recover")
            print(f"healthz down {down_after:.1f} s into the stall, back "
                  f"{time.monotonic() - resumed_at:.1f} s after it")  # fmt: skip
            answer = student.post(f"/attempts/submit/{exercises[1]}/",
                                  data={"proof": "  sorry -- after the stall"}, headers=headers)  # fmt: skip
            assert answer.status_code == 200, answer.text[-1500:]
            _wait(lambda: _all_statuses(tmp_path)[-1][0] == "done", 90, "the check after the stall")
    finally:
        if stopped:
            os.kill(redis_proc.pid, signal.SIGCONT)
        for proc in procs:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        redis_proc.terminate()
        redis_proc.wait(timeout=10)
