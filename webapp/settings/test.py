"""Test settings: the database and Redis from the environment (DATABASE_URL / REDIS_URL, set by
`make test` to embedded or external services); only the Channels layer is in memory, for
unit tests of consumers. End-to-end tests run the server with dev settings instead."""

from __future__ import annotations

from webapp.settings.base import *  # noqa: F403

SECRET_KEY = "test-insecure-leancoach-key"
DEBUG = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast logins in tests
CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
