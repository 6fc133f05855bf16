"""Sessions are Django's cached_db store with Django's ModelBackend. A session signed in
through the project's former backend stays signed in (the migration
webapp/core/migrations/0001_sessions_name_djangos_backend.py), and a Redis that is away
neither signs anyone out nor fails a page: the sessions' cache ignores its errors and the
database answers."""

from __future__ import annotations

import importlib
from types import SimpleNamespace
from typing import Any

import pytest
from django.apps import apps
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.cached_db import SessionStore
from django.core.cache import caches
from django.db import connection
from django.test import Client, override_settings

from tests.webapp.cast import Cast

pytestmark = pytest.mark.django_db

MIGRATION = importlib.import_module("webapp.core.migrations.0001_sessions_name_djangos_backend")


def _session_for(user: Any, backend: str) -> str:
    """A session as Django's login() stores it, naming `backend`; its key."""
    store = SessionStore()
    store[SESSION_KEY] = str(user.pk)
    store[BACKEND_SESSION_KEY] = backend
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.create()
    return str(store.session_key)


def _signed_in_as(session_key: str) -> str | None:
    client = Client()
    client.cookies[settings.SESSION_COOKIE_NAME] = session_key
    page = client.get("/me/")
    return page.wsgi_request.user.get_username() if page.status_code == 200 else None


def _migrate() -> None:
    """The migration's forwards step, with what it reads of a schema editor."""
    MIGRATION.forwards(apps, SimpleNamespace(connection=connection))


def test_the_stock_session_engine_and_backend_serve() -> None:
    assert settings.SESSION_ENGINE == "django.contrib.sessions.backends.cached_db"
    assert settings.AUTHENTICATION_BACKENDS == ["django.contrib.auth.backends.ModelBackend"]


def test_a_session_of_the_former_backend_stays_signed_in(cast: Cast) -> None:
    key = _session_for(cast.student, MIGRATION.FORMER)
    caches[settings.SESSION_CACHE_ALIAS].clear()  # a deploy meets rows, not cached copies
    assert _signed_in_as(key) is None  # Django alone signs her out: the backend is gone

    _migrate()
    caches[settings.SESSION_CACHE_ALIAS].clear()

    assert _signed_in_as(key) == cast.student.username
    assert SessionStore(key).load()[BACKEND_SESSION_KEY] == MIGRATION.DJANGOS


def test_the_migration_leaves_other_sessions_as_they_are(cast: Cast) -> None:
    key = _session_for(cast.teacher, MIGRATION.DJANGOS)
    before = SessionStore(key).load()
    _migrate()
    assert SessionStore(key).load() == before


def test_a_page_answers_from_the_database_while_redis_is_away(cast: Cast) -> None:
    """Port 1 refuses at once: every cache call fails (as a stall's timeouts do, later)."""
    key = _session_for(cast.student, MIGRATION.DJANGOS)
    away = {
        alias: {**config, "LOCATION": "redis://127.0.0.1:1/0"}
        for alias, config in settings.CACHES.items()
    }
    with override_settings(CACHES=away):
        assert _signed_in_as(key) == cast.student.username
