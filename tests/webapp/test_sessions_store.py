"""The session store (webapp/core/sessions.py): Django's database store with its read
prepared. It must keep Django's behaviour: a live session is read, an expired or unknown
key gives an empty session and a new key, and a signed-in user's requests stay signed in."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.sessions.models import Session
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tests.webapp.cast import PASSWORD, Cast
from webapp.core.sessions import SessionStore

pytestmark = pytest.mark.django_db


def _saved(data: dict[str, str]) -> str:
    store = SessionStore()
    store.update(data)
    store.save()
    assert store.session_key
    return store.session_key


def test_it_is_the_engine_in_use() -> None:
    assert settings.SESSION_ENGINE == "webapp.core.sessions"


def test_a_live_session_is_read_in_one_query() -> None:
    key = _saved({"colour": "green"})
    store = SessionStore(key)
    with CaptureQueriesContext(connection) as queries:
        assert store["colour"] == "green"
    assert len(queries) == 1
    assert store.session_key == key


def test_an_expired_or_unknown_session_is_empty_and_gets_a_new_key() -> None:
    key = _saved({"colour": "green"})
    Session.objects.filter(session_key=key).update(expire_date=timezone.now() - timedelta(1))
    for stale in (key, "no-such-session-key-0123456789"):
        store = SessionStore(stale)
        assert store.load() == {}
        assert store.session_key is None  # as Django's store: a new key when saved
        store["colour"] = "blue"
        store.save()
        assert store.session_key not in (None, stale)


def test_a_signed_in_user_stays_signed_in(cast: Cast) -> None:
    client = Client()
    assert client.login(username=cast.student.username, password=PASSWORD)
    page = client.get(cast.exercise.get_absolute_url())
    assert page.status_code == 200 and page.context["user"] == cast.student
    client.logout()
    assert client.get(cast.exercise.get_absolute_url()).status_code == 302


def test_sessions_signed_in_through_djangos_backend_stay_signed_in(cast: Cast) -> None:
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY

    from webapp.accounts.backends import BACKEND, DJANGOS_BACKEND

    assert settings.AUTHENTICATION_BACKENDS == [BACKEND]
    key = _saved(
        {
            SESSION_KEY: str(cast.student.pk),
            BACKEND_SESSION_KEY: DJANGOS_BACKEND,  # as every session made before
            HASH_SESSION_KEY: cast.student.get_session_auth_hash(),
        }
    )
    client = Client()
    client.cookies[settings.SESSION_COOKIE_NAME] = key
    page = client.get(cast.exercise.get_absolute_url())
    assert page.status_code == 200 and page.context["user"] == cast.student


def test_the_signed_in_user_is_read_in_one_query_and_an_inactive_one_is_not(cast: Cast) -> None:
    from webapp.accounts.backends import AccountBackend

    backend = AccountBackend()
    with CaptureQueriesContext(connection) as queries:
        assert backend.get_user(cast.student.pk) == cast.student
    assert len(queries) == 1
    assert backend.get_user(10**6) is None
    cast.student.is_active = False
    cast.student.save()
    assert backend.get_user(cast.student.pk) is None  # as ModelBackend: not signed in
