"""The `compiler` source: rules from each kind of Lean message to advice a student can act on.

No model, no network: the embedded default and the fallback of the model-based sources.
The rules live in tutor/coach/rules/, one module per kind of Lean message: each names the
line to change (not always where Lean reports: see source.py), what is wrong, and a next step
that fits the goal's shape, using the student's hypothesis names. This module picks the
messages worth advice, asks their rules, orders and trims the answers, adds a clause for each
symbol a beginner cannot read, and (where Lean runs) tries the concrete steps first.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from tutor.coach import fixes
from tutor.coach.evidence import show
from tutor.coach.goals import shorten
from tutor.coach.rules import Advice, Context, advice_for
from tutor.coach.rules.base import refuted_statement
from tutor.coach.source import AttemptText
from tutor.coach.types import MAX_SUGGESTIONS, AdviceRequest, BaseCoach, Feedback, Suggestion
from tutor.coach.validation import MIN_WORDS, kind_of, text_problem, trim_to_words
from tutor.coach.verify import HintVerifier, candidates_in
from tutor.lean.types import Diagnostic, DiagnosticKind

log = logging.getLogger(__name__)

PROMPT_VERSION = "rules.v2"


@dataclass(frozen=True)
class CompilerCoachConfig:
    mathlib: bool | None = None  # None: detect from `import Mathlib` / ℝ in the attempt
    # A tutor.coach.verify.HintVerifier where Lean runs: concrete steps are tried first.
    verifier: HintVerifier | None = None


class CompilerCoach(BaseCoach):
    source = "compiler"

    def __init__(self, config: CompilerCoachConfig | None = None) -> None:
        self.config = config or CompilerCoachConfig()

    def answer(self, request: AdviceRequest) -> Feedback:
        suggestions = self.suggest(request.statement, request.attempt, request.diagnostics)
        return Feedback(suggestions=suggestions, source=self.source, prompt_version=PROMPT_VERSION)

    def suggest(
        self, statement: str, attempt: str, diagnostics: Sequence[Diagnostic]
    ) -> list[Suggestion]:
        mathlib = self.config.mathlib
        if mathlib is None:
            mathlib = uses_mathlib(statement + "\n" + attempt)
        ctx = Context(statement, AttemptText(attempt), mathlib)
        chosen = primary_diagnostics(diagnostics)
        if not chosen:
            return [_no_errors_suggestion(diagnostics)]
        primaries: list[Advice] = []
        secondaries: list[Advice] = []
        for diagnostic in chosen:
            advice = _advice_or_hint(diagnostic, ctx)
            if advice:
                advice = _with_false_statement(_with_explanations(advice, diagnostic), ctx)
                primaries.append(advice[0])
                secondaries.extend(advice[1:])
        false = _false_statement(ctx, chosen[0].line, primaries)
        if false is not None:
            primaries.insert(0, false)
        ordered = _dedupe(primaries)[:MAX_SUGGESTIONS]
        if len(ordered) == 1:
            ordered = _dedupe(ordered + secondaries)[:2]
        # Advice first, then what gives an answer away (a hint the web app holds back).
        ordered.sort(key=lambda a: a.reveals)
        if self.config.verifier is not None:
            ordered = _dedupe([self._verified(a, attempt) for a in ordered])
        else:
            ordered = [_tentative(a) for a in ordered]
        return [_to_suggestion(a) for a in ordered]

    def _verified(self, advice: Advice, attempt: str) -> Advice:
        """Keep a concrete step only if Lean says it closes or advances the goal there."""
        candidates = candidates_in(advice.text)
        if not candidates or advice.line is None or self.config.verifier is None:
            return advice
        after = "after line" in advice.text
        try:
            verdicts = self.config.verifier.check(attempt, advice.line, candidates, after)
        except Exception:  # noqa: BLE001 - any REPL failure means "not verified"
            verdicts = []
        if any(v.ok for v in verdicts):
            return advice
        return Advice(
            advice.line,
            f"Do look at the goal Lean shows at line {advice.line} and choose the step that fits "
            "its shape (→ and ∀ need `intro`, ∧ and ↔ need `constructor`, ∃ needs a witness); "
            "the step the coach had in mind did not check in Lean here.",
        )


# The verbs of advice that names a concrete step; unchecked, "Do write `x`" becomes
# "Do try to write `x`": something to try, not the fix.
_STEP_VERBS = frozenset(
    [
        "write",
        "add",
        "use",
        "prove",
        "apply",
        "start",
        "name",
        "give",
        "swap",
        "close",
        "rewrite",
        "replace",
        "take",
        "simplify",
        "put",
        "unfold",
        "bind",
        "instantiate",
        "split",
        "pass",
        "state",
        "remove",
        "rename",
        "list",
        "choose",
        "introduce",
    ]
)


def _tentative(advice: Advice) -> Advice:
    """Advice naming a concrete step that Lean has not checked (no REPL here), worded as
    something to try. Advice that names no step, and `Don't` advice, is left as it is."""
    words = advice.text.split()
    if len(words) < 2 or words[0] != "Do" or words[1] not in _STEP_VERBS:
        return advice
    if not candidates_in(advice.text) or len(words) > 47:
        return advice
    return replace(advice, text="Do try to " + advice.text[3:])


def uses_mathlib(text: str) -> bool:
    return "import Mathlib" in text or any(sym in text for sym in ("ℝ", "ℚ", "ℂ"))


def primary_diagnostics(diagnostics: Sequence[Diagnostic]) -> list[Diagnostic]:
    """The messages worth advice, most fundamental first.

    A syntax error stops Lean reading the rest, so it comes first and the unsolved goals it
    causes are dropped; then other errors in order; then unsolved goals; then `sorry`.
    """
    has_syntax = any(d.kind is DiagnosticKind.SYNTAX and d.severity == "error" for d in diagnostics)

    def rank(d: Diagnostic) -> int:
        if d.kind is DiagnosticKind.SORRY:
            return 3
        if d.severity != "error":
            return 9
        if d.kind is DiagnosticKind.SYNTAX:
            return 0
        if d.kind is DiagnosticKind.UNSOLVED_GOALS:
            return 2
        return 1

    kept = [
        d
        for d in diagnostics
        if rank(d) < 9 and not (has_syntax and d.kind is DiagnosticKind.UNSOLVED_GOALS)
    ]
    seen: set[tuple[str, str]] = set()
    unique = []
    for d in sorted(kept, key=lambda d: (rank(d), d.line, d.column)):
        key = (str(d.kind), d.message.split("\n", 1)[0])
        if d.kind is DiagnosticKind.UNSOLVED_GOALS or key not in seen:
            seen.add(key)
            unique.append(d)
    return unique


def _advice_or_hint(d: Diagnostic, ctx: Context) -> list[Advice]:
    """The rule's advice; if a rule fails on text it did not expect, a hint that names no step
    (the student still gets an answer, and the log says which rule failed)."""
    try:
        return advice_for(d, ctx)
    except Exception:  # noqa: BLE001 - a rule's bug must not cost the student the answer
        log.exception("the coach's rule for %s failed on line %s", d.kind, d.line)
        return [
            Advice(
                d.line,
                f"Do read Lean's message on line {d.line} and the goal it shows just before "
                "that line, then choose the step that fits the goal's shape.",
            )
        ]


def _false_statement(ctx: Context, line: int, advice: list[Advice]) -> Advice | None:
    """The theorem's statement is false (rules/base.py `refuted_statement` found a point where
    its hypotheses hold and its conclusion does not): that is the mistake, whatever Lean
    reported, unless the advice already shows a claim false."""
    if any(a.refutes for a in advice):
        return None
    found = refuted_statement(ctx)
    if found is None:
        return None
    conclusion, point = found
    at, _ = ctx.text.declaration_span(line)
    values = ", ".join(f"`{n} = {show(v)}`" for n, v in point.items())
    return Advice(
        at,
        f"Don't try to prove `{shorten(conclusion, 24)}` as stated on line {at}: it is false. "
        f"At {values} every hypothesis holds but the conclusion fails, so no proof exists; "
        "change a hypothesis or the conclusion.",
        refutes=True,
    )


# A whole-goal closer: when it is the proof's first step, the goal it fails on is the statement.
_CLOSER = re.compile(r"(decide|rfl|norm_num|simp|linarith|nlinarith|positivity|omega|trivial)")


def _with_false_statement(advice: list[Advice], ctx: Context) -> list[Advice]:
    """A claim shown false (`Advice.refutes`) by the proof's first step, a closer applied to
    the statement itself: the statement is what is false, so the line to change is the
    statement's; said second, after why it is false."""
    first = advice[0]
    if first.line is None or not first.refutes:
        return advice
    start, _ = ctx.text.declaration_span(first.line)
    tactics = ctx.text.tactic_lines((start, first.line))
    code = ctx.text.line(first.line).split("--", 1)[0].strip()
    if not tactics or tactics[0].line != first.line or not _CLOSER.fullmatch(code):
        return advice
    if start == first.line or any(a.line == start for a in advice):
        return advice
    return [
        first,
        Advice(
            start,
            f"Do fix the statement on line {start}: the proof's first step already meets a "
            "false claim, so the statement itself is false as written and no proof of it "
            "exists; correct the numbers or the relation there.",
        ),
        *advice[1:],
    ]


def _dedupe(advice: list[Advice]) -> list[Advice]:
    seen: set[tuple[int | None, str]] = set()
    kept = []
    for item in advice:
        if (item.line, item.text) not in seen:
            seen.add((item.line, item.text))
            kept.append(item)
    return kept


def _to_suggestion(advice: Advice) -> Suggestion:
    text = " ".join(advice.text.split())
    if text_problem(text) and len(text.split()) > MIN_WORDS:
        text = trim_to_words(text)
    return Suggestion(line=advice.line, text=text, kind=kind_of(text), reveals=advice.reveals)


def _no_errors_suggestion(diagnostics: Sequence[Diagnostic]) -> Suggestion:
    if diagnostics:
        first = min(diagnostics, key=lambda d: (d.line, d.column))
        return Suggestion(
            line=first.line,
            text=(
                "Do read the warning on this line: Lean accepts the proof, but the message "
                f"'{shorten(first.message.splitlines()[0], 50)}' points at something to tidy up."
            ),
            kind="do",
        )
    return Suggestion(
        line=None,
        text=(
            "Do check the checker's verdict before changing anything: Lean reported no errors "
            "and no sorry here, so if the proof was accepted, try a shorter proof or a harder "
            "variant next."
        ),
        kind="do",
    )


def _with_explanations(advice: list[Advice], d: Diagnostic) -> list[Advice]:
    """Add one short clause per unreadable symbol (`?m`, `↑`, `case`, `✝`, `sorryAx`) that the
    message shows, inside the first suggestion when it fits the word limit, else as its own."""
    clauses = [
        c
        for c in fixes.explanations(d.message, d.goal)
        if not any(c.split("`")[1] in a.text and _explains(a.text) for a in advice)
    ]
    if not clauses:
        return advice
    first = advice[0]
    extra = " (" + "; ".join(clauses) + ")."
    combined = first.text.rstrip(".") + extra
    if not text_problem(" ".join(combined.split())):
        return [replace(first, text=combined), *advice[1:]]
    note = Advice(first.line, "Do read the message this way: " + "; ".join(clauses) + ".")
    return [first, note, *advice[1:]]


def _explains(text: str) -> bool:
    lowered = text.lower()
    return any(w in lowered for w in ("placeholder", "cast", "inaccessible", "names the goal"))


__all__ = ["CompilerCoach", "CompilerCoachConfig", "primary_diagnostics", "uses_mathlib"]
