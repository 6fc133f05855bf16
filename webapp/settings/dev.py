"""Development / embedded default: one machine, SQLite, embedded Redis, DEBUG on."""

from __future__ import annotations

from webapp.settings.base import *  # noqa: F403
from webapp.settings.env import env_bool, env_secret

DEBUG = env_bool("DJANGO_DEBUG", True)
# A fixed development key is fine here: dev settings are never used to serve the public.
SECRET_KEY = env_secret("SECRET_KEY", required=False, default="dev-insecure-leancoach-key")

if DEBUG:
    # Edited templates show on the next request: no compiled-template cache while debugging.
    TEMPLATES[0]["OPTIONS"]["loaders"] = [  # type: ignore[index]  # noqa: F405
        (
            "template_partials.loader.Loader",
            [
                "django.template.loaders.filesystem.Loader",
                "django.template.loaders.app_directories.Loader",
            ],
        )
    ]
