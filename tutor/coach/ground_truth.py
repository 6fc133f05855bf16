"""The `ground_truth` source: a known reference proof points the way without being handed over.

The compiler rules find the line to change. The reference proof is read as a list of tactic
steps; the step at the matching point (the one the attempt should take next, or instead of
the failing one) is described by its tactic family and the library lemmas it uses, never
quoted whole: "Do try an `induction` step at line 4; a known proof uses `Nat.succ_le_of_lt`".
With no reference proof the compiler rules answer and fallback_reason says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tutor.coach.compiler import CompilerCoach, primary_diagnostics
from tutor.coach.names import CORE_LEMMAS, MATHLIB_LEMMAS
from tutor.coach.source import AttemptText
from tutor.coach.types import MAX_SUGGESTIONS, AdviceRequest, BaseCoach, Feedback, Suggestion
from tutor.lean.types import Diagnostic, DiagnosticKind

PROMPT_VERSION = "ground_truth.v1"
_KNOWN_LEMMAS = frozenset(CORE_LEMMAS) | frozenset(MATHLIB_LEMMAS)
_LEMMA = re.compile(r"(?<![\w.])([A-Z][\w']*(?:\.[\w']+)+|[a-z][\w']*_[\w']+)")
_CASE_PREFIX = re.compile(r"^(?:·|\|.*?=>|case\s+\S+.*?=>|next\b.*?=>)\s*")


@dataclass(frozen=True)
class ReferenceStep:
    family: str  # the tactic's name: `induction`, `omega`, `exact`, ...
    lemmas: tuple[str, ...]


def reference_steps(proof: str) -> list[ReferenceStep]:
    """The tactic steps of a reference proof (one per line; `<;>` and `;` chains stay whole)."""
    body = proof.strip()
    if ":= by" in body:
        body = body.split(":= by", 1)[1]
    elif re.match(r"^by\b", body):
        body = body[2:]
    steps = []
    for raw in body.split("\n"):
        text = _strip_case_prefix(raw.split("--", 1)[0])
        if not text:
            continue
        family = re.match(r"[\w?!']+|⟨", text)
        name = family.group(0) if family else text.split()[0]
        lemmas = tuple(
            dict.fromkeys(
                m for m in _LEMMA.findall(text) if m in _KNOWN_LEMMAS or "." in m and m[0].isupper()
            )
        )
        steps.append(ReferenceStep("exact" if name == "⟨" else name, lemmas))
    return steps


def _strip_case_prefix(line: str) -> str:
    text = line.strip()
    while True:
        stripped = _CASE_PREFIX.sub("", text, count=1).strip()
        if stripped == text:
            return text
        text = stripped


class GroundTruthCoach(BaseCoach):
    source = "ground_truth"

    def __init__(self) -> None:
        self.compiler = CompilerCoach()

    def answer(self, request: AdviceRequest) -> Feedback:
        statement, attempt, diagnostics = request.statement, request.attempt, request.diagnostics
        compiler_suggestions = self.compiler.suggest(statement, attempt, diagnostics)
        steps = reference_steps(request.reference_proof) if request.reference_proof else []
        chosen = primary_diagnostics(diagnostics)
        if not steps or not chosen:
            reason = (
                "no reference proof given"
                if not steps
                else "no error to compare against the reference proof"
            )
            return Feedback(
                suggestions=compiler_suggestions,
                source="compiler",
                requested_source=self.source,
                prompt_version=PROMPT_VERSION,
                fallback_reason=reason,
            )
        anchor = next((s.line for s in compiler_suggestions if s.line is not None), chosen[0].line)
        hint = _hint(AttemptText(attempt), anchor, chosen[0], steps)
        suggestions = [hint, *[s for s in compiler_suggestions if s.text != hint.text]]
        return Feedback(
            suggestions=suggestions[:MAX_SUGGESTIONS],
            source=self.source,
            prompt_version=PROMPT_VERSION,
        )


def _hint(
    text: AttemptText, anchor: int, diagnostic: Diagnostic, steps: list[ReferenceStep]
) -> Suggestion:
    span = text.declaration_span(anchor)
    # Count the attempt's steps the way reference_steps counts the reference's: bullets and
    # case arrows are stripped, and a line that is only `| succ k ih =>` is no step.
    attempt_steps = [t for t in text.tactic_lines(span) if _strip_case_prefix(t.text)]
    index = sum(1 for step in attempt_steps if step.line < anchor)
    adds_after = diagnostic.kind is DiagnosticKind.UNSOLVED_GOALS
    target = min(index + 1 if adds_after else index, len(steps) - 1)
    step = steps[target]
    where = f"after line {anchor}" if adds_after else f"at line {anchor}"
    lemma_part = (
        f", using `{'`, `'.join(step.lemmas[:2])}`"
        if step.lemmas
        else " with what you already have"
    )
    text_out = (
        f"Do try `{step.family}` {where}{lemma_part}: a known proof of this theorem uses that "
        "tactic at this point, so aim your next step there."
    )
    return Suggestion(line=anchor, text=text_out, kind="do")
