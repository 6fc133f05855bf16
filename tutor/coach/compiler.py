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

from tutor.coach import fixes
from tutor.coach.advice import binder_names, derived_step, next_step, nlinarith_hint
from tutor.coach.algebra import ac_step
from tutor.coach.context import contradiction, proofs_of, traced_goal
from tutor.coach.goals import (
    Goal,
    Hypothesis,
    Shape,
    Split,
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
from tutor.coach.verify import HintVerifier, candidates_in
from tutor.lean.messages import mismatch_parts
from tutor.lean.types import Diagnostic, DiagnosticKind

PROMPT_VERSION = "rules.v2"


@dataclass(frozen=True)
class CompilerCoachConfig:
    mathlib: bool | None = None  # None: detect from `import Mathlib` / ℝ in the attempt
    # A tutor.coach.verify.HintVerifier where Lean runs: concrete steps are tried first.
    verifier: HintVerifier | None = None


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
                advice = _with_explanations(advice, diagnostic)
                primaries.append(advice[0])
                secondaries.extend(advice[1:])
        ordered = _dedupe(primaries)[:MAX_SUGGESTIONS]
        if len(ordered) == 1:
            ordered = _dedupe(ordered + secondaries)[:2]
        if self.config.verifier is not None:
            ordered = _dedupe([self._verified(a, attempt) for a in ordered])
        return [_to_suggestion(a) for a in ordered]

    def _verified(self, advice: _Advice, attempt: str) -> _Advice:
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
        return _Advice(
            advice.line,
            f"Do look at the goal Lean shows at line {advice.line} and choose the step that fits "
            "its shape (→ and ∀ need `intro`, ∧ and ↔ need `constructor`, ∃ needs a witness); "
            "the step the coach had in mind did not check in Lean here.",
        )


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


def _one(line: int | None, text: str) -> list[_Advice]:
    """A rule's answer when it has exactly one suggestion (the shape most rules return)."""
    return [_Advice(line, text)]


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


def _with_explanations(advice: list[_Advice], d: Diagnostic) -> list[_Advice]:
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
        return [_Advice(first.line, combined), *advice[1:]]
    note = _Advice(first.line, "Do read the message this way: " + "; ".join(clauses) + ".")
    return [first, note, *advice[1:]]


def _explains(text: str) -> bool:
    lowered = text.lower()
    return any(w in lowered for w in ("placeholder", "cast", "inaccessible", "names the goal"))


def _scene(d: Diagnostic, ctx: _Context) -> fixes.Scene:
    return fixes.Scene(ctx.statement if ctx.statement.strip() else ctx.text.text, ctx.text, d.line)


def _goals_of(d: Diagnostic) -> list[Goal]:
    return parse_goals(d.goal or d.message)


def _goal_here(d: Diagnostic, scene: fixes.Scene) -> Goal | None:
    """The first goal the message prints, else the statement's when the line is the first step."""
    goals = _goals_of(d)
    return goals[0] if goals else fixes.goal_at_first_step(scene)


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
    dagger = next((n for h in goal.hypotheses for n in h.names if "✝" in n), None)
    origin = _origin_line(ctx.text, anchor) if dagger else None
    if dagger and origin is not None:
        advice.insert(
            0,
            _Advice(
                origin,
                f"Do name the variables on line {origin} (for `induction`, write `induction n "
                f"with` and `| succ k ih => ...`, or use `rename_i`): `{dagger}` is an "
                "inaccessible name Lean made up, which you cannot type.",
            ),
        )
    if anchor != d.line and ctx.text.token_at(d.line, d.column) == "by":
        advice.append(
            _Advice(
                anchor,
                "Don't change the statement line where Lean shows the error: `by` only marks "
                f"the block, and the proof simply stops too early after line {anchor}.",
            )
        )
    return advice


def _origin_line(text: AttemptText, line: int) -> int | None:
    """The `induction` / `cases` / `intro` line above `line` that made inaccessible names."""
    for number in range(line, 0, -1):
        if re.match(r"^\s*(induction|cases|intro|rcases|match)\b", text.line(number)):
            return number
    return None


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
        return _one(
            line,
            f"Don't use `{name}` as a term on line {line}: it is a tactic{extra}, so write "
            f"it as its own step inside a `by` block, not after `exact` or `:=`.",
        )
    conclusion = proof_conclusion(ctx.statement) or ""
    if conclusion.startswith("∀") and name in binder_names(conclusion):
        return _one(
            line,
            f"Do add `intro {name}` before line {line}: `{name}` is bound by the ∀ in the "
            "goal and is not in the context until you introduce it.",
        )
    if name == "begin":
        return _one(
            line,
            f"Do replace Lean 3 `begin ... end` on line {line} with `:= by` followed by the "
            "tactics, one per line, indented under it: Lean 4 has no `begin`.",
        )
    unnamed = _unnamed_binder(ctx, name, line)
    if unnamed is not None:
        origin, form = unnamed
        also = "" if "obtain" in form else "; `assumption` also finds it"
        return _one(
            origin,
            f"Do name the hypothesis where it is made: write {form} on line {origin}. "
            f"Without names Lean makes up inaccessible ones (shown with ✝) that you cannot "
            f"type, so `{name}` is unknown on line {line}{also}.",
        )
    lean4 = _lean3_namespace(name)
    if lean4 is not None:
        return [
            _Advice(
                line,
                f"Do write `{lean4}` on line {line} instead of `{name}`: that is the Lean 3 name; "
                "Lean 4 capitalises the namespaces of its core types (`Eq.`, `Nat.`, `Or.`).",
            ),
            _name_search_advice(line),
        ]
    fact = _fact_for_goal(name, ctx)
    if fact is not None:
        return _one(
            line,
            f"Do use `{fact}` on line {line} instead of `{name}`: there is no hypothesis `{name}`, "
            f"and `{fact}` is the one whose statement matches the goal.",
        )
    lemmas = [*CORE_LEMMAS, *(MATHLIB_LEMMAS if ctx.mathlib else [])]
    candidates = set(lemmas) | ctx.text.identifiers() | AttemptText(ctx.statement).identifiers()
    candidates = {c for c in candidates if re.match(r"[A-Za-zα-ωℕℤ]", c)}  # never `_`
    name, suffix = _split_projection(name, candidates)
    # A one-letter name is one edit from every other letter: no typo guess can be trusted.
    guess = _reordered_name(name, lemmas) or (
        closest_name(name, candidates) if len(name) > 1 else None
    )
    if guess is None and f"Nat.{name}" in lemmas:
        guess = NameGuess(f"Nat.{name}", 1)
    if guess is None and "." in name:
        head, _, rest = name.partition(".")
        head_guess = closest_name(head, candidates)
        if head_guess is not None:
            guess = NameGuess(f"{head_guess.name}.{rest}", head_guess.distance)
    secondary = _name_search_advice(line)
    if guess is not None:
        why = (
            " (Lean 4 capitalises namespaces)"
            if guess.name.lower() == name.lower() and guess.name != name
            else ""
        )
        name, guess = name + suffix, NameGuess(guess.name + suffix, guess.distance)
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


# Lean 3 core namespaces whose Lean 4 spelling is only capitalised (`eq.symm` -> `Eq.symm`).
_LEAN3_NAMESPACES = {
    "eq": "Eq",
    "ne": "Ne",
    "or": "Or",
    "and": "And",
    "iff": "Iff",
    "not": "Not",
    "false": "False",
    "true": "True",
    "exists": "Exists",
    "function": "Function",
}


def _lean3_namespace(name: str) -> str | None:
    """`Eq.symm` for `eq.symm`: a Lean 3 core namespace (ℕ and lists are handled by the lemma
    table, which knows which of their lemmas exist)."""
    head, dot, rest = name.partition(".")
    if not dot or not rest or head not in _LEAN3_NAMESPACES:
        return None
    return f"{_LEAN3_NAMESPACES[head]}.{rest}"


def _name_search_advice(line: int) -> _Advice:
    return _Advice(
        line,
        "Don't guess lemma names from memory: search with `exact?` or rg_in_mathlib and copy "
        "the exact Lean 4 name, which capitalises namespaces such as `Nat.` and `List.`.",
    )


_LOCAL_NAME = re.compile(r"^[a-z][\w'₀-₉]{0,4}$")


_BARE_SPLIT = re.compile(r"^(cases|induction)\s+([\w'₀-₉]+)\s*;?$")


def _obtain_names(name: str, typ: str, shape: Shape) -> str:
    """The pattern of an `obtain` that gives `name` to the part the student used: a proof name
    (`h...`) is the property of an ∃ or the second half of an ∧; another name is the witness."""
    if shape is Shape.EXISTS:
        witness = (binder_names(typ) or ["w"])[0]
        return f"{witness}, {name}" if name.startswith("h") else f"{name}, h{name}"
    return f"{name}, h2" if not name.endswith("2") else f"h1, {name}"


def _unnamed_binder(ctx: _Context, name: str, line: int) -> tuple[int, str] | None:
    """(line, how to name it) for the bare `intro` / `cases h` / `induction n` above `line`,
    when `name` looks like a hypothesis the student expected it to make (a short local name
    that the statement does not have): Lean names those hypotheses inaccessibly."""
    if not _LOCAL_NAME.match(name):
        return None
    if re.search(rf"(?<![\w.']){re.escape(name)}(?![\w'])", ctx.statement):
        return None
    for number in range(line - 1, 0, -1):
        code = ctx.text.line(number).strip()
        if re.match(r"^(theorem|lemma|example)\b", code):
            return None
        if re.fullmatch(r"intros?;?", code) or re.fullmatch(r"intros? _.*", code):
            return number, f"`intro {name}`"
        split = _BARE_SPLIT.match(code)
        if split:
            target = split.group(2)
            typ = dict(statement_hypotheses(ctx.statement)).get(target, "")
            shape = split_target(typ).shape
            if shape is Shape.OR:
                form = f"`cases {target} with | inl {name} => ... | inr {name} => ...`"
            elif shape in (Shape.EXISTS, Shape.AND):
                form = f"`obtain ⟨{_obtain_names(name, typ, shape)}⟩ := {target}`"
            elif split.group(1) == "induction":
                form = f"`induction {target} with | zero => ... | succ k {name} => ...`"
            else:
                form = f"`cases {target} with` and one `| name {name} => ...` per constructor"
            return number, form
    return None


_PROJECTIONS = (".mpr", ".mp", ".symm", ".elim", ".left", ".right", ".le", ".1", ".2")


def _split_projection(name: str, candidates: set[str]) -> tuple[str, str]:
    """`nat.succ_le_iff.mpr` -> (`nat.succ_le_iff`, `.mpr`): keep the projection on the fix."""
    # The whole name is unknown (Lean said so): a projection on it is the student's, keep it.
    for suffix in _PROJECTIONS:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)], suffix
    return name, ""


def _reordered_name(name: str, lemmas: list[str]) -> NameGuess | None:
    """`List.append_length` -> `List.length_append`: same words in another order."""
    if "." not in name:
        return None
    space, _, last = name.rpartition(".")
    words = sorted(last.lower().split("_"))
    for lemma in lemmas:
        l_space, _, l_last = lemma.rpartition(".")
        same_words = sorted(l_last.lower().split("_")) == words
        if l_space.lower() == space.lower() and same_words and lemma != name:
            return NameGuess(lemma, 2)
    return None


def _fact_for_goal(name: str, ctx: _Context) -> str | None:
    """A misspelt hypothesis (`h` for `hp`): the statement's fact closest to the name, preferring
    one whose type is the goal."""
    if not re.fullmatch(r"h\w*", name):
        return None
    facts = [(n, t) for n, t in statement_hypotheses(ctx.statement) if not _type_word(t)]
    if not facts:
        return None
    conclusion = " ".join((proof_conclusion(ctx.statement) or "").split())
    exact = [n for n, t in facts if " ".join(t.split()) == conclusion]
    if len(exact) == 1:
        return exact[0]
    guess = closest_name(name, [n for n, _ in facts])
    return guess.name if guess is not None else None


def _type_word(typ: str) -> bool:
    return bool(
        re.fullmatch(r"(Prop|Type\S*|Nat|Int|ℕ|ℤ|ℝ|List\s+\S+|Bool|.*→\s*(Nat|Prop|ℕ))", typ)
    )


def _projected(term: str) -> str:
    """`term` ready for `.symm`: an application must be parenthesised, or `.symm` would apply
    to its last argument (`f h₁ h₂.symm` is `f h₁ (h₂.symm)`)."""
    return f"({term})" if re.search(r"\s", term.strip()) else term


def _strip_sort(text: str) -> str:
    return re.sub(r"\s*:\s*(Prop|Type\S*|Sort\S*)\s*$", "", " ".join(text.split()))


def _type_mismatch(d: Diagnostic, ctx: _Context) -> list[_Advice]:
    line = d.line
    parts = mismatch_parts(d.message)
    if not parts:
        return _one(
            line,
            f"Do make the term on line {line} have the type Lean expects: read both types "
            "in the message and rewrite the term or the goal until they agree.",
        )
    term = shorten(parts.term, 30)
    has, want = _strip_sort(parts.has), _strip_sort(parts.expected)
    has_split, want_split = split_target(has), split_target(want)
    if (
        has_split.shape is Shape.EQ
        and want_split.shape is Shape.EQ
        and has_split.left.strip() == want_split.right.strip()
        and has_split.right.strip() == want_split.left.strip()
    ):
        return _one(
            line,
            f"Do use `{_projected(term)}.symm` on line {line}: `{term}` proves `{shorten(has, 40)}`, but "
            f"the goal is `{shorten(want, 40)}`, the same equation read backwards.",
        )
    if term == "rfl" and want_split.shape is Shape.EQ and _numeric(want):
        witness = _witness_for(d, ctx)
        if witness:
            return _one(
                line,
                f"Do write `exact {witness}` on line {line}: with your witness the property "
                f"becomes `{shorten(want, 30)}`, which is false, and this witness makes it true.",
            )
        return _one(
            line,
            f"Do check the numbers on line {line}: `{shorten(want, 40)}` is false, so `rfl` "
            "cannot prove it. Choose a different witness or value so that both sides agree.",
        )
    calc_step = _calc_missing_step(term, has_split, want_split, d, ctx)
    if calc_step:
        return [calc_step]
    if want_split.shape is Shape.AND and has.strip() in (
        want_split.left.strip(),
        want_split.right.strip(),
    ):
        return _one(
            line,
            f"Do prove both halves of `{shorten(want, 40)}` on line {line}: `{term}` gives only "
            "one. Use `constructor` with one `·` block per half, or `exact ⟨_, _⟩` with both "
            "proofs.",
        )
    found = fixes.type_mismatch(d.message, _scene(d, ctx))
    if found:
        return [_Advice(at, text) for at, text in found]
    # Unsure: name no tactic (a wrong concrete fix is worse than none).
    return _one(
        line,
        f"Do compare the two types on line {line}: `{term}` proves `{shorten(has, 40)}`, but "
        f"this position needs `{shorten(want, 40)}`. Look for a hypothesis or lemma that "
        "states exactly the needed fact; `exact?` can search for one.",
    )


def _witness_for(d: Diagnostic, ctx: _Context) -> str | None:
    """`⟨4, rfl⟩` when the goal at the line is an ∃ whose property a ℕ value makes true."""
    goal = traced_goal(ctx.statement, ctx.text, d.line)
    if goal is None or not goal.startswith("∃"):
        return None
    proofs = proofs_of(goal, [])
    return proofs[0] if proofs else None


def _calc_missing_step(
    term: str, has: Split, want: Split, d: Diagnostic, ctx: _Context
) -> _Advice | None:
    """A calc chain that proves `a = b` where `a = c` is needed: one more step `_ = c` closes
    it, with a proof from the facts in scope."""
    if not term.startswith("calc") or has.shape is Shape.OTHER or not has.op or not want.op:
        return None
    if has.left.strip() != want.left.strip() or has.right.strip() == want.right.strip():
        return None
    op = want.op if has.shape in (Shape.EQ, want.shape) else has.op
    step = f"{has.right.strip()} {op} {want.right.strip()}"
    proofs = proofs_of(step, fixes.Scene(ctx.statement, ctx.text, d.line).facts())
    proof = proofs[0] if proofs else "?_"
    last = ctx.text.block_last_line(d.line, d.column, d.end_line, d.end_column)
    return _Advice(
        d.line,
        f"Do add the step `_ {op} {shorten(want.right.strip(), 20)} := {proof}` after line "
        f"{last}: the chain ends at `{shorten(has.right.strip(), 20)}`, but the goal "
        f"`{shorten(' '.join([want.left, want.op, want.right]), 30)}` ends at "
        f"`{shorten(want.right.strip(), 20)}`.",
    )


def _numeric(text: str) -> bool:
    return bool(re.fullmatch(r"[\d\s+*\-^/%().=<>≤≥≠]+", text))


def _linarith_failed(d: Diagnostic, ctx: _Context) -> list[_Advice]:
    line = d.line
    goals = _goals_of(d)
    goal = goals[0] if goals else Goal("False")
    context_text = " ".join(h.type for h in goal.hypotheses)
    types = " ".join(goal.variable_types().values())
    if is_nonlinear(context_text):
        return _one(
            line,
            f"Do replace `linarith` on line {line} with `{nlinarith_hint(goal)}`: linarith "
            "only adds hypotheses linearly, and this goal needs products or squares.",
        )
    if any(t.strip() in ("ℕ", "Nat") for t in types.split()) and "-" in context_text:
        return _one(
            line,
            f"Do use `omega` on line {line} instead of `linarith`: subtraction on ℕ is "
            "truncated at zero, which omega understands and linarith does not.",
        )
    facts = ", ".join(f"`{n}`" for n in goal.usable_fact_names()[:3]) or "your hypotheses"
    return _one(
        line,
        f"Do give `linarith` the fact it is missing on line {line}: no linear combination "
        f"of {facts} proves the goal. Prove the missing inequality with `have` first, or "
        "pass it as `linarith [h]`.",
    )


_OMEGA_ATOM = re.compile(r"^\s*(\S+)\s*:=\s*(.+)$")
_APPLIED = re.compile(r"^\(?([A-Za-z_][\w.']*)\s+[\w(↑]")


def _omega_failed(d: Diagnostic, ctx: _Context) -> list[_Advice]:
    line = d.line
    message = d.message
    if "ℝ" in ctx.statement or "ℝ" in ctx.text.text:
        return _one(
            line,
            f"Don't use `omega` on line {line} for real numbers: it only knows ℕ and ℤ. "
            "Use `linarith`, or `nlinarith` when the goal has products or squares.",
        )
    if "no usable constraints" in message.lower():
        return _one(
            line,
            f"Do unfold definitions before `omega` on line {line}, with `unfold f` or "
            "`simp only [f]`: omega found no linear facts about ℕ or ℤ it could use.",
        )
    scene = _scene(d, ctx)
    first_goal = fixes.goal_at_first_step(scene)
    lemma = fixes.commutativity_lemma(first_goal.target) if first_goal else None
    if lemma:
        return _one(
            line,
            f"Do use `exact {lemma}` on line {line} instead of `omega`: the goal is "
            "commutativity of a product, and omega treats each product of variables as an "
            "unknown number.",
        )
    reordered = ac_step(first_goal.target) if first_goal else None
    if reordered:
        return _one(
            line,
            f"Do use `{reordered}` on line {line} instead of `omega`: both sides are the same "
            "product or sum in another order, and omega treats each product of variables as an "
            "unknown number.",
        )
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
            return _one(
                line,
                f"Do instantiate the ∀ hypothesis before `omega` on line {line}, e.g. "
                f"`{instance}`: omega never uses ∀ hypotheses by itself, so it treats "
                f"`{name} ...` as an unknown number.",
            )
        return _one(
            line,
            f"Do unfold `{name}` before `omega` on line {line}, with `unfold {name}` or "
            f"`simp only [{name}]`: omega treats `{name} ...` as an unknown number and cannot "
            "see its definition.",
        )
    if any("::" in a or ".length" in a or "++" in a for a in atoms):
        return _one(
            line,
            f"Do simplify the list expressions first with `simp` on line {line} (it knows "
            "`List.length_cons` and `List.length_append`): omega treats each list length as "
            "an unknown number.",
        )
    nonlinear = [a for a in atoms if is_nonlinear(a)]
    goal_shape = split_target(first_goal.target).shape if first_goal else Shape.OTHER
    if nonlinear and goal_shape in (Shape.LE, Shape.LT):
        example = _product_fact_example(ctx)
        return _one(
            line,
            f"Do state the nonlinear fact omega needs before line {line}, for example with "
            f"`{example}`: omega treats `{shorten(nonlinear[0], 30)}` as an unknown number.",
        )
    truncated = _truncated_subtraction(first_goal, scene) if first_goal else None
    if truncated:
        small, big = truncated
        return _one(
            line,
            f"Do add the hypothesis `{small} ≤ {big}` to the statement before line {line}: on "
            f"ℕ, `{big} - {small}` is 0 when {small} > {big}, so the goal is false without it, "
            "which is the counterexample omega found.",
        )
    return _one(
        line,
        f"Do check that the goal at line {line} really follows from your hypotheses: omega "
        "found a possible counterexample, so a hypothesis is missing or a case split "
        "(`cases` or `by_cases`) is needed first.",
    )


_SUBTRACTION = re.compile(r"(?<![\w.'])([A-Za-z_][\w']*)\s*-\s*([A-Za-z_][\w']*)(?![\w'])")


def _truncated_subtraction(goal: Goal, scene: fixes.Scene) -> tuple[str, str] | None:
    """(b, a) when the goal subtracts ℕ variables `a - b` and no hypothesis bounds b by a:
    ℕ subtraction stops at 0, the usual reason omega finds a counterexample."""
    types = scene.variable_types()
    for hyp in goal.hypotheses:
        for name in hyp.names:
            types.setdefault(name, hyp.type)
    bounds = {" ".join(t.split()) for t in types.values()}
    for match in _SUBTRACTION.finditer(goal.target):
        big, small = match.group(1), match.group(2)
        if types.get(big, "").strip() not in ("Nat", "ℕ"):
            continue
        if types.get(small, "").strip() not in ("Nat", "ℕ"):
            continue
        if {
            f"{small} ≤ {big}",
            f"{big} ≥ {small}",
            f"{small} < {big}",
            f"{big} > {small}",
        } & bounds:
            continue
        return small, big
    return None


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
    scene = _scene(d, ctx)
    if _starts_with_simp(ctx.text.line(line)) and _later_step_in_block(ctx.text, line):
        # No progress means the goal after this line is the goal before it: the steps that
        # follow see exactly what they would without it, so removing it is the whole fix here.
        return _one(
            line,
            f"Don't keep `{tactic}` on line {line}: it made no progress, so it changes nothing "
            "and only stops the proof: remove it, and the next steps see the goal as it is.",
        )
    goal = _goal_here(d, scene)
    step = fixes.closing_step(goal.target, scene, goal.hypotheses) if goal else None
    if goal is not None and step:
        return _one(
            line,
            f"Don't keep `{tactic}` on line {line}: it made no progress on "
            f"`{shorten(goal.target, 30)}`. Use `{step}` there instead, which proves it "
            "directly.",
        )
    return _one(
        line,
        f"Don't keep `{tactic}` on line {line}: simp made no progress, so none of its simp "
        "lemmas apply here. Name the lemma or definition it needs (`simp [f]`), or find the "
        "lemma for this goal with `exact?`.",
    )


def _starts_with_simp(source: str) -> bool:
    return re.match(r"^\s*(?:simp|dsimp|simp_all|norm_num|simp_arith)\b", source) is not None


def _later_step_in_block(text: AttemptText, line: int) -> bool:
    """True when a tactic follows `line` in the same block (same indent, not a new bullet)."""
    base = text.indent(line)
    for number in range(line + 1, text.n_lines + 1):
        if not text.is_code(number):
            continue
        code = text.line(number).strip()
        return text.indent(number) == base and not code.startswith(("·", "|", "case ", "next"))
    return False


_PATTERN = re.compile(r"pattern(?: in the target expression)?\s*\n\s+(.+?)\n", re.DOTALL)


def _rewrite_failed(d: Diagnostic, ctx: _Context) -> list[_Advice]:
    line = d.line
    lowered = d.message.lower()
    if "motive is not type correct" in lowered:
        return _one(
            line,
            f"Do use `simp only [h]` instead of `rw` on line {line}: rewriting there breaks "
            "a term that depends on the rewritten expression (motive is not type correct).",
        )
    match = _PATTERN.search(d.message)
    pattern = _strip_sort(match.group(1)) if match else ""
    goals = parse_goals(d.goal) if d.goal else parse_goals(_after_pattern(d.message))
    if pattern and goals:
        for name, typ in goals[0].named_facts():
            hyp = split_target(typ)
            flipped = (
                hyp.shape in (Shape.EQ, Shape.IFF)
                and hyp.left.strip() == pattern
                and _occurs_as_term(hyp.right.strip(), goals[0].target)
            )
            if flipped:
                return _one(
                    line,
                    f"Do rewrite right to left with `rw [← {name}]` on line {line}: the "
                    f"goal contains `{shorten(hyp.right, 30)}`, not `{shorten(pattern, 30)}`.",
                )
    shown = f"`{shorten(pattern, 40)}`" if pattern else "the rule's left side"
    types = dict(statement_hypotheses(ctx.statement))
    if goals and fixes.is_linear_arith(goals[0].target, types):
        return _one(
            line,
            f"Do prove `{shorten(goals[0].target, 30)}` with `omega` on line {line} instead of "
            f"`rw`: {shown} does not appear literally in the goal, and the goal is linear "
            "arithmetic that omega decides.",
        )
    return _one(
        line,
        f"Do check that {shown} appears literally in the goal before `rw` on line {line}: "
        "rw only rewrites exact matches. Use `rw [← h]` for the other direction, "
        "`simp only [h]`, or `rw [h] at h'` for a hypothesis.",
    )


def _occurs_as_term(term: str, target: str) -> bool:
    """`term` appears in `target` as a whole term and is not a bare numeral: `rw [← h]` with
    `h : k * 0 = 0` would turn every `0` of the goal into `k * 0`, not undo one rewrite."""
    if not term or re.fullmatch(r"\d+", term):
        return False
    return re.search(rf"(?<![\w.']){re.escape(term)}(?![\w'])", target) is not None


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
    lean4 = fixes.lean3_syntax(source_line.strip(), _scene(d, ctx))
    if lean4:
        return _one(
            line,
            f"Do write {lean4} on line {line}: this is Lean 3 syntax, which Lean 4 does not read.",
        )
    if "expected '['" in lowered or "expected `[`" in lowered:
        fixed = re.sub(
            r"\b(rw|rewrite|simp only|rwa)\s+(?!\[)([^\s\[]+)", r"\1 [\2]", source_line.strip()
        )
        return _one(
            line,
            f"Do put the rewrite rules in square brackets on line {line}, as in `{fixed}`: "
            "Lean 4 writes `rw [h]` and `simp only [h]`, not `rw h`.",
        )
    if "'↦', '=>'" in message or "`↦`, `=>`" in message:
        return _one(
            line,
            f"Do write `fun x => ...` on line {line}: Lean 4 puts `=>` (or `↦`) after the "
            "binder where Lean 3 used a comma.",
        )
    if "begin" in source_line.split() or source_line.strip() == "begin":
        return _one(
            line,
            f"Don't use Lean 3 `begin ... end` on line {line}: in Lean 4 write `:= by` and "
            "then the tactics, one per line, indented under it.",
        )
    match = _UNEXPECTED.search(message)
    token = (match.group("tok") or match.group("what") or "").strip() if match else ""
    if token == ",":
        return _one(
            line,
            f"Don't end or separate tactics with commas on line {line}: Lean 4 separates "
            "tactics by new lines or `;`, and uses `<;>` to run one on every goal.",
        )
    if token == "at":
        return _one(
            line,
            f"Do check the tactic before `at` on line {line}: only some tactics take "
            "`at h`, such as `rw [..] at h`, `simp at h` and `norm_num at h`.",
        )
    first = shorten(message.splitlines()[0], 60)
    return _one(
        line,
        f"Do fix the syntax on line {line} first: Lean stopped reading there ({first}), so "
        "nothing after this point was checked yet.",
    )


def _timeout(d: Diagnostic, ctx: _Context) -> list[_Advice]:
    line = d.line
    return _one(
        line,
        f"Don't rely on heavy automation on line {line}: Lean ran out of time there. Split "
        "the step into smaller `have` steps or use a targeted tactic such as `rw` or `omega`.",
    )


def _other(d: Diagnostic, ctx: _Context) -> list[_Advice]:
    line = d.line
    lowered = " ".join(d.message.lower().replace("`", "'").split())
    first = shorten(d.message.splitlines()[0] if d.message else "", 60)
    if lowered.startswith("no goals"):
        return _one(
            line,
            f"Don't keep the tactic on line {line}: the goal was already closed before it, so "
            "Lean has nothing left to prove. Delete this line.",
        )
    if (
        "'rfl' failed" in lowered
        or "rfl tactic" in lowered
        or "not definitionally equal" in lowered
    ):
        goals = _goals_of(d)
        step = next_step(goals[0], ctx.mathlib) if goals else "use `simp` or `omega` instead"
        return _one(
            line,
            f"Don't use `rfl` on line {line}: the two sides are not equal by computation "
            f"alone. Instead, {step}.",
        )
    if "decide" in lowered[:40]:
        return _one(
            line,
            f"Don't use `decide` on line {line}: it only evaluates closed, decidable "
            "statements. Check that the statement is true, then use `omega` or `simp`.",
        )
    if "'constructor' failed" in lowered:
        return _constructor_failed(d, ctx)
    if "invalid field" in lowered and "or." in lowered:
        return _one(
            line,
            f"Do split the disjunction on line {line} with `cases h with | inl h1 => ... | "
            "inr h2 => ...`: an `∨` hypothesis has no `.left` or `.right`, you must handle "
            "both cases.",
        )
    if "'apply' failed" in lowered or "failed to unify" in lowered:
        return _one(
            line,
            f"Do check that the conclusion of the lemma on line {line} matches the goal: "
            "apply could not unify them. Rewrite the goal first, or find a fitting lemma "
            "with `exact?`.",
        )
    if "binders" in lowered or "introN" in d.message:
        return _one(
            line,
            f"Don't introduce more names on line {line} than the goal has ∀ or → binders; "
            "check the goal first and use `intro` only for what is there.",
        )
    if "failed to synthesize" in lowered:
        return _one(
            line,
            f"Do give the numbers on line {line} an explicit type, such as `(2 : ℝ)`: Lean "
            f"could not find an instance it needs ({first}).",
        )
    if "function expected" in lowered:
        turned = _function_expected(d, ctx)
        if turned:
            return [turned]
        return _one(
            line,
            f"Do check what you apply on line {line}: only a hypothesis of ∀ or → shape can "
            "be applied to arguments, and this term is not a function.",
        )
    return _one(
        line,
        f"Do fix line {line}: Lean reports '{first}'. Look at the goal just before this line "
        "and choose a step that fits its shape.",
    )


_FUNCTION_EXPECTED = re.compile(
    r"Function expected at\s+(?P<head>.+?)\s+but this term has type\s+(?P<type>.+?)"
    r"(?:\s+Note: Expected a function because this term is being applied to the argument"
    r"\s+(?P<arg>.+?))?\s*$",
    re.S,
)


def _function_expected(d: Diagnostic, ctx: _Context) -> _Advice | None:
    """`hp hpq` with `hp : p`: a fact is applied as if it were a function. When the facts in
    scope build the goal (here `hpq hp`, the application the other way round), say so."""
    match = _FUNCTION_EXPECTED.search(d.message)
    if not match:
        return None
    head = " ".join(match.group("head").split())
    facts = fixes.Scene(ctx.statement, ctx.text, d.line).facts()
    goal = traced_goal(ctx.statement, ctx.text, d.line)
    source = ctx.text.line(d.line).strip()
    if goal is not None and source.startswith("exact "):
        proofs = proofs_of(goal, facts)
        if proofs:
            return _Advice(
                d.line,
                f"Do write `exact {proofs[0]}` on line {d.line}: `{shorten(head, 16)}` proves "
                f"`{shorten(match.group('type').strip(), 20)}`, which is not a function, so it "
                "cannot take an argument; the function is the one whose premise it proves.",
            )
    return None


def _constructor_failed(d: Diagnostic, ctx: _Context) -> list[_Advice]:
    goals = _goals_of(d)
    shape = split_target(goals[0].target).shape if goals else Shape.OTHER
    if shape in (Shape.IMPLIES, Shape.FORALL):
        intro_line = _previous_intro_line(ctx.text, d.line)
        if intro_line is not None:
            return _one(
                intro_line,
                f"Do introduce every premise on line {intro_line}: the goal is still "
                f"`{shorten(goals[0].target, 40)}`, so name the next premise there too (for "
                "example `intro hp hq`) before using `constructor`.",
            )
        return _one(
            d.line,
            f"Do start with `intro` before line {d.line}: the goal "
            f"`{shorten(goals[0].target, 40)}` is an implication, and `constructor` only "
            "splits ∧, ↔ and similar goals.",
        )
    return _one(
        d.line,
        f"Don't use `constructor` on line {d.line}: the goal is not a structure such as "
        "∧ or ↔. Check its shape and pick a tactic that fits it.",
    )


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


# ---------------------------------------------------------------- rules added for issue 15


def _intro_failed(d: Diagnostic, ctx: _Context) -> list[_Advice]:
    scene = _scene(d, ctx)
    goal = fixes.goal_at_first_step(scene)
    line = d.line
    if goal is None:
        return _one(
            line,
            f"Don't introduce more names on line {line} than the goal has ∀ or → binders: "
            "`intro` only works on an implication or a ∀. Check the goal's shape first.",
        )
    split = split_target(goal.target)
    if split.shape is Shape.AND or split.shape is Shape.IFF:
        what = "∧" if split.shape is Shape.AND else "↔"
        return _one(
            line,
            f"Do use `constructor` on line {line} instead of `intro`: the goal "
            f"`{shorten(goal.target, 30)}` is an {what}, not an implication, so split it "
            "and prove each part in its own `·` block.",
        )
    if split.shape is Shape.EXISTS:
        return _one(
            line,
            f"Do give a witness on line {line} with `exists w` or `refine ⟨w, ?_⟩` instead of "
            f"`intro`: the goal `{shorten(goal.target, 30)}` is an ∃, so you choose the value.",
        )
    source = ctx.text.line(line).strip().split()
    premises = _count_binders(goal.target)
    if source and source[0] == "intro" and premises and len(source) - 1 > premises:
        keep = " ".join(source[1 : 1 + premises])
        return _one(
            line,
            f"Do write `intro {keep}` on line {line}: the goal `{shorten(goal.target, 30)}` has "
            f"only {premises} premise{'s' if premises > 1 else ''} to introduce, not "
            f"{len(source) - 1}.",
        )
    return _one(
        line,
        f"Don't use `intro` on line {line}: the goal `{shorten(goal.target, 30)}` is not an "
        f"implication or ∀. Instead, {next_step(goal, ctx.mathlib)}.",
    )


def _count_binders(target: str) -> int:
    count = 0
    while True:
        split = split_target(target)
        if split.shape is Shape.IMPLIES:
            count += 1
            target = split.right
        elif split.shape is Shape.FORALL:
            count += max(1, len(binder_names(target)))
            target = target.split(",", 1)[1] if "," in target else ""
        else:
            return count


_LEAN3_NAMES = {"begin": "Lean 3 `begin ... end`"}


def _unknown_tactic(d: Diagnostic, ctx: _Context) -> list[_Advice]:
    line = d.line
    words = ctx.text.line(line).strip().split()
    tactic = words[0] if words else ""
    scene = _scene(d, ctx)
    goal = fixes.goal_at_first_step(scene)
    if tactic == "assume":
        names = " ".join(w.strip(",") for w in words[1:]) or "h"
        return _one(
            line,
            f"Do write `intro {names}` on line {line}: `assume` is Lean 3; Lean 4 introduces "
            "premises and ∀ variables with `intro`.",
        )
    if tactic in ("use", "existsi") and len(words) > 1:
        value = " ".join(words[1:]).strip(",")
        return _one(
            line,
            f"Do write `exists {value}` on line {line} (or `refine ⟨{value}, ?_⟩`): `{tactic}` "
            "comes from Mathlib, and core Lean gives the witness of an ∃ with `exists`.",
        )
    impossible = _impossible_case(line, goal) if goal else None
    if impossible:
        return [impossible]
    false_claim = _false_claim(goal.target, ctx) if goal else None
    if false_claim:
        return [_false_claim_advice(line, false_claim)]
    if tactic in MATHLIB_TACTICS and not ctx.mathlib:
        step = fixes.closing_step(goal.target, scene) if goal else None
        if step:
            return _one(
                line,
                f"Do use `{step}` on line {line} instead of `{tactic}`: `{tactic}` needs "
                f"`import Mathlib`, which this exercise does not have, and `{step}` closes "
                "this goal in core Lean.",
            )
        if goal is not None and re.fullmatch(r"[\d\s+*\-^/%().=<>≤≥≠]+", goal.target):
            return _one(
                line,
                f"Do use `decide` on line {line} instead of `{tactic}`: `{tactic}` needs "
                "`import Mathlib`, and `decide` evaluates a closed statement about numerals.",
            )
        return _one(
            line,
            f"Don't use `{tactic}` on line {line}: it needs `import Mathlib`, which this "
            "exercise does not have. Use core tactics such as `simp`, `omega`, `exact` or "
            "`rw` with core lemmas.",
        )
    return _one(
        line,
        f"Do check the tactic name `{tactic}` on line {line}: Lean 4 knows no such tactic. "
        "Core tactics include `intro`, `exact`, `apply`, `constructor`, `cases`, `induction`, "
        "`rw`, `simp` and `omega`.",
    )


def _decide_failed(d: Diagnostic, ctx: _Context) -> list[_Advice]:
    line = d.line
    lowered = d.message.lower()
    if "proved that the proposition" in lowered:
        prop = d.message.split("\n")[1].strip() if "\n" in d.message else "the statement"
        return _one(
            line,
            f"Don't try to prove `{shorten(prop, 30)}` as stated: `decide` evaluated it and "
            "found it is false. Check the numbers in the statement or in your earlier steps.",
        )
    scene = _scene(d, ctx)
    goal = fixes.goal_at_first_step(scene)
    step = fixes.closing_step(goal.target, scene) if goal else None
    if step:
        return _one(
            line,
            f"Do use `{step}` on line {line} instead of `decide`: the goal has variables, so "
            "`decide` cannot evaluate it, and it is linear arithmetic that omega proves.",
        )
    return _one(
        line,
        f"Don't use `decide` on line {line}: it only evaluates statements without variables. "
        "Prove this one step by step for an arbitrary value instead.",
    )


def _failed_to_synthesize(d: Diagnostic, ctx: _Context) -> list[_Advice]:
    line = d.line
    body = " ".join(d.message.split("\n", 2)[1:2]).strip() or d.message
    decidable = re.search(r"Decidable\s*\(?\s*∀\s*\(?\s*(\w+)", d.message)
    if decidable:
        var = decidable.group(1)
        return _one(
            line,
            f"Do start with `intro {var}` (or `induction {var}`) on line {line} instead of "
            f"`decide`: it cannot check a statement for all {var}, there are infinitely many; "
            "prove the body for an arbitrary value.",
        )
    numeral = re.match(r"OfNat\s+\((.+)\)\s+(\d+)$", body)
    if numeral and numeral.group(1).lstrip().startswith("∃"):
        n = numeral.group(2)
        return _one(
            line,
            f"Do give the witness with `exact ⟨{n}, ?_⟩` or `exists {n}` on line {line}: a "
            f"number alone is not a proof of `{shorten(numeral.group(1), 30)}`; you also prove "
            "the property.",
        )
    if ctx.mathlib and re.match(r"(OfNat|HAdd|HMul|HSub|HDiv|HPow)\b", body):
        return _one(
            line,
            f"Do give the numbers on line {line} an explicit type, such as `(2 : ℝ)`: Lean "
            f"could not find the instance `{shorten(body, 30)}` for the type it guessed.",
        )
    return _one(
        line,
        f"Do check the types on line {line}: Lean needs an instance `{shorten(body, 30)}` "
        "that does not exist, so an operation is used on a type that lacks it.",
    )


_OTHER_NUMBERS = re.compile(r"ℤ|ℝ|ℚ|ℂ|\b(?:Int|Real|Rat|Float|Fin|UInt\d+)\b")


def _false_claim(target: str, ctx: _Context) -> str | None:
    """The false-numerals clause, only where every numeral is ℕ: a goal prints `2 - 3 < 0` the
    same whether it is about ℕ (false) or ℤ (true), so any other number type rules it out."""
    if _OTHER_NUMBERS.search(ctx.statement + "\n" + ctx.text.text):
        return None
    return fixes.false_numeral_claim(target)


def _impossible_case(line: int, goal: Goal) -> _Advice | None:
    """The goal may be false, but the hypotheses of this case contradict each other (a `cases`
    branch such as `n = 0` beside `h : n ≠ 0`): the case is closed from them, not from the goal."""
    facts = [(n, h.type) for h in goal.hypotheses for n in h.names if "✝" not in n]
    term = contradiction(facts)
    if term is None:
        return None
    return _Advice(
        line,
        f"Do close this case with `exact {term}` on line {line} (or `contradiction`): "
        f"{_case_phrase(goal)}its hypotheses contradict each other, so the goal "
        f"`{shorten(goal.target, 24)}` never has to be proved from the numbers.",
    )


def _false_claim_advice(line: int, claim: str) -> _Advice:
    return _Advice(
        line,
        f"Don't try to prove it with any tactic on line {line}: {claim}, so nothing can prove "
        "it. Check the numbers in the statement or in your earlier steps.",
    )


def _rfl_failed(d: Diagnostic, ctx: _Context) -> list[_Advice]:
    line = d.line
    scene = _scene(d, ctx)
    goal = _goal_here(d, scene)
    if goal is None:
        return _one(
            line,
            f"Don't use `rfl` on line {line}: the two sides are not equal by computation "
            "alone. Rewrite with a lemma about this operation first.",
        )
    impossible = _impossible_case(line, goal)
    if impossible:
        return [impossible]
    false_claim = _false_claim(goal.target, ctx)
    if false_claim:
        return [_false_claim_advice(line, false_claim)]
    built = derived_step(goal)
    if built:
        return _one(line, f"Don't use `rfl` on line {line}; instead, {built}.")
    facts = [(n, h.type) for h in goal.hypotheses for n in h.names]
    step = fixes.closing_step(goal.target, scene, goal.hypotheses)
    ih = next((n for n, t in facts if n.startswith("ih")), None)
    if step:
        extra = (
            f" (the induction hypothesis `{ih}` is not even needed)"
            if ih and step == "omega"
            else ""
        )
        return _one(
            line,
            f"Do use `{step}` on line {line} instead of `rfl`: `{shorten(goal.target, 30)}` is "
            f"not true by computation alone{extra}.",
        )
    return _one(
        line,
        f"Don't use `rfl` on line {line}: `{shorten(goal.target, 30)}` is not true by "
        f"computation alone. Instead, {next_step(goal, ctx.mathlib)}.",
    )


def _apply_failed(d: Diagnostic, ctx: _Context) -> list[_Advice]:
    lowered = d.message.lower()
    if "constructor" in lowered.split("\n", 1)[0]:
        return _constructor_failed(d, ctx)
    line = d.line
    scene = _scene(d, ctx)
    goal = _goal_here(d, scene)
    step = fixes.closing_step(goal.target, scene, goal.hypotheses) if goal else None
    why = "its conclusion does not match the goal"
    if step:
        return _one(
            line,
            f"Do use `{step}` on line {line} instead: the lemma cannot be applied because "
            f"{why}, and `{shorten(goal.target if goal else '', 30)}` is linear arithmetic.",
        )
    return _one(
        line,
        f"Do check that the conclusion of the lemma on line {line} matches the goal: apply "
        "could not unify them. Find a lemma whose conclusion is the goal, with `exact?`.",
    )


_ALTERNATIVE = re.compile(r"alternative\s*[`']?(\w+)[`']?\s+has not been provided", re.IGNORECASE)
_INVALID_ALT = re.compile(
    r"invalid alternative name\s*[`']?(\w+)[`']?:?\s*expected\s*[`']?(\w+)", re.I
)
_CASE_SHAPES = {
    "succ": "| succ k ih => ...",
    "cons": "| cons x xs ih => ...",
    "zero": "| zero => ...",
    "nil": "| nil => ...",
    "inl": "| inl h => ...",
    "inr": "| inr h => ...",
}


def _cases_error(d: Diagnostic, ctx: _Context) -> list[_Advice]:
    missing = _ALTERNATIVE.search(d.message)
    if missing:
        name = missing.group(1)
        last = _alternatives_end(ctx.text, d.line)
        shape = _CASE_SHAPES.get(name, f"| {name} => ...")
        return _one(
            last,
            f"Do add the missing case `{shape}` after line {last}: `induction` and `cases` "
            f"need one alternative per constructor, and `{name}` has none yet.",
        )
    invalid = _INVALID_ALT.search(d.message)
    if invalid:
        want = invalid.group(2)
        return _one(
            d.line,
            f"Do rename the alternative on line {d.line} to `{_CASE_SHAPES.get(want, '| ' + want)}`: "
            f"the constructor is called `{want}`, not `{invalid.group(1)}`.",
        )
    if _SUPERFLUOUS_ALT.search(d.message):
        return _one(
            d.line,
            f"Do remove the alternative on line {d.line}: Lean says it is not needed, since "
            "the alternatives before it already cover every constructor of the type you split.",
        )
    named = _INVALID_NAME.search(d.message)
    constructors = _split_constructors(ctx, d.line)
    if named and constructors:
        used = set(re.findall(r"^\s*\|\s*(\w+)", ctx.text.text, re.MULTILINE))
        free = [c for c in constructors if c not in used] or constructors
        if len(free) == 1:
            want = free[0]
            return _one(
                d.line,
                f"Do rename the alternative `{named.group(1)}` on line {d.line} to "
                f"`{_CASE_SHAPES.get(want, '| ' + want)}`: the constructors here are "
                f"{' and '.join(f'`{c}`' for c in constructors)}, one alternative each.",
            )
    return _one(
        d.line,
        f"Do check the alternatives on line {d.line}: each `| name ... =>` must be a "
        "constructor of the type you split, written once, in any order.",
    )


_SUPERFLUOUS_ALT = re.compile(
    r"alternative\b.*\bis not needed|unused alternative|redundant alternative", re.IGNORECASE
)
_INVALID_NAME = re.compile(r"invalid alternative name\s*[`']?(\w+)", re.IGNORECASE)
_SPLIT_TARGET = re.compile(r"^\s*(?:induction|cases|rcases)\s+([\w']+)\s+with\b")
# The constructors of the types a starter course splits on, in declaration order.
_CONSTRUCTORS = {
    "Nat": ("zero", "succ"),
    "ℕ": ("zero", "succ"),
    "List": ("nil", "cons"),
    "Or": ("inl", "inr"),
    "Bool": ("false", "true"),
    "Option": ("none", "some"),
}


def _split_constructors(ctx: _Context, line: int) -> tuple[str, ...]:
    """The constructors of the variable split by the nearest `induction/cases x with` above."""
    for number in range(line, 0, -1):
        match = _SPLIT_TARGET.match(ctx.text.line(number))
        if not match:
            continue
        typ = dict(statement_hypotheses(ctx.statement)).get(match.group(1), "").strip()
        head = "Or" if split_target(typ).shape is Shape.OR else typ.split(" ")[0]
        return _CONSTRUCTORS.get(head, ())
    return ()


def _alternatives_end(text: AttemptText, line: int) -> int:
    base, last = text.indent(line), line
    for number in range(line + 1, text.n_lines + 1):
        if not text.is_code(number):
            continue
        if text.indent(number) > base or text.line(number).strip().startswith("|"):
            last = number
        else:
            break
    return last


_CALC_LHS = re.compile(
    r"left-hand[ -]side is\s*\n\s+(?P<lhs>[^\n]+?)(?:\s*:\s*\S+)?\n.*?right-hand[ -]side is\s*\n\s+"
    r"(?P<rhs>[^\n]+?)(?:\s*:\s*\S+)?$",
    re.DOTALL | re.MULTILINE,
)


def _calc_error(d: Diagnostic, ctx: _Context) -> list[_Advice]:
    match = _CALC_LHS.search(d.message)
    if match:
        lhs, rhs = match.group("lhs").strip(), match.group("rhs").strip()
        if lhs == rhs:
            return _one(
                d.line,
                f"Do remove the step on line {d.line}, or start it with `_`: it restates "
                f"`{lhs}`, where the previous step already ended, so it proves nothing new.",
            )
        chained = _rechained_step(d, ctx, lhs, rhs)
        if chained:
            return [chained]
        return _one(
            d.line,
            f"Do start the step on line {d.line} with `_` (as in `_ = ...`): each calc step must "
            f"begin where the previous one ended, `{shorten(rhs, 20)}`, not `{shorten(lhs, 20)}`.",
        )
    return _one(
        d.line,
        f"Do check the calc step on line {d.line}: each step is `_ = rhs := proof`, starting "
        "where the previous one ended, and the steps must chain to the goal.",
    )


def _rechained_step(d: Diagnostic, ctx: _Context, lhs: str, previous: str) -> _Advice | None:
    """The step `c = b := h` after a step ending at `b`: written backwards, so the chained step
    is `_ = c`, proved from the facts in scope (here `h.symm`)."""
    step = re.match(
        r"^\s*(?P<l>.+?)\s*(?P<op>=|≤|<)\s*(?P<r>.+?)\s*:=\s*(?P<proof>.+?)\s*$",
        ctx.text.line(d.line),
    )
    if not step or step.group("l").strip() != lhs:
        return None
    op, right = step.group("op"), step.group("r").strip()
    target = lhs if right == previous and op == "=" else right
    facts = fixes.Scene(ctx.statement, ctx.text, d.line).facts()
    proofs = proofs_of(f"{previous} {op} {target}", facts)
    if not proofs:
        return None
    return _Advice(
        d.line,
        f"Do write `_ {op} {shorten(target, 20)} := {proofs[0]}` on line {d.line}: a calc step "
        f"starts with `_`, where the previous one ended (`{shorten(previous, 20)}`), and "
        f"`{shorten(proofs[0], 20)}` proves `{shorten(previous, 12)} {op} {shorten(target, 12)}`.",
    )


def _anonymous_constructor(d: Diagnostic, ctx: _Context) -> list[_Advice]:
    expected = " ".join(d.message.split("\n")[1:2]).strip()
    if split_target(expected).shape is Shape.OR:
        return _one(
            d.line,
            f"Do prove one side of the ∨ on line {d.line} with `Or.inl` or `Or.inr` (or the "
            "tactics `left` / `right`): `⟨_, _⟩` builds ∧ and ∃, but an ∨ needs just one side.",
        )
    return _one(
        d.line,
        f"Do check the goal on line {d.line}: `⟨_, _⟩` only builds a structure such as ∧ or ∃, "
        f"and `{shorten(expected, 30)}` is not one.",
    )


def _placeholder(d: Diagnostic, ctx: _Context) -> list[_Advice]:
    """`exact h1 _ _` where a `_` stands for a proof: Lean fills `_` only from the types, never
    by proving something, so the message's context shows the proof that is still owed."""
    goals = _goals_of(d)
    if not goals or "_" not in ctx.text.line(d.line) or "placeholder" not in d.message:
        return _other(d, ctx)
    goal = goals[0]
    if split_target(goal.target).shape is Shape.OTHER:
        return _other(d, ctx)  # maybe a value or a type, not a proposition: no proof to name
    owed = shorten(goal.target, 40)
    fits = next(
        (n for n, t in goal.named_facts() if "✝" not in n and _same_text(t, goal.target)), None
    )
    if fits:
        return _one(
            d.line,
            f"Do put `{fits}` in place of the `_` on line {d.line} that stands for a proof of "
            f"`{owed}`: Lean fills `_` only from the types, and `{fits}` states exactly that.",
        )
    return _one(
        d.line,
        f"Do replace the `_` on line {d.line} with a proof of `{owed}`, or prove it first "
        "with `have`: Lean fills `_` only when the types force the value, never a proof.",
    )


def _same_text(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())


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
    DiagnosticKind.INTRO_FAILED: _intro_failed,
    DiagnosticKind.UNKNOWN_TACTIC: _unknown_tactic,
    DiagnosticKind.DECIDE_FAILED: _decide_failed,
    DiagnosticKind.FAILED_TO_SYNTHESIZE: _failed_to_synthesize,
    DiagnosticKind.RFL_FAILED: _rfl_failed,
    DiagnosticKind.APPLY_FAILED: _apply_failed,
    DiagnosticKind.CASES_ERROR: _cases_error,
    DiagnosticKind.CALC_ERROR: _calc_error,
    DiagnosticKind.ANONYMOUS_CONSTRUCTOR: _anonymous_constructor,
    DiagnosticKind.PLACEHOLDER: _placeholder,
}

__all__ = ["CompilerCoach", "CompilerCoachConfig", "primary_diagnostics", "uses_mathlib"]
