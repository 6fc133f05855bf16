from __future__ import annotations

import subprocess
import sys

import redis

from webapp.embedded import start_redis


def test_embedded_redis_starts_answers_and_stops() -> None:
    proc, url = start_redis()
    try:
        assert redis.Redis.from_url(url).ping() is True
    finally:
        proc.terminate()
        assert proc.wait(timeout=10) == 0


def test_with_redis_gives_the_command_a_redis_url(monkeypatch) -> None:
    monkeypatch.delenv("REDIS_URL", raising=False)
    probe = "import os, redis; print(redis.Redis.from_url(os.environ['REDIS_URL']).ping())"
    result = subprocess.run(
        [sys.executable, "-m", "webapp.embedded", "with-redis", "--", sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith("True")


def test_with_redis_passes_on_the_settings_it_was_given_and_no_other(monkeypatch) -> None:
    """Importing the webapp package sets a settings default (webapp/celery.py); the wrapped
    command (pytest under `make test`) must not inherit it, or it would win over the tests'
    own settings."""
    probe = "import os; print(os.environ.get('DJANGO_SETTINGS_MODULE'))"
    command = [sys.executable, "-m", "webapp.embedded", "with-redis", "--", sys.executable, "-c"]

    def run() -> str:
        out = subprocess.run([*command, probe], capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        return out.stdout.strip().splitlines()[-1]

    monkeypatch.delenv("DJANGO_SETTINGS_MODULE", raising=False)
    assert run() == "None"
    monkeypatch.setenv("DJANGO_SETTINGS_MODULE", "webapp.settings.prod")
    assert run() == "webapp.settings.prod"
