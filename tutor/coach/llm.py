"""The `llm` source: an external model over the Anthropic or an OpenAI-compatible API.

Successful answers are cached in Redis (cache.py); fallbacks to the compiler rules are not
cached, so the model is asked again next time.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from tutor.coach.cache import CacheConfig, FeedbackCache, cache_key
from tutor.coach.compiler import CompilerCoach
from tutor.coach.llm_client import LLMClient, LLMConfig
from tutor.coach.model_coach import ModelAnswer, advise_with_model
from tutor.coach.prompts import DEFAULT_PROMPT, get_variant
from tutor.coach.teaching import TeacherExample, render_examples
from tutor.coach.types import AdviceRequest, BaseCoach, Feedback


class LLMCoach(BaseCoach):
    source = "llm"

    def __init__(
        self,
        client: LLMClient,
        prompt: str = DEFAULT_PROMPT,
        cache: FeedbackCache | None = None,
        retry_invalid: bool = True,
    ) -> None:
        self.client = client
        self.variant = get_variant(prompt)
        self.cache = cache
        self.retry_invalid = retry_invalid
        self.fallback = CompilerCoach()
        # Teacher examples for the next call (set by teaching.TaughtCoach), at most a few.
        self.examples: list[TeacherExample] = []

    def _complete(self, system: str, messages: list[dict[str, str]]) -> ModelAnswer:
        reply = self.client.complete(system, messages)
        return ModelAnswer(reply.text, reply.error)

    def answer(self, request: AdviceRequest) -> Feedback:
        model = f"{self.client.config.provider}:{self.client.model}"
        examples = render_examples(self.examples)
        version = self.variant.version
        if examples:  # the examples change the prompt, so they are part of the cache key
            version += "+ex:" + hashlib.sha256(examples.encode()).hexdigest()[:12]
        key = cache_key(request.statement, request.attempt, request.diagnostics, version, model)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                feedback = Feedback.from_dict(hit)
                feedback.cached = True
                return feedback
        feedback = advise_with_model(
            self._complete,
            self.variant,
            request,
            source=self.source,
            model=model,
            fallback=self.fallback,
            retry_invalid=self.retry_invalid,
            examples=examples,
        )
        if self.cache is not None and not feedback.fell_back:
            self.cache.set(key, feedback.to_dict())
        return feedback


def make_llm_coach(
    prompt: str = DEFAULT_PROMPT,
    config: LLMConfig | None = None,
    cache: FeedbackCache | bool = True,
    env: Mapping[str, str] | None = None,
    retry_invalid: bool = True,
) -> LLMCoach:
    """Build the llm coach from explicit config or the environment (raises CoachUnavailable)."""
    config = config or LLMConfig.from_env(env)
    if cache is True:
        cache_config = CacheConfig.from_env(env)
        feedback_cache: FeedbackCache | None = (
            FeedbackCache(cache_config) if cache_config.enabled else None
        )
    elif cache is False:
        feedback_cache = None
    else:
        feedback_cache = cache
    return LLMCoach(LLMClient(config), prompt, feedback_cache, retry_invalid)
