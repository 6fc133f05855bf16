"""The `compiler` source: rules from each kind of Lean message to advice a student can act on.

No model, no network: the embedded default and the fallback of the model-based sources.
Each rule names the line to change (not always where Lean reports: see source.py), what is
wrong, and a next step that fits the goal's shape, using the student's hypothesis names.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tutor.coach.advice import binder_names, next_step, nlinarith_hint
from tutor.coach.goals import (
    Goal,
    Hypothesis,
    Shape,
    is_nonlinear,
    parse_goals,
    shorten,
    split_target,
)
from tutor.coach.names import (
    CORE_LEMMAS,
    MATHLIB_LEMMAS,
    MATHLIB_TACTICS,
    TACTICS,
    NameGuess,
    closest_name,
)
from tutor.coach.source import AttemptText, proof_conclusion, statement_hypotheses
from tutor.coach.types import MAX_SUGGESTIONS, Feedback, Suggestion
from tutor.coach.validation import MIN_WORDS, kind_of, text_problem, trim_to_words
from tutor.lean.types import Diagnostic, DiagnosticKind

PROMPT_VERSION = "rules.v1"


@dataclass(frozen=True)
class CompilerCoachConfig:
    mathlib: bool | None = None  # None: detect from `import Mathlib` / ℝ in the attempt


@dataclass
class _Context:
    statement: str
    text: AttemptText
    mathlib: bool


@dataclass(frozen=True)
class _Advice:
    line: int | None
    text: str


class CompilerCoach:
    source = "compiler"

    def __init__(self, config: CompilerCoachConfig | None = None) -> None:
        self.config = config or CompilerCoachConfig()

    def advise(
        self,
        statement: str,
        attempt: str,
        diagnostics: Sequence[Diagnostic],
        reference_proof: str | None = None,
    ) -> Feedback:
        started = time.perf_counter()
        suggestions = self.suggest(statement, attempt, diagnostics)
        return Feedback(
            suggestions=suggestions,
            source=self.source,
            prompt_version=PROMPT_VERSION,
            latency_ms=(time.perf_counter() - started) * 1000,
        )

    def suggest(
        self, statement: str, attempt: str, diagnostics: Sequence[Diagnostic]
    ) -> list[Suggestion]:
        mathlib = self.config.mathlib
        if mathlib is None:
            mathlib = uses_mathlib(statement + "\n" + attempt)
        ctx = _Context(statement, AttemptText(attempt), mathlib)
        chosen = primary_diagnostics(diagnostics)
        if not chosen:
            return [_no_errors_suggestion(diagnostics)]
        primaries: list[_Advice] = []
        secondaries: list[_Advice] = []
        for diagnostic in chosen:
            advice = _RULES.get(diagnostic.kind, _other)(diagnostic, ctx)
            if advice:
                primaries.append(advice[0])
                secondaries.extend(advice[1:])
        ordered = _dedupe(primaries)[:MAX_SUGGESTIONS]
        if len(ordered) == 1:
            ordered = _dedupe(ordered + secondaries)[:2]
        return [_to_suggestion(a) for a in ordered]


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


def _dedupe(advice: list[_Advice]) -> list[_Advice]:
    seen: set[tuple[int | None, str]] = set()
    kept = []
    for item in advice:
        if (item.line, item.text) not in seen:
            seen.add((item.line, item.text))
            kept.append(item)
    return kept


def _to_suggestion(advice: _Advice) -> Suggestion:
    text = " ".join(advice.text.split())
    if text_problem(text) and len(text.split()) > MIN_WORDS:
        text = trim_to_words(text)
    return Suggestion(line=advice.line, text=text, kind=kind_of(text))


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


def _goals_of(d: Diagnostic) -> list[Goal]:
    return parse_goals(d.goal or d.message)


def _case_phrase(goal: Goal) -> str:
    return f"of case `{goal.case}` " if goal.case else ""


# ---------------------------------------------------------------------------- rules


def _unsolved_goals(d: Diagnostic, ctx: _Context) -> list[_Advice]:
    anchor = ctx.text.block_last_line(d.line, d.column, d.end_line, d.end_column)
    goals = _goals_of(d)
    if not goals:
        return [_Advice(anchor, f"Do add the missing steps after line {anchor}: {_UNSOLVED_TAIL}")]
    goal = goals[0]
    more = f" ({len(goals)} goals remain)" if len(goals) > 1 else ""
    text = (
        f"Do add a step after line {anchor}: the goal {_case_phrase(goal)}"
        f"`{shorten(goal.target)}` is still open{more}; {next_step(goal, ctx.mathlib)}."
    )
    advice = [_Advice(anchor, text)]
    if anchor != d.line and ctx.text.token_at(d.line, d.column) == "by":
        advice.append(
            _Advice(
                anchor,
                "Don't change the statement line where Lean shows the error: `by` only marks "
                f"the block, and the proof simply stops too early after line {anchor}.",
            )
        )
    return advice


_UNSOLVED_TAIL = "the proof ends while goals are still open; finish each remaining goal."


def _sorry(d: Diagnostic, ctx: _Context) -> list[_Advice]:
    span = ctx.text.declaration_span(d.line)
    lines = ctx.text.sorry_lines(span)
    anchor = lines[0] if lines else d.line
    more = f" (and {len(lines) - 1} more below)" if len(lines) > 1 else ""
    goal = _goal_at_whole_proof_sorry(ctx, span[0], anchor)
    if goal is not None:
        text = (
            f"Do replace the `sorry` on line {anchor}{more} with a real proof of "
            f"`{shorten(goal.target, 50)}`: {next_step(goal, ctx.mathlib)}."
        )
    else:
        text = (
            f"Do replace the `sorry` on line {anchor}{more} with a proof of that step; "
            "Lean accepts nothing that contains `sorry`, so the theorem is not proved yet."
        )
    return [
        _Advice(anchor, text),
        _Advice(
            anchor,
            "Don't leave `sorry` as a placeholder in a submitted proof: the checker counts "
            "any proof that uses it as unproved, even when everything else checks.",
        ),
    ]


def _goal_at_whole_proof_sorry(ctx: _Context, decl_line: int, sorry_line: int) -> Goal | None:
    """The goal a `sorry` stands for when it is the first step of the proof."""
    tactics = ctx.text.tactic_lines((decl_line, sorry_line))
    if not tactics or tactics[0].line != sorry_line or not tactics[0].text.startswith("sorry"):
        return None
    header = "\n".join(ctx.text.lines[decl_line - 1 : sorry_line])
    conclusion = proof_conclusion(header)
    if conclusion is None:
        return None
    hyps = [Hypothesis((name,), typ) for name, typ in statement_hypotheses(header)]
    return Goal(conclusion, hyps)


_UNKNOWN_NAME = re.compile(r"unknown (?:identifier|constant)\s*['`‘’]?([^'`’\s]+)", re.IGNORECASE)


def _unknown_identifier(d: Diagnostic, ctx: _Context) -> list[_Advice]:
    match = _UNKNOWN_NAME.search(d.message)
    name = match.group(1).rstrip("'`’") if match else ctx.text.token_at(d.line, d.column)
    line = d.line
    if name in TACTICS:
        extra = (
            " (it needs `import Mathlib`)" if name in MATHLIB_TACTICS and not ctx.mathlib else ""
        )
        return [
            _Advice(
                line,
                f"Don't use `{name}` as a term on line {line}: it is a tactic{extra}, so write "
                f"it as its own step inside a `by` block, not after `exact` or `:=`.",
            )
        ]
    conclusion = proof_conclusion(ctx.statement) or ""
    if conclusion.startswith("∀") and name in binder_names(conclusion):
        return [
            _Advice(
                line,
                f"Do add `intro {name}` before line {line}: `{name}` is bound by the ∀ in the "
                "goal and is not in the context until you introduce it.",
            )
        ]
    lemmas = [*CORE_LEMMAS, *(MATHLIB_LEMMAS if ctx.mathlib else [])]
    candidates = set(lemmas) | ctx.text.identifiers() | AttemptText(ctx.statement).identifiers()
    guess = closest_name(name, candidates)
    if guess is None and "." in name:
        head, _, rest = name.partition(".")
        head_guess = closest_name(head, candidates)
        if head_guess is not None:
            guess = NameGuess(f"{head_guess.name}.{rest}", head_guess.distance)
    secondary = _Advice(
        line,
        "Don't guess lemma names from memory: search with `exact?` or rg_in_mathlib and copy "
        "the exact Lean 4 name, which capitalises namespaces such as `Nat.` and `List.`.",
    )
    if guess is not None:
        why = (
            " (Lean 4 capitalises namespaces)"
            if guess.name.lower() == name.lower() and guess.name != name
            else ""
        )
        return [
            _Advice(
                line,
                f"Do replace `{name}` on line {line} with `{guess.name}`: Lean knows no "
                f"`{name}`, and `{guess.name}` is the closest existing name{why}.",
            ),
            secondary,
        ]
    return [
        _Advice(
            line,
            f"Do check the name `{name}` on line {line}: Lean knows no lemma or hypothesis by "
            "that name. Find the right one with `exact?` or rg_in_mathlib before using it.",
        ),
        secondary,
    ]


_ARGUMENT_TYPE = re.compile(
    r"argument\s*\n\s+(?P<term>[^\n]+)\n\s*has type\n\s+(?P<has>[^\n]+)\n\s*but is expected "
    r"to have type\n\s+(?P<want>[^\n]+)"
)
_TERM_TYPE = re.compile(
    r"mismatch\s*\n\s+(?P<term>[^\n]+)\n\s*has type\n\s+(?P<has>[^\n]+)\n\s*but is expected "
    r"to have type\n\s+(?P<want>[^\n]+)",
    re.IGNORECASE,
)


def _strip_sort(text: str) -> str:
    return re.sub(r"\s*:\s*(Prop|Type\S*|Sort\S*)\s*$", "", " ".join(text.split()))


def _type_mismatch(d: Diagnostic, ctx: _Context) -> list[_Advice]:
    line = d.line
    match = _ARGUMENT_TYPE.search(d.message) or _TERM_TYPE.search(d.message)
    if not match:
        return [
            _Advice(
                line,
                f"Do make the term on line {line} have the type Lean expects: read both types "
                "in the message and rewrite the term or the goal until they agree.",
            )
        ]
    term = shorten(match.group("term"), 30)
    has, want = _strip_sort(match.group("has")), _strip_sort(match.group("want"))
    has_split, want_split = split_target(has), split_target(want)
    if (
        has_split.shape is Shape.EQ
        and want_split.shape is Shape.EQ
        and has_split.left.strip() == want_split.right.strip()
        and has_split.right.strip() == want_split.left.strip()
    ):
        return [
            _Advice(
                line,
                f"Do use `{term}.symm` on line {line}: `{term}` proves `{shorten(has, 40)}`, but "
                f"the goal is `{shorten(want, 40)}`, the same equation read backwards.",
            )
        ]
    if term == "rfl" and want_split.shape is Shape.EQ and _numeric(want):
        return [
            _Advice(
                line,
                f"Do check the numbers on line {line}: `{shorten(want, 40)}` is false, so `rfl` "
                "cannot prove it. Choose a different witness or value so that both sides agree.",
            )
        ]
    if want_split.shape is Shape.AND and has.strip() in (
        want_split.left.strip(),
        want_split.right.strip(),
    ):
        return [
            _Advice(
                line,
                f"Do prove both halves of `{shorten(want, 40)}` on line {line}: `{term}` gives only "
                "one. Use `constructor` with one `·` block per half, or `exact ⟨_, _⟩` with both "
                "proofs.",
            )
        ]
    if d.message.lower().lstrip().startswith("application type mismatch"):
        return [
            _Advice(
                line,
                f"Do check the arguments on line {line}: `{term}` has type `{shorten(has, 40)}` "
                f"but that position expects `{shorten(want, 40)}`. Swap the arguments or pass "
                "the hypothesis that states the expected fact.",
            )
        ]
    return [
        _Advice(
            line,
            f"Do change the term on line {line}: it proves `{shorten(has, 40)}` but Lean needs "
            f"`{shorten(want, 40)}`. Rewrite it first (`rw [...] at h`) or apply a lemma that "
            "turns one into the other.",
        )
    ]


def _numeric(text: str) -> bool:
    return bool(re.fullmatch(r"[\d\s+*\-^/%().=<>≤≥≠]+", text))


def _linarith_failed(d: Diagnostic, ctx: _Context) -> list[_Advice]:
    line = d.line
    goals = _goals_of(d)
    goal = goals[0] if goals else Goal("False")
    context_text = " ".join(h.type for h in goal.hypotheses)
    types = " ".join(goal.variable_types().values())
    if is_nonlinear(context_text):
        return [
            _Advice(
                line,
                f"Do replace `linarith` on line {line} with `{nlinarith_hint(goal)}`: linarith "
                "only adds hypotheses linearly, and this goal needs products or squares.",
            )
        ]
    if any(t.strip() in ("ℕ", "Nat") for t in types.split()) and "-" in context_text:
        return [
            _Advice(
                line,
                f"Do use `omega` on line {line} instead of `linarith`: subtraction on ℕ is "
                "truncated at zero, which omega understands and linarith does not.",
            )
        ]
    facts = ", ".join(f"`{n}`" for n in goal.usable_fact_names()[:3]) or "your hypotheses"
    return [
        _Advice(
            line,
            f"Do give `linarith` the fact it is missing on line {line}: no linear combination "
            f"of {facts} proves the goal. Prove the missing inequality with `have` first, or "
            "pass it as `linarith [h]`.",
        )
    ]


_OMEGA_ATOM = re.compile(r"^\s*(\S+)\s*:=\s*(.+)$")
_APPLIED = re.compile(r"^\(?([A-Za-z_][\w.']*)\s+[\w(↑]")


def _omega_failed(d: Diagnostic, ctx: _Context) -> list[_Advice]:
    line = d.line
    message = d.message
    if "ℝ" in ctx.statement or "ℝ" in ctx.text.text:
        return [
            _Advice(
                line,
                f"Don't use `omega` on line {line} for real numbers: it only knows ℕ and ℤ. "
                "Use `linarith`, or `nlinarith` when the goal has products or squares.",
            )
        ]
    if "no usable constraints" in message.lower():
        return [
            _Advice(
                line,
                f"Do unfold definitions before `omega` on line {line}, with `unfold f` or "
                "`simp only [f]`: omega found no linear facts about ℕ or ℤ it could use.",
            )
        ]
    atoms = []
    if "\nwhere" in message:
        for raw in message.split("\nwhere", 1)[1].split("\n"):
            match = _OMEGA_ATOM.match(raw)
            if match:
                atoms.append(match.group(2).strip())
    applied = [m.group(1) for a in atoms if (m := _APPLIED.match(a.replace("↑", "")))]
    if applied:
        name = applied[0]
        instance = _forall_instance(ctx, name, atoms)
        if instance:
            return [
                _Advice(
                    line,
                    f"Do instantiate the ∀ hypothesis before `omega` on line {line}, e.g. "
                    f"`{instance}`: omega never uses ∀ hypotheses by itself, so it treats "
                    f"`{name} ...` as an unknown number.",
                )
            ]
        return [
            _Advice(
                line,
                f"Do unfold `{name}` before `omega` on line {line}, with `unfold {name}` or "
                f"`simp only [{name}]`: omega treats `{name} ...` as an unknown number and cannot "
                "see its definition.",
            )
        ]
    nonlinear = [a for a in atoms if is_nonlinear(a)]
    if nonlinear:
        example = _product_fact_example(ctx)
        return [
            _Advice(
                line,
                f"Do state the nonlinear fact omega needs before line {line}, for example with "
                f"`{example}`: omega treats `{shorten(nonlinear[0], 30)}` as an unknown number.",
            )
        ]
    return [
        _Advice(
            line,
            f"Do check that the goal at line {line} really follows from your hypotheses: omega "
            "found a possible counterexample, so a hypothesis is missing or a case split "
            "(`cases` or `by_cases`) is needed first.",
        )
    ]


def _forall_instance(ctx: _Context, function: str, atoms: list[str]) -> str | None:
    """`have := hf 3` when `function` is a variable and a ∀ hypothesis talks about it."""
    binders = statement_hypotheses(ctx.statement)
    if not any(name == function and "→" in typ for name, typ in binders):
        return None
    for name, typ in binders:
        if typ.startswith("∀") and re.search(rf"(?<![\w.]){re.escape(function)}\b", typ):
            argument = ""
            for atom in atoms:
                match = re.match(rf"^\(?{re.escape(function)}\s+(.+?)\)?$", atom.replace("↑", ""))
                if match:
                    argument = match.group(1)
                    break
            return f"have := {name} {argument}".rstrip()
    return None


def _product_fact_example(ctx: _Context) -> str:
    """A product lemma applied to the student's own variable and hypothesis names."""
    binders = statement_hypotheses(ctx.statement)
    variables = [n for n, t in binders if t in ("Nat", "ℕ", "Int", "ℤ")]
    facts = [n for n, t in binders if any(op in t for op in ("≤", "<", "≥", ">"))]
    if variables and facts:
        return f"have := Nat.mul_le_mul_right {variables[0]} {facts[0]}"
    return "have := Nat.mul_le_mul h₁ h₂"


def _simp_no_progress(d: Diagnostic, ctx: _Context) -> list[_Advice]:
    line = d.line
    tactic = shorten(ctx.text.line(line).strip(), 30) or "simp"
    alternatives = (
        "`norm_num`, `ring_nf` or `rw [h]`" if ctx.mathlib else "`omega`, `rfl` or `rw [h]`"
    )
    return [
        _Advice(
            line,
            f"Don't keep `{tactic}` on line {line}: simp made no progress, so none of its lemmas "
            f"apply. Name what it should unfold (`simp [f, h]`) or use {alternatives}.",
        )
    ]


_PATTERN = re.compile(r"pattern(?: in the target expression)?\s*\n\s+(.+?)\n", re.DOTALL)


def _rewrite_failed(d: Diagnostic, ctx: _Context) -> list[_Advice]:
    line = d.line
    lowered = d.message.lower()
    if "motive is not type correct" in lowered:
        return [
            _Advice(
                line,
                f"Do use `simp only [h]` instead of `rw` on line {line}: rewriting there breaks "
                "a term that depends on the rewritten expression (motive is not type correct).",
            )
        ]
    match = _PATTERN.search(d.message)
    pattern = _strip_sort(match.group(1)) if match else ""
    goals = parse_goals(d.goal) if d.goal else parse_goals(_after_pattern(d.message))
    if pattern and goals:
        for name, typ in goals[0].named_facts():
            hyp = split_target(typ)
            flipped = (
                hyp.shape in (Shape.EQ, Shape.IFF)
                and hyp.left.strip() == pattern
                and hyp.right.strip()
                and hyp.right.strip() in goals[0].target
            )
            if flipped:
                return [
                    _Advice(
                        line,
                        f"Do rewrite right to left with `rw [← {name}]` on line {line}: the "
                        f"goal contains `{shorten(hyp.right, 30)}`, not `{shorten(pattern, 30)}`.",
                    )
                ]
    shown = f"`{shorten(pattern, 40)}`" if pattern else "the rule's left side"
    return [
        _Advice(
            line,
            f"Do check that {shown} appears literally in the goal before `rw` on line {line}: "
            "rw only rewrites exact matches. Use `rw [← h]` for the other direction, "
            "`simp only [h]`, or `rw [h] at h'` for a hypothesis.",
        )
    ]


def _after_pattern(message: str) -> str:
    # The goal context follows the pattern block in rewrite messages.
    parts = message.split("\n")
    for i, part in enumerate(parts):
        if part and not part.startswith(" ") and i > 1 and (" : " in part or part.startswith("⊢")):
            return "\n".join(parts[i:])
    return ""


_UNEXPECTED = re.compile(
    r"unexpected (?:token\s*['`]?(?P<tok>[^'`;]+)['`]?|(?P<what>\w[\w ]*?))[;:]"
)


def _syntax(d: Diagnostic, ctx: _Context) -> list[_Advice]:
    line = d.line
    message = d.message
    source_line = ctx.text.line(line)
    lowered = message.lower()
    if "expected '['" in lowered or "expected `[`" in lowered:
        return [
            _Advice(
                line,
                f"Do put the rewrite rules in square brackets on line {line}: Lean 4 writes "
                "`rw [h]` and `simp only [h]`, not `rw h`.",
            )
        ]
    if "'↦', '=>'" in message or "`↦`, `=>`" in message:
        return [
            _Advice(
                line,
                f"Do write `fun x => ...` on line {line}: Lean 4 puts `=>` (or `↦`) after the "
                "binder where Lean 3 used a comma.",
            )
        ]
    if "begin" in source_line.split() or source_line.strip() == "begin":
        return [
            _Advice(
                line,
                f"Don't use Lean 3 `begin ... end` on line {line}: in Lean 4 write `:= by` and "
                "then the tactics, one per line, indented under it.",
            )
        ]
    match = _UNEXPECTED.search(message)
    token = (match.group("tok") or match.group("what") or "").strip() if match else ""
    if token == ",":
        return [
            _Advice(
                line,
                f"Don't end or separate tactics with commas on line {line}: Lean 4 separates "
                "tactics by new lines or `;`, and uses `<;>` to run one on every goal.",
            )
        ]
    if token == "at":
        return [
            _Advice(
                line,
                f"Do check the tactic before `at` on line {line}: only some tactics take "
                "`at h`, such as `rw [..] at h`, `simp at h` and `norm_num at h`.",
            )
        ]
    first = shorten(message.splitlines()[0], 60)
    return [
        _Advice(
            line,
            f"Do fix the syntax on line {line} first: Lean stopped reading there ({first}), so "
            "nothing after this point was checked yet.",
        )
    ]


def _timeout(d: Diagnostic, ctx: _Context) -> list[_Advice]:
    line = d.line
    return [
        _Advice(
            line,
            f"Don't rely on heavy automation on line {line}: Lean ran out of time there. Split "
            "the step into smaller `have` steps or use a targeted tactic such as `rw` or `omega`.",
        )
    ]


def _other(d: Diagnostic, ctx: _Context) -> list[_Advice]:
    line = d.line
    lowered = " ".join(d.message.lower().replace("`", "'").split())
    first = shorten(d.message.splitlines()[0] if d.message else "", 60)
    if lowered.startswith("no goals"):
        return [
            _Advice(
                line,
                f"Don't keep the tactic on line {line}: the goal was already closed before it, so "
                "Lean has nothing left to prove. Delete this line.",
            )
        ]
    if (
        "'rfl' failed" in lowered
        or "rfl tactic" in lowered
        or "not definitionally equal" in lowered
    ):
        goals = _goals_of(d)
        step = next_step(goals[0], ctx.mathlib) if goals else "use `simp` or `omega` instead"
        return [
            _Advice(
                line,
                f"Don't use `rfl` on line {line}: the two sides are not equal by computation "
                f"alone. Instead, {step}.",
            )
        ]
    if "decide" in lowered[:40]:
        return [
            _Advice(
                line,
                f"Don't use `decide` on line {line}: it only evaluates closed, decidable "
                "statements. Check that the statement is true, then use `omega` or `simp`.",
            )
        ]
    if "'constructor' failed" in lowered:
        return _constructor_failed(d, ctx)
    if "invalid field" in lowered and "or." in lowered:
        return [
            _Advice(
                line,
                f"Do split the disjunction on line {line} with `cases h with | inl h1 => ... | "
                "inr h2 => ...`: an `∨` hypothesis has no `.left` or `.right`, you must handle "
                "both cases.",
            )
        ]
    if "'apply' failed" in lowered or "failed to unify" in lowered:
        return [
            _Advice(
                line,
                f"Do check that the conclusion of the lemma on line {line} matches the goal: "
                "apply could not unify them. Rewrite the goal first, or find a fitting lemma "
                "with `exact?`.",
            )
        ]
    if "binders" in lowered or "introN" in d.message:
        return [
            _Advice(
                line,
                f"Don't introduce more names on line {line} than the goal has ∀ or → binders; "
                "check the goal first and use `intro` only for what is there.",
            )
        ]
    if "failed to synthesize" in lowered:
        return [
            _Advice(
                line,
                f"Do give the numbers on line {line} an explicit type, such as `(2 : ℝ)`: Lean "
                f"could not find an instance it needs ({first}).",
            )
        ]
    if "function expected" in lowered:
        return [
            _Advice(
                line,
                f"Do check what you apply on line {line}: only a hypothesis of ∀ or → shape can "
                "be applied to arguments, and this term is not a function.",
            )
        ]
    return [
        _Advice(
            line,
            f"Do fix line {line}: Lean reports '{first}'. Look at the goal just before this line "
            "and choose a step that fits its shape.",
        )
    ]


def _constructor_failed(d: Diagnostic, ctx: _Context) -> list[_Advice]:
    goals = _goals_of(d)
    shape = split_target(goals[0].target).shape if goals else Shape.OTHER
    if shape in (Shape.IMPLIES, Shape.FORALL):
        intro_line = _previous_intro_line(ctx.text, d.line)
        if intro_line is not None:
            return [
                _Advice(
                    intro_line,
                    f"Do introduce every premise on line {intro_line}: the goal is still "
                    f"`{shorten(goals[0].target, 40)}`, so name the next premise there too (for "
                    "example `intro hp hq`) before using `constructor`.",
                )
            ]
        return [
            _Advice(
                d.line,
                f"Do start with `intro` before line {d.line}: the goal "
                f"`{shorten(goals[0].target, 40)}` is an implication, and `constructor` only "
                "splits ∧, ↔ and similar goals.",
            )
        ]
    return [
        _Advice(
            d.line,
            f"Don't use `constructor` on line {d.line}: the goal is not a structure such as "
            "∧ or ↔. Check its shape and pick a tactic that fits it.",
        )
    ]


def _previous_intro_line(text: AttemptText, line: int) -> int | None:
    base = text.indent(line)
    for number in range(line - 1, 0, -1):
        if not text.is_code(number):
            continue
        if text.indent(number) < base:
            return None
        if re.match(r"^\s*intros?\b", text.line(number)):
            return number
    return None


_RULES: dict[DiagnosticKind, Callable[[Diagnostic, _Context], list[_Advice]]] = {
    DiagnosticKind.UNSOLVED_GOALS: _unsolved_goals,
    DiagnosticKind.SORRY: _sorry,
    DiagnosticKind.UNKNOWN_IDENTIFIER: _unknown_identifier,
    DiagnosticKind.UNKNOWN_CONSTANT: _unknown_identifier,
    DiagnosticKind.TYPE_MISMATCH: _type_mismatch,
    DiagnosticKind.LINARITH_FAILED: _linarith_failed,
    DiagnosticKind.OMEGA_FAILED: _omega_failed,
    DiagnosticKind.SIMP_NO_PROGRESS: _simp_no_progress,
    DiagnosticKind.REWRITE_FAILED: _rewrite_failed,
    DiagnosticKind.SYNTAX: _syntax,
    DiagnosticKind.TIMEOUT: _timeout,
    DiagnosticKind.OTHER: _other,
}

__all__ = ["CompilerCoach", "CompilerCoachConfig", "primary_diagnostics", "uses_mathlib"]
