"""Soak test (issue 14; not part of the test suite): N simulated students use a `make run` stack
for a while, then the run reports stuck and lost attempts, latencies and errors.

    .venv/bin/python scripts/soak.py                       # 20 students, 30 minutes
    .venv/bin/python scripts/soak.py --students 10 --duration 180

It starts its own stack exactly as `make run` does (`python -m webapp.launch`: migrate, seed,
collectstatic, then Redis with its append-only file, the ASGI server, one Celery worker for all
queues and Celery beat with the sweeper) in a fresh folder, so nothing of an existing var/ is
touched. SQLite by default, like `make run`; --database-url soaks against PostgreSQL (the
database must exist and be empty or a LeanCoach one). Without a Lean toolchain the checks run
against the REPL protocol double from tests/fakes, and the report says so.

Each student logs in, then repeats with a random think time: submit a proof and wait for its
end state by polling the attempt (as the page's poll does; the websocket is not used), look at
the exercise, course or attempt page, and now and then double-submit (a double click: the
second one is superseded or refused by the one-unfinished-check rule). After the duration,
traffic stops and every attempt a student saw accepted is re-read once its in-flight checks
had --grace seconds to end: one still unfinished is "stuck", one missing is "lost".

Exit code 0 when nothing is stuck or lost and no request failed with a 5xx or transport error.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import secrets
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from webapp.embedded import free_port, wait_for_port  # noqa: E402

FAKE_REPL = ROOT / "tests" / "fakes" / "fake_repl.py"
FAKE_LEAN = ROOT / "tests" / "fakes" / "fake_lean.py"
UNFINISHED = {"queued", "checking", "coaching"}
LIVE_RE = re.compile(r"/attempts/(\d+)/live/")
STATUS_RE = re.compile(r'data-status="(\w+)"')
REASON_RE = re.compile(r'<strong class="warn">([^<]*)</strong>')
# A mix of what students send: wrong, unfinished, slow and plain proofs. The markers drive
# the REPL double; real Lean reads them as comments.
PROOFS = (
    "  simp -- fake: error unsolved_goals",
    "  sorry",
    "  -- fake: sleep 2\n  rfl",
    "  rfl",
    "  omega -- fake: error omega_failed",
    "  intro h\n  exact h",
)

SETUP = """
import json
from django.contrib.auth.models import Group, User
from webapp.accounts.models import Classroom
from webapp.courses.models import Exercise
n, password = {n}, {password!r}
room = Classroom.objects.filter(courses__isnull=False).order_by("pk").first()
group = Group.objects.get(name="students")
for i in range(n):
    u, _ = User.objects.get_or_create(username=f"soak{{i}}")
    u.set_password(password); u.save(); u.groups.add(group); room.students.add(u)
exercises = Exercise.objects.filter(world__course__in=room.courses.all()).order_by("pk")
urls = [(e.pk, e.get_absolute_url()) for e in exercises if e.get_absolute_url()]
from django.urls import reverse
print(json.dumps({{"exercises": urls, "course": reverse("courses:course", args=[exercises[0].world.course.slug])}}))
"""


@dataclass
class Stats:
    lock: threading.Lock = field(default_factory=threading.Lock)
    t0: float = field(default_factory=time.monotonic)
    pages: list[tuple[float, float]] = field(default_factory=list)  # (at, seconds)
    submits: list[tuple[float, float]] = field(default_factory=list)
    checks: list[tuple[float, float]] = field(default_factory=list)  # submit → end state seen
    codes: Counter[str] = field(default_factory=Counter)
    outcomes: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    accepted: list[tuple[int, int]] = field(default_factory=list)  # (student index, attempt pk)

    def add(self, bucket: list[tuple[float, float]], seconds: float) -> None:
        with self.lock:
            bucket.append((time.monotonic() - self.t0, seconds))

    def error(self, what: str) -> None:
        with self.lock:
            self.errors.append(what)


class Student:
    def __init__(self, index: int, base: str, password: str, stats: Stats, setup: dict[str, Any]):
        import httpx

        self.index, self.stats, self.setup = index, stats, setup
        self.client = httpx.Client(base_url=base, timeout=60)
        self.password = password
        self.rng = random.Random(index)
        self.headers: dict[str, str] = {}
        self.mine: list[int] = []

    def request(self, method: str, url: str, **kwargs: Any) -> Any:
        import httpx

        try:
            response = self.client.request(method, url, **kwargs)
        except httpx.HTTPError as exc:
            self.stats.error(f"{method} {url}: {type(exc).__name__}: {exc}")
            return None
        with self.stats.lock:
            self.stats.codes[str(response.status_code)] += 1
        if response.status_code >= 500:
            self.stats.error(f"{method} {url}: HTTP {response.status_code}")
        return response

    def login(self) -> None:
        self.request("GET", "/accounts/login/")
        data = {"username": f"soak{self.index}", "password": self.password,
                "csrfmiddlewaretoken": self.client.cookies.get("csrftoken", "")}  # fmt: skip
        response = self.request("POST", "/accounts/login/", data=data)
        if response is None or response.status_code != 302:
            raise RuntimeError(f"student {self.index} could not log in")
        self.headers = {"X-CSRFToken": self.client.cookies["csrftoken"], "HX-Request": "true"}

    def page(self, url: str) -> None:
        started = time.monotonic()
        if self.request("GET", url, follow_redirects=True) is not None:
            self.stats.add(self.stats.pages, time.monotonic() - started)

    def submit(self, exercise: int) -> int | None:
        """The attempt's pk when accepted; a refusal is counted by its reason."""
        started = time.monotonic()
        proof = self.rng.choice(PROOFS) + f"\n  -- {secrets.token_hex(3)}"
        response = self.request("POST", f"/attempts/submit/{exercise}/", headers=self.headers,
                                data={"proof": proof})  # fmt: skip
        if response is None:
            return None
        self.stats.add(self.stats.submits, time.monotonic() - started)
        if response.headers.get("HX-Retarget") == "#form-errors":
            text = response.text
            reason = ("busy" if "being checked" in text else "rate_limited" if "Too many" in text
                      else "other_refusal")  # fmt: skip
            with self.stats.lock:
                self.stats.outcomes[f"refused_{reason}"] += 1
            if reason == "other_refusal":
                self.stats.error(f"submit refused: {re.sub(r'<[^>]+>', ' ', text)[:200]}")
            return None
        match = LIVE_RE.search(response.text)
        if match is None:
            self.stats.error(f"submit answered without an attempt (HTTP {response.status_code})")
            return None
        pk = int(match.group(1))
        with self.stats.lock:
            self.stats.accepted.append((self.index, pk))
        self.mine.append(pk)
        return pk

    def status(self, pk: int) -> str | None:
        return self.state(pk)[0]

    def state(self, pk: int) -> tuple[str | None, str]:
        """(status, the reason shown for an attempt that ended without a verdict)."""
        response = self.request("GET", f"/attempts/{pk}/live/", headers=self.headers)
        if response is None:
            return None, ""
        if response.status_code == 404:
            return "missing", ""
        match = STATUS_RE.search(response.text)
        reason = REASON_RE.search(response.text)
        return (match.group(1) if match else None), (reason.group(1)[:90] if reason else "")

    def wait_for_end(self, pk: int, started: float, until: float) -> None:
        while time.monotonic() < until:
            status = self.status(pk)
            if status is not None and status not in UNFINISHED:
                self.stats.add(self.stats.checks, time.monotonic() - started)
                with self.stats.lock:
                    self.stats.outcomes[f"ended_{status}"] += 1
                return
            time.sleep(1.0)

    def run(self, deadline: float, think: tuple[float, float]) -> None:
        exercises = self.setup["exercises"]
        while time.monotonic() < deadline:
            pk, url = self.rng.choice(exercises)
            roll = self.rng.random()
            if roll < 0.45:
                started = time.monotonic()
                attempt = self.submit(pk)
                if attempt is not None:
                    self.wait_for_end(attempt, started, deadline + 60)
            elif roll < 0.55:  # a double click
                self.submit(pk)
                self.submit(pk)
            elif roll < 0.80:
                self.page(url)
            elif roll < 0.92:
                self.page(self.setup["course"])
            elif self.mine:
                self.page(f"/attempts/{self.rng.choice(self.mine)}/")
            time.sleep(self.rng.uniform(*think))


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def _stack_env(var_dir: Path, args: argparse.Namespace) -> tuple[dict[str, str], str]:
    env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "DATABASE_URL"}}
    env.update(
        LEANCOACH_VAR_DIR=str(var_dir), LEANCOACH_PORT=str(free_port()),
        LEANCOACH_PREPARE_PROVER="0", LEANCOACH_OFFER_LEAN="0",
        LEANCOACH_WEB_WORKERS=str(args.web_workers), PYTHONPATH=str(ROOT),
        DJANGO_SETTINGS_MODULE="webapp.settings.embedded",
    )  # fmt: skip
    if args.database_url:
        env["DATABASE_URL"] = args.database_url
    from tutor.lean import lean_status

    lean = "real Lean"
    if not os.environ.get("LEAN_REPL_CMD") and not lean_status().available:
        env["LEAN_REPL_CMD"] = shlex.join([sys.executable, str(FAKE_REPL)])
        # ... and its counterpart for the independent kernel verifier.
        env["LEANCOACH_VERIFIER_CMD"] = shlex.join([sys.executable, str(FAKE_LEAN)])
        lean = (
            "no Lean toolchain here: the protocol doubles (tests/fakes/fake_repl.py, fake_lean.py)"
        )
    return env, lean


def _manage(env: dict[str, str], *args: str) -> str:
    out = subprocess.run([sys.executable, str(ROOT / "manage.py"), *args], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=600)  # fmt: skip
    if out.returncode:
        raise RuntimeError(out.stderr[-2000:])
    return out.stdout


def _report(stats: Stats, students: list[Student], args: argparse.Namespace, lean: str) -> int:
    final: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    stuck, lost = [], []
    for index, pk in stats.accepted:
        found, reason = students[index].state(pk)
        status = found or "unreadable"
        final[status] += 1
        if status in {"failed", "unavailable"}:
            reasons[reason] += 1
        if status in UNFINISHED or status == "unreadable":
            stuck.append(pk)
        elif status == "missing":
            lost.append(pk)
    elapsed = max(t for t, _ in stats.pages + stats.submits) if stats.submits else 0.0
    requests = sum(stats.codes.values())
    checks = [s for _, s in stats.checks]
    third = args.duration / 3
    early = [s for t, s in stats.checks if t < third]
    late = [s for t, s in stats.checks if t >= 2 * third]
    drift = _percentile(late, 95) / _percentile(early, 95) if early and late else float("nan")
    figures = {
        "students": args.students, "duration_s": args.duration, "lean": lean,
        "requests": requests, "requests_per_s": round(requests / max(elapsed, 1e-9), 2),
        "http_codes": dict(stats.codes), "errors": len(stats.errors),
        "submits_accepted": len(stats.accepted), "outcomes": dict(stats.outcomes),
        "final_states": dict(final), "no_verdict_reasons": dict(reasons.most_common(5)),
        "stuck": len(stuck), "lost": len(lost),
        "check_latency_s": {"n": len(checks), "p50": round(_percentile(checks, 50), 2),
                            "p95": round(_percentile(checks, 95), 2),
                            "max": round(max(checks, default=float("nan")), 2)},
        "p95_last_third_over_first_third": round(drift, 2),
        "submit_post_p95_s": round(_percentile([s for _, s in stats.submits], 95), 3),
        "page_p95_s": round(_percentile([s for _, s in stats.pages], 95), 3),
    }  # fmt: skip
    print(json.dumps(figures, indent=2))
    for line in stats.errors[:20]:
        print("error:", line)
    if stuck:
        print("stuck attempts:", stuck[:50])
    if lost:
        print("lost attempts:", lost[:50])
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(figures, indent=2))
    return 0 if not (stuck or lost or stats.errors) else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=20)
    parser.add_argument("--duration", type=float, default=30 * 60, help="seconds of traffic")
    parser.add_argument("--think", type=float, nargs=2, default=(1.0, 4.0), metavar=("MIN", "MAX"))
    parser.add_argument("--grace", type=float, default=120, help="seconds for in-flight checks")
    parser.add_argument("--web-workers", type=int, default=2)
    parser.add_argument("--database-url", default="", help="PostgreSQL instead of SQLite")
    parser.add_argument("--keep", action="store_true", help="keep the stack's folder")
    parser.add_argument("--json-out", default="")
    args = parser.parse_args(argv)

    bundle = ROOT / "static" / "js" / "editor.bundle.js"
    if not bundle.exists():  # built by `make install`, as for `make run`
        print(f"{bundle} is missing: run `make install` first (the pages need the editor).")
        return 2
    var_dir = Path(tempfile.mkdtemp(prefix="leancoach-soak-"))
    env, lean = _stack_env(var_dir, args)
    password = secrets.token_urlsafe(12)
    print(f"soak: {args.students} students for {args.duration:.0f} s; stack in {var_dir}; {lean}")
    _manage(env, "migrate", "--noinput", "-v", "0")
    _manage(env, "seed_demo")
    setup = json.loads(_manage(env, "shell", "-c",
                               SETUP.format(n=args.students, password=password)).splitlines()[-1])  # fmt: skip
    log = (var_dir / "stack.log").open("wb")
    stack = subprocess.Popen([sys.executable, "-m", "webapp.launch"], cwd=ROOT, env=env,
                             stdout=log, stderr=subprocess.STDOUT, start_new_session=True)  # fmt: skip
    try:
        wait_for_port(int(env["LEANCOACH_PORT"]), timeout_s=300)
        base = f"http://127.0.0.1:{env['LEANCOACH_PORT']}"
        stats = Stats()
        students = [Student(i, base, password, stats, setup) for i in range(args.students)]
        for student in students:
            student.login()
        stats.t0 = time.monotonic()
        deadline = stats.t0 + args.duration
        threads = [
            threading.Thread(target=s.run, args=(deadline, tuple(args.think)), daemon=True)
            for s in students
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        # Traffic stopped: give what is still in flight its grace, then read every attempt.
        grace_end = time.monotonic() + args.grace
        pending = list(stats.accepted)
        while pending and time.monotonic() < grace_end:
            pending = [(i, pk) for i, pk in pending if students[i].status(pk) in UNFINISHED]
            if pending:
                time.sleep(5)
        return _report(stats, students, args, lean)
    finally:
        os.killpg(stack.pid, signal.SIGINT)
        try:
            stack.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(stack.pid, signal.SIGKILL)
            stack.wait(timeout=10)
        if not args.keep:
            import shutil

            shutil.rmtree(var_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
