"""`unknown identifier` / `unknown constant`: a name Lean does not know. Bind it where the
student meant to (an `intro`, a pattern, a ∀ not yet introduced), translate a Lean 3
spelling, or name the existing lemma or hypothesis it is a typo of."""

from __future__ import annotations

import re

from tutor.coach.advice import binder_names
from tutor.coach.goals import (
    Shape,
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
from tutor.coach.rules.base import (
    Advice,
    Context,
    one,
)
from tutor.coach.source import AttemptText, proof_conclusion, statement_hypotheses
from tutor.lean.types import Diagnostic

_UNKNOWN_NAME = re.compile(r"unknown (?:identifier|constant)\s*['`‘’]?([^'`’\s]+)", re.IGNORECASE)


def advise(d: Diagnostic, ctx: Context) -> list[Advice]:
    match = _UNKNOWN_NAME.search(d.message)
    name = match.group(1).rstrip("'`’") if match else ctx.text.token_at(d.line, d.column)
    line = d.line
    if name in TACTICS:
        extra = (
            " (it needs `import Mathlib`)" if name in MATHLIB_TACTICS and not ctx.mathlib else ""
        )
        return one(
            line,
            f"Don't use `{name}` as a term on line {line}: it is a tactic{extra}, so write "
            f"it as its own step inside a `by` block, not after `exact` or `:=`.",
        )
    conclusion = proof_conclusion(ctx.statement) or ""
    if conclusion.startswith("∀") and name in binder_names(conclusion):
        return one(
            line,
            f"Do add `intro {name}` before line {line}: `{name}` is bound by the ∀ in the "
            "goal and is not in the context until you introduce it.",
        )
    if name == "begin":
        return one(
            line,
            f"Do replace Lean 3 `begin ... end` on line {line} with `:= by` followed by the "
            "tactics, one per line, indented under it: Lean 4 has no `begin`.",
        )
    unnamed = _unnamed_binder(ctx, name, line)
    if unnamed is not None:
        origin, form = unnamed
        also = "" if "obtain" in form else "; `assumption` also finds it"
        return one(
            origin,
            f"Do name the hypothesis where it is made: write {form} on line {origin}. "
            f"Without names Lean makes up inaccessible ones (shown with ✝) that you cannot "
            f"type, so `{name}` is unknown on line {line}{also}.",
        )
    lean4 = _lean3_namespace(name)
    if lean4 is not None:
        return [
            Advice(
                line,
                f"Do write `{lean4}` on line {line} instead of `{name}`: that is the Lean 3 name; "
                "Lean 4 capitalises the namespaces of its core types (`Eq.`, `Nat.`, `Or.`).",
            ),
            _name_search_advice(line),
        ]
    fact = _fact_for_goal(name, ctx)
    if fact is not None:
        return one(
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
            Advice(
                line,
                f"Do replace `{name}` on line {line} with `{guess.name}`: Lean knows no "
                f"`{name}`, and `{guess.name}` is the closest existing name{why}.",
            ),
            secondary,
        ]
    return [
        Advice(
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


def _name_search_advice(line: int) -> Advice:
    return Advice(
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


def _unnamed_binder(ctx: Context, name: str, line: int) -> tuple[int, str] | None:
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


def _fact_for_goal(name: str, ctx: Context) -> str | None:
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
