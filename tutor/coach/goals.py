"""Read the goals Lean prints (`x y : Nat`, `h : x = y`, `⊢ y = x`) and the shape of a target.

The shape is the outermost connective of the target (∧, ∨, ↔, →, ∀, ∃, ¬, =, ≤, ...): it
decides which tactic fits next. This is a small precedence scan over the pretty-printed
text, not a Lean parser: it is right for the goals students meet and falls back to OTHER.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum


class Shape(StrEnum):
    IFF = "iff"
    IMPLIES = "implies"
    OR = "or"
    AND = "and"
    NOT = "not"
    FORALL = "forall"
    EXISTS = "exists"
    EQ = "eq"
    NE = "ne"
    LE = "le"  # ≤ and ≥
    LT = "lt"  # < and >
    DVD = "dvd"
    FALSE = "false"
    TRUE = "true"
    OTHER = "other"


class Domain(StrEnum):
    NAT = "nat"  # ℕ or ℤ: omega's domain
    REAL = "real"  # ℝ, ℚ, ℂ: linarith / nlinarith / norm_num
    LIST = "list"
    PROP = "prop"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Hypothesis:
    names: tuple[str, ...]
    type: str


@dataclass
class Goal:
    target: str
    hypotheses: list[Hypothesis] = field(default_factory=list)
    case: str | None = None

    def variable_types(self) -> dict[str, str]:
        return {name: h.type for h in self.hypotheses for name in h.names}

    def named_facts(self) -> list[tuple[str, str]]:
        """Hypotheses that are propositions (not variables), with names usable in tactics."""
        facts = []
        for hyp in self.hypotheses:
            if _is_type_like(hyp.type):
                continue
            for name in hyp.names:
                facts.append((name, hyp.type))
        return facts

    def usable_fact_names(self) -> list[str]:
        """Fact names a student can type: inaccessible ones (`h✝`) are left out."""
        return [name for name, _ in self.named_facts() if "✝" not in name]


_TYPE_WORDS = re.compile(
    r"^(ℕ|ℤ|ℝ|ℚ|ℂ|Nat|Int|Real|Rat|Bool|Prop|Type\b.*|Sort\b.*|List\b.*|Finset\b.*|Set\b.*|"
    r"Fin\b.*|Array\b.*|Option\b.*|[α-ωΑ-Ω]\S*|.*→ (Prop|ℕ|ℤ|ℝ|Nat|Int|Bool))$"
)


def _is_type_like(text: str) -> bool:
    return bool(_TYPE_WORDS.match(text.strip()))


def parse_goals(text: str | None) -> list[Goal]:
    """Goals from Lean's printed goal block (several goals are separated by blank lines)."""
    if not text:
        return []
    lines = text.split("\n")
    if lines and lines[0].strip().lower().startswith("unsolved goals"):
        lines = lines[1:]
    goals: list[Goal] = []
    case: str | None = None
    hyps: list[Hypothesis] = []
    target_lines: list[str] | None = None
    last_hyp_index: int | None = None
    for line in lines:
        stripped = line.strip()
        if target_lines is not None and line.startswith((" ", "\t")) and stripped:
            target_lines.append(stripped)
            continue
        if target_lines is not None:
            goals.append(Goal(" ".join(target_lines), hyps, case))
            case, hyps, target_lines, last_hyp_index = None, [], None, None
        if not stripped:
            continue
        if stripped.startswith("case "):
            case = stripped[5:].strip()
        elif stripped.startswith("⊢"):
            target_lines = [stripped[1:].strip()]
        elif line.startswith((" ", "\t")) and last_hyp_index is not None:
            prev = hyps[last_hyp_index]
            hyps[last_hyp_index] = Hypothesis(prev.names, f"{prev.type} {stripped}")
        elif " : " in stripped or stripped.endswith(" :"):
            names, _, typ = stripped.partition(" :")
            hyps.append(Hypothesis(tuple(names.split()), typ.strip()))
            last_hyp_index = len(hyps) - 1
    if target_lines is not None:
        goals.append(Goal(" ".join(target_lines), hyps, case))
    return goals


_OPEN = "([{⟨"
_CLOSE = ")]}⟩"
_BINDERS = ("∀", "∃", "fun ", "λ", "∃!")
_BINARY = (  # lowest precedence first
    (Shape.IFF, ("↔",)),
    (Shape.IMPLIES, ("→",)),
    (Shape.OR, ("∨",)),
    (Shape.AND, ("∧",)),
)
_RELATIONS = (("≠", Shape.NE), ("≤", Shape.LE), ("≥", Shape.LE), ("∣", Shape.DVD))


@dataclass(frozen=True)
class Split:
    shape: Shape
    left: str = ""
    right: str = ""
    op: str = ""


def strip_parens(text: str) -> str:
    text = text.strip()
    while text.startswith("(") and text.endswith(")") and _matching_close(text, 0) == len(text) - 1:
        text = text[1:-1].strip()
    return text


def _matching_close(text: str, start: int) -> int:
    depth = 0
    for i in range(start, len(text)):
        if text[i] in _OPEN:
            depth += 1
        elif text[i] in _CLOSE:
            depth -= 1
            if depth == 0:
                return i
    return -1


def _top_level_ops(text: str) -> list[tuple[int, str]]:
    """(index, operator) of operators outside brackets, up to the first binder."""
    found: list[tuple[int, str]] = []
    depth = 0
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
        elif depth == 0:
            if i > 0 and any(text.startswith(b, i) for b in _BINDERS):
                break  # a binder's body runs to the end: nothing after it is top level
            if ch in "↔→∨∧=<>≠≤≥∣":
                found.append((i, ch))
        i += 1
    return found


def split_target(target: str) -> Split:
    """The outermost connective of a goal's target and its two sides."""
    text = strip_parens(target)
    if text in ("False",):
        return Split(Shape.FALSE)
    if text in ("True",):
        return Split(Shape.TRUE)
    if text.startswith("∀"):
        return Split(Shape.FORALL, right=text)
    if text.startswith("∃"):
        return Split(Shape.EXISTS, right=text)
    ops = _top_level_ops(text)
    for shape, symbols in _BINARY:
        positions = [i for i, op in ops if op in symbols]
        if positions:
            # → is right-associative: the first one splits; ∧, ∨, ↔ likewise associate right.
            i = positions[0]
            return Split(shape, text[:i].strip(), text[i + 1 :].strip(), text[i])
    if text.startswith("¬"):
        return Split(Shape.NOT, right=text[1:].strip())
    for i, op in ops:
        if op == "=" and not _is_part_of_other(text, i):
            return Split(Shape.EQ, text[:i].strip(), text[i + 1 :].strip(), "=")
        for symbol, shape in _RELATIONS:
            if op == symbol:
                return Split(shape, text[:i].strip(), text[i + 1 :].strip(), op)
        if op in "<>" and not _is_part_of_other(text, i):
            return Split(Shape.LT, text[:i].strip(), text[i + 1 :].strip(), op)
    return Split(Shape.OTHER, right=text)


def _is_part_of_other(text: str, i: int) -> bool:
    before = text[i - 1] if i > 0 else " "
    after = text[i + 1] if i + 1 < len(text) else " "
    return before in ":=<>!" or after in "=>"


_REAL_MARKERS = ("ℝ", "ℚ", "ℂ", "Real", "Rat", "√", "π")
_NAT_TYPES = ("ℕ", "ℤ", "Nat", "Int")
_LIST_MARKERS = ("List", "++", "::", "[]", ".length", ".reverse", ".map", ".sum")
_IDENT = re.compile(r"[A-Za-z_α-ωΑ-Ω][\w'₀-₉✝]*")


def domain_of(text: str, variable_types: dict[str, str]) -> Domain:
    """Which arithmetic the expression lives in, judged from its variables' types."""
    types = [variable_types[name] for name in _IDENT.findall(text) if name in variable_types]
    if any(any(m in t for m in _LIST_MARKERS) for t in types) or any(
        m in text for m in _LIST_MARKERS
    ):
        return Domain.LIST
    if any(any(m in t for m in _REAL_MARKERS) for t in types) or any(
        m in text for m in _REAL_MARKERS
    ):
        return Domain.REAL
    if any(t.strip() in _NAT_TYPES for t in types):
        return Domain.NAT
    if types and all(t.strip() == "Prop" for t in types):
        return Domain.PROP
    if re.fullmatch(r"[\d\s+*\-^/%()=<>≤≥≠]+", text):
        return Domain.NAT
    return Domain.UNKNOWN


_NONLINEAR = (
    re.compile(r"[A-Za-z_α-ω)][\w'₀-₉]*\s*\*\s*[A-Za-z_α-ω(]"),  # x * y, x * (..)
    re.compile(r"[A-Za-z_α-ω)][\w'₀-₉]*\s*\^\s*[\w(]"),  # x ^ 2
    re.compile(r"[A-Za-z_α-ω)][\w'₀-₉]*\s*[/%]\s*[A-Za-z_α-ω(]"),  # x / y, x % y
)


def is_nonlinear(text: str) -> bool:
    """Products, powers or quotients of variables: beyond omega and linarith."""
    text = text.replace("↑", "")
    return any(pattern.search(text) for pattern in _NONLINEAR)


def shorten(text: str, limit: int = 60) -> str:
    """An expression short enough to quote inside a 50-word suggestion."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
