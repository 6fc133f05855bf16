"""The embedded default behind `make run`: one machine, SQLite, embedded Redis, served like
production (DEBUG off, cached templates, hashed + compressed static files with a long cache).

`make dev` uses webapp.settings.dev instead (DEBUG on, templates re-read on every request).
The secret key is made once per machine and kept under var/ (readable by its owner only),
so sessions survive a restart without anyone having to set SECRET_KEY.
"""

from __future__ import annotations

import secrets
from pathlib import Path

from webapp.settings.base import *  # noqa: F403
from webapp.settings.base import VAR_DIR
from webapp.settings.env import env_bool, env_secret

DEBUG = env_bool("DJANGO_DEBUG", False)


def _machine_secret_key(path: Path) -> str:
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch(mode=0o600)
        path.write_text(secrets.token_urlsafe(50))
    return path.read_text().strip()


SECRET_KEY = env_secret("SECRET_KEY", required=False) or _machine_secret_key(VAR_DIR / "secret_key")
# `make run` runs collectstatic first (webapp.launch); WhiteNoise serves the hashed names
# with a one-year immutable cache and the .gz / .br siblings to browsers that accept them.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
