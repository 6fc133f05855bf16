"""A named tactic failed (`positivity`, `ring`, `assumption`, `contradiction`, `exact?`, ...):
each tactic has a precondition, the shape of goal it works on. The advice says which one was
not met, in the tactic's own terms (never "syntax"), and names a step only with evidence for it.
"""

from __future__ import annotations

import re
from fractions import Fraction

from tutor.coach import evidence, fixes, lemmas, linear
from tutor.coach.context import proofs_of
from tutor.coach.goals import Goal, Hypothesis, Shape, shorten, split_target
from tutor.coach.rewriting import rewrites
from tutor.coach.rules import other
from tutor.coach.rules.base import Advice, Context, goal_here, one, scene_at
from tutor.coach.rules.unknown_identifier import unfolding_a_variable
from tutor.lean.messages import named_subject, normalise
from tutor.lean.types import Diagnostic

# What each tactic needs of the goal (Mathlib's docstrings and Lean's tactic reference).
NEEDS = {
    "positivity": "proves only goals of the form `0 ≤ e`, `0 < e` or `e ≠ 0`, from the shape "
    "of `e`",
    "ring": "proves equations that hold by algebra alone, for every value, without hypotheses",
    "assumption": "closes the goal only with a hypothesis that states exactly the goal",
    "contradiction": "needs a hypothesis that is `False`, an `h : ¬p` beside `hp : p`, or an "
    "equation between different constructors such as `0 = 1`",
    "exact?": "searches for one lemma that closes the goal as it stands",
    "norm_num": "evaluates numerals; it does not use your hypotheses unless you list them",
    "subst": "needs a hypothesis `x = e` (or `e = x`) whose one side is a variable",
    "interval_cases": "needs a lower and an upper bound on the variable in the context",
    "gcongr": "needs both sides of the goal to have the same shape, differing in one place",
}


def advise(d: Diagnostic, ctx: Context) -> list[Advice]:
    opening = normalise(d.message)
    tactic = _tactic(opening, d.message, ctx.text.line(d.line))
    # Lean/Elab/Tactic/Unfold.lean: "tactic 'unfold' failed, local variable 'f' has no
    # definition" (a variable of the statement, not a `def`).
    local = re.search(r"local variable [`'‘]?([^`'’\s]+)[`'’]? has no definition", d.message, re.I)
    if local:
        variable = unfolding_a_variable(ctx, local.group(1), d.line)
        if variable:
            return [variable]
    if tactic == "positivity":
        return _positivity(d, ctx, opening)
    if tactic == "split":
        return _split(d, ctx)
    needs = NEEDS.get(tactic)
    if needs is None:
        return other.advise(d, ctx)
    scene = scene_at(d, ctx)
    goal = goal_here(d, scene) or _traced(scene)
    facts = scene.facts() + (
        [(n, h.type) for h in goal.hypotheses for n in h.names] if goal else []
    )
    if tactic in ("ring", "ring_nf") and goal is not None:
        cast = _cast_of_a_compound(d.line, goal, ctx.mathlib, tactic)
        if cast:
            return [cast]
        division = _truncating_division(d.line, goal, scene.variable_types(), tactic)
        if division:
            return [division]
        found = _ring(d.line, goal, facts, scene.variable_types(), ctx.mathlib)
        if found:
            return [found]
    proofs = proofs_of(goal.target, facts) if goal else []
    shown = f" `{shorten(goal.target, 30)}`" if goal else ""
    stated = lemmas.instances(goal.target, facts, ctx.mathlib) if goal else []
    if stated and not proofs:
        return one(
            d.line,
            f"Do write `exact {stated[0]}` on line {d.line} instead of `{tactic}`: it {needs}, "
            f"and that library lemma states exactly the goal{shown}.",
        )
    if proofs and tactic in ("assumption", "contradiction", "exact?"):
        return one(
            d.line,
            f"Do write `exact {proofs[0]}` on line {d.line} instead of `{tactic}`: it {needs}, "
            f"and the goal{shown} is built from your hypotheses this way.",
        )
    return one(
        d.line,
        f"Don't use `{tactic}` on line {d.line} for this goal{shown}: it {needs}. Change the "
        "goal into that form first, or choose a step that fits the goal's shape.",
    )


def _tactic(opening: str, message: str, source: str) -> str:
    if "positivity" in opening or re.match(
        r"failed to prove (strict )?(nonnegativity|nonzero)", opening
    ):
        return "positivity"
    named = named_subject(message)
    if named:
        return named.strip("`'")
    match = re.match(r"(?:tactic )?([\w?!_.]+) (?:failed|could not|made no progress)", opening)
    if match:
        return match.group(1)
    words = source.strip().lstrip("·").split()
    return words[0] if words else ""


def _positivity(d: Diagnostic, ctx: Context, opening: str) -> list[Advice]:
    line = d.line
    scene = scene_at(d, ctx)
    goal = goal_here(d, scene) or _traced(scene)
    if goal is None:
        return one(line, f"Don't use `positivity` on line {line}: it {NEEDS['positivity']}.")
    target = goal.target
    facts = scene.facts() + [(n, h.type) for h in goal.hypotheses for n in h.names]
    types = {**scene.variable_types(), **goal.variable_types()}
    domain = evidence.domain_of_text(target, types)
    follows = evidence.consequence_of(target, facts)
    closer = linear.closer(target, facts, domain, ctx.mathlib)
    if opening.startswith("not a positivity goal"):
        closer = "linarith" if ctx.mathlib or domain == evidence.REAL else "omega"
        squares = (
            linear.square_hints(target, [t for _, t in facts if t], domain)
            if ctx.mathlib and not follows
            else None
        )
        if squares:
            return one(
                line,
                f"Do use `nlinarith [{squares[0]}]` on line {line} instead of `positivity`: "
                "positivity proves only `0 ≤ e`, `0 < e` or `e ≠ 0`, and with that square "
                "nlinarith proves this goal.",
            )
        fix = (
            f" Use `{closer}` instead: the goal follows from `{follows}` in one linear step."
            if follows
            else " Rewrite the goal into that form first, or prove it from your hypotheses."
        )
        return one(
            line,
            f"Don't use `positivity` on line {line}: it {NEEDS['positivity']}, and "
            f"`{shorten(target, 24)}` is not of that form.{fix}",
        )
    zero = _false_at_zero(target, domain, facts)
    if zero is not None:
        weaker = "could prove only a weaker claim" if "strict" in opening else "cannot prove it"
        return [
            Advice(
                line,
                f"Do check the goal on line {line}: `positivity` {weaker}, and "
                f"`{shorten(target, 24)}` is false when {zero}, so add a hypothesis that rules "
                f"that out (such as `{zero.split(' and ')[0].replace(' = ', ' ≠ ')}`) or prove "
                "`0 ≤ ...` instead.",
                refutes=True,
            )
        ]
    if closer:
        source = f"from `{follows}` in one linear step" if follows else "by adding up your facts"
        return one(
            line,
            f"Do use `{closer}` on line {line} instead of `positivity`: that proves `0 ≤ e`, "
            f"`0 < e` or `e ≠ 0` from the shape of `e` alone, while this goal follows {source}.",
        )
    given = [t for n, t in facts if t and "✝" not in n and n != "_"]
    squares = linear.square_hints(target, given, domain) if ctx.mathlib else None
    if squares:
        return one(
            line,
            f"Do use `nlinarith [{', '.join(squares)}]` on line {line} instead of `positivity`: "
            f"the goal `{shorten(target, 20)}` holds because the expression is a square in "
            "disguise, which positivity cannot see from its parts.",
        )
    split = split_target(target)
    expression = split.right if split.left.strip() == "0" else split.left
    if re.search(r"[\w)²]\s+-\s+", expression):
        # positivity reads `a - b` from its parts only, and `b` being smaller is a hypothesis.
        used = list(
            dict.fromkeys(
                n
                for n, t in facts
                if t and "✝" not in n and n != "_" and not fixes.is_value_type(t)
            )
        )[:2]
        named = ", ".join(f"`{n}`" for n in used) or "your hypotheses"
        if ctx.mathlib and linear.nlinarith_proves(target, given, domain):
            return one(
                line,
                f"Do use `nlinarith` on line {line} instead of `positivity`: positivity cannot "
                f"prove a subtraction positive, since it never uses hypotheses such as {named}; "
                f"nlinarith proves `{shorten(target, 20)}` from them by multiplying them.",
            )
        return one(
            line,
            f"Don't use `positivity` on line {line}: positivity cannot prove a subtraction "
            f"positive, since it never uses hypotheses such as {named}; prove "
            f"`{shorten(target, 20)}` from them instead.",
        )
    return one(
        line,
        f"Do give `positivity` what it lacks on line {line}: it builds `0 < e` from the "
        "parts of `e` (squares, `|x|`, positive numerals, variables with a hypothesis `0 < x`) "
        f"and found no such reason for `{shorten(target, 24)}`.",
    )


def _truncating_division(
    line: int, goal: Goal, types: dict[str, str], tactic: str
) -> Advice | None:
    """`ring` on a goal with `/` or `%` over ℕ or ℤ: division there rounds down, so the goal
    is no identity of a ring; the kind of step missing, without naming one."""
    domain = evidence.domain_of_text(goal.target, {**types, **goal.variable_types()})
    if domain not in (evidence.NAT, evidence.INT) or not re.search(r"\s[/%]\s", goal.target):
        return None
    where = "ℕ" if domain == evidence.NAT else "ℤ"
    return Advice(
        line,
        f"Don't use `{tactic}` on line {line} on this goal: `/` on {where} rounds down, which "
        "ring does not know. State the fact without the division first (multiply it out, as "
        "in `2 * s = n * (n + 1)`).",
    )


def _split(d: Diagnostic, ctx: Context) -> list[Advice]:
    """Lean 3's `split` on an ∧ or ↔: in Lean 4 `split` splits an `if … then … else` or a
    `match` in the goal, and `constructor` splits a structure such as ∧ and ↔."""
    scene = scene_at(d, ctx)
    goal = goal_here(d, scene) or _traced(scene)
    shape = split_target(goal.target).shape if goal else None
    if shape in (Shape.AND, Shape.IFF):
        assert goal is not None
        return one(
            d.line,
            f"Do write `constructor` on line {d.line} instead of `split`: in Lean 4 `split` "
            "only splits an `if … then … else` or a `match` in the goal, and "
            f"`{shorten(goal.target, 24)}` is split into its two parts with `constructor`.",
        )
    return one(
        d.line,
        f"Don't use `split` on line {d.line} unless the goal has an `if … then … else` or a "
        "`match`: that is all it splits in Lean 4 (a structure such as ∧ or ↔ is split with "
        "`constructor`). Check the goal's shape first.",
    )


def _traced(scene: fixes.Scene) -> Goal | None:
    from tutor.coach.context import traced_goal

    target = traced_goal(scene.statement, scene.text, scene.line)
    if target is None:
        return None
    return Goal(target, [Hypothesis((n,), t) for n, t in scene.facts() if t])


def _false_at_zero(target: str, domain: str, facts: list[tuple[str, str]]) -> str | None:
    """ "x = 0" when the goal, a strict or ≠ claim, is false with every variable at 0 and no
    hypothesis says anything about those variables (which could rule 0 out)."""
    split = split_target(target)
    if split.shape not in (Shape.LT, Shape.NE):
        return None
    names = sorted(set(re.findall(r"(?<![\w.'])([a-zα-ω][\w'₀-₉]*)(?![\w'])", target)))
    if not names or len(names) > 2:
        return None
    for _, typ in facts:
        mentions = any(re.search(rf"(?<![\w.']){re.escape(n)}(?![\w'])", typ) for n in names)
        if typ and evidence.domain_of_type(typ) is None and mentions:
            return None
    env = {n: Fraction(0) for n in names}
    if evidence.holds(target, domain, env) is not False:
        return None
    return " and ".join(f"{n} = 0" for n in names)


_CAST_OF_COMPOUND = re.compile(r"↑\((?:[^()]|\([^()]*\))*[-+*/^](?:[^()]|\([^()]*\))*\)")


def _cast_of_a_compound(line: int, goal: Goal, mathlib: bool, tactic: str) -> Advice | None:
    """`ring` on `↑(n + 1) = ↑n + 1`: ring reads the cast of a sum as one unknown, so it sees
    no `+` inside; `push_cast` moves the casts onto the variables first (Mathlib's tactic)."""
    found = _CAST_OF_COMPOUND.search(goal.target)
    if found is None or not mathlib:
        return None
    return Advice(
        line,
        f"Do write `push_cast` before `{tactic}` on line {line}: `{shorten(found.group(0), 20)}` "
        f"is a cast of a whole expression, which {tactic} reads as one unknown; push_cast "
        "moves the cast onto each variable (`↑(n + 1)` becomes `↑n + 1`), and then it is algebra.",
    )


def _ring(
    line: int, goal: Goal, facts: list[tuple[str, str]], types: dict[str, str], mathlib: bool
) -> Advice | None:
    """`ring` on an equation that is no identity: the hypothesis that makes it one (rewrite
    first), or say it needs the hypotheses. Identities are tested by evaluation."""
    domain = evidence.domain_of_text(goal.target, {**types, **goal.variable_types()})
    if split_target(goal.target).shape in (Shape.LE, Shape.LT):
        closer = linear.closer(goal.target, facts, domain, mathlib)
        return Advice(
            line,
            f"Do use `{closer}` on line {line} instead of `ring`: ring proves only equations, "
            f"and `{shorten(goal.target, 24)}` is an inequality, which {closer} gets by adding "
            "up your facts."
            if closer
            else f"Don't use `ring` on line {line}: it proves only equations, and "
            f"`{shorten(goal.target, 24)}` is an inequality; compare the two sides with your "
            "hypotheses instead.",
        )
    if evidence.identity(goal.target, domain) is not False:
        return None
    for found in rewrites(facts, goal.target):
        if evidence.identity(found.target, domain):
            return Advice(
                line,
                f"Do rewrite with `{found.name}` before `ring` on line {line} (`rw [{found.name}]`, "
                f"then `ring`): `{shorten(goal.target, 20)}` is not true for all values, only "
                f"with `{found.name}`, and after the rewrite it is an identity ring proves.",
            )
    follows = evidence.consequence_of(goal.target, facts)
    closer = linear.closer(goal.target, facts, domain, mathlib)
    if closer == "omega" and domain == evidence.NAT and "-" in goal.target:
        return Advice(
            line,
            f"Do use `omega` on line {line} instead of `ring`: subtraction on ℕ stops at 0, so "
            f"`{shorten(goal.target, 24)}` is no identity ring can prove; omega splits the case "
            "where it stops at 0 and uses your hypotheses to close both.",
        )
    if closer:
        source = f"from `{follows}` in one linear step" if follows else "by adding up your facts"
        return Advice(
            line,
            f"Do use `{closer}` on line {line} instead of `ring`: the goal is not true for all "
            f"values, and it follows {source}.",
        )
    return Advice(
        line,
        f"Don't use `ring` on line {line}: `{shorten(goal.target, 24)}` is not an identity of "
        "algebra (it fails for some values), so it needs your hypotheses, which ring never uses.",
    )
