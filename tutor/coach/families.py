"""Type mismatches between relatives: `<` where `≤` is needed, `≤` where `<` is, an `∧` where
one half is, `abs_lt` where `abs_le` fits, `lt_of_lt_of_le` where `lt_of_le_of_lt` does.

The fix is usually one name away, in the same lemma family, and the coach names it only when
the name exists for the course (core Lean, or Mathlib too: `evidence.in_library`), the lemma
fits the number type (`Nat.le_of_lt` is about ℕ only), and the types Lean printed (or the
hypotheses in scope) are exactly the ones the lemma takes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from tutor.coach import evidence, lemmas
from tutor.coach.context import normal, same
from tutor.coach.goals import Shape, shorten, split_target
from tutor.lean.messages import Mismatch

Advice = tuple[int, str]
_META = re.compile(r"\?[\w.]+")


def _arg(term: str) -> str:
    return term if re.fullmatch(r"[\w.'₀-₉]+", term) else f"({term})"


def _prefix(domain: str, mathlib: bool) -> str | None:
    """The namespace of order lemmas for the goal's numbers: `Nat.`, `Int.`, or Mathlib's
    general names (no prefix) for ℝ and ℚ, which exist only with Mathlib."""
    if domain == evidence.NAT:
        return "Nat."
    if domain == evidence.INT:
        return "Int."
    return "" if mathlib else None


def _as_written(term: str, source: str) -> str:
    """The term as the student wrote it: Lean prints `h.2` back as `h.right`."""
    if term in source:
        return term
    numeric = term.replace(".left", ".1").replace(".right", ".2")
    return numeric if numeric in source else term


def conjunction_half(p: Mismatch, line: int, source: str) -> list[Advice]:
    """`abs_lt.mp h : -1 < x ∧ x < 1` where `x < 1` is needed: take the right half."""
    if p.application:
        return []
    split = split_target(normal(p.has))
    if split.shape is not Shape.AND:
        return []
    for side, projection in ((split.left, ".1"), (split.right, ".2")):
        if same(side, p.expected):
            fixed = f"{_arg(_as_written(p.term, source))}{projection}"
            half = "left" if projection == ".1" else "right"
            return [
                (
                    line,
                    f"Do write `exact {fixed}` on line {line}: `{shorten(p.term, 20)}` proves the "
                    f"conjunction `{shorten(normal(p.has), 30)}`, and its {half} half "
                    f"`{projection}` is exactly `{shorten(normal(p.expected), 20)}`.",
                )
            ]
    return []


def abs_half(p: Mismatch, line: int, source: str, mathlib: bool) -> list[Advice]:
    """`h : |x| < 2` where `x < 2` (or `-2 < x`) is needed: `abs_lt` (`abs_le` for `≤`) states
    the bound on `|x|` as the two bounds on `x`; the half that is the goal."""
    if p.application or not mathlib:
        return []
    has, want = split_target(normal(p.has)), split_target(normal(p.expected))
    inside = re.fullmatch(r"\|(.+)\|", has.left.strip())
    if has.op not in ("<", "≤") or inside is None or want.op != has.op:
        return []
    lemma = "abs_lt" if has.op == "<" else "abs_le"
    value, bound = inside.group(1).strip(), has.right.strip()
    negated = f"-{bound}" if re.fullmatch(r"[\w.']+", bound) else f"-({bound})"
    halves = ((".1", negated, value), (".2", value, bound))
    for projection, left, right in halves:
        if same(want.left, left) and same(want.right, right):
            fixed = f"({lemma}.mp {_arg(_as_written(p.term, source))}){projection}"
            if not evidence.in_library(lemma, mathlib):
                return []
            return [
                (
                    line,
                    f"Do write `exact {fixed}` on line {line}: `{lemma}` turns "
                    f"`{shorten(normal(p.has), 20)}` into `{negated} {has.op} {value} ∧ {value} "
                    f"{has.op} {bound}`, and that half is the goal.",
                )
            ]
    return []


def weaker_relation(p: Mismatch, line: int, types: dict[str, str], mathlib: bool) -> list[Advice]:
    """`h : a < b` where `a ≤ b` (or `a ≠ b`, `b ≠ a`) is needed, `h : a = b` where `a ≤ b` is:
    the lemma that weakens it, for the goal's number type."""
    if p.application or "?" in p.expected:
        return []
    has, want = split_target(normal(p.has)), split_target(normal(p.expected))
    if not has.op or not want.op:
        return []
    domain = evidence.domain_of_text(p.has + " " + p.expected, types)
    prefix = _prefix(domain, mathlib)
    if prefix is None:
        return []
    sides = (normal(has.left), normal(has.right))
    want_sides = (normal(want.left), normal(want.right))
    term = _arg(p.term)
    lemma = None
    if has.shape is Shape.LT and want.shape is Shape.LE and sides == want_sides:
        lemma, why = f"{prefix}le_of_lt {term}", "a strict `<` gives `≤`"
    elif has.shape is Shape.EQ and want.shape is Shape.LE and sides == want_sides:
        lemma, why = f"{prefix}le_of_eq {term}", "an equation gives `≤`"
    elif has.shape is Shape.LT and want.shape is Shape.NE:
        if sides == want_sides:
            lemma, why = f"{prefix}ne_of_lt {term}", "`a < b` gives `a ≠ b`"
        elif sides == want_sides[::-1]:
            lemma, why = f"{prefix}ne_of_gt {term}", "`a < b` gives `b ≠ a`"
    if lemma is None or not evidence.in_library(lemma.split()[0], mathlib):
        return []
    return [(line, f"Do write `exact {lemma}` on line {line} instead: {why}.")]


_CHAIN = re.compile(
    r"^(?P<ns>(?:Nat\.|Int\.)?)(?:(?:lt|le)_of_(?:lt|le)_of_(?:lt|le)|le_trans|lt_trans)$"
)


def chain_lemma(
    p: Mismatch, line: int, source: str, facts: Sequence[tuple[str, str]], mathlib: bool
) -> list[Advice]:
    """`lt_of_le_of_lt h1 h2` where `h1 : a < b`, `h2 : b ≤ c`: the family member whose
    premises are the relations the facts really are (`lt_of_lt_of_le`)."""
    match = re.search(r"(?<![\w.])([\w.]+)\s+([\w'₀-₉]+)\s+([\w'₀-₉]+)\s*$", source)
    if not match or not _CHAIN.match(match.group(1)):
        return []
    lemma, first, second = match.groups()
    kinds = dict(facts)
    relations = []
    for name in (first, second):
        split = split_target(normal(kinds.get(name, "")))
        if split.shape not in (Shape.LT, Shape.LE) or split.op not in ("<", "≤"):
            return []
        relations.append(("lt" if split.op == "<" else "le", split))
    (r1, s1), (r2, s2) = relations
    if normal(s1.right) != normal(s2.left):
        return []  # the two facts do not chain: no family member helps
    ns = _CHAIN.match(lemma).group("ns")  # type: ignore[union-attr]
    fixed = f"{ns}{r1}_trans" if r1 == r2 else f"{ns}lt_of_{r1}_of_{r2}"
    if fixed == lemma or not evidence.in_library(fixed, mathlib):
        return []
    op = "<" if "lt" in (r1, r2) else "≤"
    return [
        (
            line,
            f"Do write `exact {fixed} {first} {second}` on line {line}: `{first}` is a "
            f"`{'<' if r1 == 'lt' else '≤'}` and `{second}` a `{'<' if r2 == 'lt' else '≤'}`, "
            f"and `{fixed}` is the lemma of this family for that order, giving "
            f"`{shorten(s1.left, 10)} {op} {shorten(s2.right, 10)}`.",
        )
    ]


def chain_after_apply(
    previous: str,
    previous_line: int,
    goal: str | None,
    facts: Sequence[tuple[str, str]],
    mathlib: bool,
) -> list[Advice]:
    """`apply lt_of_lt_of_le` on `a < c` with `h1 : a ≤ b`, `h2 : b < c`, then `exact h1`
    against `a < ?b`: the lemma chosen wants the relations in the other order; the family
    member whose premises are the facts' relations, said at the `apply`."""
    match = re.fullmatch(r"(?:·\s*)?apply\s+([\w.]+)", previous.strip())
    if not match or not _CHAIN.match(match.group(1)) or goal is None:
        return []
    lemma = match.group(1)
    want = split_target(normal(goal))
    if want.op not in ("<", "≤"):
        return []
    found = []
    for n1, t1 in facts:
        s1 = split_target(normal(t1))
        if s1.op not in ("<", "≤") or normal(s1.left) != normal(want.left):
            continue
        for n2, t2 in facts:
            s2 = split_target(normal(t2))
            if (
                n2 != n1
                and s2.op in ("<", "≤")
                and normal(s2.left) == normal(s1.right)
                and normal(s2.right) == normal(want.right)
            ):
                found.append((n1, s1.op, n2, s2.op))
    if len(found) != 1:
        return []
    first, op1, second, op2 = found[0]
    if (want.op == "<") != ("<" in (op1, op2)):
        return []  # the facts do not give the goal's relation: no member of the family helps
    r1, r2 = ("lt" if op1 == "<" else "le"), ("lt" if op2 == "<" else "le")
    ns = _CHAIN.match(lemma).group("ns")  # type: ignore[union-attr]
    fixed = f"{ns}{r1}_trans" if r1 == r2 else f"{ns}lt_of_{r1}_of_{r2}"
    if fixed == lemma or not evidence.in_library(fixed, mathlib):
        return []
    return [
        (
            previous_line,
            f"Do write `exact {fixed} {first} {second}` on line {previous_line}: `{lemma}` wants "
            f"{_premises(lemma)}, but `{first}` is a `{op1}` and `{second}` a `{op2}`; "
            f"`{fixed}` is the lemma of this family for that order.",
        )
    ]


def _premises(lemma: str) -> str:
    """What a chain lemma takes, read off its name: `lt_of_lt_of_le` a `<` then a `≤`."""
    short = lemma.rsplit(".", 1)[-1]
    if short.endswith("_trans"):
        return f"two `{'<' if short.startswith('lt') else '≤'}` facts"
    first, second = short.split("_of_")[1:3]
    return (
        f"a `{'<' if first == 'lt' else '≤'}` first and a `{'<' if second == 'lt' else '≤'}` second"
    )


_WEAKER = {"lt": "le", "pos": "nonneg", "neg": "nonpos"}


def relation_swap(
    p: Mismatch,
    line: int,
    source: str,
    mathlib: bool,
    goal: str | None = None,
    facts: Sequence[tuple[str, str]] = (),
) -> list[Advice]:
    """`abs_lt.mp h` with `h : |x| ≤ 2`: the argument differs from what the lemma takes only in
    `≤` against `<`, and the lemma with `le` for `lt` (or back) exists: use that one. Where the
    step is the whole `exact` and the member's statement is known, it must conclude the goal
    (`add_nonneg` does not give `0 < a + b`); else the lemma that does, from the facts."""
    if not p.application:
        return []
    has, want = normal(p.has), _META.sub("?", normal(p.expected))
    swapped = has.replace("≤", "\x00").replace("<", "≤").replace("\x00", "<")
    pattern = re.escape(want).replace(r"\?", r"\S+")
    if not re.fullmatch(pattern, swapped) or re.fullmatch(pattern, has):
        return []
    head = p.application.split()[0]
    base = re.sub(r"\.(mp|mpr|1|2)$", "", head)
    # The argument is weaker (`≤`) than the lemma takes (`<`): the family member for `≤` has
    # `le`, `nonneg`, `nonpos` where this one has `lt`, `pos`, `neg`; and the other way round.
    table = _WEAKER if "≤" in has else {v: k for k, v in _WEAKER.items()}
    other = re.sub(r"(?<![a-z])(lt|le|pos|nonneg|neg|nonpos)(?![a-z])", _swap(table), base)
    if other == base or not evidence.in_library(other, mathlib):
        return []
    fixed = re.sub(rf"(?<![\w.]){re.escape(base)}(?=[.\s)]|$)", other, source.strip(), count=1)
    if fixed == source.strip():
        return []
    if goal and source.strip().startswith("exact ") and not lemmas.concludes(other, goal):
        stated = lemmas.instances(goal, facts, mathlib)
        if not stated:
            return []
        return [
            (
                line,
                f"Do write `exact {stated[0]}` on line {line}: `{p.term}` proves "
                f"`{shorten(has, 20)}`, which `{base}` does not take, and `{other}` would conclude "
                f"less than the goal `{shorten(goal, 20)}`; `{stated[0].split()[0]}` states it "
                "from the facts you have.",
            )
        ]
    return [
        (
            line,
            f"Do write `{fixed}` on line {line}: `{p.term}` proves `{shorten(has, 20)}`, a "
            f"`{'≤' if '≤' in has else '<'}`, and `{other}` is the lemma of the `{base}` family "
            "for that relation.",
        )
    ]


def result_relation_swap(
    p: Mismatch, line: int, source: str, facts: Sequence[tuple[str, str]], mathlib: bool
) -> list[Advice]:
    """`abs_le.mpr ⟨h1, h2⟩ : |x| ≤ 1` where `|x| < 1` is needed: the lemma concludes the
    other relation of its family (`≤` for `<`); the member that concludes the goal's, when
    the facts the term uses are of that relation too (a strict member needs strict facts)."""
    if p.application:
        return []
    has, want = normal(p.has), normal(p.expected)
    swapped = has.replace("≤", "\x00").replace("<", "≤").replace("\x00", "<")
    if has == want or swapped != want:
        return []
    wanted_op = "<" if "<" in want else "≤"
    if "(" in p.term:
        return []  # a compound argument (`le_refl 0`) may be a proof of the other relation
    # Lean may print the arguments as `?a`: the student's line says which facts they are.
    used = set(re.findall(r"(?<![\w.'])([\w'₀-₉]+)", p.term + " " + source))
    for name, typ in facts:
        op = split_target(normal(typ)).op
        if name in used and op in ("<", "≤") and op != wanted_op:
            return []
    head = p.term.split()[0]
    base = re.sub(r"\.(mp|mpr|1|2)$", "", head)
    table = {v: k for k, v in _WEAKER.items()} if "≤" in has else _WEAKER
    other = re.sub(r"(?<![a-z])(lt|le|pos|nonneg|neg|nonpos)(?![a-z])", _swap(table), base)
    if other == base or not evidence.in_library(other, mathlib):
        return []
    fixed = re.sub(rf"(?<![\w.]){re.escape(base)}(?=[.\s)]|$)", other, source.strip(), count=1)
    if fixed == source.strip():
        return []
    return [
        (
            line,
            f"Do write `{fixed}` on line {line}: `{base}` concludes a "
            f"`{'≤' if '≤' in has else '<'}` (`{shorten(has, 16)}`), and `{other}` is the lemma "
            "of its family that concludes the goal's relation.",
        )
    ]


def _swap(table: dict[str, str]) -> Callable[[re.Match[str]], str]:
    return lambda match: table.get(match.group(1), match.group(1))


def already_proves(
    p: Mismatch, line: int, goal: str | None, facts: Sequence[tuple[str, str]] = ()
) -> list[Advice]:
    """`le_of_lt h` where `h` itself already states the goal: the lemma is one step too many
    (also `exact h.le` on `x > 0` with `h : 0 < x`: `>` is `<` read backwards)."""
    if not p.application:
        used = set(re.findall(r"(?<![\w.'])([\w'₀-₉]+)", p.term))
        states = [n for n, t in facts if n in used and n != p.term and t and same(t, p.expected)]
        if len(states) != 1:
            return []
        return [
            (
                line,
                f"Do write `exact {states[0]}` on line {line}: `{states[0]}` already states "
                f"`{shorten(p.expected, 24)}`, and `{shorten(p.term, 20)}` turns it into "
                f"`{shorten(p.has, 20)}`, which is not the goal.",
            )
        ]
    if goal is None or not same(p.has, goal):
        return []
    head = p.application.split()[0]
    return [
        (
            line,
            f"Do write `exact {p.term}` on line {line}: `{p.term}` already proves the goal "
            f"`{shorten(goal, 24)}`, so `{head}`, which wants `{shorten(p.expected, 16)}`, is "
            "not needed.",
        )
    ]


def strict_from_weak(
    p: Mismatch, line: int, facts: Sequence[tuple[str, str]], mathlib: bool, source: str = ""
) -> list[Advice]:
    """`sq_nonneg x : 0 ≤ x ^ 2` where `0 < x ^ 2` is needed: `≤` never gives `<`; with a
    hypothesis `0 < x` the power lemma does (`pow_pos hx 2`). As an argument (`mul_pos ha
    hb` with `hb : 0 ≤ b`), the argument is strengthened in place when a `≠` fact allows."""
    has, want = split_target(normal(p.has)), split_target(normal(p.expected))
    if not (has.shape is Shape.LE and want.shape is Shape.LT):
        return []
    if (normal(has.left), normal(has.right)) != (normal(want.left), normal(want.right)):
        return []
    if p.application:
        return _with_inequation(p, line, facts, mathlib, source)
    unequal = _with_inequation(p, line, facts, mathlib)
    if unequal:
        return unequal
    absolute = re.fullmatch(r"\|([^|]+)\|", normal(want.right))
    if normal(want.left) == "0" and absolute and evidence.in_library("abs_pos", mathlib):
        for name, typ in facts:
            if normal(typ) == f"{absolute.group(1).strip()} ≠ 0":
                return [
                    (
                        line,
                        f"Do write `exact abs_pos.mpr {name}` on line {line}: "
                        f"`{shorten(p.term, 16)}` gives only `{shorten(normal(p.has), 16)}`, and "
                        f"`abs_pos` turns `{name} : {normal(typ)}` into the strict `<`.",
                    )
                ]
    power = re.fullmatch(r"([\w'₀-₉]+)\s*\^\s*(\d+)", normal(want.right))
    if normal(want.left) == "0" and power and mathlib and int(power.group(2)) % 2 == 0:
        # An even power of a nonzero number is positive: positivity reads `x ≠ 0` in scope.
        nonzero = next(
            (
                n
                for n, t in facts
                if normal(t) in (f"{power.group(1)} ≠ 0", f"0 ≠ {power.group(1)}")
            ),
            None,
        )
        if nonzero is not None:
            return [
                (
                    line,
                    f"Do write `positivity` on line {line} instead: `{shorten(p.term, 16)}` gives "
                    f"only `{shorten(normal(p.has), 16)}`, and an even power of a number that "
                    f"`{nonzero}` says is not 0 is strictly positive, which positivity proves.",
                )
            ]
    if normal(want.left) == "0" and power and evidence.in_library("pow_pos", mathlib):
        base, exponent = power.groups()
        for name, typ in facts:
            if normal(typ) in (f"0 < {base}", f"{base} > 0"):
                return [
                    (
                        line,
                        f"Do write `exact pow_pos {name} {exponent}` on line {line}: "
                        f"`{shorten(p.term, 16)}` gives only `{shorten(normal(p.has), 16)}`, and the "
                        f"strict `<` follows from `{name} : {normal(typ)}`.",
                    )
                ]
    return []


def _with_inequation(
    p: Mismatch, line: int, facts: Sequence[tuple[str, str]], mathlib: bool, source: str = ""
) -> list[Advice]:
    """`h : a ≤ b` where `a < b` is needed and `hne : a ≠ b` is in scope: `lt_of_le_of_ne h hne`
    (`Nat.lt_of_le_of_ne` in core Lean, Init/Prelude.lean: `n ≤ m → n ≠ m → n < m`)."""
    split = split_target(normal(p.has))
    small, large = normal(split.left), normal(split.right)
    types = {n: " ".join(t.split()) for n, t in facts}
    domain = evidence.domain_of_text(p.has, types)
    lemma = (
        "lt_of_le_of_ne" if mathlib else ("Nat.lt_of_le_of_ne" if domain == evidence.NAT else "")
    )
    if not lemma or not evidence.in_library(lemma, mathlib):
        return []
    for name, typ in facts:
        if "✝" in name or not typ:
            continue
        ne = split_target(normal(typ))
        if ne.shape is not Shape.NE:
            continue
        sides = (normal(ne.left), normal(ne.right))
        if sides == (small, large):
            proof = name
        elif sides == (large, small):
            proof = f"(Ne.symm {name})"
        else:
            continue
        strict = f"{lemma} {_arg(p.term)} {proof}"
        why = (
            f"`{shorten(p.term, 16)}` gives only `{shorten(normal(p.has), 16)}`, and with "
            f"`{name} : {shorten(normal(typ), 16)}` it becomes the strict `<`."
        )
        if not p.application:
            return [(line, f"Do write `exact {strict}` on line {line}: {why}")]
        word = rf"(?<![\w.']){re.escape(p.term.strip())}(?![\w'])"
        code = source.strip().lstrip("·").strip()
        if len(re.findall(word, code)) != 1:
            return []
        spot = re.search(word, code)
        assert spot is not None
        step = f"{code[: spot.start()]}({strict}){code[spot.end() :]}"
        if len(step) <= 48:
            return [(line, f"Do write `{step}` on line {line}: {why}")]
        return [(line, f"Do replace `{p.term.strip()}` on line {line} with `({strict})`: {why}")]
    return []


def nonzero_for_positive(p: Mismatch, line: int, goal: str | None, mathlib: bool) -> list[Advice]:
    """`pow_pos hx 2` with `hx : x ≠ 0` where `0 < x` is taken: `≠ 0` never gives `0 < x` (`x`
    may be negative); for an even power of `x` the goal holds anyway, which positivity proves
    from `hx`."""
    has, want = split_target(normal(p.has)), split_target(normal(p.expected))
    if has.shape is not Shape.NE or want.shape is not Shape.LT or not mathlib:
        return []
    sides = {normal(has.left), normal(has.right)}
    small, large = normal(want.left), normal(want.right)
    if want.op == ">":
        small, large = large, small
    if small != "0" or sides != {"0", large}:
        return []
    even = goal is not None and re.search(
        rf"(?<![\w.']){re.escape(large)}\s*\^\s*(\d*[02468])(?!\d)", goal
    )
    then = (
        "; here the power is even, so use `positivity`, which proves it from that fact"
        if even
        else ", so prove `0 < ...` another way"
    )
    return [
        (
            line,
            f"Do check the fact on line {line}: `{p.term.strip()}` says only "
            f"`{shorten(normal(p.has), 12)}`, which is weaker than `{shorten(normal(p.expected), 12)}` "
            f"(`{large}` could be negative){then}.",
        )
    ]


def weaker_projection(p: Mismatch, line: int, source: str, mathlib: bool) -> list[Advice]:
    """`div_self hx` with `hx : 0 < x` where `x ≠ 0` is taken: a `<` fact gives the weaker
    facts about the same two terms, `hx.ne'` (`x ≠ 0`), `hx.ne` (`0 ≠ x`), `hx.le` (`0 ≤ x`);
    in core Lean `Nat.ne_of_gt hx`, `Nat.ne_of_lt hx`, `Nat.le_of_lt hx`."""
    term = p.term.strip()
    if not re.fullmatch(r"[\w'₀-₉.]+", term):
        return []
    has, want = split_target(normal(p.has)), split_target(normal(p.expected))
    if has.shape is not Shape.LT:
        return []
    small, large = normal(has.left), normal(has.right)
    if has.op == ">":
        small, large = large, small
    sides = (normal(want.left), normal(want.right))
    if want.shape is Shape.NE and sides == (large, small):
        fixed = f"{term}.ne'" if mathlib else f"Nat.ne_of_gt {term}"
    elif want.shape is Shape.NE and sides == (small, large):
        fixed = f"{term}.ne" if mathlib else f"Nat.ne_of_lt {term}"
    elif want.shape is Shape.LE and want.op == "≤" and sides == (small, large):
        fixed = f"{term}.le" if mathlib else f"Nat.le_of_lt {term}"
    else:
        return []
    if not mathlib and not evidence.in_library(fixed.split()[0], mathlib):
        return []
    code = source.strip().lstrip("·").strip()
    word = rf"(?<![\w.']){re.escape(term)}(?![\w'])"
    spots = list(re.finditer(word, code))
    if len(spots) != 1:
        return []
    argument = fixed if " " not in fixed else f"({fixed})"
    step = f"{code[: spots[0].start()]}{argument}{code[spots[0].end() :]}"
    return [
        (
            line,
            f"Do write `{shorten(step, 48)}` on line {line}: `{term}` proves "
            f"`{shorten(normal(p.has), 16)}`, and `{fixed}` is the weaker "
            f"`{shorten(normal(p.expected), 16)}` this position takes.",
        )
    ]


def relative_for_goal(applied: str, conclusion: str, goal: str, mathlib: bool) -> str | None:
    """`mul_nonneg` for `apply mul_pos` on a `0 ≤ a * b` goal: the lemma's conclusion differs
    from the goal only in `<` against `≤`, and its family member for the goal's relation
    exists."""
    name = applied.lstrip("@").strip()
    if not re.fullmatch(r"[\w.']+", name):
        return None
    want = _META.sub("?", normal(conclusion))
    pattern = re.escape(want).replace(r"\?", r"\S+")
    target = normal(goal)
    swapped = target.replace("≤", "\x00").replace("<", "≤").replace("\x00", "<")
    if re.fullmatch(pattern, target) or not re.fullmatch(pattern, swapped):
        return None
    # The goal is weaker (`≤`) than the lemma concludes (`<`): its `le`/`nonneg` member.
    table = _WEAKER if "≤" in target else {v: k for k, v in _WEAKER.items()}
    other = re.sub(r"(?<![a-z])(lt|le|pos|nonneg|neg|nonpos)(?![a-z])", _swap(table), name)
    return other if other != name and evidence.in_library(other, mathlib) else None


def chain_for_goal(
    goal: str, facts: Sequence[tuple[str, str]], domain: str, mathlib: bool
) -> str | None:
    """`lt_of_le_of_lt h1 h2` for the goal `a < c` from `h1 : a ≤ b` and `h2 : b < c`: the
    transitivity lemma whose premises are the two facts as they are (Mathlib's general names,
    or `Nat.`/`Int.` ones in core Lean), checked in the library index."""
    want = split_target(normal(goal))
    if want.shape not in (Shape.LT, Shape.LE) or want.op not in ("<", "≤"):
        return None
    prefix = _prefix(domain, mathlib)
    if prefix is None:
        return None
    relations = []
    for name, typ in facts:
        split = split_target(normal(typ))
        if "✝" in name or split.op not in ("<", "≤"):
            continue
        relations.append((name, split.op, normal(split.left), normal(split.right)))
    a, c = normal(want.left), normal(want.right)
    for first, op1, left1, right1 in relations:
        if left1 != a:
            continue
        for second, op2, left2, right2 in relations:
            if second == first or left2 != right1 or right2 != c:
                continue
            r1, r2 = ("lt" if op1 == "<" else "le"), ("lt" if op2 == "<" else "le")
            strict = "<" in (op1, op2)
            if want.op == "<" and not strict:
                continue
            if want.op == "≤" and strict:
                continue  # a strict chain proves `<`; `le_of_lt` would be one more step
            lemma = f"{prefix}{r1}_trans" if r1 == r2 else f"{prefix}lt_of_{r1}_of_{r2}"
            if evidence.in_library(lemma, mathlib):
                return f"{lemma} {first} {second}"
    return None


_OPERATIONS = {"*": "mul", "/": "div", "+": "add"}


def operation_swap(p: Mismatch, line: int, mathlib: bool) -> list[Advice]:
    """`mul_pos ha hb : 0 < a * b` where `0 < a / b` is needed: the same lemma family for the
    operation the goal has (`div_pos ha hb`), when it exists for the course."""
    if p.application:
        return []
    match = re.fullmatch(r"([\w.']+)((?:\s+\S+)*)", " ".join(p.term.split()))
    has, want = split_target(normal(p.has)), split_target(normal(p.expected))
    if not match or has.op != want.op or normal(has.left) != normal(want.left):
        return []
    sides = []
    for side in (normal(has.right), normal(want.right)):
        found = re.fullmatch(r"(\S+) ([*/+]) (\S+)", side)
        if not found:
            return []
        sides.append(found.groups())
    (a, op1, b), (c, op2, e) = sides
    if (a, b) != (c, e) or op1 == op2:
        return []
    head = match.group(1)
    other = re.sub(rf"^{_OPERATIONS[op1]}_", f"{_OPERATIONS[op2]}_", head)
    if other == head or not evidence.in_library(other, mathlib):
        return []
    fixed = f"{other}{match.group(2)}"
    return [
        (
            line,
            f"Do write `exact {fixed}` on line {line}: `{head}` is about `{op1}`, and the goal "
            f"`{shorten(normal(p.expected), 20)}` has `{op2}`; `{other}` is the same lemma for it.",
        )
    ]
