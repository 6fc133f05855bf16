"""`make run` keeps its data to this user (issue 26, item 9): var/ is 0700 (an existing one
too), everything the stack writes is private, and the embedded Redis asks for a password
(random per start) that never appears on a command line. And it survives its own crash
(item 4): `supervise-redis` restarts it, with its data and password, until told to stop."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
import redis

from webapp.embedded import free_port, new_password, redis_url, start_redis, wait_for_port
from webapp.launch import private_var_dir

ROOT = Path(__file__).resolve().parents[2]


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_var_is_private_even_when_it_existed(tmp_path: Path) -> None:
    var = tmp_path / "var"
    var.mkdir(mode=0o755)
    var.chmod(0o755)
    assert _mode(private_var_dir(var)) == 0o700
    fresh = private_var_dir(tmp_path / "new" / "var")
    assert _mode(fresh) == 0o700


def test_the_embedded_redis_asks_for_its_password(tmp_path: Path) -> None:
    data = tmp_path / "redis"
    data.mkdir(mode=0o700)
    proc, url = start_redis(data_dir=data)
    try:
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        with pytest.raises(redis.AuthenticationError):
            redis.Redis(port=port).ping()
        assert redis.Redis.from_url(url).set("k", "v")
        # Not on its command line, which every local user can read.
        password = redis.connection.parse_url(url)["password"]
        assert password and password not in " ".join(psutil.Process(proc.pid).cmdline())
        time.sleep(1.5)  # appendfsync everysec
        written = [p for p in data.rglob("*") if p.is_file()]
        assert written and all(_mode(p) & 0o077 == 0 for p in written), written
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _redis_children(pid: int) -> list[psutil.Process]:
    return [p for p in psutil.Process(pid).children() if "redis-server" in p.name()]


@pytest.mark.timeout(60)
def test_supervise_redis_restarts_it_with_its_data_until_told_to_stop(tmp_path: Path) -> None:
    port, password, data = free_port(), new_password(), tmp_path / "redis"
    data.mkdir(mode=0o700)
    url = redis_url(port, password)
    env = {**os.environ, "REDIS_URL": url, "LEANCOACH_REDIS_DIR": str(data)}
    supervisor = subprocess.Popen(
        [sys.executable, "-m", "webapp.embedded", "supervise-redis"], cwd=ROOT, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    try:
        wait_for_port(port)
        redis.Redis.from_url(url).rpush("lean", "queued check")
        time.sleep(1.5)  # appendfsync everysec
        first = _redis_children(supervisor.pid)[0]
        first.kill()  # a crash: no shutdown save, only the append-only file remains
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            children = _redis_children(supervisor.pid)
            if children and children[0].pid != first.pid:
                break
            time.sleep(0.1)
        else:
            raise AssertionError("Redis was not restarted")
        wait_for_port(port)
        assert redis.Redis.from_url(url).lrange("lean", 0, -1) == [b"queued check"]
        assert supervisor.poll() is None
    finally:
        os.killpg(supervisor.pid, signal.SIGTERM)  # what honcho does on Ctrl-C
        code = supervisor.wait(timeout=30)
    output = supervisor.stdout.read().decode() if supervisor.stdout else ""
    assert code == 0 and "restarting" in output, output[-2000:]
    assert not _redis_alive(port)


def _redis_alive(port: int) -> bool:
    try:
        wait_for_port(port, timeout_s=0.5)
    except RuntimeError:
        return False
    return True


@pytest.mark.timeout(60)
def test_keep_running_starts_a_command_again_until_told_to_stop(tmp_path: Path) -> None:
    starts = tmp_path / "starts"
    command = [sys.executable, "-c",
               f"open({str(starts)!r}, 'a').write('x'); import time; time.sleep(0.2)"]  # fmt: skip
    supervisor = subprocess.Popen(
        [sys.executable, "-m", "webapp.embedded", "keep-running", "--name", "quick", "--",
         *command],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while (
            time.monotonic() < deadline and len(starts.read_text() if starts.exists() else "") < 3
        ):
            time.sleep(0.1)
        assert len(starts.read_text()) >= 3 and supervisor.poll() is None
    finally:
        os.killpg(supervisor.pid, signal.SIGTERM)
        code = supervisor.wait(timeout=30)
    output = supervisor.stdout.read().decode() if supervisor.stdout else ""
    assert code == 0 and "[quick] exited with code 0; restarting" in output, output
