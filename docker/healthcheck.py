"""Container health, for the images' HEALTHCHECK and docker/compose.yaml.

    python /app/docker/healthcheck.py               the check that fits the container's command
    python /app/docker/healthcheck.py web|worker|beat

- web: GET /healthz from this container's uvicorn. 200 is healthy (ok, or degraded: a part that
  only degrades the service, such as no GPU or no worker yet); 503 is not (database or Redis
  down: webapp/core/health.py).
- worker: this container's Celery worker answers a ping over the broker (its node name is the
  command's -n/--hostname, default celery@%h, %h the host name). The worker's main process
  answers while its pool is busy, so a long check or run does not make it unhealthy.
- beat: beat rewrote its schedule file within BEAT_MAX_AGE_S. It writes it after sending a task
  once 3 minutes have passed since the last write (celery/beat.py, Scheduler.sync_every and
  should_sync), and the sweeper is sent every minute.

The command is read from /proc/1/cmdline: the command itself, or an init (compose's
`init: true`) followed by it; a `sh -c "..."` line is split as the shell would split it.
Exit status 0 healthy, 1 unhealthy (Docker's convention), with one line saying why.
"""

from __future__ import annotations

import glob
import os
import shlex
import socket
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path

APP_DIR = Path(__file__).resolve().parents[1]
BEAT_MAX_AGE_S = 10 * 60
TIMEOUT_S = 10.0


def command_words(cmdline: bytes) -> list[str]:
    """The words of a /proc/<pid>/cmdline, each `sh -c` line split into its own words."""
    words: list[str] = []
    for arg in cmdline.decode(errors="replace").split("\0"):
        if not arg:
            continue
        if any(space in arg for space in " \t\n"):
            try:
                words += shlex.split(arg)
                continue
            except ValueError:
                pass
        words.append(arg)
    return words


def option(words: Sequence[str], names: Sequence[str], default: str) -> str:
    """The value of the first of `names` in `words` (`--name value` or `--name=value`)."""
    for index, word in enumerate(words):
        for name in names:
            if word == name and index + 1 < len(words):
                return words[index + 1]
            if word.startswith(name + "="):
                return word.split("=", 1)[1]
    return default


def role_of(words: Sequence[str]) -> str | None:
    if any(word.endswith("uvicorn") for word in words):
        return "web"
    if any(word.endswith("celery") for word in words):
        if "beat" in words:
            return "beat"
        if "worker" in words:
            return "worker"
    return None


def check_web(words: Sequence[str]) -> tuple[bool, str]:
    port = option(words, ["--port"], "8000")
    # Django answers only the hosts it serves (ALLOWED_HOSTS); /healthz is exempt from the
    # https redirect (webapp/settings/prod.py SECURE_REDIRECT_EXEMPT).
    hosts = [h.strip().lstrip(".") for h in os.environ.get("ALLOWED_HOSTS", "").split(",")]
    host = next((h for h in hosts if h and h != "*"), "localhost")
    request = urllib.request.Request(f"http://127.0.0.1:{port}/healthz", headers={"Host": host})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as answer:
            return True, f"/healthz {answer.status}: {answer.read(200).decode(errors='replace')}"
    except urllib.error.HTTPError as exc:
        return False, f"/healthz {exc.code}: {exc.read(200).decode(errors='replace')}"
    except OSError as exc:
        return False, f"/healthz on port {port} does not answer: {exc}"


def check_worker(words: Sequence[str]) -> tuple[bool, str]:
    node = option(words, ["-n", "--hostname"], "celery@%h").replace("%h", socket.gethostname())
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.path.insert(0, str(APP_DIR))
    from entrypoint import secret_environment  # the worker's own URLs, passwords included

    os.environ.update(secret_environment(os.environ))
    from webapp.celery import app

    # Control.ping(destination, timeout) -> [{node: {"ok": "pong"}}] (celery/app/control.py).
    replies = app.control.ping(destination=[node], timeout=TIMEOUT_S / 2)
    if any(reply.get(node, {}).get("ok") == "pong" for reply in replies):
        return True, f"{node} answers"
    return False, f"{node} did not answer a ping within {TIMEOUT_S / 2:.0f} s"


def check_beat(words: Sequence[str]) -> tuple[bool, str]:
    schedule = option(words, ["-s", "--schedule"], "celerybeat-schedule")
    path = Path(schedule) if os.path.isabs(schedule) else APP_DIR / schedule
    # The dbm module shelve picks may add a suffix (.db, .dat/.dir/.bak).
    found = [Path(p) for p in glob.glob(glob.escape(str(path)) + "*")]
    if not found:
        return False, f"no schedule file {path}* yet"
    age = time.time() - max(p.stat().st_mtime for p in found)
    if age > BEAT_MAX_AGE_S:
        return False, f"{path} last written {age:.0f} s ago (over {BEAT_MAX_AGE_S} s)"
    return True, f"{path} written {age:.0f} s ago"


CHECKS = {"web": check_web, "worker": check_worker, "beat": check_beat}


def main(argv: Sequence[str]) -> int:
    words = command_words(Path("/proc/1/cmdline").read_bytes())
    role = argv[0] if argv else role_of(words)
    if role is None:
        print(f"no health check for this command, only that it runs: {' '.join(words)[:200]}")
        return 0
    if role not in CHECKS:
        print(f"unknown role {role!r}: one of {', '.join(CHECKS)}")
        return 1
    try:
        healthy, detail = CHECKS[role](words)
    except Exception as exc:  # noqa: BLE001 - any failure is "unhealthy", said in one line
        healthy, detail = False, f"{type(exc).__name__}: {exc}"
    print(f"{role}: {detail}")
    return 0 if healthy else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
