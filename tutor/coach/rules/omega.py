"""`omega could not prove the goal`: a counterexample to the linear ℕ/ℤ facts omega sees."""

from __future__ import annotations

import re

from tutor.coach import evidence, families, fixes, lemmas, linear
from tutor.coach.advice import substitution_step
from tutor.coach.algebra import ac_step
from tutor.coach.context import traced_goal
from tutor.coach.goals import (
    Goal,
    Shape,
    is_nonlinear,
    shorten,
    split_target,
)
from tutor.coach.rules.base import (
    Advice,
    Context,
    definitions,
    dropped_fact,
    one,
    scene_at,
)
from tutor.coach.rules.membership import unfold_membership
from tutor.coach.source import statement_hypotheses
from tutor.lean.messages import Mismatch
from tutor.lean.types import Diagnostic

_OMEGA_ATOM = re.compile(r"^\s*(\S+)\s*:=\s*(.+)$")
_APPLIED = re.compile(r"^\(?([A-Za-z_][\w.']*)\s+[\w(↑]")


def advise(d: Diagnostic, ctx: Context) -> list[Advice]:
    line = d.line
    message = d.message
    member = unfold_membership(d, ctx, None, "omega")
    if member:
        return [member]
    if "ℝ" in ctx.statement or "ℝ" in ctx.text.text:
        return [_over_the_reals(d, ctx)]
    dropped = dropped_fact(ctx, line, _counterexample_names(message))
    if dropped is not None:
        return [dropped]
    scene = scene_at(d, ctx)
    stated = fixes.goal_at_first_step(scene)
    substituted = substitution_step(stated, ctx.mathlib) if stated else None
    if substituted:
        return one(
            line,
            f"Don't use `omega` alone on line {line}: it treats products of variables as unknown "
            f"numbers. Instead, {substituted}.",
        )
    if "no usable constraints" in message.lower():
        defined = definitions(ctx)
        if defined:
            name = defined[0]
            return one(
                line,
                f"Do unfold `{name}` before `omega` on line {line}, with `unfold {name}` or "
                f"`simp only [{name}]`: omega found no linear facts about ℕ or ℤ it could use.",
            )
        stated_by = (
            lemmas.instances(stated.target, stated.named_facts(), ctx.mathlib) if stated else []
        )
        if stated and stated_by:
            return one(
                line,
                f"Do write `exact {stated_by[0]}` on line {line} instead of `omega`: omega "
                f"found no linear facts in `{shorten(stated.target, 24)}` (it reads `∣` only "
                "with a numeral divisor, and a product of variables as an unknown), and that "
                "library lemma states exactly this goal.",
            )
        return one(
            line,
            f"Do check what `omega` sees on line {line}: it found no linear facts about ℕ or ℤ "
            "in the goal or the hypotheses, so the goal is not linear arithmetic as it stands.",
        )
    first_goal = fixes.goal_at_first_step(scene)
    lemma = fixes.commutativity_lemma(first_goal.target) if first_goal else None
    if lemma:
        return one(
            line,
            f"Do use `exact {lemma}` on line {line} instead of `omega`: the goal is "
            "commutativity of a product, and omega treats each product of variables as an "
            "unknown number.",
        )
    reordered = ac_step(first_goal.target) if first_goal else None
    if reordered:
        return one(
            line,
            f"Do use `{reordered}` on line {line} instead of `omega`: both sides are the same "
            "product or sum in another order, and omega treats each product of variables as an "
            "unknown number.",
        )
    atoms = []
    if "\nwhere" in message:
        for raw in message.split("\nwhere", 1)[1].split("\n"):
            match = _OMEGA_ATOM.match(raw)
            if match:
                atoms.append(match.group(2).strip())
    applied = [m.group(1) for a in atoms if (m := _APPLIED.match(a.replace("↑", "")))]
    if applied:
        name = applied[0]
        instance = _forall_instance(ctx, name, atoms)
        if instance:
            return one(
                line,
                f"Do instantiate the ∀ hypothesis before `omega` on line {line}, e.g. "
                f"`{instance}`: omega never uses ∀ hypotheses by itself, so it treats "
                f"`{name} ...` as an unknown number.",
            )
        if name in definitions(ctx):
            return one(
                line,
                f"Do unfold `{name}` before `omega` on line {line}, with `unfold {name}` or "
                f"`simp only [{name}]`: omega treats `{name} ...` as an unknown number and "
                "cannot see its definition.",
            )
        return one(
            line,
            f"Do give `omega` the fact about `{name} ...` it lacks before line {line}, with "
            "`have` or by rewriting with the hypothesis that describes it: omega treats "
            f"`{name} ...` as an unknown number.",
        )
    if any("::" in a or ".length" in a or "++" in a for a in atoms):
        return one(
            line,
            f"Do simplify the list expressions first with `simp` on line {line} (it knows "
            "`List.length_cons` and `List.length_append`): omega treats each list length as "
            "an unknown number.",
        )
    nonlinear = [a for a in atoms if is_nonlinear(a)]
    goal_shape = split_target(first_goal.target).shape if first_goal else Shape.OTHER
    by_lemma = (
        lemmas.instances(first_goal.target, first_goal.named_facts(), ctx.mathlib)
        if first_goal and nonlinear
        else []
    )
    if by_lemma:
        return one(
            line,
            f"Do write `exact {by_lemma[0]}` on line {line} instead of `omega`: omega treats "
            f"`{shorten(nonlinear[0], 12)}` as an unknown number, and that library lemma states "
            "exactly this goal.",
        )
    if nonlinear and goal_shape in (Shape.LE, Shape.LT):
        example = _product_fact_example(ctx)
        shown = f", for example with `{example}`" if example else ""
        return one(
            line,
            f"Do state the nonlinear fact omega needs before line {line}{shown}: omega treats "
            f"`{shorten(nonlinear[0], 30)}` as an unknown number.",
        )
    truncated = _truncated_subtraction(first_goal, scene) if first_goal else None
    if truncated:
        small, big = truncated
        return one(
            line,
            f"Do add the hypothesis `{small} ≤ {big}` to the statement before line {line}: on "
            f"ℕ, `{big} - {small}` is 0 when {small} > {big}, so the goal is false without it, "
            "which is the counterexample omega found.",
        )
    return one(
        line,
        f"Do check that the goal at line {line} really follows from your hypotheses: omega "
        "found a possible counterexample, so a hypothesis is missing or a case split "
        "(`cases` or `by_cases`) is needed first.",
    )


_SUBTRACTION = re.compile(r"(?<![\w.'])([A-Za-z_][\w']*)\s*-\s*([A-Za-z_][\w']*)(?![\w'])")


def _truncated_subtraction(goal: Goal, scene: fixes.Scene) -> tuple[str, str] | None:
    """(b, a) when the goal subtracts ℕ variables `a - b` and no hypothesis bounds b by a:
    ℕ subtraction stops at 0, the usual reason omega finds a counterexample."""
    types = scene.variable_types()
    for hyp in goal.hypotheses:
        for name in hyp.names:
            types.setdefault(name, hyp.type)
    bounds = {" ".join(t.split()) for t in types.values()}
    for match in _SUBTRACTION.finditer(goal.target):
        big, small = match.group(1), match.group(2)
        if types.get(big, "").strip() not in ("Nat", "ℕ"):
            continue
        if types.get(small, "").strip() not in ("Nat", "ℕ"):
            continue
        if {
            f"{small} ≤ {big}",
            f"{big} ≥ {small}",
            f"{small} < {big}",
            f"{big} > {small}",
        } & bounds:
            continue
        return small, big
    return None


def _forall_instance(ctx: Context, function: str, atoms: list[str]) -> str | None:
    """`have := hf 3` when `function` is a variable and a ∀ hypothesis talks about it."""
    binders = statement_hypotheses(ctx.statement)
    if not any(name == function and "→" in typ for name, typ in binders):
        return None
    for name, typ in binders:
        if typ.startswith("∀") and re.search(rf"(?<![\w.]){re.escape(function)}\b", typ):
            argument = ""
            for atom in atoms:
                match = re.match(rf"^\(?{re.escape(function)}\s+(.+?)\)?$", atom.replace("↑", ""))
                if match:
                    argument = match.group(1)
                    break
            return f"have := {name} {argument}".rstrip()
    return None


def _product_fact_example(ctx: Context) -> str | None:
    """A product lemma applied to the student's own ℕ variable and `≤` hypothesis (never names
    the student does not have)."""
    binders = statement_hypotheses(ctx.statement)
    variables = [n for n, t in binders if t in ("Nat", "ℕ")]
    facts = [n for n, t in binders if "≤" in t]
    if variables and facts:
        return f"have := Nat.mul_le_mul_right {variables[0]} {facts[0]}"
    return None


def _counterexample_names(message: str) -> set[str]:
    """The variables in omega's counterexample (`n ≤ 2`, `where n := n`)."""
    return set(re.findall(r"(?<![\w.'])([a-zα-ω][\w'₀-₉]*)(?![\w'])", message.split(":", 1)[-1]))


def _over_the_reals(d: Diagnostic, ctx: Context) -> Advice:
    """omega on ℝ: it decides only ℕ and ℤ. The replacement is named with evidence: linarith
    when the goal follows linearly (tutor/coach/linear.py), the strict-to-`≠` lemma for a `≠`
    goal (linarith proves no `≠`), nlinarith when products of the facts give it."""
    line = d.line
    scene = scene_at(d, ctx)
    goal = traced_goal(ctx.statement, ctx.text, line)
    facts = scene.facts()
    why = f"Don't use `omega` on line {line} for real numbers: it only knows ℕ and ℤ"
    if goal is None:
        return Advice(
            line,
            f"{why}. Use the ℝ tactics: `linarith` for linear facts, "
            "`nlinarith` for products, `positivity` for signs.",
        )
    if split_target(goal).shape is Shape.NE:
        for name, typ in facts:
            found = (
                families.weaker_relation(Mismatch(name, typ, goal), line, dict(facts), ctx.mathlib)
                if typ and "✝" not in name
                else []
            )
            if found:
                step = found[0][1].split("`")[1]
                return Advice(line, f"{why}, and linarith proves no `≠`. Instead, write `{step}`.")
        return Advice(
            line,
            f"{why}, and linarith proves no `≠`: assume the equation with "
            "`intro h` and derive `False`, or use `ne_of_gt` / `ne_of_lt` with a strict fact.",
        )
    given = [t for n, t in facts if t and n != "_"]
    if linear.entails(goal, given, evidence.REAL):
        return Advice(
            line,
            f"{why}. Use `linarith` there instead: the goal follows by adding up your hypotheses.",
        )
    if linear.nlinarith_proves(goal, given, evidence.REAL):
        return Advice(
            line,
            f"{why}. Use `nlinarith` there instead: the goal follows from "
            "products of your hypotheses.",
        )
    return Advice(
        line,
        f"{why}, and no linear combination of your hypotheses gives "
        f"`{shorten(goal, 24)}`: find the fact it needs first.",
    )
