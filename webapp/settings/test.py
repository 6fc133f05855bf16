"""Test settings: the database and Redis from the environment (DATABASE_URL / REDIS_URL, set by
`make test` to embedded or external services); only the Channels layer is in memory, for
unit tests of consumers. End-to-end tests run the server with dev settings instead."""

from __future__ import annotations

import os

from webapp.settings.base import *  # noqa: F403

SECRET_KEY = "test-insecure-leancoach-key"
DEBUG = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast logins in tests
# Messages live 10 minutes (the default 60 s drops a slow training test's pushes before it
# reads them on a loaded machine).
CHANNEL_LAYERS = {
    "default": {"BACKEND": "channels.layers.InMemoryChannelLayer", "CONFIG": {"expiry": 600}}
}

# Rate-limit counters live in the shared test Redis: a prefix per run keeps runs apart, and
# generous limits keep other tests clear of them (tests of the limits set their own rates).
CACHES = {
    alias: {**config, "KEY_PREFIX": f"leancoach-test-{os.getpid()}"}
    for alias, config in CACHES.items()  # noqa: F405
}
RATE_LIMITS = {name: "1000/m" for name in RATE_LIMITS}  # noqa: F405
