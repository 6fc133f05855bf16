"""Build the web/worker image and run it: web and a `lean` worker container on the host
network against this machine's PostgreSQL and Redis; check /healthz and one submission end
to end (login, submit, the worker's verdict on the attempt page).

    .venv/bin/python scripts/check_images.py                  # build, then run the checks
    .venv/bin/python scripts/check_images.py --no-build       # run an image built before
    .venv/bin/python scripts/check_images.py --lean-repl-dir tests/fakes \
        --lean-repl-cmd "python /repl/fake_repl.py" \
        --lean-verify-cmd "python /repl/fake_lean.py"         # test doubles from the host, mounted

Needs ../shared/tools/oci-local (buildah + podman; see its header) or OCI_LOCAL=path, a
PostgreSQL server (PGHOST/PGPORT/PGUSER, default 127.0.0.1:5432 postgres; a fresh database
`leancoach_images_<pid>` is made and dropped) and Redis (REDIS_URL, default db 15). The image
is built with the machine's base (localhost/debian:bookworm), its local torch wheel, without
Lean (SKIP_LEAN=1) and with the pg_dump of the server's major version. Without a REPL given,
the worker reports "Lean unavailable", which is an end state too: the check then proves the
path (web -> Redis -> worker -> database -> page), not Lean.
"""

from __future__ import annotations

import argparse
import http.cookiejar
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IMAGE = "localhost/leancoach:check"
PASSWORD = "image-check-pass-1"
PROOF = "  intro hp\n  exact hp\n"  # the body only: the page poses the statement
SETUP_USER = """
from django.contrib.auth.models import User
from webapp.accounts.models import Classroom
from webapp.courses.models import Exercise
user, _ = User.objects.get_or_create(username="imagecheck")
user.set_password({password!r}); user.save()
classroom = Classroom.objects.first()
classroom.students.add(user)
exercise = Exercise.objects.filter(world__course__classrooms=classroom).order_by("pk").first()
print("EXERCISE", exercise.pk, exercise.get_absolute_url())
"""
STATUS = """
from webapp.attempts.models import Attempt
a = Attempt.objects.filter(student__username="imagecheck").order_by("-pk").first()
print("STATUS", a.pk if a else 0, a.status if a else "none", a.valid if a else None, repr(a.status_detail[:300]) if a else "", [d.message[:200] for d in a.diagnostics.all()] if a else [])
"""


def oci_local() -> str | None:
    found = os.environ.get("OCI_LOCAL") or str(ROOT.parent / "shared" / "tools" / "oci-local")
    if not Path(found).is_file():
        return None
    if shutil.which("buildah") is None or shutil.which("podman") is None:
        return None
    return found


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def pg_major(pg: dict[str, str]) -> int:
    out = subprocess.run(["psql", "-h", pg["host"], "-p", pg["port"], "-U", pg["user"], "-Atc",
                          "show server_version_num", "postgres"],
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    return int(out.strip()) // 10000


def build(tool: str, postgres_major: int) -> float:
    started = time.monotonic()
    # No --layers: with vfs storage every cached layer is a full copy of the image (tens of GB).
    subprocess.run([tool, "build", "-f", "docker/Dockerfile", "-t", IMAGE,
                    "--build-arg", "BASE_IMAGE=localhost/debian:bookworm",
                    "--build-arg", "TORCH_PIP_ARGS=--find-links /wheels",
                    "--build-arg", "SKIP_LEAN=1",
                    "--build-arg", f"POSTGRES_MAJOR={postgres_major}", "."],
                   cwd=ROOT, check=True)  # fmt: skip
    return time.monotonic() - started


class Containers:
    def __init__(self, tool: str, env: dict[str, str], mounts: list[str]) -> None:
        self.tool, self.env, self.mounts, self.names = tool, env, mounts, []

    def _args(self) -> list[str]:
        args = [f"--env={k}={v}" for k, v in self.env.items()]
        return args + [f"--volume={m}" for m in self.mounts]

    def once(self, *command: str) -> str:
        run = [self.tool, "run", "--rm", *self._args(), IMAGE, *command]
        return subprocess.run(run, capture_output=True, text=True, check=True).stdout

    def start(self, name: str, *command: str) -> None:
        subprocess.run([self.tool, "run", "--detach", "--replace", f"--name={name}",
                        *self._args(), IMAGE, *command], check=True, stdout=subprocess.DEVNULL)  # fmt: skip
        self.names.append(name)

    def logs(self, name: str) -> str:
        done = subprocess.run([self.tool, "podman", "logs", "--tail", "30", name],
                              capture_output=True, text=True)  # fmt: skip
        return done.stdout + done.stderr

    def stop_all(self) -> None:
        for name in self.names:
            subprocess.run([self.tool, "podman", "rm", "--force", "--time", "5", name],
                           capture_output=True)  # fmt: skip


def wait_http(url: str, timeout_s: float) -> tuple[int, str]:
    deadline = time.monotonic() + timeout_s
    last = ""
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=5) as answer:
                return answer.status, answer.read().decode()
        except urllib.error.HTTPError as exc:  # 503 while a component is down: still an answer
            return exc.code, exc.read().decode()
        except OSError as exc:
            last = str(exc)
            time.sleep(1)
    raise RuntimeError(f"{url} did not answer within {timeout_s:.0f} s ({last})")


def submit(base: str, exercise_pk: int, exercise_url: str) -> None:
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    page = opener.open(f"{base}/accounts/login/", timeout=30).read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert token, "no CSRF token on the login page"
    form = {"username": "imagecheck", "password": PASSWORD, "csrfmiddlewaretoken": token[1]}
    request = urllib.request.Request(f"{base}/accounts/login/", urllib.parse.urlencode(form).encode(),
                                     headers={"Referer": f"{base}/accounts/login/"})  # fmt: skip
    opener.open(request, timeout=30)
    page = opener.open(f"{base}{exercise_url}", timeout=30).read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert token and "imagecheck" in page, "not logged in on the exercise page"
    form = {"proof": PROOF, "csrfmiddlewaretoken": token[1]}
    request = urllib.request.Request(f"{base}/attempts/submit/{exercise_pk}/",
                                     urllib.parse.urlencode(form).encode(),
                                     headers={"Referer": f"{base}{exercise_url}"})  # fmt: skip
    with opener.open(request, timeout=30) as answer:
        assert answer.status == 200, f"submit answered {answer.status}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-build", action="store_true", help=f"use {IMAGE} as built before")
    parser.add_argument("--lean-repl-dir", help="a host folder mounted at /repl (read-only)")
    parser.add_argument("--lean-repl-cmd", help="LEAN_REPL_CMD inside the worker container")
    parser.add_argument(
        "--lean-verify-cmd",
        help="LEANCOACH_VERIFIER_CMD inside the worker container (the "
        "independent re-check a verdict needs; the image built with SKIP_LEAN=1 has none)",
    )
    parser.add_argument("--timeout", type=float, default=120, help="seconds for each wait")
    args = parser.parse_args()
    tool = oci_local()
    if tool is None:
        print("SKIP: oci-local, buildah or podman is missing (see ../shared/tools/oci-local)")
        return 3
    pg = {"host": os.environ.get("PGHOST", "127.0.0.1"), "port": os.environ.get("PGPORT", "5432"),
          "user": os.environ.get("PGUSER", "postgres")}  # fmt: skip
    major = pg_major(pg)
    if not args.no_build:
        print(f"built {IMAGE} in {build(tool, major):.0f} s (pg_dump {major})", flush=True)
    database = f"leancoach_images_{os.getpid()}"
    psql = ["psql", "-h", pg["host"], "-p", pg["port"], "-U", pg["user"], "-qc"]
    subprocess.run([*psql, f"CREATE DATABASE {database}", "postgres"], check=True)
    port = free_port()
    env = {
        "DATABASE_URL": f"postgres://{pg['user']}@{pg['host']}:{pg['port']}/{database}",
        "REDIS_URL": os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/15"),
        "SECRET_KEY": "image-check-only",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        # Plain http on the host network, no proxy in front (prod.py's documented switches).
        "LEANCOACH_BEHIND_PROXY": "0", "SECURE_SSL_REDIRECT": "0",
        "SESSION_COOKIE_SECURE": "0", "CSRF_COOKIE_SECURE": "0",
    }  # fmt: skip
    mounts = []
    if args.lean_repl_dir:
        mounts.append(f"{Path(args.lean_repl_dir).resolve()}:/repl:ro")
    if args.lean_repl_cmd:
        env["LEAN_REPL_CMD"] = args.lean_repl_cmd
        # A test REPL, not Lean: nothing to sandbox. The seccomp filter is installed through
        # bubblewrap, which needs user namespaces that this podman container does not give.
        env["LEANCOACH_REQUIRE_SANDBOX"] = "0"
        env["LEANCOACH_SECCOMP"] = "0"
    if args.lean_verify_cmd:
        env["LEANCOACH_VERIFIER_CMD"] = args.lean_verify_cmd
    boxes = Containers(tool, env, mounts)
    suffix = os.getpid()
    try:
        boxes.once("python", "manage.py", "migrate", "--noinput", "-v", "0")
        boxes.once("python", "manage.py", "seed_demo")
        found = re.search(r"EXERCISE (\d+) (\S+)", boxes.once(
            "python", "manage.py", "shell", "-c", SETUP_USER.format(password=PASSWORD)))  # fmt: skip
        assert found, "no exercise in the demo course"
        boxes.start(f"lc-web-{suffix}", "python", "-m", "uvicorn", "webapp.asgi:application",
                    "--host", "127.0.0.1", "--port", str(port), "--workers", "2")  # fmt: skip
        boxes.start(f"lc-lean-{suffix}", "celery", "-A", "webapp", "worker", "-Q", "lean",
                    "--concurrency", "1", "--hostname", f"lean-image@{suffix}")  # fmt: skip
        base = f"http://127.0.0.1:{port}"
        status, body = wait_http(f"{base}/healthz", args.timeout)
        print(f"/healthz answered {status}: {body[:300]}", flush=True)
        assert status == 200, "healthz is not 200"
        started = time.monotonic()
        submit(base, int(found[1]), found[2])
        deadline = time.monotonic() + args.timeout
        state = ""
        while time.monotonic() < deadline:
            state = boxes.once("python", "manage.py", "shell", "-c", STATUS).strip()
            if re.search(r"STATUS \d+ (done|unavailable|failed)", state):
                break
            time.sleep(1)
        print(f"submission: {state} after {time.monotonic() - started:.1f} s", flush=True)
        assert re.search(r"STATUS \d+ (done|unavailable)", state), "no verdict from the worker"
        if args.lean_repl_cmd:
            assert "True" in state, "the REPL accepted nothing: the proof should be valid"
        print("OK: image builds, web and a lean worker container serve a submission end to end")
        return 0
    except Exception:
        for name in boxes.names:
            print(f"--- {name}\n{boxes.logs(name)}", file=sys.stderr)
        raise
    finally:
        boxes.stop_all()
        subprocess.run([*psql, f"DROP DATABASE IF EXISTS {database}", "postgres"], check=False)


if __name__ == "__main__":
    sys.exit(main())
