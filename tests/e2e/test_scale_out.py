"""Scale-out, run: two Celery workers with different host names on the `lean` queue share a
burst of 100 checks, and stopping one mid-burst loses none (late acks, prefetch 1: what it
had reserved goes back to the queue on its warm shutdown and the other finishes it)."""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from webapp.embedded import start_redis

ROOT = Path(__file__).resolve().parents[2]
FAKE_REPL = ROOT / "tests" / "fakes" / "fake_repl.py"
pytestmark = pytest.mark.slow

# A class's burst: {n} checks queued at once. Created and queued as do_submit_attempt does, but
# without its one-unfinished-check-per-student rule (the demo has one student, and that rule
# would supersede or refuse all but one): this test is about workers sharing a queue.
SUBMIT = r"""
from webapp.attempts.actions import enqueue_check
from webapp.attempts.models import Attempt
from django.contrib.auth.models import User
from webapp.courses.models import Exercise
student = User.objects.get(username="student")
exercise = Exercise.objects.filter(world__course__classrooms__students=student).first()
for i in range({n}):
    attempt = Attempt.objects.create(
        student=student, exercise=exercise, proof=f"  simp -- fake: sleep 0.2\n  -- {{i}}"
    )
    assert enqueue_check(attempt)
"""
COUNT = """
from webapp.attempts.models import Attempt
print("finished", Attempt.objects.filter(status__in=Attempt.FINISHED).count(),
      "total", Attempt.objects.count())
"""

STATES = """
from django.db.models import Count
print(list(Attempt.objects.values_list("status").annotate(n=Count("pk"))))
"""


def _manage(env: dict[str, str], *args: str) -> str:
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True,
                          capture_output=True, text=True, timeout=300).stdout  # fmt: skip


@pytest.mark.skipif(not FAKE_REPL.exists(), reason="the REPL test double is missing")
def test_two_lean_workers_share_a_burst_and_lose_nothing_when_one_stops(tmp_path: Path) -> None:
    redis_proc, redis_url = start_redis()
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update(DJANGO_SETTINGS_MODULE="webapp.settings.dev", LEANCOACH_VAR_DIR=str(tmp_path),
               REDIS_URL=redis_url, LEAN_REPL_CMD=shlex.join([sys.executable, str(FAKE_REPL)]))  # fmt: skip
    procs: dict[str, subprocess.Popen[bytes]] = {}
    try:
        _manage(env, "migrate", "--noinput", "-v", "0")
        _manage(env, "seed_demo")
        for name in ("lean-a", "lean-b"):
            log = (tmp_path / f"{name}.log").open("wb")
            procs[name] = subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "webapp", "worker", "-Q", "lean",
                 "-n", f"{name}@%h", "--concurrency", "2", "--loglevel", "INFO"],
                cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )  # fmt: skip
        _wait_for(lambda: all("ready." in (tmp_path / f"{n}.log").read_text() for n in procs), 90)
        _manage(env, "shell", "-c", SUBMIT.format(n=100))
        # Mid-burst: once worker a has done some, stop it (SIGTERM: Celery's warm shutdown).
        _wait_for(lambda: _done(tmp_path / "lean-a.log") >= 5, 120)
        os.killpg(procs["lean-a"].pid, signal.SIGTERM)
        procs["lean-a"].wait(timeout=60)
        stopped_after = _done(tmp_path / "lean-a.log")
        try:
            _wait_for(lambda: "finished 100 " in _manage(env, "shell", "-c", COUNT), 120)
        except AssertionError:
            state = _manage(env, "shell", "-c", COUNT + STATES)
            tail = (tmp_path / "lean-b.log").read_text()[-3000:]
            raise AssertionError(f"not all checks finished: {state}\n{tail}") from None
        runs_a, runs_b = _runs(tmp_path / "lean-a.log"), _runs(tmp_path / "lean-b.log")
        print(f"lean-a took {len(runs_a)} before it stopped, lean-b {len(runs_b)}")
        assert stopped_after == len(runs_a) >= 5 and len(runs_b) >= 1
        assert len(runs_a.keys() | runs_b.keys()) == 100  # every check's message ran: none lost
        # Delivery is at least once: a message whose run ended as lean-a shut down, before its
        # ack reached Redis, goes back to the queue and lean-b gets it again. That second run
        # finds the attempt finished and replays its end state without running Lean: shorter
        # than any check, which sleeps 0.2 s in the double.
        again = runs_a.keys() & runs_b.keys()
        assert all(runs_b[task] < 0.2 for task in again), {t: runs_b[t] for t in again}
        assert len(again) <= 2  # at most what lean-a was finishing when it stopped
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(timeout=30)
        redis_proc.terminate()
        redis_proc.wait(timeout=10)


def _done(log: Path) -> int:
    return len(_runs(log))


def _runs(log: Path) -> dict[str, float]:
    """Each finished run of a check's message in a worker's log: task id -> seconds."""
    found = re.findall(
        r"Task lean\.check_attempt\[([^\]]+)\] succeeded in ([0-9.]+)s", log.read_text()
    )
    return {task: float(seconds) for task, seconds in found}


def _wait_for(condition: Callable[[], object], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.5)
    raise AssertionError("timed out waiting")
