"""Production: secrets required, DEBUG off unless asked, secure cookies, sandboxed Lean."""

from __future__ import annotations

import os

from webapp.settings.base import *  # noqa: F403
from webapp.settings.env import env_bool, env_int, env_secret

DEBUG = env_bool("DJANGO_DEBUG", False)
SECRET_KEY = env_secret("SECRET_KEY", required=True)

SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", True)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", True)
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

# Checking strangers' Lean runs their code: the checker refuses to run without bubblewrap.
os.environ.setdefault("LEANCOACH_REQUIRE_SANDBOX", "1")
