from __future__ import annotations

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "webapp.accounts"
    label = "accounts"

    def seed_demo(self) -> None:
        """Called by `seed_demo`: the starter course and a demo class holding the demo
        student, taught by the demo teacher (idempotent)."""
        from webapp.accounts.seed import seed_demo_class

        seed_demo_class()
