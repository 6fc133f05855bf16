"""The web process under load keeps its PostgreSQL connections bounded.

Django's ASGI handler runs each request's sync code in a thread of its own, and database
connections are per thread: with persistent connections (CONN_MAX_AGE > 0) every request
left one open until garbage collection, and 50 users exhausted PostgreSQL's 100 slots
("sorry, too many clients already", pages answering 500). The ASGI entry point now closes
the connection after each request and, on PostgreSQL, lends it from a per-process pool of
DB_POOL_SIZE. This test serves real concurrent requests from uvicorn and watches
pg_stat_activity."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from webapp.embedded import free_port, wait_for_port

ROOT = Path(__file__).resolve().parents[2]
POOL_SIZE = 3


def _connections(admin: Any, database: str) -> int:
    row = admin.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
        (database,),
    ).fetchone()
    return int(row[0]) if row else 0


def test_fifty_concurrent_users_hold_at_most_a_pool_of_connections(
    pg_database: tuple[str, tuple[Any, str]], tmp_path: Path
) -> None:
    url, (admin, fresh_database) = pg_database
    env = {**os.environ, "DATABASE_URL": url,
           "DJANGO_SETTINGS_MODULE": "webapp.settings.dev", "LEANCOACH_VAR_DIR": str(tmp_path),
           "DB_POOL_SIZE": str(POOL_SIZE), "DB_CONN_MAX_AGE": "60"}  # fmt: skip
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
    made = subprocess.run(
        [*manage, "shell", "-c",
         "from django.contrib.auth.models import User\n"
         "from django.contrib.sessions.backends.db import SessionStore\n"
         "from django.contrib.auth import SESSION_KEY, BACKEND_SESSION_KEY, HASH_SESSION_KEY\n"
         "u = User.objects.create_user('load', password='load-pass-12345')\n"
         "s = SessionStore(); s[SESSION_KEY] = str(u.pk)\n"
         "s[BACKEND_SESSION_KEY] = 'django.contrib.auth.backends.ModelBackend'\n"
         "s[HASH_SESSION_KEY] = u.get_session_auth_hash(); s.create(); print(s.session_key)"],
        cwd=ROOT, env=env, check=True, capture_output=True, text=True,
    )  # fmt: skip
    session = made.stdout.strip().splitlines()[-1]
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "webapp.asgi:application", "--host", "127.0.0.1",
         "--port", str(port), "--no-access-log"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        wait_for_port(port, timeout_s=60)

        def get(_: int) -> int:
            request = urllib.request.Request(
                f"http://127.0.0.1:{port}/me/", headers={"Cookie": f"sessionid={session}"}
            )
            try:
                with urllib.request.urlopen(request, timeout=30) as response:
                    return int(response.status)
            except urllib.error.HTTPError as exc:
                return int(exc.code)

        most = 0
        done = threading.Event()

        def watch() -> None:
            nonlocal most
            while not done.is_set():
                most = max(most, _connections(admin, fresh_database))
                time.sleep(0.05)

        watcher = threading.Thread(target=watch)
        watcher.start()
        try:
            with ThreadPoolExecutor(max_workers=50) as pool:
                statuses = list(pool.map(get, range(300)))
        finally:
            done.set()
            watcher.join()
        assert statuses.count(200) == len(statuses), sorted(set(statuses))
        # One process: at most the pool, however many requests ran at once.
        assert 1 <= most <= POOL_SIZE, f"{most} connections open at once"
        assert _connections(admin, fresh_database) <= POOL_SIZE
    finally:
        server.terminate()
        _, errors = server.communicate(timeout=20)
    assert "too many clients" not in errors
