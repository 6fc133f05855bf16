"""The README's run command, end to end: it prepares everything, serves the home page and
/healthz with a worker on every queue, and stops every process on Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from webapp.embedded import free_port

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def _wait_for_workers(base: str, deadline: float) -> dict:
    last: dict = {}
    while time.monotonic() < deadline:
        try:
            _, body = _get(base + "/healthz")
            last = json.loads(body)
            if last["components"]["workers"]["ok"]:
                return last
        except (OSError, ValueError):
            pass
        time.sleep(1)
    raise AssertionError(f"no worker on every queue in time; last /healthz: {last}")


def test_run_command_serves_and_stops_cleanly(tmp_path: Path) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "DATABASE_URL"}}
    # The first-run fine-tune of the prover model has its own tests; minutes here.
    env.update(
        LEANCOACH_VAR_DIR=str(tmp_path), LEANCOACH_PORT=str(port), LEANCOACH_PREPARE_PROVER="0"
    )
    env.pop("DJANGO_SETTINGS_MODULE", None)
    log = (tmp_path / "run.log").open("w+")
    proc = subprocess.Popen(
        [sys.executable, "-m", "webapp.launch"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        status = _wait_for_workers(base, time.monotonic() + 120)
        assert status["components"]["database"]["ok"]
        assert status["components"]["redis"]["ok"]
        assert set(status["components"]) >= {"lean", "gpu", "serving_model"}
        code, page = _get(base + "/")
        assert code == 200 and b"LeanCoach" in page
    finally:
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in the terminal does
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            raise
    log.seek(0)
    output = log.read()
    assert "password:" in output  # demo credentials printed on first run
    assert f"http://127.0.0.1:{port}/" in output
    # Nothing left behind: no process of that session survives the Ctrl-C (the command
    # itself waits for honcho, which waits for every process it started).
    leftovers = subprocess.run(
        ["pgrep", "-s", str(proc.pid)], capture_output=True, text=True
    ).stdout.split()
    assert leftovers == [], output[-2000:]
    assert proc.returncode is not None
