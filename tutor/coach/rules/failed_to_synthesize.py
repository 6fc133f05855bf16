"""`failed to synthesize`: an instance Lean needs (a number type, `Decidable`) does not exist."""

from __future__ import annotations

import re

from tutor.coach import evidence, linear
from tutor.coach.goals import (
    shorten,
)
from tutor.coach.rules.base import (
    Advice,
    Context,
    one,
    scene_at,
)
from tutor.lean.types import Diagnostic


def advise(d: Diagnostic, ctx: Context) -> list[Advice]:
    line = d.line
    body = " ".join(d.message.split("\n", 2)[1:2]).strip() or d.message
    decidable = re.search(r"Decidable\s*\(?\s*∀\s*\(?\s*(\w+)", d.message)
    if decidable:
        var = decidable.group(1)
        return one(
            line,
            f"Do start with `intro {var}` (or `induction {var}`) on line {line} instead of "
            f"`decide`: it cannot check a statement for all {var}, there are infinitely many; "
            "prove the body for an arbitrary value.",
        )
    real = _decide_on_reals(d, ctx, body)
    if real is not None:
        return [real]
    numeral = re.match(r"OfNat\s+\((.+)\)\s+(\d+)$", body)
    if numeral and numeral.group(1).lstrip().startswith("∃"):
        n = numeral.group(2)
        return one(
            line,
            f"Do give the witness with `exact ⟨{n}, ?_⟩` or `exists {n}` on line {line}: a "
            f"number alone is not a proof of `{shorten(numeral.group(1), 30)}`; you also prove "
            "the property.",
        )
    grouped = _argument_not_grouped(d, ctx, body)
    if grouped is not None:
        return [grouped]
    if ctx.mathlib and re.match(r"(OfNat|HAdd|HMul|HSub|HDiv|HPow)\b", body):
        return one(
            line,
            f"Do give the numbers on line {line} an explicit type, such as `(2 : ℝ)`: Lean "
            f"could not find the instance `{shorten(body, 30)}` for the type it guessed.",
        )
    return one(
        line,
        f"Do check the types on line {line}: Lean needs an instance `{shorten(body, 30)}` "
        "that does not exist, so an operation is used on a type that lacks it.",
    )


def _decide_on_reals(d: Diagnostic, ctx: Context, body: str) -> Advice | None:
    """`decide` on a claim about ℝ: equality of real numbers cannot be computed, so there is
    no `Decidable` instance; the step that does prove it (checked: linarith from the facts,
    norm_num when it is closed), else the kind of tactic."""
    claim = re.fullmatch(r"Decidable\s*\((.+)\)", body.strip())
    if claim is None or not ctx.text.line(d.line).strip().lstrip("·").strip().startswith("decide"):
        return None
    target = claim.group(1)
    scene = scene_at(d, ctx)
    facts = scene.facts()
    types = {n: t for n, t in facts if t}
    if evidence.domain_of_text(target + " " + " ".join(types.values()), types) != evidence.REAL:
        return None
    if evidence.is_closed(target) and evidence.holds(target, evidence.REAL) is True:
        step = "norm_num"
    else:
        step = linear.closer(target, facts, evidence.REAL, ctx.mathlib) or ""
    instead = f"Use `{step}` instead" if step else "Use a tactic that works with real numbers"
    return Advice(
        d.line,
        f"Don't use `decide` on line {d.line} for a claim about real numbers: equality of reals "
        f"cannot be computed, so Lean has no `Decidable` instance for it. {instead}"
        f"{': it follows from your hypotheses' if step and step != 'norm_num' else ''}.",
    )


_OPERATOR = {"HAdd": "+", "HSub": "-", "HMul": "*", "HDiv": "/", "HPow": "^"}
_ATOM = r"[\w'₀-₉.]+"


def _argument_not_grouped(d: Diagnostic, ctx: Context, body: str) -> Advice | None:
    """`sq_nonneg x - y`: application binds tighter than `-`, so Lean reads `(sq_nonneg x) - y`
    and looks for a subtraction on a proof (`HSub (0 ≤ x ^ 2) ℝ …`). The argument needs its
    parentheses: `sq_nonneg (x - y)`."""
    instance = re.match(
        r"(HAdd|HSub|HMul|HDiv|HPow)\s+\((?P<first>[^()]*(?:\([^()]*\))*[^()]*)\)", body
    )
    if instance is None or not re.search(r"[≤<=≠≥>∣]", instance.group("first")):
        return None  # the left operand is no proposition: a number-type problem, not this
    op = _OPERATOR[instance.group(1)]
    source = ctx.text.line(d.line).split("--", 1)[0]
    written = re.search(
        rf"(?P<f>[A-Za-z_][\w.']*)\s+(?P<arg>{_ATOM}\s*{re.escape(op)}\s*{_ATOM}"
        rf"(?:\s*[-+*/^]\s*{_ATOM})*)",
        source,
    )
    if written is None or written.group("f") in ("exact", "apply", "refine", "have", "show"):
        return None
    fixed = f"{written.group('f')} ({written.group('arg').strip()})"
    return Advice(
        d.line,
        f"Do write `{fixed}` on line {d.line}: without parentheses Lean reads "
        f"`{written.group('f')} {written.group('arg').split()[0]}` first and then applies "
        f"`{op}` to that proof, since applying a lemma binds tighter than `{op}`.",
    )
