"""The llm source against a local server speaking the real Anthropic and OpenAI API shapes."""

from __future__ import annotations

import time

import pytest

from tests.tutor.coach.fake_llm_server import FakeLLMServer, ScriptedReply
from tests.tutor.coach.helpers import K, diag
from tutor.coach import Coach, CoachUnavailable, make_coach
from tutor.coach.cache import CacheConfig, FeedbackCache
from tutor.coach.llm import LLMCoach
from tutor.coach.llm_client import LLMConfig

ATTEMPT = """theorem and_swap (p q : Prop) (hp : p) (hq : q) : q ∧ p := by
  constructor
  · exact hq"""
STATEMENT = "theorem and_swap (p q : Prop) (hp : p) (hq : q) : q ∧ p := by"
DIAGNOSTICS = [
    diag(
        1,
        59,
        "unsolved goals\ncase right\np q : Prop\nhp : p\nhq : q\n⊢ p",
        K.UNSOLVED_GOALS,
        end=(3, 12),
    )
]
GOOD = (
    "[line 3] Do add a second bullet after line 3 that proves `p` with `exact hp`, since the "
    "goal `p` is still open.\n"
    "[line none] Don't stop a proof after the first bullet of `constructor`; every case needs its own block."
)
FAST_RETRY = {"retry-after-ms": "10"}


def coach_for(
    server: FakeLLMServer, provider: str = "anthropic", timeout_s: float = 5.0, max_retries: int = 2
) -> Coach:
    base_url = server.url if provider == "anthropic" else server.url + "/v1"
    config = LLMConfig(
        provider=provider,
        model="test-model",
        api_key="k",
        base_url=base_url,
        timeout_s=timeout_s,
        max_retries=max_retries,
    )
    return make_coach("llm", config=config, cache=False)


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_it_returns_validated_line_anchored_feedback(
    fake_llm: FakeLLMServer, provider: str
) -> None:
    fake_llm.script(ScriptedReply(GOOD))
    feedback = coach_for(fake_llm, provider).advise(STATEMENT, ATTEMPT, DIAGNOSTICS)
    assert feedback.source == "llm" and feedback.fallback_reason is None
    assert feedback.prompt_version == "P4.v1" and feedback.model == f"{provider}:test-model"
    assert [(s.line, s.kind) for s in feedback.suggestions] == [(3, "do"), (None, "dont")]
    path, body = fake_llm.requests[0]
    assert path == ("/v1/messages" if provider == "anthropic" else "/v1/chat/completions")
    prompt = body["messages"][-1]["content"]
    assert "3 |   · exact hq" in prompt and "unsolved goals" in prompt
    assert body["model"] == "test-model"


def test_malformed_output_is_retried_once_with_a_repair_request(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(ScriptedReply("Sure! Here is my advice: good luck."), ScriptedReply(GOOD))
    feedback = coach_for(fake_llm).advise(STATEMENT, ATTEMPT, DIAGNOSTICS)
    assert feedback.source == "llm" and feedback.repairs[0].startswith("retry")
    second = fake_llm.requests[1][1]["messages"]
    assert [m["role"] for m in second] == ["user", "assistant", "user"]
    assert "could not be used" in second[-1]["content"]


def test_output_still_malformed_after_retry_falls_back_to_compiler(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(ScriptedReply("nope"), ScriptedReply("```\n{}\n```"))
    feedback = coach_for(fake_llm).advise(STATEMENT, ATTEMPT, DIAGNOSTICS)
    assert feedback.source == "compiler" and feedback.requested_source == "llm"
    assert feedback.fallback_reason and "invalid model output" in feedback.fallback_reason
    assert feedback.suggestions[0].line == 3  # the compiler's advice, still usable
    assert len(fake_llm.requests) == 2


def test_repairs_are_recorded_when_output_is_fixable(fake_llm: FakeLLMServer) -> None:
    many = "\n".join(
        f"{n}. [line {n}] Do check step {n} of the proof carefully before moving on to the next."
        for n in (1, 2, 3, 7)
    )
    fake_llm.script(ScriptedReply(many))
    feedback = coach_for(fake_llm).advise(STATEMENT, ATTEMPT, DIAGNOSTICS)
    assert feedback.source == "llm" and len(feedback.suggestions) == 3
    assert any("kept the first 3" in r for r in feedback.repairs)


def test_a_slow_reply_times_out_and_falls_back(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(ScriptedReply(GOOD, delay_s=2.0))
    started = time.perf_counter()
    feedback = coach_for(fake_llm, timeout_s=0.3, max_retries=0).advise(
        STATEMENT, ATTEMPT, DIAGNOSTICS
    )
    assert time.perf_counter() - started < 1.9
    assert feedback.source == "compiler"
    assert feedback.fallback_reason and "Timeout" in feedback.fallback_reason


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_server_errors_and_rate_limits_are_retried(fake_llm: FakeLLMServer, provider: str) -> None:
    fake_llm.script(
        ScriptedReply(status=500, headers=FAST_RETRY),
        ScriptedReply(status=429, headers=FAST_RETRY),
        ScriptedReply(GOOD),
    )
    feedback = coach_for(fake_llm, provider, max_retries=2).advise(STATEMENT, ATTEMPT, DIAGNOSTICS)
    assert feedback.source == "llm"
    assert len(fake_llm.requests) == 3


def test_persistent_server_errors_fall_back_with_the_status(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(*[ScriptedReply(status=500, headers=FAST_RETRY)] * 2)
    feedback = coach_for(fake_llm, max_retries=1).advise(STATEMENT, ATTEMPT, DIAGNOSTICS)
    assert feedback.source == "compiler"
    assert feedback.fallback_reason and "500" in feedback.fallback_reason
    assert len(fake_llm.requests) == 2


def test_a_second_identical_request_is_served_from_redis(
    fake_llm: FakeLLMServer, redis_cache: FeedbackCache
) -> None:
    fake_llm.script(ScriptedReply(GOOD))
    config = LLMConfig(provider="anthropic", model="m", api_key="k", base_url=fake_llm.url)
    coach = make_coach("llm", config=config, cache=redis_cache)
    first = coach.advise(STATEMENT, ATTEMPT, DIAGNOSTICS)
    second = coach.advise(STATEMENT, ATTEMPT, DIAGNOSTICS)
    assert not first.cached and second.cached
    assert second.suggestions == first.suggestions
    assert len(fake_llm.requests) == 1
    # a different prompt version is a different key: the model is asked again
    fake_llm.script(ScriptedReply(GOOD))
    make_coach("llm", config=config, cache=redis_cache, prompt="P3").advise(
        STATEMENT, ATTEMPT, DIAGNOSTICS
    )
    assert len(fake_llm.requests) == 2


def test_fallbacks_are_not_cached(fake_llm: FakeLLMServer, redis_cache: FeedbackCache) -> None:
    fake_llm.script(ScriptedReply("bad"), ScriptedReply("bad"), ScriptedReply(GOOD))
    config = LLMConfig(provider="anthropic", model="m", api_key="k", base_url=fake_llm.url)
    coach = make_coach("llm", config=config, cache=redis_cache)
    assert coach.advise(STATEMENT, ATTEMPT, DIAGNOSTICS).fell_back
    assert coach.advise(STATEMENT, ATTEMPT, DIAGNOSTICS).source == "llm"


def test_an_unreachable_redis_degrades_to_no_cache(fake_llm: FakeLLMServer) -> None:
    cache = FeedbackCache(CacheConfig(url="redis://127.0.0.1:1/0", timeout_s=0.1))
    fake_llm.script(ScriptedReply(GOOD), ScriptedReply(GOOD))
    config = LLMConfig(provider="anthropic", model="m", api_key="k", base_url=fake_llm.url)
    coach = make_coach("llm", config=config, cache=cache)
    assert coach.advise(STATEMENT, ATTEMPT, DIAGNOSTICS).source == "llm"
    assert cache.last_error is not None and not cache.usable
    started = time.perf_counter()
    assert coach.advise(STATEMENT, ATTEMPT, DIAGNOSTICS).source == "llm"
    assert time.perf_counter() - started < 1.0  # no second connect attempt while marked down


def test_without_configuration_make_coach_names_the_env_vars() -> None:
    with pytest.raises(CoachUnavailable) as error:
        make_coach("llm", env={})
    for name in (
        "LEANCOACH_COACH_PROVIDER",
        "LEANCOACH_COACH_MODEL",
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
    ):
        assert name in str(error.value)
    with pytest.raises(CoachUnavailable, match="LEANCOACH_COACH_MODEL"):
        make_coach("llm", env={"ANTHROPIC_API_KEY": "k"})


def test_configuration_from_the_environment() -> None:
    env = {
        "LEANCOACH_COACH_PROVIDER": "openai",
        "LEANCOACH_COACH_BASE_URL": "http://gpu:8000/v1",
        "LEANCOACH_COACH_MODEL": "qwen",
        "LEANCOACH_COACH_API_KEY": "EMPTY",
        "LEANCOACH_COACH_TIMEOUT_S": "12",
        "LEANCOACH_COACH_CACHE": "off",
    }
    coach = make_coach("llm", env=env)
    assert isinstance(coach, LLMCoach)
    assert (
        coach.client.config.timeout_s == 12 and coach.client.config.base_url == "http://gpu:8000/v1"
    )
    assert coach.cache is None
