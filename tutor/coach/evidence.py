"""Evidence a rule needs before it names a concrete fix: which numbers a goal is about, whether
a closed claim is true, which value makes an ∃ true, and which library names exist.

A wrong concrete fix is worse than a correct general hint, so a rule that wants to say "close
it with `decide`" first asks `holds` whether the claim is true at all, one that wants to name a
witness asks `witness` for a value that makes the property true, and one that wants to name a
lemma asks `in_library` whether the name exists for this course (core Lean, or Mathlib too).

Truth is computed the way Lean computes in each type: on ℕ subtraction stops at 0 and `/`
rounds down; on ℤ `-` may go below 0 (no `/`: Lean's rounding there is not needed); on ℝ and ℚ
arithmetic is exact and `x / 0 = 0`. Anything else (functions, roots, variables without a
value) gives None: no claim either way.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from tutor.coach.goals import Shape, split_target, strip_parens
from tutor.coach.names import CORE_LEMMAS, MATHLIB_LEMMAS

Number = Fraction
_LIMIT = 10**12

NAT, INT, REAL = "nat", "int", "real"
_TYPE_DOMAINS = {
    "ℕ": NAT,
    "Nat": NAT,
    "ℤ": INT,
    "Int": INT,
    "ℝ": REAL,
    "Real": REAL,
    "ℚ": REAL,
    "Rat": REAL,
}
_REAL_MARK = re.compile(r"ℝ|ℚ|\bReal\b|\bRat\b")
_INT_MARK = re.compile(r"ℤ|\bInt\b")


def domain_of_type(typ: str) -> str | None:
    """`nat`, `int` or `real` for a number type's name (`ℕ`, `Int`, `ℝ`, ...), else None."""
    return _TYPE_DOMAINS.get(strip_parens(typ).strip())


def domain_of_text(text: str, types: dict[str, str] | None = None) -> str:
    """The numbers an expression is about: the type of its variables when known, else the
    marks in the text (a literal without a type ascription is ℕ in Lean)."""
    kinds = set()
    for name in re.findall(r"(?<![\w.'])([A-Za-z_][\w'₀-₉]*)(?![\w'])", text):
        domain = domain_of_type((types or {}).get(name, ""))
        if domain:
            kinds.add(domain)
    if REAL in kinds or _REAL_MARK.search(text):
        return REAL
    if INT in kinds or _INT_MARK.search(text):
        return INT
    return NAT


# ---------------------------------------------------------------------- evaluation


@lru_cache(maxsize=2048)
def _parsed(text: str) -> ast.expr | None:
    source = text.replace("^", "**").replace("·", "*").replace("−", "-")
    if re.search(r"[^\w\s+\-*/%().]", source):
        return None  # a symbol this evaluator does not know (√, |x|, ↑, ...)
    try:
        return ast.parse(source, mode="eval").body
    except SyntaxError:
        return None


def evaluate(text: str, domain: str, env: dict[str, Number] | None = None) -> Number | None:
    """The value of an arithmetic expression in `domain`, its variables from `env`."""
    tree = _parsed(" ".join(strip_parens(text).split()))
    return None if tree is None else _value(tree, domain, env or {})


def _value(node: ast.expr, domain: str, env: dict[str, Number]) -> Number | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return Fraction(node.value)
    if isinstance(node, ast.Name):
        return env.get(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _value(node.operand, domain, env)
        if inner is None or (domain == NAT and inner != 0):
            return None  # `-x` on ℕ is not what students mean: no claim
        return -inner
    if not isinstance(node, ast.BinOp):
        return None
    a, b = _value(node.left, domain, env), _value(node.right, domain, env)
    if a is None or b is None or abs(a) > _LIMIT or abs(b) > _LIMIT:
        return None
    return _apply(node.op, a, b, domain)


def _apply(op: ast.operator, a: Number, b: Number, domain: str) -> Number | None:
    if isinstance(op, ast.Add):
        return a + b
    if isinstance(op, ast.Sub):
        return max(a - b, Fraction(0)) if domain == NAT else a - b
    if isinstance(op, ast.Mult):
        return a * b
    if isinstance(op, ast.Div):
        if domain == NAT:
            return Fraction(a.numerator // b.numerator) if b else Fraction(0)
        if domain == REAL:
            return a / b if b else Fraction(0)
        return None
    if isinstance(op, ast.Mod) and domain == NAT:
        return a % b if b else a
    if isinstance(op, ast.Mod) and domain == INT and b > 0 and a.denominator == 1:
        return a % b  # Lean's `Int.emod`: never negative for a positive divisor, as Python's
    if isinstance(op, ast.Pow) and b.denominator == 1 and 0 <= b <= 64:
        return a ** int(b)
    return None


_COMPARE = {
    "=": lambda a, b: a == b,
    "≠": lambda a, b: a != b,
    "≤": lambda a, b: a <= b,
    "<": lambda a, b: a < b,
    "≥": lambda a, b: a >= b,
    ">": lambda a, b: a > b,
}


def holds(prop: str, domain: str, env: dict[str, Number] | None = None) -> bool | None:
    """Whether a proposition built from comparisons with ∧, ∨, ¬, True and False holds, or
    None when some part cannot be evaluated."""
    split = split_target(prop)
    if split.shape is Shape.TRUE:
        return True
    if split.shape is Shape.FALSE:
        return False
    if split.shape in (Shape.AND, Shape.OR):
        left, right = holds(split.left, domain, env), holds(split.right, domain, env)
        if split.shape is Shape.AND:
            return False if False in (left, right) else (None if None in (left, right) else True)
        return True if True in (left, right) else (None if None in (left, right) else False)
    if split.shape is Shape.NOT:
        inner = holds(split.right, domain, env)
        return None if inner is None else not inner
    if split.shape in (Shape.EQ, Shape.NE, Shape.LE, Shape.LT) and split.op in _COMPARE:
        a, b = evaluate(split.left, domain, env), evaluate(split.right, domain, env)
        if a is None or b is None:
            return None
        return bool(_COMPARE[split.op](a, b))
    return None


def is_closed(prop: str) -> bool:
    """No variable left: only numerals, arithmetic, comparisons and connectives."""
    return re.search(r"[A-Za-zα-ωΑ-Ω_]", prop.replace("True", "").replace("False", "")) is None


def refuted(prop: str, domain: str) -> bool:
    """True only when the closed claim `prop` is certainly false in `domain`."""
    return is_closed(prop) and holds(prop, domain) is False


# ---------------------------------------------------------------------- witnesses


@dataclass(frozen=True)
class Existential:
    names: tuple[str, ...]
    domain: str
    body: str


_EXISTS = re.compile(
    r"^∃\s*(?:\(\s*(?P<pnames>[\w'₀-₉ ]+?)\s*:\s*(?P<ptype>[^()]+?)\s*\)|"
    r"(?P<names>[\w'₀-₉ ]+?)(?:\s*:\s*(?P<type>[^,]+?))?)\s*,\s*(?P<body>.+)$"
)


def existential(prop: str, fallback_domain: str = NAT) -> Existential | None:
    """The binders, number domain and property of `∃ x : T, P x` (or `∃ (a b : T), ...`)."""
    match = _EXISTS.match(" ".join(strip_parens(prop).split()))
    if not match:
        return None
    names = (match.group("pnames") or match.group("names") or "").split()
    typ = match.group("ptype") or match.group("type") or ""
    domain = domain_of_type(typ) if typ else fallback_domain
    if not names or domain is None:
        return None
    return Existential(tuple(names), domain, match.group("body"))


def _candidates(domain: str) -> list[Number]:
    if domain == NAT:
        return [Fraction(n) for n in range(0, 1001)]
    integers = [Fraction(0)] + [Fraction(s * n) for n in range(1, 201) for s in (1, -1)]
    if domain == INT:
        return integers
    halves = [Fraction(p, q) for q in (2, 3, 4, 5) for p in range(-60, 61) if p % q]
    return integers + halves


def show(value: Number) -> str:
    """A value as a student writes it: `4`, `-3`, `5 / 2`."""
    if value.denominator == 1:
        return str(value.numerator)
    return f"{value.numerator} / {value.denominator}"


def witness(prop: str, fallback_domain: str = NAT) -> list[str] | None:
    """Values (one per binder) that make the ∃'s property true, tried smallest first, or None
    when none is found or the property cannot be evaluated."""
    found = existential(prop, fallback_domain)
    if found is None or len(found.names) > 2:
        return None
    values = _candidates(found.domain)
    if len(found.names) == 2:
        small = values[:61] if found.domain != NAT else values[:31]
        pairs = [(a, b) for a in small for b in small]
        for a, b in pairs:
            env = {found.names[0]: a, found.names[1]: b}
            if holds(found.body, found.domain, env) is True:
                return [show(a), show(b)]
        return None
    for value in values:
        truth = holds(found.body, found.domain, {found.names[0]: value})
        if truth is None:
            return None
        if truth:
            return [show(value)]
    return None


def instance(prop: str, values: list[str], fallback_domain: str = NAT) -> tuple[str, str] | None:
    """(the ∃'s property with `values` put in, its domain)."""
    found = existential(prop, fallback_domain)
    if found is None or len(values) != len(found.names):
        return None
    body = found.body
    for name, value in zip(found.names, values, strict=True):
        body = re.sub(rf"(?<![\w.']){re.escape(name)}(?![\w'])", f"({value})", body)
    return body, found.domain


# ---------------------------------------------------------------------- library names


def in_library(name: str, mathlib: bool) -> bool:
    """A lemma the coach may name: in core Lean's list, or Mathlib's when the course has it."""
    return name in CORE_LEMMAS or (mathlib and name in MATHLIB_LEMMAS)


# ---------------------------------------------------------------------- identities

_POINTS = (Fraction(3, 7), Fraction(-5, 3), Fraction(11, 2), Fraction(2), Fraction(-13, 5))


def identity(prop: str, domain: str) -> bool | None:
    """Whether an equation holds for every value of its variables (an identity of algebra, what
    `ring` proves), tested at several points; None when it cannot be evaluated."""
    split = split_target(prop)
    if split.shape is not Shape.EQ:
        return None
    names = sorted(set(re.findall(r"(?<![\w.'])([A-Za-zα-ω][\w'₀-₉]*)(?![\w'])", prop)))
    points = _POINTS if domain == REAL else tuple(Fraction(n) for n in (3, 7, 12, 5, 20))
    envs = [
        {name: point + shift * index for index, name in enumerate(names)}
        for shift, point in enumerate(points)
    ]
    if domain == REAL and "/" in prop:
        # `ring` reads `x / y` as `x * y⁻¹` with `y⁻¹` an unknown: it proves `a / b + c / b =
        # (a + c) / b` but never cancels `x / x`. Lean's `x / 0 = 0` tells them apart: an
        # equation ring proves still holds with any one variable at 0, `x / x = 1` does not.
        envs += [{**envs[0], name: Fraction(0)} for name in names]
    if domain == NAT and "-" in prop:
        # ℕ subtraction stops at 0 (`n - 1 + 1 = n` fails at 0 only): small values find it.
        envs += [{**envs[0], name: Fraction(0)} for name in names]
        envs += [{name: Fraction(0) for name in names}]
    for env in envs:
        a, b = evaluate(split.left, domain, env), evaluate(split.right, domain, env)
        if a is None or b is None:
            return None
        if a != b:
            return False
    return True


# ---------------------------------------------------------------------- linear consequences

Linear = dict[tuple[str, ...], Number]


def _linear(node: ast.expr) -> Linear | None:
    """A polynomial as {monomial: coefficient}; products of variables stay atoms (as linarith
    and omega treat them)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return {(): Fraction(node.value)}
    if isinstance(node, ast.Name):
        return {(node.id,): Fraction(1)}
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _linear(node.operand)
        return None if inner is None else {k: -v for k, v in inner.items()}
    if not isinstance(node, ast.BinOp):
        return None
    a, b = _linear(node.left), _linear(node.right)
    if a is None or b is None:
        return None
    if isinstance(node.op, ast.Add | ast.Sub):
        sign = 1 if isinstance(node.op, ast.Add) else -1
        out = dict(a)
        for k, v in b.items():
            out[k] = out.get(k, Fraction(0)) + sign * v
        return {k: v for k, v in out.items() if v}
    if isinstance(node.op, ast.Mult):
        return _times(a, b)
    if isinstance(node.op, ast.Pow) and isinstance(node.right, ast.Constant):
        exponent = node.right.value
        if not isinstance(exponent, int) or not 0 <= exponent <= 4:
            return None
        power: Linear = {(): Fraction(1)}
        for _ in range(exponent):
            power = _times(power, a)
        return power
    return None


def _times(a: Linear, b: Linear) -> Linear:
    out: Linear = {}
    for ka, va in a.items():
        for kb, vb in b.items():
            key = tuple(sorted(ka + kb))
            out[key] = out.get(key, Fraction(0)) + va * vb
    return {k: v for k, v in out.items() if v}


def _form(prop: str) -> tuple[Linear, str] | None:
    """`left - right` as a polynomial and the relation to 0 (`<`, `≤`, `=`), ≥/> flipped."""
    split = split_target(prop)
    if split.shape not in (Shape.EQ, Shape.LE, Shape.LT) or split.op not in (
        "=",
        "≤",
        "<",
        "≥",
        ">",
    ):
        return None
    left, right = _parsed(" ".join(split.left.split())), _parsed(" ".join(split.right.split()))
    if left is None or right is None:
        return None
    a, b = _linear(left), _linear(right)
    if a is None or b is None:
        return None
    if split.op in ("≥", ">"):
        a, b = b, a
    diff = dict(a)
    for k, v in b.items():
        diff[k] = diff.get(k, Fraction(0)) - v
    return {k: v for k, v in diff.items() if v}, {"≥": "≤", ">": "<"}.get(split.op, split.op)


def follows_from(goal: str, fact: str) -> bool:
    """The goal is the fact up to a positive factor and a constant that only helps: one linear
    step (`linarith`) gets it from the fact alone. Over ordered fields (ℝ, ℚ)."""
    g, f = _form(goal), _form(fact)
    if g is None or f is None:
        return False
    (gl, gop), (fl, fop) = g, f
    variables = [k for k in gl if k]
    if not variables or set(variables) != {k for k in fl if k}:
        return False
    scale = gl[variables[0]] / fl[variables[0]]
    if any(gl[k] != scale * fl[k] for k in variables):
        return False
    constant = gl.get((), Fraction(0)) - scale * fl.get((), Fraction(0))
    if gop == "=":
        return fop == "=" and constant == 0
    if scale <= 0 or fop == "=":
        return False
    if gop == "<":
        return constant < 0 or (constant == 0 and fop == "<")
    return constant <= 0


def consequence_of(goal: str, facts: list[tuple[str, str]]) -> str | None:
    """The name of a hypothesis the goal follows from in one linear step, if any."""
    for name, typ in facts:
        if typ and name != "_" and "✝" not in name and follows_from(goal, typ):
            return name
    return None
