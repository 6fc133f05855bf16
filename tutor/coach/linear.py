"""Linear arithmetic as `linarith` and `omega` see it: does a goal follow from the hypotheses
by adding them up?

`linarith` (Mathlib, `Mathlib/Tactic/Linarith/Frontend.lean`) normalises every hypothesis and
the negated goal into linear combinations of *atoms* (products and powers of variables, `|x|`,
applications such as `f x` are atoms it does not look inside) and looks for a nonnegative
combination that adds up to `0 < 0`: it proves exactly the goals that follow linearly over an
ordered field. `omega` (core, `Lean/Elab/Tactic/Omega/Frontend.lean`) decides linear
arithmetic over ℤ and ℕ, again treating other terms as atoms. So a rule that wants to say "use
`linarith`" (or `omega`) asks `entails(goal, facts, domain)` first:

- True: the negated goal and the facts are infeasible over ℚ with the atoms as unknowns
  (Fourier-Motzkin elimination, exact fractions), so the tactic proves it (on ℕ and ℤ a strict
  `a < b` is first read as `a + 1 ≤ b`, and every ℕ variable is `≥ 0`, as both tactics do);
- False: every term was read and the combination does not exist: the tactic fails as the
  goal stands (it needs another fact, a product, a case split...);
- None: something was not read (ℕ subtraction, `/` or `%` on integers, `∧` in a fact,
  a symbol this reader does not know) or the elimination grew too large: no claim.

Facts that are not (in)equations (`≠`, `∧`, `→`) are left out, as linarith leaves them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction

from tutor.coach.evidence import INT, NAT, REAL
from tutor.coach.goals import Shape, split_target, strip_parens

Monomial = tuple[str, ...]
Poly = dict[Monomial, Fraction]
Constraint = tuple[Poly, bool]  # poly < 0 when strict, else poly ≤ 0

_LIMIT = 400  # constraints kept during elimination before giving up (None)
_WORK = 4000  # pairs combined in one elimination before giving up (None)
_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+)|(?P<name>[A-Za-z_α-ωΑ-Ω][\w'₀-₉✝.]*)|(?P<op>[-+*/%^()|↑−·]))"
)


class _Unread(Exception):
    """A term this reader does not turn into a linear combination of atoms."""


class _Reader:
    """A small precedence parser for the arithmetic in a goal: `+ - * / % ^`, numerals,
    names, applications (`f x`, atoms), `|e|` (an atom) and `↑x` (an atom)."""

    def __init__(self, text: str, domain: str) -> None:
        self.tokens = _tokens(text)
        self.at = 0
        self.domain = domain

    def read(self) -> Poly:
        poly = self._sum()
        if self.at != len(self.tokens):
            raise _Unread(self.tokens[self.at])
        return poly

    def _peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def _take(self) -> str:
        token = self._peek()
        if token is None:
            raise _Unread("end")
        self.at += 1
        return token

    def _sum(self) -> Poly:
        poly = self._product()
        while self._peek() in ("+", "-", "−"):
            op = self._take()
            right = self._product()
            if op != "+" and self.domain == NAT:
                raise _Unread("ℕ subtraction stops at 0")
            poly = _add(poly, right, 1 if op == "+" else -1)
        return poly

    def _product(self) -> Poly:
        poly = self._unary()
        while self._peek() in ("*", "/", "%", "·"):
            op = self._take()
            right = self._unary()
            if op in ("*", "·"):
                poly = _times(poly, right)
                continue
            constant = _constant(right)
            if op == "%" or self.domain != REAL or constant is None or constant == 0:
                raise _Unread(op)
            poly = {k: v / constant for k, v in poly.items()}
        return poly

    def _unary(self) -> Poly:
        if self._peek() in ("-", "−"):
            self._take()
            if self.domain == NAT:
                raise _Unread("negation on ℕ")
            return {k: -v for k, v in self._unary().items()}
        return self._power()

    def _power(self) -> Poly:
        base = self._application()
        if self._peek() == "^":
            self._take()
            exponent = _constant(self._unary())
            if exponent is None or exponent.denominator != 1 or not 0 <= exponent <= 6:
                raise _Unread("^")
            power: Poly = {(): Fraction(1)}
            for _ in range(int(exponent)):
                power = _times(power, base)
            return power
        return base

    def _application(self) -> Poly:
        start = self.at
        head = self._atom()
        texts = [self._text(start)]
        if not _is_name(texts[0]):
            return head
        while self._peek() is not None and self._starts_atom(self._peek() or ""):
            begin = self.at
            self._atom()
            texts.append(self._text(begin))
        if len(texts) == 1:
            return head
        return {(" ".join(texts),): Fraction(1)}

    def _starts_atom(self, token: str) -> bool:
        return token == "(" or token == "↑" or _is_name(token) or token.isdigit()

    def _text(self, begin: int) -> str:
        return _canonical(self.tokens[begin : self.at])

    def _atom(self) -> Poly:
        token = self._take()
        if token.isdigit():
            return {(): Fraction(int(token))}
        if _is_name(token):
            return {(token,): Fraction(1)}
        if token == "(":
            inner = self._sum()
            if self._take() != ")":
                raise _Unread("(")
            return inner
        if token == "|":
            begin = self.at
            self._sum()
            inside = self._text(begin)
            if self._take() != "|":
                raise _Unread("|")
            return {(f"|{inside}|",): Fraction(1)}
        if token == "↑":
            begin = self.at
            self._atom()
            return {(f"↑{self._text(begin)}",): Fraction(1)}
        raise _Unread(token)


def _tokens(text: str) -> list[str]:
    tokens, at = [], 0
    text = text.strip()
    while at < len(text):
        match = _TOKEN.match(text, at)
        if not match or match.end() == at:
            if text[at:].strip() == "":
                break
            raise _Unread(text[at])
        tokens.append(match.group(match.lastgroup or "op"))
        at = match.end()
    return tokens


def _is_name(token: str) -> bool:
    return bool(re.match(r"[A-Za-z_α-ωΑ-Ω]", token))


def _canonical(tokens: Sequence[str]) -> str:
    return re.sub(r"\(\s+|\s+\)", lambda m: m.group(0).strip(), " ".join(tokens))


def _constant(poly: Poly) -> Fraction | None:
    if not poly:
        return Fraction(0)
    if set(poly) == {()}:
        return poly[()]
    return None


def _add(a: Poly, b: Poly, sign: int = 1) -> Poly:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, Fraction(0)) + sign * v
    return {k: v for k, v in out.items() if v}


def _times(a: Poly, b: Poly) -> Poly:
    out: Poly = {}
    for ka, va in a.items():
        for kb, vb in b.items():
            key = tuple(sorted(ka + kb))
            out[key] = out.get(key, Fraction(0)) + va * vb
    return {k: v for k, v in out.items() if v}


def polynomial(text: str, domain: str) -> Poly | None:
    """`text` as {monomial: coefficient} with atoms as unknowns, or None when unread."""
    try:
        return _Reader(" ".join(text.split()), domain).read()
    except _Unread:
        return None


# ---------------------------------------------------------------------- constraints


def constraints_of(prop: str, domain: str) -> list[Constraint] | None:
    """A comparison as constraints `p ≤ 0` / `p < 0`; [] for facts linarith does not use
    (`≠`, `∧`, `→`, ...); None when a side cannot be read."""
    split = split_target(strip_parens(prop))
    if split.shape not in (Shape.EQ, Shape.LE, Shape.LT) or split.op not in _OPS:
        return []
    left, right = polynomial(split.left, domain), polynomial(split.right, domain)
    if left is None or right is None:
        return None
    strict, flip = _OPS[split.op]
    diff = _add(right, left, -1) if flip else _add(left, right, -1)
    if split.op == "=":
        return [
            _tightened((diff, False), domain),
            _tightened(({k: -v for k, v in diff.items()}, False), domain),
        ]
    return [_tightened((diff, strict), domain)]


_OPS = {
    "=": (False, False),
    "≤": (False, False),
    "<": (True, False),
    "≥": (False, True),
    ">": (True, True),
}


def _tightened(c: Constraint, domain: str) -> Constraint:
    """On ℤ and ℕ `p < 0` with integer coefficients is `p + 1 ≤ 0`."""
    poly, strict = c
    if strict and domain in (NAT, INT) and all(v.denominator == 1 for v in poly.values()):
        return _add(poly, {(): Fraction(1)}), False
    return c


def _negated_goal(goal: str, domain: str) -> list[list[Constraint]] | None:
    """The goal's negation as alternatives, each to be refuted: `a ≤ b` gives `b < a`; `a = b`
    gives `a < b` and `b < a` (both must be refuted); `False` gives nothing to add."""
    split = split_target(strip_parens(goal))
    if split.shape is Shape.FALSE:
        return [[]]
    if split.shape not in (Shape.EQ, Shape.LE, Shape.LT) or split.op not in _OPS:
        return None
    left, right = polynomial(split.left, domain), polynomial(split.right, domain)
    if left is None or right is None:
        return None
    small, large = (right, left) if split.op in ("≥", ">") else (left, right)
    below = _add(large, small, -1)  # large - small: the goal says it is ≥ 0 (or > 0, = 0)
    above = {k: -v for k, v in below.items()}
    if split.op == "=":
        return [[_tightened((below, True), domain)], [_tightened((above, True), domain)]]
    if split.op in ("<", ">"):
        return [[(below, False)]]  # not (small < large): large - small ≤ 0
    return [[_tightened((below, True), domain)]]  # not (small ≤ large): large - small < 0


def entails(goal: str, facts: Sequence[str], domain: str) -> bool | None:
    """Whether `goal` follows from `facts` by a linear combination (see the module's doc)."""
    alternatives = _negated_goal(goal, domain)
    if alternatives is None:
        return None
    base: list[Constraint] = []
    unread = False
    for fact in facts:
        found = constraints_of(fact, domain)
        if found is None:
            unread = True
            continue
        base.extend(found)
    verdict: bool | None = True
    for negation in alternatives:
        system = base + negation
        if domain == NAT:
            system += [({(v,): Fraction(-1)}, False) for v in _variables(system)]
        result = _infeasible(system)
        if result is None:
            return None
        if not result:
            verdict = None if unread else False
    return verdict


def _bound_witness(var: str, body: str, domain: str) -> str | None:
    """`n + 1` for `∃ m, n < m`, `n` for `∃ m, n ≤ m`: the witness just past a bound in the
    other variables, when the ∃'s variable stands alone on the larger side; checked by
    entailment, not assumed."""
    split = split_target(body)
    small, large = split.left.strip(), split.right.strip()
    if split.op in (">", "≥"):
        small, large = large, small
    if large != var or re.search(rf"(?<![\w.']){re.escape(var)}(?![\w'])", small):
        return None
    strict = split.op in ("<", ">")
    term = f"{small} + 1" if strict else small
    bound = polynomial(small, domain)
    if strict and bound is not None and all(len(k) <= 1 for k in bound):
        term = _render(_add(bound, {(): Fraction(1)})) or f"({small}) + 1"
    instance = re.sub(rf"(?<![\w.']){re.escape(var)}(?![\w'])", f"({term})", body)
    return term if entails(instance, [], domain) is True else None


def counterexample(goal: str, facts: Sequence[str], domain: str) -> dict[str, Fraction] | None:
    """Values of the goal's variables (at most two) at which every fact holds and the goal does
    not: the goal is false as stated, and no tactic proves it. The values tried are where some
    fact or the goal is tight, and a step either side of it; None when none is found or a fact
    cannot be read (a fact left out could be the one that rules the point out)."""
    from tutor.coach.evidence import holds  # evaluation, not linear algebra

    system: list[Constraint] = []
    for text in [*facts, goal]:
        found = constraints_of(text, domain)
        if found is None:
            return None
        system.extend(found)  # a fact that is no comparison (`≠`, `∧`) is evaluated below
    names = sorted(_variables(system))
    # An atom such as `|x|` or `f x` has facts of its own (`0 ≤ |x|`) a point could break.
    atoms_seen = {k for poly, _ in system for k in poly if k}
    if not 1 <= len(names) <= 2 or any(len(k) > 1 or not _is_plain(k[0]) for k in atoms_seen):
        return None
    values: dict[str, set[Fraction]] = {n: {Fraction(0), Fraction(1)} for n in names}
    for poly, _ in system:
        unknowns = [k[0] for k in poly if k]
        if len(unknowns) == 1:
            name = unknowns[0]
            tight = -poly.get((), Fraction(0)) / poly[(name,)]
            values[name] |= {
                tight,
                tight - 1,
                tight + 1,
                tight - Fraction(1, 2),
                tight + Fraction(1, 2),
            }
    if domain in (NAT, INT):
        values = {n: {v for v in vs if v.denominator == 1} for n, vs in values.items()}
    if domain == NAT:
        values = {n: {v for v in vs if v >= 0} for n, vs in values.items()}
    points: list[dict[str, Fraction]] = [{}]
    for name in names:
        points = [{**p, name: v} for p in points for v in sorted(values[name])]
    for point in points[:400]:
        if holds(goal, domain, point) is False and all(holds(f, domain, point) for f in facts):
            return point
    return None


def _variables(system: Sequence[Constraint]) -> set[str]:
    return {k[0] for poly, _ in system for k in poly if len(k) == 1 and _is_plain(k[0])}


def _is_plain(atom: str) -> bool:
    return bool(re.fullmatch(r"[A-Za-z_α-ωΑ-Ω][\w'₀-₉✝]*", atom))


def _infeasible(system: list[Constraint]) -> bool | None:
    """Fourier-Motzkin: True when no rational values of the atoms satisfy every constraint;
    None when the elimination outgrows its budget (the advice must stay within milliseconds)."""
    constraints = [(dict(p), s) for p, s in system]
    work = 0
    while True:
        for poly, strict in constraints:
            if all(k == () for k in poly):
                constant = poly.get((), Fraction(0))
                if constant > 0 or (strict and constant == 0):
                    return True
        names = {k for poly, _ in constraints for k in poly if k != ()}
        if not names:
            return False
        pick = min(names, key=lambda n: _cost(constraints, n))
        positive = [c for c in constraints if c[0].get(pick, 0) > 0]
        negative = [c for c in constraints if c[0].get(pick, 0) < 0]
        kept = [c for c in constraints if pick not in c[0]]
        work += len(positive) * len(negative)
        if work > _WORK:
            return None
        for p, ps in positive:
            for n, ns in negative:
                a, b = p[pick], -n[pick]
                combined = _add({k: v / a for k, v in p.items()}, {k: v / b for k, v in n.items()})
                combined.pop(pick, None)
                kept.append((combined, ps or ns))
        constraints = _unique(kept)
        if len(constraints) > _LIMIT:
            return None


def _cost(constraints: Sequence[Constraint], name: Monomial) -> int:
    up = sum(1 for p, _ in constraints if p.get(name, 0) > 0)
    down = sum(1 for p, _ in constraints if p.get(name, 0) < 0)
    return up * down - up - down


def _unique(constraints: list[Constraint]) -> list[Constraint]:
    seen: dict[tuple[tuple[Monomial, Fraction], ...], bool] = {}
    for poly, strict in constraints:
        key = tuple(sorted(poly.items()))
        seen[key] = seen.get(key, False) or strict
    return [(dict(k), s) for k, s in seen.items()]


def atoms(text: str, domain: str) -> set[str]:
    """The atoms (names, `|e|`, applications) a comparison's sides are made of."""
    split = split_target(strip_parens(text))
    found: set[str] = set()
    for side in (split.left, split.right) if split.op else ():
        poly = polynomial(side, domain)
        for monomial in poly or {}:
            found.update(monomial)
    return found


def monomials(text: str, domain: str) -> set[Monomial]:
    """The products of atoms (degree 2 and more included) a comparison's sides contain."""
    split = split_target(strip_parens(text))
    found: set[Monomial] = set()
    for side in (split.left, split.right) if split.op else ():
        found.update(k for k in polynomial(side, domain) or {} if k)
    return found


__all__ = ["atoms", "constraints_of", "entails", "monomials", "polynomial"]


# ---------------------------------------------------------------------- missing facts


def _library_facts(
    goal: str, facts: Sequence[tuple[str, str]], domain: str
) -> list[tuple[str, str]]:
    """Mathlib facts about the atoms of the goal and hypotheses that linarith does not know by
    itself: `|t|` between `-|t|`, `t` and `0`; squares are `≥ 0`; a product of two factors
    whose signs hypotheses state (as (term, its type))."""
    texts = [goal, *(t for _, t in facts)]
    found: list[tuple[str, str]] = []
    absolute: set[str] = set()
    squares: set[str] = set()
    products: set[tuple[str, str]] = set()
    for text in texts:
        for monomial in monomials(text, domain):
            for atom in monomial:
                if atom.startswith("|") and atom.endswith("|"):
                    absolute.add(atom[1:-1])
            if len(monomial) == 2 and monomial[0] == monomial[1]:
                squares.add(monomial[0])
            elif len(monomial) == 2:
                products.add((monomial[0], monomial[1]))
    for inside in sorted(absolute):
        term = inside if _is_plain(inside) else f"({inside})"
        found += [
            (f"abs_nonneg {term}", f"0 ≤ |{inside}|"),
            (f"le_abs_self {term}", f"{inside} ≤ |{inside}|"),
            (f"neg_abs_le {term}", f"-|{inside}| ≤ {inside}"),
        ]
    for base in sorted(squares):
        term = base if _is_plain(base) else f"({base})"
        found.append((f"sq_nonneg {term}", f"0 ≤ {term} ^ 2"))
    found += _function_facts(
        sorted({a for text in texts for m in monomials(text, domain) for a in m})
    )
    named = {" ".join(t.split()): n for n, t in facts if n != "_" and "✝" not in n}
    for a, b in sorted(products):
        for lemma, op in (("mul_pos", "<"), ("mul_nonneg", "≤")):
            left, right = named.get(f"0 {op} {a}"), named.get(f"0 {op} {b}")
            if left and right:
                found.append((f"{lemma} {left} {right}", f"0 {op} {a} * {b}"))
    return found


# Functions linarith treats as opaque atoms, and the Mathlib facts that bound them
# (Real.exp_pos, Real.sqrt_nonneg, le_max_left/right, min_le_left/right: all in names.py's index).
_FUNCTION_ATOM = re.compile(r"(Real\.exp|Real\.sqrt|max|min)\s+(.+)")


def _function_facts(atoms_seen: Sequence[str]) -> list[tuple[str, str]]:
    """`0 < Real.exp t`, `0 ≤ Real.sqrt t`, `a ≤ max a b` and `b ≤ max a b`, `min a b ≤ a` and
    `min a b ≤ b` for the atoms of those shapes (as (term, its type))."""
    found: list[tuple[str, str]] = []
    for atom in atoms_seen:
        match = _FUNCTION_ATOM.fullmatch(atom.strip())
        if match is None:
            continue
        head, rest = match.group(1), match.group(2).strip()
        if head == "Real.exp":
            found.append((f"Real.exp_pos {rest}", f"0 < {atom}"))
        elif head == "Real.sqrt":
            found.append((f"Real.sqrt_nonneg {rest}", f"0 ≤ {atom}"))
        else:
            pair = _two_arguments(rest)
            if pair is None:
                continue
            a, b = pair
            if head == "max":
                found += [
                    (f"le_max_left {rest}", f"{a} ≤ {atom}"),
                    (f"le_max_right {rest}", f"{b} ≤ {atom}"),
                ]
            else:
                found += [
                    (f"min_le_left {rest}", f"{atom} ≤ {a}"),
                    (f"min_le_right {rest}", f"{atom} ≤ {b}"),
                ]
    return found


def _two_arguments(text: str) -> tuple[str, str] | None:
    """`a b` or `(a + 1) b`: the two arguments of `max`/`min` (plain names or parenthesised)."""
    parts = re.findall(r"\([^()]*\)|[\w'₀-₉.]+", text)
    if len(parts) != 2 or "".join(parts).replace(" ", "") != text.replace(" ", ""):
        return None
    return parts[0], parts[1]


def missing_facts(
    goal: str, facts: Sequence[tuple[str, str]], domain: str
) -> list[tuple[str, str]] | None:
    """Mathlib lemma instances (one or two, with their types) that, given to linarith, make the
    goal follow (`[("le_abs_self x", "x ≤ |x|")]`) when the hypotheses alone do not; None
    when none is found."""
    types = [t for n, t in facts if n != "_"]
    if entails(goal, types, domain) is not False:
        return None
    candidates = _library_facts(goal, facts, domain)
    for term, typ in candidates:
        if entails(goal, [*types, typ], domain):
            return [(term, typ)]
    for i, (term, typ) in enumerate(candidates):
        for other, other_type in candidates[i + 1 :]:
            if entails(goal, [*types, typ, other_type], domain):
                return [(term, typ), (other, other_type)]
    return None


def states(term_type: str, goal: str, domain: str) -> bool:
    """The fact is the goal itself, up to moving terms across (`x ≤ |x|` and `|x| ≥ x`)."""
    a, b = constraints_of(term_type, domain), constraints_of(goal, domain)
    if not a or not b or len(a) != len(b):
        return False
    return entails(goal, [term_type], domain) is True and entails(term_type, [goal], domain) is True


def _square_terms(texts: Sequence[str], domain: str) -> list[Poly]:
    """`t ^ 2 ≥ 0` for every atom `t` whose square appears (what nlinarith adds itself)."""
    out: list[Poly] = []
    for text in texts:
        for monomial in monomials(text, domain):
            if len(monomial) == 2 and monomial[0] == monomial[1]:
                out.append({monomial: Fraction(-1)})
    return out


def nlinarith_proves(
    goal: str, facts: Sequence[str], domain: str, extra: Sequence[str] = ()
) -> bool | None:
    """Whether `nlinarith [extra]` proves the goal, as its preprocessing does it
    (Mathlib/Tactic/Linarith/Preprocessing.lean, `nlinarithExtras`): the hypotheses, the
    extra facts and the negated goal, the squares of atoms that appear squared, and the
    products of every pair of them, then linarith. None when something is not read."""
    alternatives = _negated_goal(goal, domain)
    if alternatives is None:
        return None
    base: list[Constraint] = []
    for fact in [*facts, *extra]:
        found = constraints_of(fact, domain)
        if found is None:
            return None
        base.extend(found)
    squares = [(p, False) for p in _square_terms([goal, *facts, *extra], domain)]
    for negation in alternatives:
        system = base + negation
        products = []
        for i, (p, ps) in enumerate(system):
            for q, qs in system[i:]:
                products.append(({k: -v for k, v in _times(p, q).items()}, ps and qs))
        if len(system) + len(products) > 45:
            return None
        result = _infeasible(system + squares + products)
        if not result:
            return result
    return True


def omega_proves(goal: str, facts: Sequence[str], domain: str) -> bool | None:
    """Whether `omega` proves the goal from the facts (ℕ or ℤ): linear entailment where, unlike
    linarith, a `≠` fact is used, as the case split `a < b ∨ b < a` omega makes; a `≠` goal
    is refuted by assuming the equation. None when something is not read."""
    if domain not in (NAT, INT):
        return None
    if domain == NAT and any("-" in text for text in (goal, *facts)):
        return _truncated(goal, list(facts))
    split = split_target(strip_parens(goal))
    plain = [f for f in facts if split_target(strip_parens(f)).shape is not Shape.NE]
    unequal = [split_target(strip_parens(f)) for f in facts if f not in plain]
    if split.shape is Shape.NE:
        plain, goal = [*plain, f"{split.left} = {split.right}"], "False"
    if len(unequal) > 3:
        return None
    verdict: bool | None = True
    for choice in range(2 ** len(unequal)):
        branch = list(plain)
        for bit, ne in enumerate(unequal):
            left, right = (ne.left, ne.right) if choice >> bit & 1 else (ne.right, ne.left)
            branch.append(f"{left} < {right}")
        result = entails(goal, branch, domain)
        if result is None:
            return None
        if not result:
            verdict = False
    return verdict


_TERM = r"(?:[A-Za-z_][\w'₀-₉]*|\d+|\([^()]*\))"
# `a - b` with nothing binding tighter around it and at the start of a sum (`x + a - b` is
# `(x + a) - b`, never matched): the subtractions omega splits into cases.
_SUBTRACTION = re.compile(
    rf"(?P<before>^|[(=≤<≥>≠,]\s*)(?P<a>{_TERM}) - (?P<b>{_TERM})(?!\s*[*/^%])"
)


def _truncated(goal: str, facts: list[str], depth: int = 0) -> bool | None:
    """omega on ℕ with subtraction: `a - b` is a new number `t` with two cases, `b ≤ a` and
    `t + b = a`, or `a < b` and `t = 0` (truncation), as omega splits it. Proved when every
    case is. None when a subtraction is not of that plain form, or there are too many."""
    texts = [goal, *facts]
    for index, text in enumerate(texts):
        found = _SUBTRACTION.search(text)
        if found is None:
            continue
        if depth >= 3:
            return None
        a, b = found.group("a"), found.group("b")
        fresh = f"t{depth}ₛ"
        pattern = re.compile(re.escape(f"{a} - {b}") + r"(?!\s*[*/^%])")
        changed = [pattern.sub(fresh, t) if i >= index else t for i, t in enumerate(texts)]
        if any(f"{a} - {b}" in t for t in changed):
            return None
        new_goal, new_facts = changed[0], changed[1:]
        verdict: bool | None = True
        for case in ([f"{b} ≤ {a}", f"{fresh} + {b} = {a}"], [f"{a} < {b}", f"{fresh} = 0"]):
            result = _truncated(new_goal, [*new_facts, *case, f"{fresh} ≥ 0"], depth + 1)
            if result is None:
                return None
            verdict = verdict and result
        return verdict
    if any("-" in t for t in texts):
        return None  # a subtraction or negative numeral not read above (`= -3` on ℕ)
    return omega_proves(goal, facts, NAT)


def closer(target: str, facts: Sequence[tuple[str, str]], domain: str, mathlib: bool) -> str | None:
    """`linarith` (with Mathlib) or `omega` (ℕ, ℤ) when the goal follows from the facts by
    adding them up; None without that evidence."""
    given = [t for n, t in facts if t and n != "_" and "✝" not in n]
    if domain == REAL:
        return "linarith" if mathlib and entails(target, given, domain) else None
    if omega_proves(target, given, domain):
        return "omega"
    return None


def square_hints(goal: str, facts: Sequence[str], domain: str) -> list[str] | None:
    """`["sq_nonneg (a - b)"]`: the one square that, given to nlinarith, proves the goal (tried
    over the variables and numerals of the goal: `(a - b)`, `(a + b)`, `(a - c)`); None when
    nlinarith needs none or none of these works."""
    if nlinarith_proves(goal, facts, domain) is not False:
        return None
    texts = [goal, *facts]
    names = sorted({a for t in texts for a in atoms(t, domain) if _is_plain(a)})[:4]
    numbers = sorted(set(re.findall(r"(?<![\w.])\d+(?![\w.])", goal)) - {"0", "2"})[:3]
    candidates = [f"{a} - {b}" for i, a in enumerate(names) for b in names[i + 1 :]]
    candidates += [f"{a} + {b}" for i, a in enumerate(names) for b in names[i + 1 :]]
    # A completed square's constant is half the linear coefficient (`y ^ 2 + 6 * y + 9` is
    # `(y + 3) ^ 2`) and the root of the constant term: those first, then small ones.
    numerals = [int(n) for n in re.findall(r"(?<![\w.])\d+(?![\w.])", goal)]
    halves = [str(n // 2) for n in numerals if n > 2 and n % 2 == 0]
    roots = [str(r) for n in numerals if n > 1 for r in [round(n**0.5)] if r * r == n]
    constants = list(dict.fromkeys([*halves, *roots, "1", "2", *numbers]))
    candidates += [f"{a} - {c}" for a in names for c in constants]
    candidates += [f"{a} + {c}" for a in names for c in constants]
    for inside in candidates[:14]:
        if nlinarith_proves(goal, facts, domain, [f"0 ≤ ({inside}) ^ 2"]):
            return [f"sq_nonneg ({inside})"]
    return None


def abs_bound(goal: str, facts: Sequence[str], domain: str) -> str | None:
    """`abs_lt` for the goal `|e| < c` (`abs_le` for `≤`) when both halves `-c < e` and
    `e < c` follow from the facts by adding them up: `rw [abs_lt]; constructor <;> linarith`
    then proves it (Mathlib's `abs_lt : |a| < b ↔ -b < a ∧ a < b`)."""
    split = split_target(strip_parens(goal))
    if split.op not in ("<", "≤"):
        return None
    inside = re.fullmatch(r"\|(.+)\|", split.left.strip())
    if not inside:
        return None
    e, c = inside.group(1).strip(), split.right.strip()
    halves = (f"-({c}) {split.op} {e}", f"{e} {split.op} {c}")
    if all(entails(h, facts, domain) for h in halves):
        return "abs_lt" if split.op == "<" else "abs_le"
    return None


# ---------------------------------------------------------------------- witnesses with variables


def _render(poly: Poly) -> str | None:
    """A polynomial of degree ≤ 1 as Lean text (`x / 2 + 1`), or None."""
    terms = []
    for monomial, coefficient in sorted(poly.items(), key=lambda kv: (kv[0] == (), kv[0])):
        if len(monomial) > 1:
            return None
        magnitude = abs(coefficient)
        if monomial == ():
            body = _number(magnitude)
        else:
            name = monomial[0] if _is_plain(monomial[0]) else f"({monomial[0]})"
            if magnitude == 1:
                body = name
            elif magnitude.denominator == 1:
                body = f"{magnitude.numerator} * {name}"
            elif magnitude.numerator == 1:
                body = f"{name} / {magnitude.denominator}"
            else:
                body = f"{magnitude.numerator} * {name} / {magnitude.denominator}"
        terms.append(("-" if coefficient < 0 else "+", body))
    if not terms:
        return "0"
    text = ("-" if terms[0][0] == "-" else "") + terms[0][1]
    for sign, body in terms[1:]:
        text += f" {sign} {body}"
    return text


def _number(value: Fraction) -> str:
    return (
        str(value.numerator)
        if value.denominator == 1
        else f"{value.numerator} / {value.denominator}"
    )


def witness_term(prop: str, domain: str) -> str | None:
    """A witness in the other variables for `∃ y, e = f` linear in `y` (`x / 2` for
    `∃ y, 2 * y = x`), solved and checked by putting it back: the property must then be an
    identity (tested at several points). On ℕ and ℤ only a coefficient ±1 is solved, and on ℕ
    only a witness without subtraction."""
    from tutor.coach import evidence

    match = re.match(r"^∃\s*\(?\s*([\w'₀-₉]+)\s*(?::\s*[^,)]+)?\)?\s*,\s*(.+)$", strip_parens(prop))
    if not match:
        return None
    var, body = match.groups()
    split = split_target(body)
    if split.shape in (Shape.LT, Shape.LE):
        return _bound_witness(var, body, domain)
    if split.shape is not Shape.EQ:
        return None
    left, right = polynomial(split.left, domain), polynomial(split.right, domain)
    if left is None or right is None:
        return None
    difference = _add(left, right, -1)
    coefficient = difference.get((var,), Fraction(0))
    if coefficient == 0 or any(var in k and k != (var,) for k in difference):
        return None
    if domain != REAL and abs(coefficient) != 1:
        return None
    rest = {k: -v / coefficient for k, v in difference.items() if k != (var,)}
    if domain == NAT and any(v < 0 for v in rest.values()):
        return None
    text = _render(rest)
    if text is None or not rest or all(k == () for k in rest):
        return None  # a numeral: evidence.witness finds those
    instance = re.sub(rf"(?<![\w.']){re.escape(var)}(?![\w'])", f"({text})", body)
    return text if evidence.identity(instance, domain) else None
