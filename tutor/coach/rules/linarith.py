"""`linarith failed`: no linear combination of the hypotheses proves the goal."""

from __future__ import annotations

import re
from itertools import combinations

from tutor.coach import evidence, fixes, lemmas, linear
from tutor.coach.advice import nlinarith_hint
from tutor.coach.context import normal, traced_goal
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
    goals_of,
    one,
    same_text,
    scene_at,
)
from tutor.coach.rules.membership import unfold_membership
from tutor.lean.types import Diagnostic


def advise(d: Diagnostic, ctx: Context) -> list[Advice]:
    line = d.line
    goals = goals_of(d)
    goal = goals[0] if goals else Goal("False")
    context_text = " ".join(h.type for h in goal.hypotheses)
    types = " ".join(goal.variable_types().values())
    tactic = "nlinarith" if "nlinarith" in ctx.text.line(line) else "linarith"
    member = unfold_membership(d, ctx, goal, tactic)
    if member:
        return [member]
    product = _product_lemma(ctx, d, goal)
    if product:
        return one(
            line,
            f"Do write `exact {product}` on line {line} instead of `{tactic}`: the goal is a "
            "product whose factors' signs your hypotheses give.",
        )
    facts = [(n, h.type) for h in goal.hypotheses for n in h.names]
    domain = evidence.domain_of_text(context_text + " " + goal.target, goal.variable_types())
    original = _original_goal(d, ctx, goal)
    stated = lemmas.instances(original, facts, ctx.mathlib) if original else []
    if stated:
        return one(
            line,
            f"Do write `exact {stated[0]}` on line {line} instead of `{tactic}`: that library "
            f"lemma states exactly `{shorten(original or '', 24)}`, a fact {tactic} cannot derive "
            "by adding up your hypotheses.",
        )
    habit = _integer_step_on_reals(line, original, facts, domain)
    if habit:
        return [habit]
    unequal = _not_equal(line, goal, original, ctx.mathlib, tactic)
    if unequal:
        return [unequal]
    false = _false_goal(line, original, facts, domain)
    if false:
        return [false]
    cast = _cast_of_a_hypothesis(original, facts, ctx.mathlib)
    if cast is not None:
        return one(
            line,
            f"Do write `exact_mod_cast {cast}` on line {line} instead of `{tactic}`: the goal is "
            f"`{cast}` with its numbers cast to another type (`↑`), and {tactic} treats a cast "
            "as an unknown; `exact_mod_cast` (or `norm_cast`) moves the casts away.",
        )
    instances = _instances_needed(original, facts, domain)
    if instances:
        listed = ", ".join(instances)
        return one(
            line,
            f"Do write `{tactic} [{listed}]` on line {line}: {tactic} uses hypotheses only as "
            f"they stand, never a `∀` or `→` one at a point, and with `{listed}` the goal "
            "follows.",
        )
    if ctx.mathlib:
        given = [t for n, t in facts if n != "_" and not n.startswith("a✝")]
        lemma = linear.abs_bound(original, given, domain) if original else None
        if lemma:
            return one(
                line,
                f"Do write `rw [{lemma}]; constructor <;> linarith` on line {line}: linarith "
                f"cannot see inside `|…|`; `{lemma}` splits the goal into two bounds that follow "
                "linearly from your hypotheses.",
            )
        found = _with_library_facts(line, goal.target, facts, domain, original, tactic)
        if found:
            return [found]
    if is_nonlinear(context_text):
        call = _checked_nlinarith(goal, original, domain)
        if call is None:
            # No square tried makes nlinarith work (or the terms are not read): name none.
            return one(
                line,
                f"Do find the square or product fact this goal needs before line {line}: "
                f"{tactic} only adds hypotheses (nlinarith also multiplies them in pairs), and "
                "none of the simple squares of your variables makes the goal follow; state it "
                "with `have` (for example the square the expression completes to).",
            )
        if tactic == "nlinarith":
            return one(
                line,
                f"Do give `nlinarith` the square it needs on line {line}: write `{call}`; it "
                "multiplies hypotheses in pairs but only uses squares you list.",
            )
        return one(
            line,
            f"Do replace `linarith` on line {line} with `{call}`: linarith only adds "
            "hypotheses linearly, and this goal needs products or squares.",
        )
    if any(t.strip() in ("ℕ", "Nat") for t in types.split()) and "-" in context_text:
        return one(
            line,
            f"Do use `omega` on line {line} instead of `linarith`: subtraction on ℕ is "
            "truncated at zero, which omega understands and linarith does not.",
        )
    listed = ", ".join(f"`{n}`" for n in goal.usable_fact_names()[:3]) or "your hypotheses"
    return one(
        line,
        f"Do give `linarith` the fact it is missing on line {line}: no linear combination "
        f"of {listed} proves the goal. Prove the missing inequality with `have` first "
        "(linarith already uses every hypothesis in the context), or check the goal is true.",
    )


def _checked_nlinarith(goal: Goal, original: str | None, domain: str) -> str | None:
    """An nlinarith call that proves the goal as its preprocessing does (tutor/coach/linear.py):
    bare, or with the one square it needs; None when neither is shown to work. Falls back to
    the named-variables hint only when the terms cannot be read at all (no claim either way)."""
    if original is None:
        return None
    facts = [h.type for h in goal.hypotheses for n in h.names if not n.startswith("a✝")]
    proves = linear.nlinarith_proves(original, facts, domain)
    if proves:
        return "nlinarith"
    if proves is None:
        return nlinarith_hint(goal) if domain == evidence.REAL else None
    squares = linear.square_hints(original, facts, domain)
    return f"nlinarith [{', '.join(squares)}]" if squares else None


_PRODUCT_LEMMAS = {"≤": "mul_nonneg", "<": "mul_pos"}


def _product_lemma(ctx: Context, d: Diagnostic, goal: Goal) -> str | None:
    """`mul_nonneg ha hb` for a `0 ≤ a * b` goal with `ha : 0 ≤ a`, `hb : 0 ≤ b` (and `mul_pos`
    for `<`), when the course has Mathlib's lemmas."""
    stated = fixes.goal_at_first_step(scene_at(d, ctx))
    if stated is None or not ctx.mathlib:
        return None
    split = split_target(normal(stated.target))
    match = re.fullmatch(r"([\w'₀-₉]+)\s*\*\s*([\w'₀-₉]+)", normal(split.right))
    if split.op not in _PRODUCT_LEMMAS or normal(split.left) != "0" or match is None:
        return None
    facts = dict((normal(t), n) for n, t in stated.named_facts())
    names = [facts.get(f"0 {split.op} {factor}") for factor in match.groups()]
    if not all(names):
        return None
    return f"{_PRODUCT_LEMMAS[split.op]} {names[0]} {names[1]}"


_NEGATED = {"≥": "<", ">": "≤", "<": "≥", "≤": ">"}


def _original_goal(d: Diagnostic, ctx: Context, goal: Goal) -> str | None:
    """The goal linarith was asked to prove: traced from the statement, else read back from
    the negation it added as `a✝` (`a✝ : |x| < x` for the goal `x ≤ |x|`)."""
    traced = traced_goal(ctx.statement, ctx.text, d.line)
    if traced is not None and split_target(traced).shape is not Shape.OTHER:
        return traced
    negations = [h.type for h in goal.hypotheses for n in h.names if n.startswith("a✝")]
    if goal.target.strip() != "False" or len(negations) != 1:
        return None
    split = split_target(negations[0])
    if split.op not in _NEGATED:
        return None
    return f"{split.left} {_NEGATED[split.op]} {split.right}"


def _cast_of_a_hypothesis(
    original: str | None, facts: list[tuple[str, str]], mathlib: bool
) -> str | None:
    """`(1 : ℝ) ≤ n` (`n : ℕ`) with `h : 1 ≤ n`: the goal is a hypothesis with casts, so the
    name of that hypothesis (for `exact_mod_cast`), else None."""
    if original is None or not mathlib:
        return None
    plain = re.sub(r"↑\s*", "", original)
    plain = re.sub(r"\((\d+)\s*:\s*[ℝℚℤℕ]\)", r"\1", plain)
    cast_types = {n for n, t in facts if t.strip() in ("ℕ", "ℤ", "Nat", "Int")}
    mentioned = set(re.findall(r"[\w'₀-₉]+", plain))
    if plain == original and not (cast_types & mentioned):
        return None
    return next(
        (n for n, t in facts if "✝" not in n and t and same_text(t, plain) and n != "_"), None
    )


_APPLIED_TO = r"(?<![\w.']){}\s+(\d+|[A-Za-z_][\w'₀-₉]*|\([^()]*\))"


def _instances_needed(original: str | None, facts: list[tuple[str, str]], domain: str) -> list[str]:
    """`hf 3` for `hf : ∀ x, f x ≤ 2 * x` on a goal about `f 3`, `h ha` for `h : 0 ≤ a → a ≤ b`
    with `ha : 0 ≤ a`: the instances linarith does not form, kept only when adding them makes
    the goal follow (tutor/coach/linear.py)."""
    if original is None:
        return []
    plain = [t for n, t in facts if "✝" not in n and not n.startswith("a✝")]
    found: list[tuple[str, str]] = []
    for name, typ in facts:
        if "✝" in name or name == "_":
            continue
        split = split_target(typ)
        if split.shape is Shape.IMPLIES:
            premise = next((n for n, t in facts if n != name and same_text(t, split.left)), None)
            if premise is not None:
                found.append((f"{name} {premise}", split.right))
        elif split.shape is Shape.FORALL:
            found.extend(_forall_instances(name, typ, original))
        elif split.shape is Shape.AND:
            # linarith does not look inside an ∧: its halves are `h.1` and `h.2`.
            found += [(f"{name}.1", split.left), (f"{name}.2", split.right)]
    if not found or linear.entails(original, plain, domain):
        return []
    for size in (1, 2):
        for chosen in combinations(found, size):
            if linear.entails(original, plain + [t for _, t in chosen], domain):
                return [term for term, _ in chosen]
    return []


def _forall_instances(name: str, typ: str, goal: str) -> list[tuple[str, str]]:
    """`(hf 3, f 3 ≤ 2 * 3)` for each value the ∀'s function is applied to in the goal."""
    binder = re.match(
        r"^∀\s*\(?([\w'₀-₉]+)(?:\s*:\s*[^,)]+)?\)?\s*,\s*(.+)$", " ".join(typ.split())
    )
    if binder is None:
        return []
    var, body = binder.groups()
    heads = re.findall(rf"(?<![\w.'])([A-Za-z_][\w'₀-₉.]*)\s+{re.escape(var)}(?![\w'])", body)
    out = []
    for head in dict.fromkeys(heads):
        for value in dict.fromkeys(re.findall(_APPLIED_TO.format(re.escape(head)), goal)):
            instance = re.sub(rf"(?<![\w.']){re.escape(var)}(?![\w'])", value, body)
            out.append((f"{name} {value}", instance))
    return out


def _false_goal(
    line: int, original: str | None, facts: list[tuple[str, str]], domain: str
) -> Advice | None:
    """`x < 3` from `h : 2 * x + 1 ≤ 7`: at `x = 3` the hypotheses hold and the goal does not,
    so the goal is false as stated; say where, and the weaker goal that does follow."""
    if original is None:
        return None
    given = [
        (n, t)
        for n, t in facts
        if n != "_" and not n.startswith("a✝") and evidence.domain_of_type(t) is None
    ]
    point = linear.counterexample(original, [t for _, t in given], domain)
    if point is None:
        return None
    values = ", ".join(f"`{n} = {evidence.show(v)}`" for n, v in point.items())
    used = [
        n
        for n, t in given
        if any(re.search(rf"(?<![\w.']){re.escape(v)}(?![\w'])", t) for v in point)
    ]
    named = f"`{'`, `'.join(used[:3])}`" if used else "your hypotheses"
    weaker = original.replace("<", "≤") if "<" in original and "≤" not in original else None
    also = (
        f"; the weaker `{shorten(weaker, 20)}` does follow"
        if weaker and linear.entails(weaker, [t for _, t in given], domain)
        else ""
    )
    where = f"The point {values}"
    split = split_target(original)
    sides = [evidence.evaluate(side, domain, point) for side in (split.left, split.right)]
    if split.op in ("<", ">") and None not in sides and sides[0] == sides[1]:
        # A strict goal that fails where both sides are equal: say it that way.
        where = f"Any point with `{shorten(split.left, 12)} = {shorten(split.right, 12)}`, such as {values},"
    return Advice(
        line,
        f"Don't try to prove `{shorten(original, 24)}`: it is false as stated. {where} "
        f"satisfies {named} but not the goal, so no tactic proves it{also}.",
        refutes=True,
    )


def _integer_step_on_reals(
    line: int, original: str | None, facts: list[tuple[str, str]], domain: str
) -> Advice | None:
    """`a + 1 ≤ b` from `a < b`: true over ℕ and ℤ (the next integer), false over ℝ, where
    `a = 0`, `b = 1/2` satisfies the hypothesis and not the goal. No tactic proves it."""
    if original is None or domain != evidence.REAL:
        return None
    split = split_target(original)
    succ = re.fullmatch(r"(.+?)\s*\+\s*1", split.left.strip())
    if split.op != "≤" or succ is None:
        return None
    low, high = succ.group(1).strip(), split.right.strip()
    strict = next((n for n, t in facts if normal(t) == normal(f"{low} < {high}")), None)
    if strict is None:
        return None
    # Another fact about these terms might rule the counterexample out: then say nothing.
    names = set(re.findall(r"[\w']+", f"{low} {high}"))
    for name, typ in facts:
        if name != strict and "✝" not in name and names & set(re.findall(r"[\w']+", typ)):
            return None
    example = (
        f" (`{low} = 0`, `{high} = 1/2` is a counterexample)"
        if re.fullmatch(r"[\w']+", low) and re.fullmatch(r"[\w']+", high)
        else ""
    )
    return Advice(
        line,
        f"Don't try to prove `{shorten(original, 24)}` from `{strict} : {low} < {high}` on "
        f"line {line}: over ℝ it is false{example}. That step only holds over ℤ or ℕ, where "
        f"`{low} < {high}` means `{low} + 1 ≤ {high}`; check the statement.",
        refutes=True,
    )


def _not_equal(
    line: int, goal: Goal, original: str | None, mathlib: bool, tactic: str
) -> Advice | None:
    """linarith never uses a `≠` hypothesis. For a strict goal `a < b` with `a ≤ b` and
    `a ≠ b` in hand, `lt_of_le_of_ne` is the step (Mathlib's name; `Nat.lt_of_le_of_ne` in
    core Lean for ℕ)."""
    unequal = [
        (n, split_target(t)) for n, t in goal.named_facts() if split_target(t).shape is Shape.NE
    ]
    if not unequal or original is None:
        return None
    want = split_target(normal(original))
    if want.shape is not Shape.LT:
        names = ", ".join(f"`{n}`" for n, _ in unequal[:2])
        return Advice(
            line,
            f"Don't count on {names} on line {line}: `{tactic}` never uses a `≠` hypothesis. "
            "Turn it into a strict inequality first (for example with `lt_of_le_of_ne`), or "
            "split the cases with `rcases lt_or_gt_of_ne h with h | h`.",
        )
    small, large = normal(want.left), normal(want.right)
    weak = next(
        (n for n, t in goal.named_facts() if normal(t) == f"{small} ≤ {large}" and "✝" not in n),
        None,
    )
    for name, split in unequal:
        sides = (normal(split.left), normal(split.right))
        if "✝" in name or sides not in ((small, large), (large, small)):
            continue
        ne = name if sides == (small, large) else f"(Ne.symm {name})"
        lemma = "lt_of_le_of_ne" if mathlib else "Nat.lt_of_le_of_ne"
        if weak is None or not evidence.in_library(lemma, mathlib):
            break
        return Advice(
            line,
            f"Do write `exact {lemma} {weak} {ne}` on line {line} instead of `{tactic}`: "
            f"linarith never uses a `≠` hypothesis such as `{name}`, and `{lemma}` turns "
            f"`{weak}` and `{name}` into the strict `{shorten(original, 20)}`.",
        )
    return Advice(
        line,
        f"Do turn the `≠` into a strict inequality before line {line}: `{tactic}` never uses a "
        f"`≠` hypothesis such as `{unequal[0][0]}`; `lt_of_le_of_ne` gives `<` from `≤` and `≠`.",
    )


def _with_library_facts(
    line: int,
    target: str,
    facts: list[tuple[str, str]],
    domain: str,
    original: str | None,
    tactic: str,
) -> Advice | None:
    """The Mathlib fact (`le_abs_self x`, `sq_nonneg x`, `mul_pos ha hb`) that makes the goal a
    linear consequence, found by checking the combination (tutor/coach/linear.py); `exact`
    it when it is the goal itself."""
    found = linear.missing_facts(target, facts, domain)
    if found:
        terms = [term for term, _ in found]
        if len(found) == 1 and original and linear.states(found[0][1], original, domain):
            return Advice(
                line,
                f"Do write `exact {terms[0]}` on line {line} instead of `{tactic}`: linarith "
                "treats `|x|`, squares and products as unknowns it cannot see inside, and "
                f"this library lemma states the goal `{shorten(original, 20)}`.",
            )
        listed = ", ".join(terms)
        return Advice(
            line,
            f"Do write `linarith [{listed}]` on line {line}: linarith treats `|x|`, squares, "
            "products and functions (`Real.exp`, `max`) as unknowns it cannot see inside, and with "
            f"{'this fact' if len(terms) == 1 else 'these facts'} the goal is a linear "
            "combination.",
        )
    given = [t for n, t in facts if n != "_"]
    hints = linear.square_hints(target, given, domain)
    if hints:
        return Advice(
            line,
            f"Do write `nlinarith [{', '.join(hints)}]` on line {line}: the goal needs this "
            "square (never negative), which nlinarith uses once you list it.",
        )
    if linear.nlinarith_proves(target, given, domain):
        return Advice(
            line,
            f"Do write `nlinarith` on line {line} instead of `{tactic}`: the goal needs a "
            "product of your hypotheses (or a square), which linarith never forms and "
            "nlinarith does.",
        )
    return None
