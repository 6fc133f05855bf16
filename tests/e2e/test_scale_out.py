"""Scale-out, run: two Celery workers with different host names on the `lean` queue share a
burst of 100 checks, and stopping one mid-burst loses none (late acks, prefetch 1: what it
had reserved goes back to the queue on its warm shutdown and the other finishes it)."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from tests.e2e.workers import (
    FAKE_REPL,
    manage,
    runs,
    start_worker,
    stop_all,
    wait_for,
    worker_env,
)
from webapp.embedded import start_redis

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


@pytest.mark.skipif(not FAKE_REPL.exists(), reason="the REPL test double is missing")
def test_two_lean_workers_share_a_burst_and_lose_nothing_when_one_stops(tmp_path: Path) -> None:
    redis_proc, redis_url = start_redis()
    env = worker_env(tmp_path, redis_url)
    procs: dict[str, subprocess.Popen[bytes]] = {}
    try:
        manage(env, "migrate", "--noinput", "-v", "0")
        manage(env, "seed_demo")
        for name in ("lean-a", "lean-b"):
            procs[name] = start_worker(env, tmp_path, name, "lean")
        wait_for(lambda: all("ready." in (tmp_path / f"{n}.log").read_text() for n in procs), 90)
        manage(env, "shell", "-c", SUBMIT.format(n=100))
        # Mid-burst: once worker a has done some, stop it (SIGTERM: Celery's warm shutdown).
        wait_for(lambda: _done(tmp_path / "lean-a.log") >= 5, 120)
        os.killpg(procs["lean-a"].pid, signal.SIGTERM)
        procs["lean-a"].wait(timeout=60)
        stopped_after = _done(tmp_path / "lean-a.log")
        try:
            wait_for(lambda: "finished 100 " in manage(env, "shell", "-c", COUNT), 120)
        except AssertionError:
            state = manage(env, "shell", "-c", COUNT + STATES)
            tail = (tmp_path / "lean-b.log").read_text()[-3000:]
            raise AssertionError(f"not all checks finished: {state}\n{tail}") from None
        runs_a, runs_b = runs(tmp_path / "lean-a.log"), runs(tmp_path / "lean-b.log")
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
        stop_all(procs.values())
        redis_proc.terminate()
        redis_proc.wait(timeout=10)


def _done(log: Path) -> int:
    return len(runs(log))
