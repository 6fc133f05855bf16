"""`decide` failed: the proposition is false, or it has variables `decide` cannot evaluate."""

from __future__ import annotations

import re

from tutor.coach import evidence, fixes
from tutor.coach.advice import substitution_step
from tutor.coach.context import traced_goal
from tutor.coach.goals import (
    Goal,
    Hypothesis,
    Shape,
    shorten,
    split_target,
)
from tutor.coach.rules.base import (
    Advice,
    Context,
    one,
    same_text,
    scene_at,
    wrong_witness,
)
from tutor.coach.rules.timeout import closed_truth
from tutor.lean.types import Diagnostic


def advise(d: Diagnostic, ctx: Context) -> list[Advice]:
    line = d.line
    lowered = d.message.lower()
    # Lean 4.12+: "Tactic `decide` proved that the proposition … is false"; before that:
    # "decide failed, proposition … is false". Either way the claim evaluated to false.
    if "proved that the proposition" in lowered or re.search(
        r"proposition\s*\n[^\n]+\n\s*is false", lowered
    ):
        prop = d.message.split("\n")[1].strip() if "\n" in d.message else "the statement"
        witness = wrong_witness(ctx, line, prop)
        if witness:
            return [witness]
        side = _other_side_true(ctx, line, prop)
        if side:
            return [side]
        stated = prop if " ".join(prop.split()) in " ".join(ctx.statement.split()) else ""
        value = true_value(prop, evidence.domain_of_text(f"{ctx.text.line(line)} {stated}"))
        if value:
            return [
                Advice(
                    line,
                    f"Do correct the claim on line {line}: `decide` evaluated it and found it "
                    f"false, since {value}.",
                    refutes=True,
                )
            ]
        return [
            Advice(
                line,
                f"Don't try to prove `{shorten(prop, 30)}` as stated: `decide` evaluated it and "
                "found it is false. Check the numbers in the statement or in your earlier steps.",
                refutes=True,
            )
        ]
    scene = scene_at(d, ctx)
    goal = _goal(d, scene)
    substituted = substitution_step(goal, ctx.mathlib) if goal else None
    if substituted:
        return one(
            line,
            f"Don't use `decide` alone on line {line}: the goal has a variable, which `decide` "
            f"cannot evaluate. Instead, {substituted}.",
        )
    closed = _closed_claim(line, goal.target, ctx.mathlib) if goal else None
    if closed:
        return [closed]
    step = fixes.closing_step(goal.target, scene, goal.hypotheses) if goal else None
    if step:
        why = "it is linear arithmetic that omega proves" if step == "omega" else "it proves it"
        return one(
            line,
            f"Do use `{step}` on line {line} instead of `decide`: `decide` only evaluates "
            f"closed statements, without variables, and {why}.",
        )
    free = _free_variables(goal, scene) if goal else []
    if free:
        bounded = _bounded(free, scene)
        if bounded:
            return one(
                line,
                f"Do write `decide +revert` on line {line}"
                f"{' (the hint in Lean message)' if '+revert' in d.message else ''}: the goal "
                "depends on the "
                f"free variable{'s' if len(free) > 1 else ''} {', '.join(f'`{v}`' for v in free)}, "
                f"and `+revert` first moves {bounded} back into the goal, a claim about finitely "
                "many values that decide can check.",
            )
        return one(
            line,
            f"Don't use `decide` on line {line}: the goal depends on the free variable "
            f"`{free[0]}`, and decide only evaluates claims without variables. Prove it for an "
            f"arbitrary `{free[0]}` instead (`induction`, `cases` or arithmetic).",
        )
    return one(
        line,
        f"Don't use `decide` on line {line}: it only evaluates statements without free "
        "variables. Prove this one step by step for an arbitrary value instead.",
    )


def _free_variables(goal: Goal, scene: fixes.Scene) -> list[str]:
    """The statement's value variables that occur in the goal (`n` in `n * n < 9`)."""
    kinds = scene.variable_types()
    return [
        name
        for name, typ in kinds.items()
        if (typ.strip() in ("Nat", "ℕ", "Int", "ℤ", "Bool") or typ.strip().startswith("List "))
        and re.search(rf"(?<![\w.']){re.escape(name)}(?![\w'])", goal.target)
    ]


def _bounded(free: list[str], scene: fixes.Scene) -> str | None:
    """`` `n` and `h` `` when every free variable has a numeral upper bound among the facts
    (`h : n < 3`): then `∀ n, n < 3 → …` is decidable by checking each value."""
    names = []
    for variable in free:
        bound = next(
            (
                n
                for n, t in scene.facts()
                if t and re.fullmatch(rf"\s*{re.escape(variable)}\s*[<≤]\s*\d+\s*", t)
            ),
            None,
        )
        if bound is None:
            return None
        names.append(f"`{variable}` and `{bound}`")
    return ", ".join(names)


_PROPOSITION = re.compile(r"proposition\s*\n\s+(.+?)\n", re.IGNORECASE)
# "Expected type must not contain free variables\n  n + 1 < 5\n\nHint: ..." (decide's
# precondition: a closed proposition, Lean/Elab/Tactic/Decide.lean `preprocessPropToDecide`)
_FREE = re.compile(r"must not contain [^\n]*variables\s*\n\s+(.+?)\n", re.IGNORECASE)


def _goal(d: Diagnostic, scene: fixes.Scene) -> Goal | None:
    """The proposition `decide` was given (Lean prints it), with the facts in scope; else the
    statement's goal when this is the first step."""
    match = _PROPOSITION.search(d.message + "\n") or _FREE.search(d.message + "\n")
    if match is None:
        return fixes.goal_at_first_step(scene)
    facts = [Hypothesis((n,), t) for n, t in scene.facts() if t]
    return Goal(match.group(1).strip(), facts)


def _closed_claim(line: int, claim: str, mathlib: bool) -> Advice | None:
    """`decide` stuck on a claim with no variables (`Nat.Prime 97`): the claim is closed, so
    the instance did not reduce, not a variable; evaluated true, Mathlib's `norm_num` proves it
    by its extensions; evaluated false, no tactic does."""
    truth = closed_truth(claim)
    if truth is None:
        return None
    if not truth:
        return Advice(
            line,
            f"Don't try to prove `{shorten(claim, 24)}` on line {line}: evaluated, it is false, "
            "so no tactic proves it; check the numbers in the statement.",
        )
    if not mathlib:
        return None
    return Advice(
        line,
        f"Do use `norm_num` on line {line} instead of `decide`: `{shorten(claim, 24)}` has no "
        "variables and is true, but its `Decidable` instance does not compute by unfolding; "
        "norm_num's extensions (primes, arithmetic) prove it directly.",
    )


def _other_side_true(ctx: Context, line: int, prop: str) -> Advice | None:
    """`left` then `decide` on `7 < 5 ∨ 12 % 5 = 2`: the side chosen is false and the other
    side evaluates true, so the other side was meant."""
    previous = ctx.text.last_code_line(line - 1)
    code = ctx.text.line(previous or 0).split("--", 1)[0].strip().lstrip("·").strip()
    if previous is None or code not in ("left", "right"):
        return None
    before = traced_goal(ctx.statement, ctx.text, previous)
    split = split_target(before or "")
    if split.shape is not Shape.OR:
        return None
    chosen, other = (split.left, split.right) if code == "left" else (split.right, split.left)
    domain = evidence.domain_of_text(ctx.statement)
    if not same_text(chosen, prop) or evidence.holds(other, domain) is not True:
        return None
    fixed = "right" if code == "left" else "left"
    return Advice(
        previous,
        f"Do write `{fixed}` on line {previous}: the {code} side `{shorten(chosen, 16)}` is "
        f"false, while the other side `{shorten(other, 16)}` is true, so choose that one.",
    )


def true_value(prop: str, domain: str = evidence.NAT) -> str | None:
    """`2 ^ 10 = 1000 + 42` is false because `2 ^ 10` is 1024: the value of the side that is
    not a bare numeral (both sides evaluated on ℕ, as decide does for numerals)."""
    listed = _list_value(prop)
    if listed:
        return listed
    parity = re.fullmatch(r"(Even|Odd)\s*\((.+)\)|(Even|Odd)\s+(\d+)", prop.strip())
    if parity and domain != evidence.REAL:
        claim = parity.group(1) or parity.group(3)
        text = (parity.group(2) or parity.group(4)).strip()
        value = evidence.evaluate(text, domain)
        if value is not None and value == int(value):
            actual = "even" if int(value) % 2 == 0 else "odd"
            if actual != claim.lower():
                shown = (
                    f"`{shorten(text, 16)}` is {int(value)}"
                    if text != str(int(value))
                    else f"{int(value)} is"
                )
                return f"{shown}, which is {actual}, not {claim.lower()} (so `{'Even' if actual == 'even' else 'Odd'} ({text})` holds)"
    # `(15 % 4 == 1) = true`: a Bool comparison claimed true is the claim `15 % 4 = 1`.
    boolean = re.fullmatch(r"\((.+?)\s*==\s*(.+)\)\s*=\s*true", prop.strip())
    if boolean:
        prop = f"{boolean.group(1)} = {boolean.group(2)}"
    split = split_target(prop)
    if split.shape is not Shape.EQ or not re.fullmatch(r"[\d\s+\-*/^%()=]+", prop):
        return None
    if domain == evidence.REAL:
        return None  # numerals typed as ℝ: decide does not evaluate them
    left = evidence.evaluate(split.left, domain)
    right = evidence.evaluate(split.right, domain)
    if left is None or right is None or left == right:
        return None
    sides = [(split.left.strip(), left), (split.right.strip(), right)]
    computed = [(text, value) for text, value in sides if not re.fullmatch(r"\d+", text)]
    if not computed:
        return None
    text, value = computed[0]
    claimed = int(right if text == split.left.strip() else left)
    return f"`{shorten(text, 16)}` is {int(value)}, not {claimed}{_why_value(text, domain)}"


def _why_value(text: str, domain: str) -> str:
    """The arithmetic rule a student's value missed: ℕ subtraction stops at 0, ℕ division
    rounds down, ℤ's `%` is never negative for a positive divisor."""
    if domain == evidence.NAT:
        for a, b in re.findall(r"(?<![\d)])(\d+)\s*-\s*(\d+)", text):
            if int(a) < int(b):
                return f" (on ℕ, `{a} - {b}` is 0: subtraction truncates at 0)"
        if "/" in text:
            return " (division on ℕ rounds down)"
    if domain == evidence.INT and "%" in text:
        return " (on ℤ, `%` is never negative for a positive divisor)"
    return ""


_LIST = re.compile(r"\[([\d,\s]*)\]\.(reverse|length)\s*=\s*(.+)")


def _list_value(prop: str) -> str | None:
    """`[1, 2, 3].reverse = [3, 1, 2]` is false because the reverse is `[3, 2, 1]`: a list
    literal's `reverse` or `length`, computed, against the side it was claimed equal to."""
    match = _LIST.fullmatch(prop.strip())
    if match is None:
        return None
    items = [item.strip() for item in match.group(1).split(",") if item.strip()]
    value = (
        "[" + ", ".join(reversed(items)) + "]" if match.group(2) == "reverse" else str(len(items))
    )
    claimed = match.group(3).strip()
    if " ".join(claimed.split()) == value:
        return None
    return f"`[{match.group(1)}].{match.group(2)}` is {value}, not {claimed}"
