"""The coach's public result types: a contract read by the web app, training and the bench.

A Suggestion is one piece of advice anchored to a line of the attempt; Feedback is what one
coach call returns (1-3 suggestions) plus where it came from and what it cost. Every source
derives from BaseCoach, which owns `advise` (the public signature and the latency it records)
and asks the source's `answer` for the advice.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from tutor.lean.types import Diagnostic

SuggestionKind = Literal["do", "dont"]
SOURCES = ("compiler", "llm", "ground_truth", "self", "fixed")
MAX_SUGGESTIONS = 3


class CoachUnavailable(RuntimeError):
    """A coach source cannot run here (no API key, no model). The message says how to fix it."""


@dataclass(frozen=True)
class Suggestion:
    """One piece of advice. line is 1-based in the attempt, or None when it is about no line."""

    line: int | None
    text: str
    kind: SuggestionKind = "do"
    # True when the advice gives away the answer to a step the student has not attempted (the
    # whole proof of a `sorry`): a hint, which the web app offers only after the exercise's
    # own hints and counts as one.
    reveals: bool = False

    def __post_init__(self) -> None:
        if self.line is not None and self.line < 1:
            raise ValueError(f"line must be 1-based or None, got {self.line}")
        if self.kind not in ("do", "dont"):
            raise ValueError(f"kind must be 'do' or 'dont', got {self.kind!r}")
        if not self.text.strip():
            raise ValueError("a suggestion needs some text")

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"line": self.line, "text": self.text, "kind": self.kind}
        if self.reveals:  # only when set: stored feedback keeps its shape otherwise
            data["reveals"] = True
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Suggestion:
        line = data.get("line")
        kind = data.get("kind", "do")
        return cls(
            line=int(line) if line is not None else None,
            text=str(data["text"]),
            kind="dont" if kind == "dont" else "do",
            reveals=bool(data.get("reveals", False)),
        )


@dataclass
class Feedback:
    """The result of one coach call.

    source is the source that produced the suggestions: when the llm or self source could
    not give usable advice and the compiler rules answered instead, source is "compiler",
    requested_source is the one asked for, and fallback_reason says why.
    """

    suggestions: list[Suggestion]
    source: str
    prompt_version: str | None = None
    latency_ms: float = 0.0
    requested_source: str | None = None
    fallback_reason: str | None = None
    model: str | None = None
    cached: bool = False
    repairs: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not 1 <= len(self.suggestions) <= MAX_SUGGESTIONS:
            raise ValueError(
                f"feedback holds 1 to {MAX_SUGGESTIONS} suggestions, got {len(self.suggestions)}"
            )
        if self.requested_source is None:
            self.requested_source = self.source

    @property
    def fell_back(self) -> bool:
        return self.fallback_reason is not None

    def lines(self) -> list[int]:
        return [s.line for s in self.suggestions if s.line is not None]

    def as_text(self) -> str:
        """The block appended to the problem statement in the teacher's prompt (training)."""
        if self.source == "fixed":
            return "\n".join(s.text for s in self.suggestions)
        rows = ["Coach feedback on the previous attempt:"]
        for suggestion in self.suggestions:
            where = f"Line {suggestion.line}: " if suggestion.line is not None else ""
            rows.append(f"- {where}{suggestion.text}")
        return "\n".join(rows)

    def to_dict(self) -> dict[str, Any]:
        return {
            "suggestions": [s.to_dict() for s in self.suggestions],
            "source": self.source,
            "prompt_version": self.prompt_version,
            "latency_ms": self.latency_ms,
            "requested_source": self.requested_source,
            "fallback_reason": self.fallback_reason,
            "model": self.model,
            "cached": self.cached,
            "repairs": list(self.repairs),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Feedback:
        return cls(
            suggestions=[Suggestion.from_dict(s) for s in data["suggestions"]],
            source=str(data["source"]),
            prompt_version=data.get("prompt_version"),
            latency_ms=float(data.get("latency_ms", 0.0)),
            requested_source=data.get("requested_source"),
            fallback_reason=data.get("fallback_reason"),
            model=data.get("model"),
            cached=bool(data.get("cached", False)),
            repairs=list(data.get("repairs", [])),
        )


class Coach(Protocol):
    """What every source offers. Lines in diagnostics and suggestions refer to the attempt."""

    source: str

    def advise(
        self,
        statement: str,
        attempt: str,
        diagnostics: Sequence[Diagnostic],
        reference_proof: str | None = None,
    ) -> Feedback: ...


@dataclass(frozen=True)
class AdviceRequest:
    """What a coach is asked about: the theorem as posed, the whole attempt (statement and
    proof), Lean's messages for it (lines refer to the attempt), and a reference proof when the
    caller has one (only the ground_truth source reads it)."""

    statement: str
    attempt: str
    diagnostics: Sequence[Diagnostic]
    reference_proof: str | None = None


class BaseCoach(ABC):
    """The one `advise` every source shares: it records the call's latency on the Feedback;
    a source implements `answer`."""

    source: str

    def advise(
        self,
        statement: str,
        attempt: str,
        diagnostics: Sequence[Diagnostic],
        reference_proof: str | None = None,
    ) -> Feedback:
        started = time.perf_counter()
        feedback = self.answer(AdviceRequest(statement, attempt, diagnostics, reference_proof))
        feedback.latency_ms = (time.perf_counter() - started) * 1000
        return feedback

    @abstractmethod
    def answer(self, request: AdviceRequest) -> Feedback:
        """The source's advice for one attempt (latency is recorded by `advise`)."""
