"""The self source: a frozen prover policy prompted as coach, validated like the llm source."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from tests.tutor.coach.helpers import K, diag
from tutor.coach import CoachUnavailable, make_coach

ATTEMPT = "theorem t (a b : Nat) (h : a = b) : b = a := by\n  exact h"
MISMATCH = (
    "type mismatch\n  h\nhas type\n  a = b : Prop\nbut is expected to have type\n  b = a : Prop"
)
DIAGNOSTICS = [diag(2, 8, MISMATCH, K.TYPE_MISMATCH, end=(2, 9))]
GOOD = "[line 2] Do use `h.symm` on line 2, because `h` proves `a = b` while the goal asks for `b = a`."


@dataclass
class _Completion:
    text: str


class ScriptedPolicy:
    """A policy double with the prover's generate signature, answering from a script."""

    name = "frozen-initial-checkpoint"

    def __init__(self, *answers: str | Exception, chat_template: bool = True) -> None:
        self.answers = list(answers)
        self.calls: list[dict[str, Any]] = []
        self.chat_template = chat_template

    def generate(
        self,
        prompts: Any,
        n: int = 1,
        temperature: float = 1.0,
        top_p: float = 1.0,
        max_tokens: int = 256,
        stop: Any = None,
    ) -> list[list[_Completion]]:
        self.calls.append(
            {"prompts": prompts, "n": n, "temperature": temperature, "max_tokens": max_tokens}
        )
        if not isinstance(prompts[0], str) and not self.chat_template:
            raise ValueError("the tokenizer of 'x' has no chat template; pass plain string prompts")
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return [[_Completion(answer)]]


def test_it_prompts_the_policy_as_a_chat_and_validates_its_answer() -> None:
    policy = ScriptedPolicy(GOOD)
    feedback = make_coach("self", policy=policy).advise("theorem t ...", ATTEMPT, DIAGNOSTICS)
    assert feedback.source == "self" and feedback.model == "frozen-initial-checkpoint"
    assert feedback.suggestions[0].line == 2 and feedback.prompt_version == "P4.v1"
    chat = policy.calls[0]["prompts"][0]
    assert [m["role"] for m in chat] == ["system", "user"]
    assert policy.calls[0]["temperature"] == 0.0 and policy.calls[0]["n"] == 1


def test_unusable_output_is_retried_then_falls_back_to_compiler() -> None:
    policy = ScriptedPolicy("I think it is fine.", "Still fine.")
    feedback = make_coach("self", policy=policy).advise("theorem t ...", ATTEMPT, DIAGNOSTICS)
    assert feedback.source == "compiler" and feedback.requested_source == "self"
    assert feedback.fallback_reason and "invalid model output" in feedback.fallback_reason
    assert "`h.symm`" in feedback.suggestions[0].text
    assert len(policy.calls) == 2


def test_a_failing_policy_falls_back_and_says_why() -> None:
    policy = ScriptedPolicy(RuntimeError("CUDA out of memory"))
    feedback = make_coach("self", policy=policy).advise("theorem t ...", ATTEMPT, DIAGNOSTICS)
    assert feedback.fell_back and "CUDA out of memory" in (feedback.fallback_reason or "")


def test_a_base_model_without_chat_template_gets_a_plain_prompt() -> None:
    policy = ScriptedPolicy(GOOD, chat_template=False)
    feedback = make_coach("self", policy=policy).advise("theorem t ...", ATTEMPT, DIAGNOSTICS)
    assert feedback.source == "self"
    assert isinstance(policy.calls[-1]["prompts"][0], str)


def test_it_accepts_the_provers_completion_type() -> None:
    base = pytest.importorskip("tutor.prover.policy.base")
    completion = base.Completion(text=GOOD, token_ids=[], logprobs=[], finish_reason="stop")

    class PolicyWithRealCompletions(ScriptedPolicy):
        def generate(self, prompts: Any, **kwargs: Any) -> list[list[Any]]:  # type: ignore[override]
            return [[completion]]

    feedback = make_coach("self", policy=PolicyWithRealCompletions()).advise(
        "t", ATTEMPT, DIAGNOSTICS
    )
    assert feedback.source == "self"


def test_self_needs_a_policy() -> None:
    with pytest.raises(CoachUnavailable, match="policy"):
        make_coach("self")
