"""The record of one prover attempt, exactly as training consumes it.

Token layout (one flat sequence, what the model saw and wrote, in order):

    token_ids = prompt tokens | assistant turn 1 | tool results 1 | assistant turn 2 | ...
    mask[i]   = 1 only where the policy sampled token_ids[i] (assistant turns, their end
                token included); 0 on the prompt, the chat-template role headers and tool
                outputs, and on any token the environment inserted (e.g. an end-of-turn
                token after a turn cut off by max_tokens).
    logprobs[i] = log-probability of token_ids[i] under the distribution it was sampled
                from (temperature / top-p applied); 0.0 where mask[i] == 0.

`prompt_length` is the number of leading prompt tokens (through the first assistant
header), so `token_ids[prompt_length:]` with `mask[prompt_length:]` is the response y of
Feedback Distillation (docs/TRAINING.md). The teacher context is `teacher_messages(feedback_text)` rendered
with the same chat template and `tools`, followed by the same response tokens.

Verdict and reward: VALID -> 1.0, INVALID / NO_PROOF -> 0.0, COULD_NOT_CHECK -> None
("could not check" is never "wrong"; GRPO counts it as 0 but logs it separately).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any


class Verdict(StrEnum):
    VALID = "valid"  # the checker's full verdict accepted the final proof
    INVALID = "invalid"  # a proof was checked and rejected
    NO_PROOF = "no_proof"  # the budget ran out before any proof was submitted for checking
    COULD_NOT_CHECK = "could_not_check"  # timeout / crash / Lean unavailable


def reward_for(verdict: Verdict) -> float | None:
    if verdict is Verdict.VALID:
        return 1.0
    if verdict is Verdict.COULD_NOT_CHECK:
        return None
    return 0.0


@dataclass
class ToolCallRecord:
    """One tool call the model made and what the environment answered."""

    name: str
    arguments: dict[str, Any]
    output: str  # the text fed back to the model inside the tool turn
    valid: bool | None = None  # Lean tools: the checker's verdict on that file
    could_not_check: bool = False
    error: str | None = None  # malformed call, unknown tool, bad arguments

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ToolCallRecord:
        return cls(**data)


@dataclass
class Turn:
    """One assistant turn; [token_start, token_end) indexes into Trajectory.token_ids."""

    text: str
    token_start: int
    token_end: int
    finish_reason: str  # "stop" (end token or stop string) | "length"
    tool_calls: list[ToolCallRecord] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["tool_calls"] = [c.to_dict() for c in self.tool_calls]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Turn:
        calls = [ToolCallRecord.from_dict(c) for c in data.get("tool_calls", [])]
        return cls(**{**data, "tool_calls": calls})


@dataclass
class Trajectory:
    problem_id: str
    statement: str  # the Lean theorem statement posed
    mode: str  # "agent" | "search"
    prompt_messages: list[dict[str, Any]]  # system + user turns the episode started from
    tools: list[dict[str, Any]]  # JSON schemas passed to the chat template (empty: none)
    token_ids: list[int] = field(default_factory=list)
    mask: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    prompt_length: int = 0
    messages: list[dict[str, Any]] = field(default_factory=list)  # the whole chat, as text
    turns: list[Turn] = field(default_factory=list)
    verdict: Verdict = Verdict.NO_PROOF
    final_proof: str | None = None  # the Lean code the verdict is about
    check: dict[str, Any] | None = None  # CheckResult.to_dict() of the final check
    reward: float | None = None
    feedback: dict[str, Any] | None = None  # the coach's Feedback.to_dict(), if any was given
    # "valid" | "answered" | "max_turns" | "max_tokens" | "no_tool_call" | "cancelled" | ...
    stop_reason: str = ""
    model: str = ""  # policy name / checkpoint path
    sampling: dict[str, Any] = field(default_factory=dict)
    search: dict[str, Any] | None = None  # search mode: tactics, expansions, explored nodes
    elapsed_s: float = 0.0

    def __post_init__(self) -> None:
        self.verdict = Verdict(self.verdict)

    @property
    def n_generated_tokens(self) -> int:
        return sum(self.mask)

    @property
    def tool_calls(self) -> list[ToolCallRecord]:
        return [call for turn in self.turns for call in turn.tool_calls]

    def check_alignment(self) -> None:
        """Raise ValueError if the token arrays disagree; training calls this before use."""
        n = len(self.token_ids)
        if len(self.mask) != n or len(self.logprobs) != n:
            raise ValueError(
                f"token_ids ({n}), mask ({len(self.mask)}) and logprobs "
                f"({len(self.logprobs)}) must have equal length"
            )
        if any(m not in (0, 1) for m in self.mask):
            raise ValueError("mask must hold only 0 and 1")
        if any(lp != 0.0 for lp, m in zip(self.logprobs, self.mask, strict=True) if m == 0):
            raise ValueError("logprobs must be 0.0 wherever mask is 0")
        if any(self.mask[: self.prompt_length]):
            raise ValueError("no prompt token may be marked as generated")

    def teacher_messages(self, feedback_text: str) -> list[dict[str, Any]]:
        """The prompt with the coach's feedback appended to the (last) user turn."""
        messages = [dict(m) for m in self.prompt_messages]
        for message in reversed(messages):
            if message.get("role") == "user":
                message["content"] = f"{message['content']}\n\n{feedback_text}"
                break
        else:
            raise ValueError("prompt_messages has no user turn to append feedback to")
        return messages

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["verdict"] = str(self.verdict)
        data["turns"] = [t.to_dict() for t in self.turns]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Trajectory:
        fields = dict(data)
        fields["turns"] = [Turn.from_dict(t) for t in data.get("turns", [])]
        fields["verdict"] = Verdict(data.get("verdict", Verdict.NO_PROOF))
        return cls(**fields)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False)

    @classmethod
    def from_json(cls, line: str) -> Trajectory:
        return cls.from_dict(json.loads(line))


def write_jsonl(path: str, trajectories: list[Trajectory]) -> None:
    with open(path, "a", encoding="utf-8") as handle:
        for trajectory in trajectories:
            handle.write(trajectory.to_json() + "\n")


def read_jsonl(path: str) -> list[Trajectory]:
    with open(path, encoding="utf-8") as handle:
        return [Trajectory.from_json(line) for line in handle if line.strip()]
