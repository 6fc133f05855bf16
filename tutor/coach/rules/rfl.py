"""`rfl` failed: the two sides are not equal by computation alone."""

from __future__ import annotations

import re
from itertools import product

from tutor.coach import evidence, fixes
from tutor.coach.advice import derived_step, next_step
from tutor.coach.goals import (
    Goal,
    Shape,
    shorten,
    split_target,
)
from tutor.coach.rules.base import (
    Advice,
    Context,
    goal_here,
    impossible_case,
    one,
    refuted_claim,
    scene_at,
)
from tutor.coach.rules.decide import true_value
from tutor.lean.types import Diagnostic


def advise(d: Diagnostic, ctx: Context) -> list[Advice]:
    line = d.line
    scene = scene_at(d, ctx)
    goal = goal_here(d, scene)
    if goal is None:
        return one(
            line,
            f"Don't use `rfl` on line {line}: the two sides are not equal by computation "
            "alone. Rewrite with a lemma about this operation first.",
        )
    impossible = impossible_case(line, goal)
    if impossible:
        return [impossible]
    refuted = refuted_claim(ctx, line, goal.target)
    if refuted:
        return refuted
    computed = true_value(goal.target, evidence.domain_of_text(ctx.statement))
    if computed:
        return [
            Advice(
                line,
                f"Don't try to prove `{shorten(goal.target, 30)}` on line {line}: it is false, "
                f"since {computed}, so no tactic proves it; correct the claim.",
                refutes=True,
            )
        ]
    built = derived_step(goal)
    if built:
        return one(line, f"Don't use `rfl` on line {line}; instead, {built}.")
    real = _real_numerals(line, goal, scene, ctx)
    if real:
        return [real]
    facts = [(n, h.type) for h in goal.hypotheses for n in h.names]
    step = fixes.closing_step(goal.target, scene, goal.hypotheses)
    ih = next((n for n, t in facts if n.startswith("ih")), None)
    if step:
        extra = (
            f" (the induction hypothesis `{ih}` is not even needed)"
            if ih and step == "omega"
            else ""
        )
        return one(
            line,
            f"Do use `{step}` on line {line} instead of `rfl`: `{shorten(goal.target, 30)}` is "
            f"not true by computation alone{extra}.",
        )
    split = _bool_cases(goal, scene)
    if split and split.startswith("false at "):
        return one(
            line,
            f"Don't try to prove `{shorten(goal.target, 30)}` on line {line}: it is {split}, "
            "so no tactic proves it; check the statement or the step before.",
        )
    if split:
        return one(
            line,
            f"Do write `{split}` on line {line} instead of `rfl`: `{shorten(goal.target, 30)}` "
            "does not compute while a Bool variable is unknown (the operation looks at its "
            "value), but it holds for `true` and for `false`, checked one by one.",
        )
    step = next_step(goal, ctx.mathlib)
    if "`rfl`" in step:
        step = "rewrite with a lemma about this operation (`simp` knows many), or split into cases"
    return one(
        line,
        f"Don't use `rfl` on line {line}: `{shorten(goal.target, 30)}` is not true by "
        f"computation alone. Instead, {step}.",
    )


def _real_numerals(line: int, goal: Goal, scene: fixes.Scene, ctx: Context) -> Advice | None:
    """`(2 : ℝ) + 2 = 4` by `rfl`: true, but real numbers are not computable, so the two sides
    are not equal by definition; Mathlib's `norm_num` proves numeral arithmetic on ℝ."""
    if not ctx.mathlib or not fixes.closed_in_real_statement(goal.target, scene):
        return None
    if evidence.holds(goal.target, evidence.REAL) is not True:
        return None
    return Advice(
        line,
        f"Do use `norm_num` on line {line} instead of `rfl`: `{shorten(goal.target, 24)}` is "
        "true, but on ℝ numbers are not computable, so its sides are not equal by definition "
        "and `rfl` cannot evaluate them; norm_num proves numeral arithmetic.",
    )


_BOOL_TOKENS = re.compile(r"&&|\|\||!|\btrue\b|\bfalse\b|==|[()]|[\w'₀-₉]+|=|\s+")


def _bool_cases(goal: Goal, scene: fixes.Scene) -> str | None:
    """`(b && true) = b`: an equation of Bool expressions in Bool variables, true for every
    value of them (evaluated here), is `cases b <;> rfl` (each case computes); one that fails
    for some value is "false at `b = true`"; None when it cannot be evaluated."""
    kinds = {**scene.variable_types(), **goal.variable_types()}
    names = [
        n
        for n, t in kinds.items()
        if t.strip() == "Bool" and re.search(rf"(?<![\w.']){re.escape(n)}(?![\w'])", goal.target)
    ]
    split = split_target(goal.target)
    if not names or len(names) > 3 or split.shape is not Shape.EQ:
        return None
    for values in product((True, False), repeat=len(names)):
        env = dict(zip(names, values, strict=True))
        left, right = _bool_value(split.left, env), _bool_value(split.right, env)
        if left is None or right is None:
            return None
        if left != right:
            at = ", ".join(f"`{n} = {str(v).lower()}`" for n, v in env.items())
            return f"false at {at}"
    return " <;> ".join(f"cases {n}" for n in names) + " <;> rfl"


def _bool_value(text: str, env: dict[str, bool]) -> bool | None:
    """The value of `b && !c || true` (Lean's precedence: `!`, then `&&`, then `||`, then
    `==`), parsed here; None for anything else."""
    tokens = [t for t in _BOOL_TOKENS.findall(text) if not t.isspace()]
    value, rest = _parse_eq(tokens, env)
    return value if not rest else None


Parsed = tuple[bool | None, list[str]]


def _parse_eq(tokens: list[str], env: dict[str, bool]) -> Parsed:
    left, rest = _parse_or(tokens, env)
    while left is not None and rest[:1] == ["=="]:
        right, rest = _parse_or(rest[1:], env)
        left = None if right is None else left == right
    return left, rest


def _parse_or(tokens: list[str], env: dict[str, bool]) -> Parsed:
    left, rest = _parse_and(tokens, env)
    while left is not None and rest[:1] == ["||"]:
        right, rest = _parse_and(rest[1:], env)
        left = None if right is None else left or right
    return left, rest


def _parse_and(tokens: list[str], env: dict[str, bool]) -> Parsed:
    left, rest = _parse_not(tokens, env)
    while left is not None and rest[:1] == ["&&"]:
        right, rest = _parse_not(rest[1:], env)
        left = None if right is None else left and right
    return left, rest


def _parse_not(tokens: list[str], env: dict[str, bool]) -> Parsed:
    if not tokens:
        return None, tokens
    head, rest = tokens[0], tokens[1:]
    if head == "!":
        inner, rest = _parse_not(rest, env)
        return (None if inner is None else not inner), rest
    if head == "(":
        inner, rest = _parse_eq(rest, env)
        return (inner, rest[1:]) if rest[:1] == [")"] else (None, rest)
    if head in ("true", "false"):
        return head == "true", rest
    if head in env:
        return env[head], rest
    return None, rest
