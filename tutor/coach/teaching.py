"""Teachers improve the coach: reviewed suggestions become examples, rejected ones stop.

- Every approved or edited suggestion becomes a TeacherExample, keyed by the kind of Lean
  message it answered and the shape of the goal (∧, →, =, ...). ExampleBank.retrieve picks at
  most `limit` examples for an attempt: same message kind first, then same goal shape, then
  the same message text; the LLM coach puts them in its prompt as few-shot advice.
- On exactly the same mistake (same message kind, goal shape and message text) an edited
  suggestion also replaces the compiler's own advice: the teacher's correction wins.
- A suggestion teachers reject twice for the same exercise and message kind stops being shown
  there: TaughtCoach answers a neutral hint instead. A teacher can re-enable it (overrides are
  per exercise and reversible; the web app shows them on the review page).

Plain data in, plain data out: the web app builds the bank and the suppressions from its
tables (webapp/attempts/teaching.py); nothing here imports Django.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from tutor.coach.goals import parse_goals, split_target
from tutor.coach.types import AdviceRequest, BaseCoach, Coach, Feedback, Suggestion
from tutor.coach.validation import kind_of
from tutor.lean.types import Diagnostic

REJECTIONS_TO_SUPPRESS = 2


@dataclass(frozen=True)
class TeacherExample:
    kind: str  # DiagnosticKind value of the message the suggestion answered
    shape: str  # goal shape (goals.Shape value) or "other"
    message: str  # Lean's message, whitespace collapsed
    text: str  # the approved or edited suggestion text
    edited: bool = False


def _squash(text: str) -> str:
    return " ".join(text.split())


def signature(diagnostic: Diagnostic) -> tuple[str, str, str]:
    """(message kind, goal shape, message text): what makes two mistakes "the same"."""
    goals = parse_goals(diagnostic.goal or diagnostic.message)
    shape = str(split_target(goals[0].target).shape) if goals else "other"
    return str(diagnostic.kind), shape, _squash(diagnostic.message)


def primary(diagnostics: Sequence[Diagnostic]) -> Diagnostic | None:
    errors = [d for d in diagnostics if d.severity == "error"] or list(diagnostics)
    return min(errors, key=lambda d: (d.line, d.column)) if errors else None


@dataclass
class ExampleBank:
    examples: list[TeacherExample] = field(default_factory=list)
    limit: int = 3

    def retrieve(self, diagnostics: Sequence[Diagnostic]) -> list[TeacherExample]:
        first = primary(diagnostics)
        if first is None:
            return []
        kind, shape, message = signature(first)
        same_kind = [e for e in self.examples if e.kind == kind]
        ranked = sorted(
            same_kind,
            key=lambda e: (e.message != message, e.shape != shape, not e.edited),
        )
        return ranked[: self.limit]

    def exact(self, diagnostic: Diagnostic) -> TeacherExample | None:
        """An edited example for exactly this mistake, if a teacher wrote one."""
        kind, shape, message = signature(diagnostic)
        for example in self.examples:
            if example.edited and (example.kind, example.shape, example.message) == (
                kind,
                shape,
                message,
            ):
                return example
        return None


def render_examples(examples: Sequence[TeacherExample]) -> str:
    """The prompt block (empty when there is nothing to show)."""
    if not examples:
        return ""
    rows = ["Teacher-approved advice for similar mistakes (follow it where it fits this attempt):"]
    for example in examples:
        rows.append(f"- {example.text}")
        rows.append(f"  (for a {example.kind} message on a goal of shape {example.shape})")
    return "\n".join(rows)


def suppressed_kinds(
    rejected_kinds: Iterable[str], reenabled: Iterable[str] = ()
) -> frozenset[str]:
    """Message kinds whose suggestions teachers rejected at least twice on one exercise,
    minus those a teacher re-enabled there."""
    counts = Counter(rejected_kinds)
    return frozenset(k for k, n in counts.items() if n >= REJECTIONS_TO_SUPPRESS) - set(reenabled)


@dataclass
class TaughtCoach(BaseCoach):
    """Any coach, plus what teachers taught it for one exercise."""

    inner: Coach
    bank: ExampleBank = field(default_factory=ExampleBank)
    suppressed: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        self.source = self.inner.source  # it answers as the coach it wraps

    def answer(self, request: AdviceRequest) -> Feedback:
        first = primary(request.diagnostics)
        if first is not None and str(first.kind) in self.suppressed:
            return Feedback(
                [
                    Suggestion(
                        first.line,
                        f"Do read Lean's message on line {first.line} and the goal it shows, then "
                        "choose a step that fits it; teachers turned off the coach's usual advice "
                        "for this mistake on this exercise.",
                    )
                ],
                source=self.inner.source,
                prompt_version="teacher-suppressed",
            )
        if hasattr(self.inner, "examples"):
            self.inner.examples = self.bank.retrieve(request.diagnostics)
        feedback = self.inner.advise(
            request.statement, request.attempt, request.diagnostics, request.reference_proof
        )
        taught = self.bank.exact(first) if first is not None else None
        if taught is not None and feedback.source == "compiler":
            line = feedback.suggestions[0].line
            rest = [s for s in feedback.suggestions[1:] if s.text != taught.text]
            feedback.suggestions = [Suggestion(line, taught.text, kind_of(taught.text)), *rest][:3]
            feedback.prompt_version = f"{feedback.prompt_version}+teacher"
        return feedback
