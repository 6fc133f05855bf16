"""`induction` / `cases` / `match` alternatives: missing, misnamed or superfluous."""

from __future__ import annotations

import re

from tutor.coach.context import facts_in_scope, proofs_of, traced_goal
from tutor.coach.goals import (
    Shape,
    shorten,
    split_target,
)
from tutor.coach.rules.base import (
    Advice,
    Context,
    one,
)
from tutor.coach.source import AttemptText, statement_hypotheses
from tutor.lean.types import Diagnostic

_ALTERNATIVE = re.compile(r"alternative\s*[`']?(\w+)[`']?\s+has not been provided", re.IGNORECASE)
# The name may end in `'` itself (`succ'`), so the closing quote is the opening one, lazily.
_INVALID_ALT = re.compile(
    r"invalid alternative name\s*(?P<q>[`']?)(?P<name>[\w.']+?)(?P=q):?\s*expected\s*(?P<rest>.+)",
    re.I,
)
_CASE_SHAPES = {
    "succ": "| succ k ih => ...",
    "cons": "| cons x xs ih => ...",
    "zero": "| zero => ...",
    "nil": "| nil => ...",
    "inl": "| inl h => ...",
    "inr": "| inr h => ...",
}


def advise(d: Diagnostic, ctx: Context) -> list[Advice]:
    if _NOT_INDUCTIVE.search(d.message):
        return _not_inductive(d, ctx)
    missing = _ALTERNATIVE.search(d.message)
    if missing:
        name = missing.group(1)
        misnamed = _misnamed_alternative(ctx.text, d.line, name)
        if misnamed is not None:
            at, written = misnamed
            names = _alternative_names(ctx.text.line(at))
            return one(
                at,
                f"Do write `| {name}{names} =>` on line {at} instead of `| {written}`: an "
                f"alternative is named by the constructor alone, so Lean does not see `{name}` "
                "among your cases.",
            )
        last = _alternatives_end(ctx.text, d.line)
        shape = _CASE_SHAPES.get(name, f"| {name} => ...")
        return one(
            last,
            f"Do add the missing case `{shape}` after line {last}: `induction` and `cases` "
            f"need one alternative per constructor, and the `{name}` case is missing.",
        )
    uncovered = _missing_match_cases(d, ctx)
    if uncovered:
        return [uncovered]
    invalid = _INVALID_ALT.search(d.message)
    if invalid:
        written = invalid.group("name")
        expected = re.findall(r"[`']([\w.]+)[`']", invalid.group("rest")) or [
            invalid.group("rest").split()[0].strip("`'")
        ]
        short = written.rsplit(".", 1)[-1]
        if "." in written and short in expected:
            names = _alternative_names(ctx.text.line(d.line))
            return one(
                d.line,
                f"Do write `| {short}{names} =>` on line {d.line}: an alternative is named by the "
                f"constructor alone, `{short}`, without the namespace `{written.rsplit('.', 1)[0]}.`.",
            )
        if len(expected) == 1:
            want = expected[0]
            names = _alternative_names(ctx.text.line(d.line))
            shape = f"| {want}{names} =>" if names else _CASE_SHAPES.get(want, "| " + want)
            return one(
                d.line,
                f"Do rename the alternative on line {d.line} to `{shape}`: the constructor is "
                f"called `{want}`, not `{written}`.",
            )
        side = _SIDES.get(short) or _by_position(ctx.text, d.line, expected)
        if side in expected:
            names = _alternative_names(ctx.text.line(d.line))
            return one(
                d.line,
                f"Do write `| {side}{names} =>` on line {d.line}: the constructors here are "
                f"{' and '.join(f'`{e}`' for e in expected)}, and this alternative is the "
                f"`{side}` case, not `{written}`.",
            )
        listed = " or ".join(f"`{e}`" for e in expected)
        return one(
            d.line,
            f"Do rename the alternative `{written}` on line {d.line}: the constructors here "
            f"are {listed}, and each alternative starts with one of them.",
        )
    if _SUPERFLUOUS_ALT.search(d.message):
        return one(
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
            return one(
                d.line,
                f"Do rename the alternative `{named.group(1)}` on line {d.line} to "
                f"`{_CASE_SHAPES.get(want, '| ' + want)}`: the constructors here are "
                f"{' and '.join(f'`{c}`' for c in constructors)}, one alternative each.",
            )
    return one(
        d.line,
        f"Do check the alternatives on line {d.line}: each `| name ... =>` must be a "
        "constructor of the type you split, written once, in any order.",
    )


# What students write for the constructors of ∨ (and of ℕ) in Lean 3 or by analogy.
_SIDES = {
    "left": "inl",
    "right": "inr",
    "Left": "inl",
    "Right": "inr",
    "base": "zero",
    "step": "succ",
    "nil": "nil",
    "cons": "cons",
}


def _block_alternatives(text: AttemptText, line: int) -> list[tuple[int, str]]:
    """(line, name) of the `| name ... =>` alternatives of the split around `line`."""
    indent = text.indent(line)
    first = line
    while first > 1 and (
        text.line(first - 1).strip().startswith("|") or text.indent(first - 1) > indent
    ):
        first -= 1
    found = []
    for number in range(first, text.n_lines + 1):
        code = text.line(number)
        if text.indent(number) < indent and code.strip():
            break
        match = re.match(r"^\s*\|\s*([\w.']+)", code)
        if match and text.indent(number) == indent:
            found.append((number, match.group(1)))
    return found


def _by_position(text: AttemptText, line: int, expected: list[str]) -> str | None:
    """The constructor in this alternative's place, when the alternatives are as many as the
    constructors (Lean lists them in declaration order)."""
    block = _block_alternatives(text, line)
    if len(block) != len(expected):
        return None
    return next((expected[i] for i, (n, _) in enumerate(block) if n == line), None)


def _misnamed_alternative(text: AttemptText, line: int, name: str) -> tuple[int, str] | None:
    """The alternative below the split on `line` written `Nat.zero` (a qualified name) where
    Lean misses `zero`."""
    for number in range(line + 1, text.n_lines + 1):
        match = re.match(r"^\s*\|\s*([\w.']+)", text.line(number))
        if match and "." in match.group(1) and match.group(1).rsplit(".", 1)[-1] == name:
            return number, match.group(1)
    return None


def _alternative_names(code: str) -> str:
    """` k ih` in `| Nat.succ k ih => ...`: the names the student gave the fields."""
    match = re.match(r"^\s*\|\s*[\w.']+((?:\s+[\w'₀-₉]+)*)\s*=>", code)
    return match.group(1) if match else ""


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


def _split_constructors(ctx: Context, line: int) -> tuple[str, ...]:
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


_NOT_INDUCTIVE = re.compile(r"not an inductive (?:type|datatype)", re.IGNORECASE)
_SPLIT_ON = re.compile(r"^\s*(?:·\s*)?(induction|cases|rcases)\s+([\w'₀-₉]+)")


def _not_inductive(d: Diagnostic, ctx: Context) -> list[Advice]:
    """`induction h` / `cases h` where `h` is no value of an inductive type (a function, an
    implication, a real number): the tactic's precondition, not the alternatives."""
    line = d.line
    match = _SPLIT_ON.match(ctx.text.line(line))
    tactic, target = (match.group(1), match.group(2)) if match else ("induction", "it")
    facts = facts_in_scope(ctx.statement, ctx.text, line)
    typ = dict(facts).get(target, "")
    shape = split_target(typ).shape if typ else Shape.OTHER
    what = "a value of an inductive type (a natural number, a list, an ∨, ∧ or ∃ fact)"
    if shape in (Shape.IMPLIES, Shape.FORALL, Shape.NOT, Shape.NE):
        goal = traced_goal(ctx.statement, ctx.text, line)
        proofs = [p for p in proofs_of(goal, facts) if target in p] if goal else []
        use = f"`exact {proofs[0]}`" if proofs else f"`apply {target}`"
        meaning = (
            f" (`{shorten(typ, 16)}` means `{shorten(split_target(typ).left, 10)} = "
            f"{shorten(split_target(typ).right, 10)} → False`)"
            if shape is Shape.NE
            else ""
        )
        return one(
            line,
            f"Don't use `{tactic}` on `{target}` on line {line}: it splits {what}, and "
            f"`{target}` is an implication{meaning}, which you use by applying it: {use}.",
        )
    return one(
        line,
        f"Don't use `{tactic}` on line {line}: it splits {what}, and the type of `{target}` "
        "is not one. Work with its hypotheses or apply a lemma about it instead.",
    )


# Lean prints a missing pattern with the constructors' full names (`(Nat.succ _)`); a student
# writes the notation (`n + 1`). Others keep their dotted constructor.
_PATTERNS = {
    "Nat.succ _": "n + 1",
    "Nat.zero": "0",
    "List.cons _ _": "x :: xs",
    "List.nil": "[]",
    "Option.some _": "some a",
    "Option.none": "none",
    "Bool.true": "true",
    "Bool.false": "false",
}


def _missing_match_cases(d: Diagnostic, ctx: Context) -> Advice | None:
    """`Missing cases:` under a `match` or a definition by patterns: each line is a pattern no
    alternative covers; the alternative to add is that pattern in the student's notation."""
    lines = d.message.split("\n")
    if not lines or not lines[0].strip().lower().startswith("missing cases"):
        return None
    wanted = []
    for raw in lines[1:]:
        parts = [_pattern(p) for p in _columns(raw) if p.strip()]
        if parts:
            wanted.append(", ".join(parts))
    if not wanted:
        return None
    last = d.line
    for number in range(d.line + 1, ctx.text.n_lines + 1):
        code = ctx.text.line(number).strip()
        if code.startswith("|"):
            last = number
        elif code and not code.startswith("--"):
            break
    shown = " and ".join(f"`| {w} => ...`" for w in wanted[:2])
    return Advice(
        last,
        f"Do add {shown} after line {last}: a definition by patterns (or a `match`) needs an "
        f"alternative for every value, and Lean found {'these' if len(wanted) > 1 else 'this'} "
        "uncovered.",
    )


def _columns(raw: str) -> list[str]:
    """`(List.cons _ _), []` as its two columns (commas inside brackets kept)."""
    out, depth, current = [], 0, ""
    for char in raw:
        depth += char in "([" and 1 or (-1 if char in ")]" else 0)
        if char == "," and depth == 0:
            out.append(current)
            current = ""
        else:
            current += char
    return [*out, current]


def _pattern(printed: str) -> str:
    """Lean's printed pattern in a student's notation: `Nat.succ (Nat.succ _)` is `n + 2`;
    others as printed (`Nat.succ _` is itself a valid pattern) or from `_PATTERNS`."""
    text = printed.strip()
    while text.startswith("(") and text.endswith(")"):
        text = text[1:-1].strip()
    succs = re.fullmatch(r"((?:Nat\.succ \(?)+)_\)*", text)
    if succs:
        return f"n + {succs.group(1).count('Nat.succ')}"
    return _PATTERNS.get(text, text)
