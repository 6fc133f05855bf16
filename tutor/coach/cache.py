"""The coach's boundary to Redis: a feedback cache that degrades to "no cache".

Keys hash the statement, the attempt, the diagnostics, the prompt version and the model, so
a new prompt version or model never reads old advice. Values are Feedback dicts, stored
with a TTL. Redis is reached through its boundary (tutor/redis_boundary.py). When Redis is
unreachable or stalls every call answers "miss" / "not stored" after `timeout_s`, and the
cache stays off for `retry_after_s` before trying again, so an outage costs one timeout per
window instead of one per request.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tutor.lean.types import Diagnostic

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"


@dataclass(frozen=True)
class CacheConfig:
    url: str = DEFAULT_REDIS_URL
    prefix: str = "leancoach:coach:v1:"
    ttl_s: int = 7 * 24 * 3600
    enabled: bool = True
    timeout_s: float = 0.5  # a call waits at most this long (connect, then the answer)
    retry_after_s: float = 30.0

    def __post_init__(self) -> None:
        if self.ttl_s <= 0:
            raise ValueError("ttl_s must be positive (LEANCOACH_COACH_CACHE_TTL_S)")
        if self.timeout_s <= 0:
            raise ValueError("timeout_s must be positive")
        if not self.url.startswith(("redis://", "rediss://", "unix://")):
            raise ValueError(
                f"REDIS_URL must start with redis://, rediss:// or unix://: {self.url}"
            )

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> CacheConfig:
        env = os.environ if env is None else env
        enabled = env.get("LEANCOACH_COACH_CACHE", "on").strip().lower()
        if enabled not in ("on", "off", "1", "0", "true", "false"):
            raise ValueError("LEANCOACH_COACH_CACHE must be on or off")
        return cls(
            url=env.get("REDIS_URL") or DEFAULT_REDIS_URL,
            ttl_s=int(env.get("LEANCOACH_COACH_CACHE_TTL_S", str(7 * 24 * 3600))),
            enabled=enabled in ("on", "1", "true"),
        )


def cache_key(
    statement: str,
    attempt: str,
    diagnostics: Sequence[Diagnostic],
    prompt_version: str,
    model: str,
) -> str:
    payload = json.dumps(
        {
            "statement": statement,
            "attempt": attempt,
            "diagnostics": [d.to_dict() for d in diagnostics],
            "prompt": prompt_version,
            "model": model,
        },
        sort_keys=True,
        ensure_ascii=False,
    )
    return hashlib.sha256(payload.encode()).hexdigest()


class FeedbackCache:
    def __init__(self, config: CacheConfig | None = None, client: Any = None) -> None:
        self.config = config or CacheConfig()
        self._client = client
        self._down_until = 0.0
        self.last_error: str | None = None

    def _redis(self) -> Any:
        if self._client is None:
            from tutor import redis_boundary

            self._client = redis_boundary.client(self.config.url, timeout_s=self.config.timeout_s)
        return self._client

    @property
    def usable(self) -> bool:
        return self.config.enabled and time.monotonic() >= self._down_until

    def get(self, key: str) -> dict[str, Any] | None:
        if not self.usable:
            return None
        try:
            raw = self._redis().get(self.config.prefix + key)
        except Exception as error:  # redis raises ConnectionError, TimeoutError, OSError...
            self._mark_down(error)
            return None
        if raw is None:
            return None
        try:
            value = json.loads(raw)
        except (TypeError, ValueError):
            return None
        return value if isinstance(value, dict) else None

    def set(self, key: str, value: dict[str, Any]) -> bool:
        if not self.usable:
            return False
        try:
            self._redis().set(
                self.config.prefix + key,
                json.dumps(value, ensure_ascii=False),
                ex=self.config.ttl_s,
            )
        except Exception as error:
            self._mark_down(error)
            return False
        return True

    def _mark_down(self, error: Exception) -> None:
        self.last_error = f"{type(error).__name__}: {error}"
        self._down_until = time.monotonic() + self.config.retry_after_s
