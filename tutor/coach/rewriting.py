"""Which hypothesis rewrites a goal, and what the goal becomes: evidence for `simp [h]`,
`rw [h]` and `norm_num [h]` advice.

`simp`, `norm_num` and `decide` never look at the hypotheses in the context unless they are
listed, so a goal such as `f 3 = 4` with `hf : ∀ x, f x = x + 1` in scope is stuck for `simp`
and true after `simp [hf]`. `rewrites(facts, target)` finds the equations (`h : a = b`, or
`h : ∀ x, f x = ...`) whose left side occurs in the target, and gives the target with that
occurrence replaced, so a rule can check by evaluation that the rewritten goal is true before it
names the step.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tutor.coach import evidence
from tutor.coach.goals import Shape, split_target, strip_parens

_WORD = r"(?<![\w.']){}(?![\w'])"
_ARGUMENT = r"(\d+|[A-Za-z_][\w'₀-₉]*|\([^()]*\))"


@dataclass(frozen=True)
class Rewrite:
    name: str  # the hypothesis
    target: str  # the goal after rewriting with it, left to right
    substitution: bool  # the hypothesis is `x = value` for a variable `x`


def _norm(text: str) -> str:
    return " ".join(text.split())


def rewrites(facts: Sequence[tuple[str, str]], target: str) -> list[Rewrite]:
    """The hypotheses whose left side (or, for `x = value`, the variable) occurs in `target`,
    with the rewritten target; hypotheses Lean cannot name (`h✝`, `_`) are left out."""
    found = []
    target = _norm(target)
    for name, typ in facts:
        if not typ or name == "_" or "✝" in name:
            continue
        binders, body = _foralls(_norm(typ))
        split = split_target(body)
        if split.shape is not Shape.EQ:
            continue
        left, right = strip_parens(split.left), split.right.strip()
        rewritten = _rewrite(target, left, right, binders)
        if rewritten is not None:
            variable = not binders and re.fullmatch(r"[A-Za-z_][\w'₀-₉]*", left) is not None
            found.append(Rewrite(name, rewritten, variable and evidence.is_closed(right)))
            continue
        # `h : 2 = x`: simp and `subst` use it the other way round just as well.
        if not binders and re.fullmatch(r"[A-Za-z_][\w'₀-₉]*", right) and evidence.is_closed(left):
            rewritten = _rewrite(target, right, left, [])
            if rewritten is not None:
                found.append(Rewrite(name, rewritten, True))
    return found


def _foralls(typ: str) -> tuple[list[str], str]:
    match = re.match(r"^∀\s*\(?([\w'₀-₉ ]+?)(?:\s*:\s*[^,()]+)?\)?\s*,\s*(.+)$", typ)
    if not match:
        return [], typ
    return match.group(1).split(), match.group(2)


def _rewrite(target: str, left: str, right: str, binders: list[str]) -> str | None:
    if not left or left == target:
        return None
    if not binders:
        pattern = _WORD.format(re.escape(left))
        spots = [m for m in re.finditer(pattern, target) if _is_subterm(target, m, left)]
        if not spots:
            return None
        out, at = [], 0
        for spot in spots:
            out += [target[at : spot.start()], _grouped(right)]
            at = spot.end()
        return "".join([*out, target[at:]])
    # Mark each binder in the left side first, then turn the marks into groups: a group's
    # own text must never be searched for a binder's name again.
    marked = left
    for index, name in enumerate(binders):
        marked = re.sub(_WORD.format(re.escape(name)), _literal(f"\x00{index}\x00"), marked)
    pattern, seen = "", set()
    for piece in re.split(r"(\x00\d+\x00)", marked):
        if not piece.startswith("\x00"):
            pattern += re.escape(piece)
            continue
        group = "b" + piece.strip("\x00")  # binder names (`x₁`, `n'`) are not group names
        pattern += f"(?P={group})" if group in seen else f"(?P<{group}>{_ARGUMENT})"
        seen.add(group)
    try:
        match = re.search(_WORD.format(pattern), target)
    except re.error:
        return None
    groups = match.groupdict() if match else {}
    if match is None or not all(groups.get(f"b{i}") for i in range(len(binders))):
        return None
    if not _is_subterm(target, match, match.group(0)):
        return None
    replacement = right
    for index, name in enumerate(binders):
        value = groups[f"b{index}"]
        replacement = re.sub(_WORD.format(re.escape(name)), _literal(value), replacement)
    return target[: match.start()] + _grouped(replacement) + target[match.end() :]


# Lean's precedences for the infix operators a beginner's goals use (Init/Prelude notation):
# `n * n % 2` is `(n * n) % 2`, so `n % 2` is not a subterm of it.
_PRECEDENCE = {"+": 65, "-": 65, "*": 70, "/": 70, "%": 70, "^": 75}


def _top_operator(term: str) -> int | None:
    """The precedence of the loosest infix operator outside brackets, or None for an atom or
    an application."""
    depth, found = 0, None
    for index, char in enumerate(term):
        depth += char in "(⟨[" and 1 or 0
        depth -= char in ")⟩]" and 1 or 0
        spaced = 0 < index < len(term) - 1 and term[index - 1] == " " and term[index + 1] == " "
        if depth == 0 and char in _PRECEDENCE and spaced:
            found = _PRECEDENCE[char] if found is None else min(found, _PRECEDENCE[char])
    return found


def _is_subterm(target: str, match: re.Match[str], left: str) -> bool:
    """Whether the text matched is a whole subterm of `target` as Lean parses it: an operator
    beside it that binds at least as tightly (to the left, where `*`, `%` and `+` associate)
    or more tightly (to the right) takes part of it instead."""
    own = _top_operator(left)
    before = target[: match.start()].rstrip()
    after = target[match.end() :].lstrip()
    applied_to = bool(before) and (before[-1].isalnum() or before[-1] in "'_)")
    if own is None:
        # An atom is a subterm wherever it stands; an application `f x` right after a name is
        # part of a longer application instead (`g f x` is `(g f) x`).
        return " " not in left or not applied_to
    if before and before[-1] in _PRECEDENCE and _PRECEDENCE[before[-1]] >= own:
        return False
    if after and after[0] in _PRECEDENCE and _PRECEDENCE[after[0]] > own:
        return False
    return not applied_to


def _literal(text: str) -> Callable[[re.Match[str]], str]:
    """A replacement for re.sub taken as is (a string would have its backslashes read)."""
    return lambda _match: text


def _grouped(term: str) -> str:
    """`term` as it can stand in place of a subterm: bracketed unless it is one token."""
    term = term.strip()
    return term if re.fullmatch(r"[\w'₀-₉.]+", term) else f"({term})"


def closes_by_computation(rewrite: Rewrite, domain: str) -> bool:
    """The rewritten goal is a true claim about numerals (evaluated, nothing left open)."""
    return evidence.is_closed(rewrite.target) and evidence.holds(rewrite.target, domain) is True


# `(g n)` as an operand of an infix operator: application binds tighter than any operator,
# so the parentheses say nothing there (they do in `f (g n)`, where `(g n)` is an argument).
_OPERAND_IN_PARENS = re.compile(
    r"(^|[(+\-*/^=<>≤≥≠∧∨,]\s*)\(([\w'₀-₉.]+(?:\s+[\w'₀-₉.]+)*)\)(?=\s*(?:$|[)+\-*/^=<>≤≥≠∧∨,]))"
)


# `(c + 1) + 1` is `c + 1 + 1`: `+` and `-` group to the left, so brackets around a sum that is
# the left operand of another `+` or `-` say nothing.
_LEFT_SUM_IN_PARENS = re.compile(r"(^|[(=<>≤≥≠,]\s*)\(([^()]*)\)(?=\s*[+\-]\s)")


def _plain(text: str) -> str:
    previous = None
    text = _norm(text)
    while previous != text:
        previous, text = text, _OPERAND_IN_PARENS.sub(r"\1\2", text)
        text = _LEFT_SUM_IN_PARENS.sub(
            lambda m: (
                m.group(1) + m.group(2) if re.fullmatch(r"[^*/%^]*", m.group(2)) else m.group(0)
            ),
            text,
        )
    return text


def closes_by_rfl(rewrite: Rewrite) -> bool:
    """The rewritten goal is an equation with the same term on both sides (what `simp [h]` and
    `rw [h]` close at once)."""
    split = split_target(rewrite.target)
    return split.shape is Shape.EQ and _plain(strip_parens(split.left)) == _plain(split.right)
