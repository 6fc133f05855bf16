"""Django's ModelBackend, with the user read every request and every live socket makes
(the signed-in user, by the id in her session) prepared (webapp/core/prepared.py): 0.2 ms of
CPU each time, most of it compiling the same SQL.

Sessions made before this backend name Django's own ModelBackend; the session store
(webapp/core/sessions.py) reads that name as this one, so nobody is signed out by it."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend

from webapp.core.prepared import PreparedRead

BACKEND = "webapp.accounts.backends.AccountBackend"
DJANGOS_BACKEND = "django.contrib.auth.backends.ModelBackend"

_USER_BY_PK = PreparedRead(lambda pk: get_user_model()._default_manager.filter(pk=pk), pk=int)


class AccountBackend(ModelBackend):
    def get_user(self, user_id: Any) -> Any:
        user = _USER_BY_PK.first(pk=user_id)
        return user if user is not None and self.user_can_authenticate(user) else None
