"""The `self` source: a frozen copy of the prover model, prompted as coach.

Any object with the prover's policy `generate` method works (tutor.prover.policy.Policy
satisfies CoachPolicy). Output is validated like the llm source's and falls back to the
compiler rules when unusable. Freezing is the caller's job: pass a policy loaded from the
initial checkpoint, not the live student.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from tutor.coach.compiler import CompilerCoach
from tutor.coach.model_coach import ModelAnswer, advise_with_model
from tutor.coach.prompts import DEFAULT_PROMPT, get_variant
from tutor.coach.types import AdviceRequest, BaseCoach, Feedback


class CoachPolicy(Protocol):
    def generate(
        self,
        prompts: Any,
        n: int = 1,
        temperature: float = 1.0,
        top_p: float = 1.0,
        max_tokens: int = 256,
        stop: Sequence[str] | None = None,
    ) -> Sequence[Sequence[Any]]: ...


@dataclass(frozen=True)
class SelfCoachConfig:
    prompt: str = DEFAULT_PROMPT
    temperature: float = 0.0  # greedy: the same attempt gets the same advice
    top_p: float = 1.0
    max_tokens: int = 400
    retry_invalid: bool = True

    def __post_init__(self) -> None:
        get_variant(self.prompt)
        if self.temperature < 0:
            raise ValueError("temperature must be >= 0 (0 is greedy)")
        if self.max_tokens < 16:
            raise ValueError("max_tokens must be at least 16 to fit three suggestions")


class SelfCoach(BaseCoach):
    source = "self"

    def __init__(self, policy: CoachPolicy, config: SelfCoachConfig | None = None) -> None:
        if not callable(getattr(policy, "generate", None)):
            raise TypeError("the self coach needs a policy with a generate(...) method")
        self.policy = policy
        self.config = config or SelfCoachConfig()
        self.variant = get_variant(self.config.prompt)
        self.fallback = CompilerCoach()

    @property
    def model_name(self) -> str:
        return str(getattr(self.policy, "name", "") or type(self.policy).__name__)

    def _complete(self, system: str, messages: list[dict[str, str]]) -> ModelAnswer:
        chat = [{"role": "system", "content": system}, *messages]
        try:
            try:
                out = self._generate([chat])
            except ValueError as error:
                if "chat template" not in str(error):
                    raise
                # A base model without a chat template: send the conversation as plain text.
                out = self._generate([_as_plain_prompt(chat)])
        except Exception as error:  # a policy backend may fail in many ways
            return ModelAnswer(None, f"{type(error).__name__}: {error}")
        if not out or not out[0]:
            return ModelAnswer(None, "the policy returned no completion")
        text = getattr(out[0][0], "text", None)
        if not isinstance(text, str):
            return ModelAnswer(None, "the policy's completion has no text")
        return ModelAnswer(text)

    def _generate(self, prompts: list[Any]) -> Sequence[Sequence[Any]]:
        return self.policy.generate(
            prompts,
            n=1,
            temperature=self.config.temperature,
            top_p=self.config.top_p,
            max_tokens=self.config.max_tokens,
        )

    def answer(self, request: AdviceRequest) -> Feedback:
        return advise_with_model(
            self._complete,
            self.variant,
            request,
            source=self.source,
            model=self.model_name,
            fallback=self.fallback,
            retry_invalid=self.config.retry_invalid,
        )


def _as_plain_prompt(chat: list[dict[str, str]]) -> str:
    parts = [f"{m['role'].capitalize()}: {m['content']}" for m in chat]
    return "\n\n".join(parts) + "\n\nAssistant: "
