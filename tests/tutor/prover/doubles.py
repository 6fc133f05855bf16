"""A scripted policy for agent tests: it answers each turn with prepared text, tokenised
by a real tokenizer, so the agent's token bookkeeping is exercised exactly. Tests only."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from tutor.prover.policy.base import ChatPolicyBase, Completion, SamplingConfig


def write_call(code: str, file_name: str = "proof.lean") -> str:
    args = {"code": code, "file_name": file_name}
    return (
        f"<tool_call>\n{json.dumps({'name': 'lean_write_file', 'arguments': args})}\n</tool_call>"
    )


class ScriptedPolicy(ChatPolicyBase):
    """script(prompt_text, call_index) -> the reply text for that prompt."""

    def __init__(self, tokenizer: Any, script: Callable[[str, int], str]) -> None:
        self._tokenizer = tokenizer
        self.script = script
        self.name = "scripted"
        self.prompts: list[str] = []
        self.reloads = 0

    @property
    def tokenizer(self) -> Any:
        return self._tokenizer

    def reload_if_changed(self) -> bool:
        self.reloads += 1
        return False

    def generate_ids(
        self, prompt_ids: Sequence[Sequence[int]], sampling: SamplingConfig
    ) -> list[list[Completion]]:
        out = []
        for ids in prompt_ids:
            prompt = self.decode(ids)
            self.prompts.append(prompt)
            text = self.script(prompt, len(self.prompts) - 1)
            tokens = self.encode(text)[: sampling.max_tokens]
            finish = "length"
            if len(tokens) < sampling.max_tokens:
                tokens.append(int(self._tokenizer.eos_token_id))
                finish = "stop"
            # Distinct made-up log-probabilities so misalignment would show.
            logprobs = [-0.01 * (i + 1) for i in range(len(tokens))]
            out.append(
                [
                    Completion(
                        self.decode(tokens[:-1] if finish == "stop" else tokens),
                        tokens,
                        logprobs,
                        finish,
                    )
                ]
            )
        return out


class ScriptedTacticPolicy(ChatPolicyBase):
    """A step-level policy for search tests: for a proof state (its goals, as the search's
    prompt shows them) it proposes the scripted (tactic, log-probability) pairs, best first.
    No tokenizer: search prompts are then plain text, which this reads back."""

    def __init__(self, script: dict[str, list[tuple[str, float]]]) -> None:
        self.script = script
        self.name = "scripted-tactics"
        self.asked: list[str] = []

    @property
    def tokenizer(self) -> Any:
        return None

    def reload_if_changed(self) -> bool:
        return False

    def generate(
        self,
        prompts: Any,
        n: int = 1,
        temperature: float = 1.0,
        top_p: float = 1.0,
        max_tokens: int = 256,
        stop: Sequence[str] | None = None,
        tools: list[dict[str, Any]] | None = None,
        seed: int | None = None,
    ) -> list[list[Completion]]:
        out = []
        for prompt in prompts:
            state = str(prompt).split("Proof state:\n", 1)[1].rsplit("\n\nNext tactic:", 1)[0]
            self.asked.append(state)
            proposals = self.script.get(state, [])[:n]
            out.append([Completion(t, [0], [logprob], "stop") for t, logprob in proposals])
        return out
