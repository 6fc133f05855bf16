"""Steps meant for a hypothesis that were written for the goal: a `rw` whose pattern is in `h`
and not in the goal wants `at h`; a `simp` that made no progress on the goal while `h` holds
what simp's basic lemmas rewrite (`0 + n`, `x * 1`, `¬¬p`) wants `simp at h`, or `simpa using h`
when that turns `h` into the goal."""

from __future__ import annotations

import re
from collections.abc import Sequence

from tutor.coach.goals import strip_parens

Fact = tuple[str, str]

# A term as a rewrite pattern's `?x` may match it: a name, a numeral, or a bracketed group.
_ATOM = r"(?:[\w'₀-₉.]+|\((?:[^()]|\([^()]*\))*\))"


def pattern_regex(pattern: str, whole: bool = False) -> re.Pattern[str] | None:
    """`?n + 0` as a regex on printed terms: each `?x` a term, repeated ones the same term.
    `whole`: the pattern is a whole statement (a bare `?a` or name is then no problem)."""
    pattern = " ".join(pattern.split())
    if not pattern or (not whole and re.fullmatch(r"\??[\w'₀-₉.]+", pattern)):
        # A bare metavariable matches everything; a bare name (`b` from `hb : b = 3`) is a
        # value the goal reaches by another rewrite first (`rw [h, hb]`): no evidence either.
        return None
    out: list[str] = []
    groups: dict[str, str] = {}
    for token in re.split(r"(\?[\w'₀-₉]+)", pattern):
        if token.startswith("?"):
            if token in groups:
                out.append(f"(?P={groups[token]})")
            else:
                groups[token] = f"m{len(groups)}"
                out.append(f"(?P<{groups[token]}>{_ATOM})")
        elif token:
            out.append(r"\s*".join(re.escape(part) for part in token.split(" ")))
    return re.compile(r"(?<![\w.'])" + "".join(out) + r"(?![\w'])")


def match_pattern(pattern: str, text: str) -> dict[str, str] | None:
    """The terms `pattern`'s metavariables stand for when it matches the whole of `text`
    (`?a ≤ |?a|` against `x ≤ |x|` gives `{"?a": "x"}`); None when it does not match."""
    regex = pattern_regex(pattern, whole=True)
    if regex is None:
        return None
    found = regex.fullmatch(" ".join(text.split()))
    if found is None:
        return None
    names = list(dict.fromkeys(re.findall(r"\?[\w'₀-₉]+", pattern)))
    return {name: found.group(f"m{index}") for index, name in enumerate(names)}


def holding_pattern(pattern: str, facts: Sequence[Fact], target: str) -> list[str]:
    """The hypotheses whose statement contains the rewrite's pattern when the goal does not."""
    found = pattern_regex(pattern)
    if found is None or found.search(" ".join(target.split())):
        return []
    return [
        name
        for name, typ in facts
        if "✝" not in name and name != "_" and found.search(" ".join(typ.split()))
    ]


# What `simp` with its default lemmas certainly rewrites, and into what (`\1` the kept term).
_SIMP_NORMAL = (
    (re.compile(rf"(?<![\w.'+*-])0 \+ ({_ATOM})"), r"\1"),
    (re.compile(rf"({_ATOM}) \+ 0(?![\w.'])"), r"\1"),
    (re.compile(rf"(?<![\w.'*/])1 \* ({_ATOM})"), r"\1"),
    (re.compile(rf"({_ATOM}) \* 1(?![\w.'])"), r"\1"),
    (re.compile(rf"({_ATOM}) - 0(?![\w.'])"), r"\1"),
    (re.compile(rf"({_ATOM}) \^ 1(?![\w.'])"), r"\1"),
    (re.compile(r"¬¬"), ""),
    (re.compile(r"True ∧ "), ""),
    (re.compile(r" ∧ True(?![\w'])"), ""),
    (re.compile(rf"({_ATOM}) \+\+ \[\](?![\w'])"), r"\1"),
    (re.compile(rf"\[\] \+\+ ({_ATOM})"), r"\1"),
)


def simp_normal(text: str) -> str | None:
    """`text` with the basic simp lemmas above applied, or None when none applies."""
    out = " ".join(text.split())
    changed = False
    for _ in range(4):
        before = out
        for regex, replacement in _SIMP_NORMAL:
            out = regex.sub(replacement, out)
        out = re.sub(r"\(([\w'₀-₉.]+)\)", r"\1", out)
        if out == before:
            break
        changed = True
    return strip_parens(out) if changed else None


def simp_target(target: str, facts: Sequence[Fact]) -> tuple[str, str, bool] | None:
    """(hypothesis, what simp makes of it, whether that is the goal) for the one hypothesis
    simp's basic lemmas rewrite, when they do not rewrite the goal."""
    if simp_normal(target) is not None:
        return None
    found = []
    for name, typ in facts:
        if "✝" in name or name == "_":
            continue
        simplified = simp_normal(typ)
        if simplified is not None:
            found.append((name, simplified, _same(simplified, target)))
    closing = [f for f in found if f[2]]
    if closing:
        return closing[0]
    return found[0] if len(found) == 1 else None


def _same(a: str, b: str) -> bool:
    return " ".join(strip_parens(a).split()) == " ".join(strip_parens(b).split())


_SET_BUILDER = re.compile(
    r"^\s*(?P<x>.+?)\s*(?P<op>∈|∉)\s*\{\s*(?P<v>[\w'₀-₉]+)(?:\s*:\s*[^|{}]+?)?\s*\|\s*"
    r"(?P<body>[^{}]+)\}\s*$"
)


def set_builder(prop: str) -> tuple[str, bool] | None:
    """`x ∈ {y | P y}` as (`P x`, True), `x ∉ {…}` as (`P x`, False): what membership in a set
    written by a property means (Mathlib's `Set.mem_setOf_eq`); None for anything else."""
    found = _SET_BUILDER.match(prop)
    if found is None:
        return None
    x = found.group("x").strip()
    term = x if re.fullmatch(r"[\w'₀-₉.]+", x) else f"({x})"
    body = re.sub(rf"(?<![\w.']){re.escape(found.group('v'))}(?![\w'])", term, found.group("body"))
    return " ".join(body.split()), found.group("op") == "∈"
