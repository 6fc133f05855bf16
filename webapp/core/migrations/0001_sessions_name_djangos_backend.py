"""Sessions signed in through the project's former authentication backend
(webapp.accounts.backends.AccountBackend, Django's ModelBackend with a faster user read) name
Django's ModelBackend instead, which now signs everyone in. Django signs a session's user out
when the backend its session names is not in AUTHENTICATION_BACKENDS
(django/contrib/auth/__init__.py get_user), so without this every open session would end
silently. Expired sessions are left alone; so is any session whose data does not decode with
this SECRET_KEY (Django reads it as empty anyway)."""

from __future__ import annotations

from typing import Any

from django.db import migrations
from django.utils import timezone

FORMER = "webapp.accounts.backends.AccountBackend"
DJANGOS = "django.contrib.auth.backends.ModelBackend"
BACKEND_KEY = "_auth_user_backend"  # django.contrib.auth.BACKEND_SESSION_KEY


def _rename(apps: Any, schema_editor: Any, old: str, new: str) -> None:
    # The stores' signing salt is "django.contrib.sessions.SessionStore" (base.py key_salt:
    # the store class's __qualname__), the same for the former store, the database store
    # and cached_db: any of them decodes and encodes these rows.
    from django.contrib.sessions.backends.db import SessionStore

    store = SessionStore()
    Session = apps.get_model("sessions", "Session")
    live = Session.objects.using(schema_editor.connection.alias).filter(
        expire_date__gt=timezone.now()
    )
    for session in live.iterator():
        data = store.decode(session.session_data)
        if data.get(BACKEND_KEY) != old:
            continue
        data[BACKEND_KEY] = new
        session.session_data = store.encode(data)
        session.save(update_fields=["session_data"])


def forwards(apps: Any, schema_editor: Any) -> None:
    _rename(apps, schema_editor, FORMER, DJANGOS)


def backwards(apps: Any, schema_editor: Any) -> None:
    _rename(apps, schema_editor, DJANGOS, FORMER)


class Migration(migrations.Migration):
    dependencies = [("sessions", "0001_initial")]

    operations = [migrations.RunPython(forwards, backwards)]
