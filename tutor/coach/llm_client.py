"""The boundary to LLM APIs: Anthropic Messages and any OpenAI-compatible endpoint.

Everything the coach sends to a hosted or self-served model goes through LLMClient, which
uses the official client libraries (`anthropic`, `openai`). Those clients already retry
connection errors, timeouts, 408/409/429 and 5xx replies with exponential backoff and
jitter (0.5 s doubling to at most 8 s, honouring `retry-after` / `retry-after-ms`), so the
retry policy here is their `max_retries`; the per-request timeout is `timeout_s`.

Configuration comes from the environment (see LLMConfig.from_env and docs/COACH.md).
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tutor.coach.types import CoachUnavailable

PROVIDERS = ("anthropic", "openai")

ENV_HELP = (
    "set LEANCOACH_COACH_PROVIDER (anthropic|openai), LEANCOACH_COACH_MODEL, and an API key "
    "in ANTHROPIC_API_KEY / OPENAI_API_KEY (or LEANCOACH_COACH_API_KEY); for a vLLM or other "
    "OpenAI-compatible server also LEANCOACH_COACH_BASE_URL (e.g. http://gpu-host:8000/v1)"
)


@dataclass(frozen=True)
class LLMConfig:
    provider: str
    model: str
    api_key: str
    base_url: str | None = None
    timeout_s: float = 30.0  # per request; a slow reply past this counts as a timeout
    max_retries: int = 2  # the official client's retries (exponential backoff)
    max_tokens: int = 600
    temperature: float = 0.2  # OpenAI-compatible provider only (see _anthropic)

    def __post_init__(self) -> None:
        if self.provider not in PROVIDERS:
            raise ValueError(
                f"provider {self.provider!r} is not supported: set LEANCOACH_COACH_PROVIDER "
                f"to one of {', '.join(PROVIDERS)}"
            )
        if not self.model:
            raise ValueError("no model name: set LEANCOACH_COACH_MODEL")
        if self.timeout_s <= 0:
            raise ValueError("timeout_s must be positive (LEANCOACH_COACH_TIMEOUT_S)")
        if self.max_retries < 0:
            raise ValueError("max_retries must be >= 0 (LEANCOACH_COACH_MAX_RETRIES)")
        if self.max_tokens < 16:
            raise ValueError("max_tokens must be at least 16 to fit three suggestions")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> LLMConfig:
        """Read the configuration; raise CoachUnavailable naming what is missing."""
        env = os.environ if env is None else env
        base_url = env.get("LEANCOACH_COACH_BASE_URL") or None
        provider = env.get("LEANCOACH_COACH_PROVIDER", "").strip().lower()
        if not provider:
            if env.get("ANTHROPIC_API_KEY"):
                provider = "anthropic"
            elif env.get("OPENAI_API_KEY") or base_url:
                provider = "openai"
            else:
                raise CoachUnavailable(f"the llm coach is not configured: {ENV_HELP}")
        if provider not in PROVIDERS:
            raise CoachUnavailable(
                f"LEANCOACH_COACH_PROVIDER={provider!r} is not supported: use anthropic or openai"
            )
        own_key = "ANTHROPIC_API_KEY" if provider == "anthropic" else "OPENAI_API_KEY"
        api_key = env.get("LEANCOACH_COACH_API_KEY") or env.get(own_key)
        if not api_key:
            raise CoachUnavailable(
                f"no API key for the {provider} coach: set {own_key} or LEANCOACH_COACH_API_KEY "
                "(any non-empty value for a vLLM server started without --api-key)"
            )
        model = env.get("LEANCOACH_COACH_MODEL", "").strip()
        if not model:
            raise CoachUnavailable(
                "no coach model: set LEANCOACH_COACH_MODEL (the Anthropic model id, or the name "
                "the OpenAI-compatible server serves)"
            )
        try:
            return cls(
                provider=provider,
                model=model,
                api_key=api_key,
                base_url=base_url,
                timeout_s=float(env.get("LEANCOACH_COACH_TIMEOUT_S", "30")),
                max_retries=int(env.get("LEANCOACH_COACH_MAX_RETRIES", "2")),
                max_tokens=int(env.get("LEANCOACH_COACH_MAX_TOKENS", "600")),
                temperature=float(env.get("LEANCOACH_COACH_TEMPERATURE", "0.2")),
            )
        except ValueError as error:
            raise CoachUnavailable(f"bad coach setting: {error}") from error


@dataclass
class LLMReply:
    """One completed (or failed) call. text is None exactly when error says why."""

    text: str | None
    error: str | None = None
    timed_out: bool = False
    status_code: int | None = None
    latency_ms: float = 0.0

    @property
    def ok(self) -> bool:
        return self.text is not None


class LLMClient:
    def __init__(self, config: LLMConfig) -> None:
        self.config = config
        self._client: Any = None

    @property
    def model(self) -> str:
        return self.config.model

    def _sdk(self) -> Any:
        if self._client is None:
            cfg = self.config
            if cfg.provider == "anthropic":
                import anthropic

                self._client = anthropic.Anthropic(
                    api_key=cfg.api_key,
                    base_url=cfg.base_url,
                    timeout=cfg.timeout_s,
                    max_retries=cfg.max_retries,
                )
            else:
                import openai

                self._client = openai.OpenAI(
                    api_key=cfg.api_key,
                    base_url=cfg.base_url,
                    timeout=cfg.timeout_s,
                    max_retries=cfg.max_retries,
                )
        return self._client

    def complete(self, system: str, messages: list[dict[str, str]]) -> LLMReply:
        """Send one conversation; never raises for API or network failures."""
        started = time.perf_counter()
        try:
            if self.config.provider == "anthropic":
                text = self._anthropic(system, messages)
            else:
                text = self._openai(system, messages)
        except Exception as error:  # the SDKs raise many types; all become a failed reply
            reply = _failed_reply(error)
        else:
            reply = LLMReply(text=text)
        reply.latency_ms = (time.perf_counter() - started) * 1000
        return reply

    def _anthropic(self, system: str, messages: list[dict[str, str]]) -> str:
        # The pinned anthropic client (2.14) takes no sampling parameters for Messages:
        # temperature applies to the OpenAI-compatible provider only.
        response = self._sdk().messages.create(
            model=self.config.model,
            max_tokens=self.config.max_tokens,
            system=system,
            messages=messages,
        )
        parts = [block.text for block in response.content if getattr(block, "type", "") == "text"]
        return "".join(parts)

    def _openai(self, system: str, messages: list[dict[str, str]]) -> str:
        response = self._sdk().chat.completions.create(
            model=self.config.model,
            max_tokens=self.config.max_tokens,
            temperature=self.config.temperature,
            messages=[{"role": "system", "content": system}, *messages],
        )
        if not response.choices:
            return ""
        return response.choices[0].message.content or ""


def _failed_reply(error: Exception) -> LLMReply:
    name = type(error).__name__
    status = getattr(error, "status_code", None)
    timed_out = "Timeout" in name
    detail = str(error).splitlines()[0][:200] if str(error) else name
    return LLMReply(
        text=None,
        error=f"{name}: {detail}" if not status else f"HTTP {status}: {detail}",
        timed_out=timed_out,
        status_code=status if isinstance(status, int) else None,
    )
