"""Create the demo users (student / teacher / admin) and the demo course, once.

Passwords are random and printed only when the users are created (or with
--reset-passwords); nothing stores them in clear text.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.contrib.auth.models import Group, User
from django.core.management.base import BaseCommand
from django.db import transaction

ROLE_GROUPS = {"student": "students", "teacher": "teachers", "admin": "admins"}


def _ensure_user(username: str, *, reset: bool) -> str | None:
    """Create the user if missing; return the new password when one was set."""
    user, created = User.objects.get_or_create(username=username)
    if not (created or reset):
        return None
    password = secrets.token_urlsafe(9)
    user.set_password(password)
    user.is_staff = user.is_superuser = username == "admin"
    user.save()
    user.groups.add(Group.objects.get_or_create(name=ROLE_GROUPS[username])[0])
    return password


class Command(BaseCommand):
    help = "Create the demo users and course (idempotent; prints new credentials once)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--reset-passwords", action="store_true", help="set and print new passwords"
        )

    def handle(self, *args: Any, reset_passwords: bool = False, **options: Any) -> None:
        with transaction.atomic():
            for group in ROLE_GROUPS.values():
                Group.objects.get_or_create(name=group)
            new = {name: _ensure_user(name, reset=reset_passwords) for name in ROLE_GROUPS}
            seed_demo_content()
        created = {name: pw for name, pw in new.items() if pw}
        if created:
            self.stdout.write(self.style.SUCCESS("Demo accounts (shown once, keep them):"))
            for name, password in created.items():
                self.stdout.write(f"  {name:8s} password: {password}")
        else:
            self.stdout.write(
                "Demo accounts exist (their passwords were printed when they were created; "
                "`python manage.py seed_demo --reset-passwords` sets new ones)."
            )


def seed_demo_content() -> None:
    """Hook for the course apps: the demo course and its class are seeded from here."""
    from django.apps import apps

    for config in apps.get_app_configs():
        seeder = getattr(config, "seed_demo", None)
        if callable(seeder):
            seeder()
