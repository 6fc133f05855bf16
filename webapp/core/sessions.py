"""Django's database sessions, read with a prepared read (webapp/core/prepared.py).

Every request and every live socket of a signed-in user reads her session first; Django's
store compiled that query each time (0.3 ms of CPU, most of it compiling). The same row is
read here by its key alone, compiled once, and its expiry is checked in Python, as the
query's `expire_date > now` did. Everything else is Django's store: writes, keys, cookies.
A session signed in through Django's own ModelBackend reads as signed in through the
project's (webapp/accounts/backends.py), which is that backend with its user read prepared.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import BACKEND_SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore as DatabaseSessionStore
from django.contrib.sessions.models import Session
from django.utils import timezone

from webapp.accounts.backends import BACKEND, DJANGOS_BACKEND
from webapp.core.prepared import PreparedRead

_BY_KEY = PreparedRead(lambda key: Session.objects.filter(session_key=key), key=str)


class SessionStore(DatabaseSessionStore):
    def load(self) -> dict[str, Any]:
        data: dict[str, Any] = super().load()
        # Signed in before the project named its own backend (webapp/accounts/backends.py):
        # the same users, read the same way, so the session stays signed in.
        if data.get(BACKEND_SESSION_KEY) == DJANGOS_BACKEND:
            data[BACKEND_SESSION_KEY] = BACKEND
        return data

    def _get_session_from_db(self) -> Any:
        session = _BY_KEY.first(key=self.session_key)
        if session is None or session.expire_date <= timezone.now():
            self._session_key = None
            return None
        return session
