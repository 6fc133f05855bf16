"""The README's run command, end to end: it prepares everything, serves the home page and
/healthz with a worker on every queue, and stops every process on Ctrl-C."""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any, TextIO

import psutil
import pytest

from webapp.embedded import free_port

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def _get(url: str, opener: Any = None) -> tuple[int, bytes]:
    try:
        with (opener or urllib.request.build_opener()).open(url, timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def _admin_opener(base: str, log: TextIO, deadline: float) -> Any:
    """Logged in as the demo admin (password printed by the launcher): /healthz gives its
    details to admins only."""
    password = None
    while password is None and time.monotonic() < deadline:
        log.seek(0)
        found = re.search(r"admin\s+password: (\S+)", log.read())
        password = found.group(1) if found else None
        time.sleep(0.5)
    assert password, "the launcher printed no admin password"
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    while time.monotonic() < deadline:
        try:
            _get(base + "/accounts/login/", opener)
            break
        except OSError:
            time.sleep(1)
    token = next(c.value for c in jar if c.name == "csrftoken")
    form = urllib.parse.urlencode(
        {"username": "admin", "password": password, "csrfmiddlewaretoken": token}
    ).encode()
    request = urllib.request.Request(
        base + "/accounts/login/", data=form, headers={"Referer": base + "/accounts/login/"}
    )
    with opener.open(request, timeout=10):
        pass
    assert any(c.name == "sessionid" for c in jar), "the admin could not log in"
    return opener


def _wait_for_workers(base: str, deadline: float, opener: Any) -> dict:
    last: dict = {}
    while time.monotonic() < deadline:
        try:
            _, body = _get(base + "/healthz?fresh=1", opener)
            last = json.loads(body)
            if last["components"]["workers"]["ok"]:
                return last
        except (OSError, ValueError):
            pass
        time.sleep(1)
    raise AssertionError(f"no worker on every queue in time; last /healthz: {last}")


def _stack(leader: int) -> list[psutil.Process]:
    """Every process under the launcher: honcho starts each of its processes in a session of
    its own, so the launcher's session alone does not hold them."""
    return psutil.Process(leader).children(recursive=True)


def _settings_of(processes: list[psutil.Process]) -> set[str]:
    """DJANGO_SETTINGS_MODULE of the web and Celery processes among `processes`."""
    found = set()
    for proc in processes:
        try:
            if "uvicorn" in proc.cmdline() or "celery" in proc.cmdline():
                found.add(proc.environ().get("DJANGO_SETTINGS_MODULE", "(none)"))
        except psutil.NoSuchProcess:
            continue
    return found


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
    stack: list[psutil.Process] = []
    try:
        deadline = time.monotonic() + 120
        opener = _admin_opener(base, log, deadline)
        status = _wait_for_workers(base, deadline, opener)
        assert status["components"]["database"]["ok"]
        assert status["components"]["redis"]["ok"]
        assert set(status["components"]) >= {"lean", "gpu", "serving_model"}
        code, page = _get(base + "/")
        assert code == 200 and b"LeanCoach" in page
        # Anyone else gets the overall state only.
        code, public = _get(base + "/healthz")
        assert code == 200 and set(json.loads(public)) == {"status"}
        # Served as production is: no debug page (it ran the dev settings until the launcher
        # stopped passing on the default that importing `webapp` sets), and every process
        # of the stack on the embedded settings.
        code, missing = _get(base + "/no-such-page/")
        assert code == 404 and b"Page not found at" not in missing and b"URLconf" not in missing
        stack = _stack(proc.pid)
        assert _settings_of(stack) == {"webapp.settings.embedded"}
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
    # Nothing left behind: no process of that session, nor any it started (in sessions of
    # their own: web, worker, beat, Redis), survives the Ctrl-C (the command itself waits for
    # honcho, which waits for every process it started).
    leftovers = subprocess.run(
        ["pgrep", "-s", str(proc.pid)], capture_output=True, text=True
    ).stdout.split()
    assert leftovers == [], output[-2000:]
    assert len(stack) >= 6  # honcho, Redis, web and its processes, worker, beat (seen above)
    alive = [p.pid for p in stack if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    assert alive == [], output[-2000:]
    assert proc.returncode is not None
