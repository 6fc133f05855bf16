"""Run, not only wired: a worker on the `lean` queue starts a REPL in each pool process as
it starts, before any check is sent, and the first check uses it (no new REPL); a worker on
other queues starts none."""

from __future__ import annotations

import subprocess
from pathlib import Path

import psutil
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

ONE_CHECK = """
from django.contrib.auth.models import User
from webapp.attempts.actions import do_submit_attempt
from webapp.courses.models import Exercise
student = User.objects.get(username="student")
exercise = Exercise.objects.filter(world__course__classrooms__students=student).first()
do_submit_attempt(student, exercise, "  simp")
"""


def _repls(worker: subprocess.Popen[bytes]) -> set[int]:
    """The REPL double's processes under the worker (its pool processes' children), without
    the bubblewrap processes around them where the sandbox is usable."""
    try:
        tree = psutil.Process(worker.pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return set()
    found = set()
    for proc in tree:
        try:
            command = proc.cmdline()
            if command and "bwrap" not in Path(command[0]).name and str(FAKE_REPL) in command:
                found.add(proc.pid)
        except psutil.NoSuchProcess:
            continue
    return found


@pytest.mark.skipif(not FAKE_REPL.exists(), reason="the REPL test double is missing")
def test_a_lean_worker_has_its_repls_before_the_first_check(tmp_path: Path) -> None:
    redis_proc, redis_url = start_redis()
    env = worker_env(tmp_path, redis_url)
    procs: dict[str, subprocess.Popen[bytes]] = {}
    try:
        manage(env, "migrate", "--noinput", "-v", "0")
        manage(env, "seed_demo")
        for name, queues in (("lean", "lean"), ("other", "prover,train")):
            procs[name] = start_worker(env, tmp_path, name, queues)
        wait_for(lambda: all("ready." in (tmp_path / f"{n}.log").read_text() for n in procs), 90)
        # Three per pool process: the verdict REPL, the one for reference statements, and the
        # exploration REPL that answers goals while typing (webapp.attempts.checking).
        wait_for(lambda: len(_repls(procs["lean"])) == 6, 60)
        started = _repls(procs["lean"])
        assert _repls(procs["other"]) == set()
        manage(env, "shell", "-c", ONE_CHECK)
        wait_for(lambda: len(runs(tmp_path / "lean.log")) == 1, 60)
        assert _repls(procs["lean"]) == started  # the check used a REPL that was waiting
        assert _repls(procs["other"]) == set()
    finally:
        stop_all(procs.values())
        redis_proc.terminate()
        redis_proc.wait(timeout=10)
