"""A fresh process sets up Celery's sending side, the channel layer and the cache client
before its first submit (webapp.core.warmup.prepare_sending: web processes at start, worker
pool processes as they start), so the first burst after a start does not pay for it.

Each case runs in a fresh interpreter: this test process has long since done all of it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

# Sends one check message to a throwaway queue (no worker reads it; deleted after) and
# reports what that send had to set up: Redis connections opened and modules imported.
FIRST_SEND = r"""
import json, os, sys, time
import django
django.setup()
import redis.connection
from webapp.core.warmup import prepare_sending
prepared = prepare_sending() if os.environ["PREPARE"] == "1" else None
opened = []
real_connect = redis.connection.Connection._connect  # a new socket (connect() reuses one)
def counting(self):
    opened.append(self.port)
    return real_connect(self)
redis.connection.Connection._connect = counting
from webapp.celery import app
before = set(sys.modules)
# What webapp.celery.enqueue sends, to the probe's queue.
app.send_task("lean.check_attempt", args=(0,), ignore_result=True, queue=os.environ["PROBE_QUEUE"])
imported = sorted(set(sys.modules) - before)
report = {"prepared": prepared, "opened": len(opened), "imported": imported}
probe = os.environ["PROBE_QUEUE"]
with app.connection_for_write() as conn:
    conn.default_channel.client.delete(probe, f"_kombu.binding.{probe}",
                                       f"_kombu.binding_permanent.{probe}")
print(json.dumps(report))
"""


def _first_send(prepare: bool, **env: str) -> dict[str, Any]:
    environ = {**os.environ, "DJANGO_SETTINGS_MODULE": "webapp.settings.test",
               "PREPARE": "1" if prepare else "0", "PROBE_QUEUE": f"warmup-probe-{os.getpid()}",
               **env}  # fmt: skip
    done = subprocess.run([sys.executable, "-c", FIRST_SEND], cwd=ROOT, env=environ,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def test_after_preparing_the_first_send_opens_no_connection_and_imports_nothing() -> None:
    prepared = _first_send(prepare=True)
    assert prepared["prepared"] is True
    assert prepared["opened"] == 0
    assert prepared["imported"] == [], prepared["imported"]


def test_without_it_the_first_send_sets_everything_up() -> None:
    # The control: the case above measures the warm-up, not a send that is always cheap.
    cold = _first_send(prepare=False)
    assert cold["opened"] >= 1
    assert len(cold["imported"]) >= 20, cold["imported"]


def test_an_unreachable_redis_is_logged_not_raised() -> None:
    closed = "redis://127.0.0.1:9/0"  # the discard port: nothing listens
    environ = {**os.environ, "DJANGO_SETTINGS_MODULE": "webapp.settings.test",
               "REDIS_URL": closed, "CELERY_BROKER_URL": closed}  # fmt: skip
    script = (
        "import django, time; django.setup()\n"
        "from webapp.core.warmup import prepare_sending\n"
        "started = time.monotonic(); ok = prepare_sending()\n"
        "print(ok, round(time.monotonic() - started, 1))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=environ,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    ok, seconds = done.stdout.split()
    assert ok == "False"
    assert float(seconds) < 10
    assert "sending side not prepared" in done.stderr
