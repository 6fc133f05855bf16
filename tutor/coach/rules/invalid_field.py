"""`invalid field` / `invalid projection`: `.1`, `.left` or a dotted name on a term that has no
such part, most often an ∨ fact used as if it were an ∧."""

from __future__ import annotations

import re

from tutor.coach.context import facts_in_scope, proofs_of, same, traced_goal
from tutor.coach.goals import Shape, shorten, split_target
from tutor.coach.rules import other
from tutor.coach.rules.base import Advice, Context, one
from tutor.lean.types import Diagnostic

# "has type" (invalid field), "which has propositional type" (a projection out of a proof).
_HAS_TYPE = re.compile(r"has (?:propositional )?type\s*\n\s+(.+)", re.IGNORECASE)
_HEAD = re.compile(r"([\w'₀-₉]+)\.(?:1|2|left|right|elim|mp|mpr|fst|snd)\b")
_FIELD = re.compile(r"[Ii]nvalid field `?'?(\w+)")


def advise(d: Diagnostic, ctx: Context) -> list[Advice]:
    source = ctx.text.line(d.line)
    head = _HEAD.search(source)
    facts = facts_in_scope(ctx.statement, ctx.text, d.line)
    printed = _HAS_TYPE.search(d.message)
    typ = (
        printed.group(1).strip() if printed else dict(facts).get(head.group(1) if head else "", "")
    )
    if (
        head
        and typ
        and split_target(typ).shape not in (Shape.OR, Shape.AND, Shape.IFF, Shape.EXISTS)
    ):
        whole = _whole_fact(d, ctx, head.group(1), typ, facts)
        if whole:
            return [whole]
    if head and typ:
        fields = _other_structure(d, ctx, head.group(1), typ, facts)
        if fields:
            return [fields]
    if not head or split_target(typ).shape is not Shape.OR:
        renamed = _misnamed_field(d, ctx, facts)
        return [renamed] if renamed else other.advise(d, ctx)
    name = head.group(1)
    goal = traced_goal(ctx.statement, ctx.text, d.line)
    uses = re.compile(rf"(?<![\w.']){re.escape(name)}(?![\w'])")
    proofs = [p for p in proofs_of(goal, facts) if not uses.search(p)] if goal else []
    why = (
        f"`{name} : {shorten(typ, 20)}` is an ∨, which has no parts `.1` or `.2`: it says only "
        "that one side holds, not which"
    )
    if proofs:
        return one(d.line, f"Do write `exact {proofs[0]}` on line {d.line}: {why}.")
    return one(
        d.line,
        f"Do split `{name}` with `cases {name} with | inl h => ... | inr h => ...` on line "
        f"{d.line}: {why}, so you prove the goal once for each side.",
    )


def _whole_fact(
    d: Diagnostic, ctx: Context, name: str, typ: str, facts: list[tuple[str, str]]
) -> Advice | None:
    """`hp.1` where `hp : p` is no ∧ (nor ↔, ∃): it has no parts; when `hp` itself is the goal,
    the whole fact is the step."""
    goal = traced_goal(ctx.statement, ctx.text, d.line)
    if goal is None or not same(typ, goal):
        return None
    return Advice(
        d.line,
        f"Do write `exact {name}` on line {d.line}: `{name} : {shorten(typ, 20)}` is not an ∧, so "
        "it has no parts `.1` or `.2`, and it already states the goal.",
    )


# The parts each connective has, in the order `.1`, `.2`: a field from another connective
# (`.mp` on an ∧, `.left` on an ↔) is a mix-up between the two.
_PARTS = {Shape.AND: ("left", "right"), Shape.IFF: ("mp", "mpr")}


def _other_structure(
    d: Diagnostic, ctx: Context, name: str, typ: str, facts: list[tuple[str, str]]
) -> Advice | None:
    """`h.mp` on `h : p ∧ q` (an ∧'s parts are `.1`/`.left`, `.2`/`.right`), `h.left` on an ↔
    (`.mp`, `.mpr`), `h.1` on an ∃ (no projection: `obtain ⟨x, hx⟩ := h`)."""
    field = _FIELD.search(d.message)
    shape = split_target(typ).shape
    written = field.group(1) if field else None
    if shape is Shape.EXISTS:
        return Advice(
            d.line,
            f"Do take `{name}` apart with `obtain ⟨x, hx⟩ := {name}` before line {d.line}: "
            f"`{name} : {shorten(typ, 20)}` is an ∃, which has no fields to project; `obtain` "
            "gives you the witness `x` and its property `hx`.",
        )
    parts = _PARTS.get(shape)
    if parts is None or written is None or written in parts or written in ("1", "2"):
        return None
    what = "∧" if shape is Shape.AND else "↔"
    goal = traced_goal(ctx.statement, ctx.text, d.line)
    fitting = [
        f"{name}.{part}"
        for part in parts
        if goal and any(same(t, goal) for t in _part_types(typ, shape, part))
    ]
    if fitting:
        return Advice(
            d.line,
            f"Do write `exact {fitting[0]}` on line {d.line}: `{name} : {shorten(typ, 20)}` is an "
            f"{what}, whose parts are `.{parts[0]}` and `.{parts[1]}` (or `.1`, `.2`), not "
            f"`.{written}`, and `{fitting[0]}` is the goal.",
        )
    others = _PARTS[Shape.IFF if shape is Shape.AND else Shape.AND]
    source = ctx.text.line(d.line)
    if written in others and f"{name}.{written}" in source:
        # `h.left hp` on an ↔ is `h.mp hp`: the part in the same position of the other connective.
        fixed = source.replace(f"{name}.{written}", f"{name}.{parts[others.index(written)]}")
        return Advice(
            d.line,
            f"Do try `{fixed.strip()}` on line {d.line}: `{name} : {shorten(typ, 20)}` is an "
            f"{what}, whose parts are `{name}.{parts[0]}` and `{name}.{parts[1]}` (`.1`, `.2`); "
            f"`.{written}` is a part of {'an ↔' if shape is Shape.AND else 'an ∧'}.",
        )
    return Advice(
        d.line,
        f"Do use `{name}.{parts[0]}` or `{name}.{parts[1]}` (`.1`, `.2`) on line {d.line}: "
        f"`{name} : {shorten(typ, 20)}` is an {what}, and `.{written}` is a part of "
        f"{'an ↔' if shape is Shape.AND else 'an ∧'}, not of an {what}.",
    )


def _part_types(typ: str, shape: Shape, part: str) -> list[str]:
    split = split_target(typ)
    if shape is Shape.AND:
        return [split.left if part == "left" else split.right]
    left, right = split.left.strip(), split.right.strip()
    return [f"{left} → {right}" if part == "mp" else f"{right} → {left}"]


# "The environment does not contain `Prod.first`, ... from an expression\n  (a, b)\nof type"
_MISSING = re.compile(
    r"does not contain `([\w.]+)\.(\w+)`.*?expression\s*\n\s+(.+?)\n\s*of type", re.DOTALL
)
# The fields of the structures beginners meet, and the names they reach for instead.
_FIELDS = {"Prod": ("fst", "snd"), "And": ("left", "right"), "Subtype": ("val", "property")}
_SYNONYMS = {"first": 0, "second": 1, "fst": 0, "snd": 1, "left": 0, "right": 1}


def _misnamed_field(d: Diagnostic, ctx: Context, facts: list[tuple[str, str]]) -> Advice | None:
    """A field that does not exist: the structure's own name for it (`.first` on a pair is
    `.fst`), or a statement written as a field (`p.prime`, where `hp : p.Prime` proves it)."""
    missing = _MISSING.search(d.message)
    if missing is None:
        return None
    structure, field, term = missing.group(1), missing.group(2), missing.group(3).strip()
    fields = _FIELDS.get(structure)
    if fields and field in _SYNONYMS and field not in fields:
        right = fields[_SYNONYMS[field]]
        return Advice(
            d.line,
            f"Do write `{term}.{right}` on line {d.line}: a `{structure}` has the fields "
            f"`.{fields[0]}` and `.{fields[1]}` (or `.1`, `.2`), not `.{field}`.",
        )
    written = f"{term}.{field}"
    for name, typ in facts:
        if re.fullmatch(rf"{re.escape(term)}\.(\w+)", typ.strip(), re.IGNORECASE):
            stated = typ.strip()
            if stated.split(".")[-1].lower() != field.lower() or stated == written:
                continue
            source = ctx.text.line(d.line)
            after = re.search(rf"{re.escape(written)}((?:\.[\w']+)*)", source)
            use = f"{name}{after.group(1) if after else ''}"
            return Advice(
                d.line,
                f"Do use your hypothesis `{name}` instead of `{written}` on line {d.line} "
                f"(write `{use}`): `{stated}` is a statement about `{term}`, not a field "
                f"of it, and `{name}` proves it.",
            )
    return None
