"""Fixtures for the coach tests: a local fake LLM server and a real-Redis cache."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

from tests.tutor.coach.fake_llm_server import FakeLLMServer
from tutor.coach.cache import DEFAULT_REDIS_URL, CacheConfig, FeedbackCache


@pytest.fixture
def fake_llm() -> Iterator[FakeLLMServer]:
    server = FakeLLMServer().start()
    yield server
    server.stop()


@pytest.fixture
def redis_cache() -> Iterator[FeedbackCache]:
    """A cache on the real Redis (REDIS_URL or 127.0.0.1:6379) under a unique key prefix."""
    import redis

    url = os.environ.get("REDIS_URL") or DEFAULT_REDIS_URL
    client = redis.Redis.from_url(url, socket_connect_timeout=0.5)
    try:
        client.ping()
    except redis.RedisError as error:
        pytest.skip(f"Redis is not reachable at {url}: {error}")
    prefix = f"test:coach:{uuid.uuid4().hex}:"
    yield FeedbackCache(CacheConfig(url=url, prefix=prefix, ttl_s=60))
    for key in client.scan_iter(match=prefix + "*"):
        client.delete(key)
