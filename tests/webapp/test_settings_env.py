from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from webapp.settings.env import ImproperlyConfiguredEnv, env_bool, env_list, env_secret

ROOT = Path(__file__).resolve().parents[2]


def test_env_bool_accepts_the_usual_spellings(monkeypatch: pytest.MonkeyPatch) -> None:
    for raw, expected in [("1", True), ("Yes", True), ("off", False), ("0", False)]:
        monkeypatch.setenv("X_FLAG", raw)
        assert env_bool("X_FLAG", default=not expected) is expected


def test_env_bool_fails_loudly_on_a_typo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("X_FLAG", "ture")
    with pytest.raises(ImproperlyConfiguredEnv, match="X_FLAG='ture' is not a boolean"):
        env_bool("X_FLAG", default=False)


def test_env_list_splits_and_strips(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("X_HOSTS", " a.example , b.example,,")
    assert env_list("X_HOSTS", []) == ["a.example", "b.example"]


def test_env_secret_reads_a_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    secret = tmp_path / "key"
    secret.write_text("s3cret\n")
    monkeypatch.setenv("X_KEY_FILE", str(secret))
    assert env_secret("X_KEY", required=True) == "s3cret"


def test_env_secret_required_names_both_ways_to_set_it() -> None:
    with pytest.raises(ImproperlyConfiguredEnv, match="X_MISSING_FILE"):
        env_secret("X_MISSING", required=True)


def _django_python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "DATABASE_URL"}}
    return subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {code}"],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_prod_refuses_to_start_without_a_secret_key() -> None:
    result = _django_python("pass", DJANGO_SETTINGS_MODULE="webapp.settings.prod")
    assert result.returncode != 0
    assert "SECRET_KEY is required" in result.stderr


def test_prod_has_debug_off_by_default() -> None:
    result = _django_python(
        "from django.conf import settings; print(settings.DEBUG)",
        DJANGO_SETTINGS_MODULE="webapp.settings.prod",
        SECRET_KEY="x" * 50,
    )
    assert result.stdout.strip() == "False", result.stderr


def test_embedded_default_is_sqlite_in_wal_mode(tmp_path: Path) -> None:
    result = _django_python(
        "from django.db import connection; c = connection.cursor(); "
        "c.execute('PRAGMA journal_mode'); print(connection.vendor, c.fetchone()[0]); "
        "c.execute('PRAGMA busy_timeout'); print(c.fetchone()[0])",
        DJANGO_SETTINGS_MODULE="webapp.settings.dev",
        LEANCOACH_VAR_DIR=str(tmp_path),
    )
    assert result.returncode == 0, result.stderr
    vendor_mode, busy = result.stdout.split("\n")[:2]
    assert vendor_mode == "sqlite wal"
    assert int(busy) >= 10_000  # a writer waits for the lock instead of failing at once


def test_continual_distillation_is_scheduled_only_when_asked() -> None:
    code = (
        "from webapp.celery import app; s = app.conf.beat_schedule; "
        "print(s['continual-distill']['schedule'] if 'continual-distill' in s else 'none', "
        "s['sweep-stale']['task'])"
    )
    off = _django_python(code, DJANGO_SETTINGS_MODULE="webapp.settings.dev")
    # The stale-work sweeper is always scheduled; distillation only when asked.
    assert off.stdout.strip() == "none lean.sweep_stale", off.stderr
    on = _django_python(
        code, DJANGO_SETTINGS_MODULE="webapp.settings.dev", LEANCOACH_CONTINUAL_EVERY_H="6"
    )
    assert on.stdout.strip() == f"{6 * 3600} lean.sweep_stale", on.stderr


@pytest.mark.parametrize("setting, prepared", [(None, True), ("0", False)])
def test_postgresql_keeps_repeated_queries_prepared_unless_told_not_to(
    pg_database: tuple[str, object], setting: str | None, prepared: bool
) -> None:
    url, _ = pg_database
    code = (
        "from django.db import connection\n"
        "for _ in range(3):\n"
        "    with connection.cursor() as c: c.execute('SELECT %s::int + 1', [41])\n"
        "with connection.cursor() as c:\n"
        "    c.execute('SELECT count(*) FROM pg_prepared_statements')\n"
        "    print(c.fetchone()[0])"
    )
    env = {"DB_PREPARED_STATEMENTS": setting} if setting else {}
    result = _django_python(
        code, DJANGO_SETTINGS_MODULE="webapp.settings.dev", DATABASE_URL=url, **env
    )
    assert result.returncode == 0, result.stderr
    assert (int(result.stdout.strip().splitlines()[-1]) > 0) is prepared
