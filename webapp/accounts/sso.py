"""School sign-in through django-allauth: who a new account is, and which accounts link.

An existing account is signed in when the provider vouches for its e-mail address (the
`email_verified` claim): SOCIALACCOUNT_EMAIL_AUTHENTICATION in settings. A teacher who signs
in this way stays a teacher (her classes and join codes are hers). A first sign-in without a
matching account makes a student account; admins make teachers, as for any account.
"""

from __future__ import annotations

from typing import Any

from allauth.socialaccount.adapter import DefaultSocialAccountAdapter
from django.conf import settings
from django.contrib.auth.models import Group
from django.http import HttpRequest

from webapp.accounts.roles import STUDENTS


class SchoolAccountAdapter(DefaultSocialAccountAdapter):
    def save_user(self, request: HttpRequest, sociallogin: Any, form: Any = None) -> Any:
        user = super().save_user(request, sociallogin, form)
        user.groups.add(Group.objects.get_or_create(name=STUDENTS)[0])
        return user


def providers() -> list[dict[str, str]]:
    """(id, name) of each configured provider, for the login page's buttons."""
    apps = settings.SOCIALACCOUNT_PROVIDERS.get("openid_connect", {}).get("APPS", [])
    return [{"id": app["provider_id"], "name": app["name"]} for app in apps]
