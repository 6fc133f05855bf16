"""Real Celery workers for the end-to-end tests: the demo database in a temporary folder, a
Redis of their own, and the REPL test double as their Lean."""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FAKE_REPL = ROOT / "tests" / "fakes" / "fake_repl.py"


def worker_env(var: Path, redis_url: str) -> dict[str, str]:
    """The dev settings on `var`'s database and `redis_url`, Lean being the REPL double."""
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update(DJANGO_SETTINGS_MODULE="webapp.settings.dev", LEANCOACH_VAR_DIR=str(var),
               REDIS_URL=redis_url, LEAN_REPL_CMD=shlex.join([sys.executable, str(FAKE_REPL)]))  # fmt: skip
    return env


def manage(env: dict[str, str], *args: str) -> str:
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True,
                          capture_output=True, text=True, timeout=300).stdout  # fmt: skip


def start_worker(
    env: dict[str, str], var: Path, name: str, queues: str, concurrency: int = 2
) -> subprocess.Popen[bytes]:
    """A worker named `name`@host on `queues`, logging to var/<name>.log."""
    log = (var / f"{name}.log").open("wb")
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "webapp", "worker", "-Q", queues,
         "-n", f"{name}@%h", "--concurrency", str(concurrency), "--loglevel", "INFO"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip


def stop_all(procs: Iterable[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)


def runs(log: Path) -> dict[str, float]:
    """Each finished run of a check's message in a worker's log: task id -> seconds."""
    found = re.findall(
        r"Task lean\.check_attempt\[([^\]]+)\] succeeded in ([0-9.]+)s", log.read_text()
    )
    return {task: float(seconds) for task, seconds in found}


def wait_for(condition: Callable[[], object], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.5)
    raise AssertionError("timed out waiting")
