"""`apply` / `exact` / `constructor` failed: the term's conclusion does not unify with the goal."""

from __future__ import annotations

import re

from tutor.coach import evidence, families, fixes, linear
from tutor.coach.advice import binder_names, forall_instance, next_step
from tutor.coach.context import as_argument, expanded, instantiate, proofs_of, same
from tutor.coach.goals import (
    Goal,
    Shape,
    Split,
    shorten,
    split_target,
    strip_parens,
)
from tutor.coach.hypotheses import match_pattern
from tutor.coach.rules.base import (
    Advice,
    Context,
    goal_here,
    goals_of,
    one,
    scene_at,
)
from tutor.coach.source import AttemptText
from tutor.lean.messages import Mismatch, normalise
from tutor.lean.types import Diagnostic


def _name_used_later(text: AttemptText, line: int) -> str:
    """The name the student gives the premise further down (`· intro hp` inside a bullet), so
    the advice speaks in the proof's own names; `h` when there is none."""
    for number in range(line + 1, text.n_lines + 1):
        found = re.match(r"^\s*(?:·\s*)?intro\s+([\w'₀-₉]+)", text.line(number))
        if found:
            return found.group(1)
    return "h"


def constructor_failed(d: Diagnostic, ctx: Context) -> list[Advice]:
    goals = goals_of(d)
    shape = split_target(goals[0].target).shape if goals else Shape.OTHER
    if shape in (Shape.IMPLIES, Shape.FORALL):
        intro_line = _previous_intro_line(ctx.text, d.line)
        if intro_line is not None:
            return one(
                intro_line,
                f"Do introduce every premise on line {intro_line}: the goal is still "
                f"`{shorten(goals[0].target, 40)}`, so name the next premise there too (for "
                "example `intro hp hq`) before using `constructor`.",
            )
        names = " ".join(binder_names(goals[0].target)) if shape is Shape.FORALL else ""
        kind = "a ∀" if shape is Shape.FORALL else "an implication"
        return one(
            d.line,
            f"Do write `intro {names or _name_used_later(ctx.text, d.line)}` first on line "
            f"{d.line}, before `constructor`: the goal `{shorten(goals[0].target, 40)}` is "
            f"{kind}, and `constructor` only splits ∧, ↔ and similar goals.",
        )
    if goals and shape in (Shape.NOT, Shape.NE):
        return [_negation_by_intro(d, ctx, goals[0])]
    extreme = _max_min_bound(d, ctx, goals[0]) if goals and ctx.mathlib else None
    if extreme is not None:
        return [extreme]
    bound = _abs_bound(goals[0].target) if goals and ctx.mathlib else None
    if bound is not None:
        lemma, split = bound
        bound_value = split.right.strip()
        negated = (
            f"-{bound_value}" if re.fullmatch(r"[\w.']+", bound_value) else f"-({bound_value})"
        )
        return one(
            d.line,
            f"Do write `rw [{lemma}]` on line {d.line} before `constructor`: "
            f"`{shorten(goals[0].target, 20)}` is not a conjunction until `{lemma}` rewrites it "
            f"into `{negated} {split.op} {split.left[1:-1]} ∧ {split.left[1:-1]} {split.op} "
            f"{split.right}`, which `constructor` then splits.",
        )
    subset = re.fullmatch(r"(.+?)\s*⊆\s*(.+)", goals[0].target.strip()) if goals else None
    if subset:
        # `A ⊆ B` unfolds to `∀ x, x ∈ A → x ∈ B`: an implication under a ∀, not a pair.
        return one(
            d.line,
            f"Do write `intro x hx` on line {d.line} instead of `constructor`: "
            f"`{shorten(goals[0].target, 24)}` means every element of `{shorten(subset.group(1), 16)}` "
            f"is in `{shorten(subset.group(2), 16)}` (`∀ x, x ∈ … → x ∈ …`), so you take an "
            "element `x` and its membership `hx`.",
        )
    return one(
        d.line,
        f"Don't use `constructor` on line {d.line}: the goal is not a structure such as "
        "∧ or ↔. Check its shape and pick a tactic that fits it.",
    )


# `max a b ≤ c` is two bounds (`max_le`), as `c ≤ min a b` is (`le_min`): Mathlib's names.
_EXTREMES = {
    ("max", "≤", "left"): "max_le",
    ("max", "<", "left"): "max_lt",
    ("min", "≤", "right"): "le_min",
    ("min", "<", "right"): "lt_min",
}


def _max_min_bound(d: Diagnostic, ctx: Context, goal: Goal) -> Advice | None:
    """`constructor` on `max a b ≤ c`: not a conjunction, but `max_le` takes the two bounds
    (`le_min` for `c ≤ min a b`); the whole step when the facts are in scope."""
    split = split_target(goal.target)
    for side, inner, other in (
        ("left", split.left, split.right),
        ("right", split.right, split.left),
    ):
        found = re.fullmatch(r"(max|min)\s+(\S+)\s+(\S+)", inner.strip())
        lemma = _EXTREMES.get((found.group(1), split.op, side)) if found else None
        if found is None or lemma is None or not evidence.in_library(lemma, ctx.mathlib):
            continue
        a, b = found.group(2), found.group(3)
        bounds = (
            [f"{a} {split.op} {other}", f"{b} {split.op} {other}"]
            if side == "left"
            else [f"{other} {split.op} {a}", f"{other} {split.op} {b}"]
        )
        facts = scene_at(d, ctx).facts() + [(n, h.type) for h in goal.hypotheses for n in h.names]
        proofs = [proofs_of(bound, facts) for bound in bounds]
        step = (
            f"exact {lemma} {as_argument(proofs[0][0])} {as_argument(proofs[1][0])}"
            if all(proofs)
            else f"apply {lemma}"
        )
        return Advice(
            d.line,
            f"Do write `{step}` on line {d.line} instead of `constructor`: "
            f"`{shorten(goal.target, 20)}` is not a conjunction, but `{lemma}` proves it from "
            f"the two bounds `{shorten(bounds[0], 14)}` and `{shorten(bounds[1], 14)}`.",
        )
    return None


def _abs_bound(target: str) -> tuple[str, Split] | None:
    """(`abs_le`, the split) for `|e| ≤ c` (`abs_lt` for `<`): an absolute value bounded above
    is two bounds, but only once the lemma states it as an ∧."""
    split = split_target(target)
    left = split.left.strip()
    if split.op not in ("≤", "<") or not (left.startswith("|") and left.endswith("|")):
        return None
    if left.count("|") != 2:
        return None
    return ("abs_le" if split.op == "≤" else "abs_lt"), split


def _negation_by_intro(d: Diagnostic, ctx: Context, goal: Goal) -> Advice:
    """`constructor` on `¬P` or `a ≠ b`: both are implications into False (`P → False`,
    `a = b → False`), functions with no constructor to apply; `intro h` is their first step.
    With a `<` fact between the two sides, the library lemma closes `a ≠ b` at once."""
    split = split_target(goal.target)
    premise = split.right if split.shape is Shape.NOT else f"{split.left} = {split.right}"
    facts = scene_at(d, ctx).facts() + [(n, h.type) for h in goal.hypotheses for n in h.names]
    closing = None
    for name, typ in facts:
        if "✝" in name or not typ:
            continue
        found = families.weaker_relation(
            Mismatch(name, typ, goal.target), d.line, dict(facts), ctx.mathlib
        )
        if found:
            closing = found[0][1].split("`")[1]
            break
    also = f" (or close it at once with `{closing}`)" if closing else ""
    taken = {name for name, _ in facts}
    fresh = next(n for n in ("h", "h'", "heq", "h₁", "h₂") if n not in taken)
    return Advice(
        d.line,
        f"Do write `intro {fresh}` on line {d.line} instead of `constructor`{also}: "
        f"`{shorten(goal.target, 24)}` means `{shorten(premise, 20)} → False`, an implication, "
        f"not a structure; `intro {fresh}` assumes it and leaves `False` to prove.",
    )


def _previous_intro_line(text: AttemptText, line: int) -> int | None:
    base = text.indent(line)
    for number in range(line - 1, 0, -1):
        if not text.is_code(number):
            continue
        if text.indent(number) < base:
            return None
        if re.match(r"^\s*intros?\b", text.line(number)):
            return number
    return None


_UNIFY = re.compile(
    r"(?:could not unify the (?:conclusion|type) of\s*`?(?P<fn>[^`\n]*)`?|failed to unify)\s*\n"
    r"(?P<conclusion>(?:[ \t]+[^\n]*\n)+?)\s*with(?: the goal)?\s*\n(?P<goal>(?:[ \t]+[^\n]*(?:\n|$))+)",
    re.IGNORECASE,
)


def advise(d: Diagnostic, ctx: Context) -> list[Advice]:
    first = normalise(d.message)
    side = re.match(r"(?:tactic )?(left|right) failed", first)
    if side:
        return _side_failed(d, ctx, side.group(1))
    if "constructor" in first.split(":", 1)[0] or "not an inductive datatype" in first:
        return constructor_failed(d, ctx)
    line = d.line
    scene = scene_at(d, ctx)
    goal = goal_here(d, scene)
    unify = _UNIFY.search(d.message + "\n")
    if unify and goal is not None:
        applied = (unify.group("fn") or "").strip().lstrip("@")
        if not applied:  # older Lean ("failed to unify") does not name it: the student's line
            written = re.match(
                r"(?:·\s*)?(?:apply|exact|refine)\s+@?([\w.'₀-₉]+)",
                ctx.text.line(line).strip(),
            )
            applied = written.group(1) if written else ""
        conclusion = " ".join(unify.group("conclusion").split())
        facts = scene.facts() + [(n, h.type) for h in goal.hypotheses for n in h.names]
        relative = families.relative_for_goal(applied, conclusion, goal.target, ctx.mathlib)
        if relative:
            return one(
                line,
                f"Do use `apply {relative}` on line {line} instead: `{applied}` concludes "
                f"`{shorten(conclusion, 20)}`, a different relation from the goal "
                f"`{shorten(goal.target, 20)}`, and `{relative}` is its relative for that one.",
            )
        better = _concluding(goal.target, facts, applied) or _concluding(
            goal.target, facts + [f for f in expanded(facts) if "." in f[0]], applied
        )
        if better is not None:
            name, head, term = better
            if applied.split()[0] == name and head != name:
                # The same hypothesis at another value (`h b` where the goal needs `h a`).
                return one(
                    line,
                    f"Do write `apply {head}` on line {line}: `{shorten(applied, 20)}` concludes "
                    f"`{shorten(conclusion, 24)}`, while `{head}` concludes the goal "
                    f"`{shorten(goal.target, 24)}`; its premise is then what is left to prove.",
                )
            then = f" (all of it: `exact {term}`)" if term != head else ""
            return one(
                line,
                f"Do use `apply {head}` on line {line} instead{then}: the conclusion of "
                f"`{shorten(applied or 'the term', 20)}` is `{shorten(conclusion, 24)}`, not the "
                f"goal `{shorten(goal.target, 24)}`, and `{name}` concludes exactly the goal.",
            )
        restated = _goal_restated(line, applied, conclusion, goal, facts, ctx.mathlib)
        if restated is not None:
            return [restated]
        part = _conjunction_part(line, applied, conclusion, goal.target, facts)
        if part is not None:
            return [part]
        # Older Lean does not print the applied term: the student's line has it, arguments too.
        whole = re.match(
            r"(?:·\s*)?apply\s+@?(.+?)\s*$", ctx.text.line(line).split("--", 1)[0].strip()
        )
        term = applied if " " in applied or whole is None else whole.group(1)
        converse = _the_other_way(line, applied, conclusion, goal, facts)
        if converse is not None:
            return [converse]
        swapped = _arguments_swapped(line, term, conclusion, goal.target)
        if swapped is not None:
            return [swapped]
        weaker = _conclusion_then_linarith(line, applied, conclusion, goal, facts, d.message, ctx)
        if weaker is not None:
            return [weaker]
        shaped = _steps_apart(line, applied, conclusion, goal.target) or (
            _extra_term(line, applied, conclusion, goal.target, d.message) if ctx.mathlib else None
        )
        if shaped is not None:
            return [shaped]
    if goal is not None:
        chained = _by_arithmetic(line, goal, scene, ctx)
        if chained:
            return [chained]
    step = fixes.closing_step(goal.target, scene, goal.hypotheses) if goal else None
    why = "its conclusion does not match the goal"
    if step:
        return one(
            line,
            f"Do use `{step}` on line {line} instead: the lemma cannot be applied because "
            f"{why}, and `{shorten(goal.target if goal else '', 30)}` is linear arithmetic.",
        )
    if unify and goal is not None and applied:
        # Say exactly which two statements failed to match: a teacher's first question.
        return one(
            line,
            f"Do check the step on line {line}: the conclusion of `{shorten(applied, 20)}`, "
            f"`{shorten(conclusion, 24)}`, does not match the goal `{shorten(goal.target, 24)}`, "
            "so apply cannot use it. Find a hypothesis or lemma whose conclusion is the goal "
            "(`exact?` searches).",
        )
    return one(
        line,
        f"Do check that the conclusion of the lemma on line {line} matches the goal: apply "
        "could not unify them. Find a lemma whose conclusion is the goal, with `exact?`.",
    )


# A negated goal and the statement it is equivalent to, with the library's name for the ↔
# per number type (None: not in that library). Core: Nat.not_lt / Nat.not_le
# (Init/Data/Nat/Basic.lean); Mathlib: Nat.not_even_iff_odd, Nat.not_odd_iff_even
# (Mathlib/Algebra/Group/Nat/Even.lean), Int.* (Mathlib/Algebra/Group/Int/Even.lean), not_lt /
# not_le (Mathlib/Order/Defs/LinearOrder.lean).
_RESTATED = (
    ("¬Even ?n", "Odd ?n", {"ℕ": "Nat.not_even_iff_odd", "ℤ": "Int.not_even_iff_odd"}, True),
    ("¬Odd ?n", "Even ?n", {"ℕ": "Nat.not_odd_iff_even", "ℤ": "Int.not_odd_iff_even"}, True),
    ("¬?a < ?b", "?b ≤ ?a", {"ℕ": "Nat.not_lt", "ℤ": "not_lt", "ℝ": "not_lt"}, False),
    ("¬?a ≤ ?b", "?b < ?a", {"ℕ": "Nat.not_le", "ℤ": "not_le", "ℝ": "not_le"}, False),
)


def _goal_restated(
    line: int,
    applied: str,
    conclusion: str,
    goal: Goal,
    facts: list[tuple[str, str]],
    mathlib: bool,
) -> Advice | None:
    """`apply h2` with `h2 : Odd n → Odd (n ^ 2)` on the goal `¬Even (n ^ 2)`: the goal is
    the conclusion said another way; rewrite it with the library's ↔ first."""
    target = " ".join(goal.target.split()).replace("¬ ", "¬")
    for negated, positive, names, needs_mathlib in _RESTATED:
        bound = match_pattern(negated, target)
        if bound is None or needs_mathlib and not mathlib:
            continue
        restated = _filled(positive, bound)
        if not same(restated, conclusion):
            continue
        domain = evidence.domain_of_text(target, goal.variable_types())
        kind = {evidence.NAT: "ℕ", evidence.INT: "ℤ"}.get(domain, "ℝ")
        name = names.get(kind)
        if name is None or (not mathlib and not name.startswith("Nat.")):
            return None
        premises = _premises(facts, applied)
        proofs = [proofs_of(p, facts) for p in premises]
        then = (
            f"`exact {' '.join([applied, *(as_argument(p[0]) for p in proofs)])}`"
            if all(proofs)
            else f"`apply {applied}`"
        )
        return Advice(
            line,
            f"Do write `rw [{name}]` before line {line}, then {then}: the goal "
            f"`{shorten(goal.target, 24)}` says `{shorten(restated, 24)}`, the conclusion of "
            f"`{shorten(applied, 16)}`, another way.",
        )
    return None


def _filled(pattern: str, bound: dict[str, str]) -> str:
    """`?b ≤ ?a` with `?a`, `?b` bound: the statement they make (compound terms in parentheses)."""
    return re.sub(
        r"\?\w+",
        lambda m: as_argument(strip_parens(bound.get(m.group(0), m.group(0)))),
        pattern,
    )


def _premises(facts: list[tuple[str, str]], applied: str) -> list[str]:
    """The premises of the fact named `applied` (`p` and `q` of `p → q → r`)."""
    typ = dict(facts).get(applied, "")
    premises = []
    while (split := split_target(typ)).shape is Shape.IMPLIES:
        premises.append(split.left)
        typ = split.right
    return premises


def _instance(conclusion: str, target: str) -> str | None:
    """The value `v` for the conclusion's one placeholder (`?x`) that makes it `target`."""
    holes = set(re.findall(r"\?[\w'₀-₉]+", conclusion))
    if len(holes) != 1:
        return None
    hole = holes.pop()
    wanted = " ".join(target.split())
    for value in dict.fromkeys(re.findall(r"[\w'₀-₉.]+|\([^()]*\)", target)):
        if " ".join(conclusion.replace(hole, value).split()) == wanted:
            return value
    return None


def _steps_apart(line: int, applied: str, conclusion: str, target: str) -> Advice | None:
    """`hf : ∀ x, f x ≤ f (x + 1)` on the goal `f a ≤ f (a + 2)`: one application moves one
    step; the goal is two (or more) steps, so `hf` is chained with `le_trans`."""
    holes = set(re.findall(r"\?[\w'₀-₉]+", conclusion))
    if len(holes) != 1 or not applied:
        return None
    hole = holes.pop()
    step = f"{hole} + 1"
    if step not in conclusion or split_target(conclusion).op not in ("≤", "<"):
        return None
    for steps in (2,):
        shifted = re.sub(r"\s*\+\s*" + str(steps) + r"\b", " + 1", target)
        value = _instance(conclusion, shifted) if shifted != target else None
        if value is None or not re.fullmatch(r"[\w'₀-₉]+", value):
            continue
        if " ".join(
            conclusion.replace(step, f"{value} + {steps}").replace(hole, value).split()
        ) != (" ".join(target.split())):
            continue
        chain = "le_trans" if split_target(conclusion).op == "≤" else "lt_trans"
        return Advice(
            line,
            f"Do chain two steps of `{applied}` on line {line}: it moves from `x` to `x + 1` "
            f"only, and the goal goes from `{value}` to `{value} + 2`; "
            f"`{chain} ({applied} {value}) ({applied} ({value} + 1))` proves it, with "
            f"`{value} + 1 + 1` for `{value} + 2`.",
        )
    return None


_FULL_TYPE = re.compile(r"full type of `?[^`\n]*`? is\s*\n\s+([^\n]+)")


def _extra_term(
    line: int, applied: str, conclusion: str, target: str, message: str
) -> Advice | None:
    """`hf : ∀ x, 0 ≤ x → 0 ≤ f x` on `0 ≤ f 2 + 1`: the goal is the conclusion's instance
    plus an extra term, so `apply` cannot match it; the instance is a fact for linarith."""
    extra = re.fullmatch(r"(.+?)\s*\+\s*(\d+)", target.strip())
    if (
        extra is None
        or not applied
        or re.fullmatch(r"\?[\w'₀-₉]+", split_target(conclusion).right.strip())
    ):
        return None  # a bare placeholder side (`?n ≤ ?n`) takes any term: no extra term to name
    value = _instance(conclusion, extra.group(1))
    if value is None:
        return None
    why = (
        f"the goal `{shorten(target, 20)}` does not match the form of `{applied}`'s conclusion "
        f"`{shorten(conclusion, 16)}`: it has an extra `+ {extra.group(2)}`"
    )
    full = _FULL_TYPE.search(message)
    premises = _numeric_premises(full.group(1), value) if full else None
    if premises is None:
        return Advice(
            line,
            f"Do get `{applied} {value}` as a fact on line {line} and finish with linarith: {why}.",
        )
    fact = f"{applied} {value}" + " (by norm_num)" * premises
    return Advice(line, f"Do write `linarith [{fact}]` on line {line} instead: {why}.")


def _numeric_premises(full: str, value: str) -> int | None:
    """How many premises `∀ x, 0 ≤ x → …` has, when each one, at `value`, is a true numeral
    claim (`0 ≤ 2`) that `norm_num` proves; None otherwise."""
    body = re.sub(r"^∀\s*\(?([\w'₀-₉]+)(?:\s*:\s*[^),]+)?\)?\s*,\s*", "", full.strip())
    variable = re.match(r"∀\s*\(?([\w'₀-₉]+)", full.strip())
    if variable is None or body == full.strip():
        return None
    parts = [p.strip() for p in body.split("→")]
    count = 0
    for premise in parts[:-1]:
        claim = re.sub(rf"(?<![\w.']){re.escape(variable.group(1))}(?![\w'])", value, premise)
        if evidence.holds(claim, evidence.REAL) is not True:
            return None
        count += 1
    return count


def _the_other_way(
    line: int, applied: str, conclusion: str, goal: Goal, facts: list[tuple[str, str]]
) -> Advice | None:
    """`apply h` with `h : Odd (n ^ 2) → Odd n` on `Odd (n ^ 2)`: the goal is `h`'s premise,
    not its conclusion; `h` goes the other way and cannot prove the goal."""
    typ = dict(facts).get(applied, "")
    split = split_target(typ)
    if split.shape is not Shape.IMPLIES or not same(split.left, goal.target):
        return None
    if not same(split.right, conclusion):
        return None
    return Advice(
        line,
        f"Don't use `{applied}` on line {line}: it goes the other way, from "
        f"`{shorten(split.left, 16)}` to `{shorten(split.right, 16)}` (the converse of what you "
        "need), so it cannot prove the goal; prove the goal from the facts that give it.",
    )


def _split_arguments(term: str) -> list[str]:
    """`hf (a + 1) a` as `["hf", "(a + 1)", "a"]`: top-level words, brackets kept whole."""
    parts, depth, current = [], 0, ""
    for char in term.strip():
        if char == " " and depth == 0:
            if current:
                parts.append(current)
            current = ""
            continue
        depth += (char in "(⟨[") - (char in ")⟩]")
        current += char
    return [*parts, current] if current else parts


def _arguments_swapped(line: int, applied: str, conclusion: str, target: str) -> Advice | None:
    """`apply hf (a + 1) a` whose conclusion `f (a + 1) ≤ f a` is the goal `f a ≤ f (a + 1)`
    with two arguments exchanged: the same hypothesis with them in the other order."""
    words = _split_arguments(applied)
    if len(words) < 3:
        return None
    for i in range(1, len(words)):
        for j in range(i + 1, len(words)):
            a, b = words[i].strip("()"), words[j].strip("()")
            if a == b:
                continue
            marked = re.sub(rf"(?<![\w.']){re.escape(words[i])}(?![\w'])", "\x00", conclusion)
            marked = re.sub(rf"(?<![\w.']){re.escape(words[j])}(?![\w'])", words[i], marked)
            swapped = marked.replace("\x00", words[j])
            if swapped != conclusion and same(swapped, target):
                fixed = list(words)
                fixed[i], fixed[j] = words[j], words[i]
                return Advice(
                    line,
                    f"Do write `apply {' '.join(fixed)}` on line {line}: with `{words[i]}` and "
                    f"`{words[j]}` in this order the conclusion is `{shorten(conclusion, 20)}`, "
                    f"the goal with its sides exchanged; swap the two arguments.",
                )
    return None


def _conclusion_then_linarith(
    line: int,
    applied: str,
    conclusion: str,
    goal: Goal,
    facts: list[tuple[str, str]],
    message: str,
    ctx: Context,
) -> Advice | None:
    """`apply key` (`key : x ^ 2 ≤ 4 → x ≤ 2`) on `x < 3`: the conclusion is not the goal but
    the goal follows from it linearly; with its premises proved by facts in scope, the step
    is `linarith [key hx]` (checked by tutor/coach/linear.py)."""
    if not ctx.mathlib or not re.fullmatch(r"[\w'₀-₉.]+", applied):
        return None
    full = _FULL_TYPE.search(message)
    typ = " ".join(full.group(1).split()) if full else dict(facts).get(applied, "")
    proofs = []
    while (split := split_target(typ)).shape is Shape.IMPLIES:
        found = proofs_of(split.left, facts)
        if not found:
            return None
        proofs.append(as_argument(found[0]))
        typ = split.right
    if not proofs or not same(typ, conclusion):
        return None
    domain = evidence.domain_of_text(goal.target, goal.variable_types())
    plain = [t for n, t in facts if t and "✝" not in n]
    if linear.entails(goal.target, [*plain, conclusion], domain) is not True:
        return None
    term = " ".join([applied, *proofs])
    return Advice(
        line,
        f"Do write `linarith [{term}]` on line {line} instead of `apply {applied}`: its conclusion "
        f"`{shorten(conclusion, 16)}` is not the goal `{shorten(goal.target, 16)}`, but the goal "
        "follows from it by linear arithmetic.",
    )


def _conjunction_part(
    line: int, applied: str, conclusion: str, target: str, facts: list[tuple[str, str]]
) -> Advice | None:
    """`apply h` with `h : p → q ∧ r` on the goal `r`: the conclusion is a conjunction whose
    part is the goal, so the step is that part of what `h` gives (`(h hp).2`)."""
    split = split_target(conclusion)
    if split.shape is not Shape.AND:
        return None
    index = next((i for i, side in ((1, split.left), (2, split.right)) if same(side, target)), None)
    if index is None:
        return None
    which = "left (`.1`)" if index == 1 else "right (`.2`)"
    why = (
        f"the conclusion `{shorten(conclusion, 20)}` of `{applied or 'the term'}` is a "
        f"conjunction, and the goal `{shorten(target, 20)}` is its {which} component"
    )
    # The premises of the applied fact, each proved by a hypothesis, give the whole term.
    rest, arguments = dict(facts).get(applied, ""), []
    while rest and not same(rest, conclusion):
        arrow = split_target(rest)
        proofs = proofs_of(arrow.left, facts) if arrow.shape is Shape.IMPLIES else []
        if not proofs:
            return Advice(line, f"Do take one part on line {line}: {why}.")
        arguments.append(as_argument(proofs[0]))
        rest = arrow.right
    if not applied or not rest:
        return Advice(line, f"Do take one part on line {line}: {why}.")
    term = f"({applied} {' '.join(arguments)}).{index}" if arguments else f"{applied}.{index}"
    return Advice(line, f"Do write `exact {term}` on line {line} instead: {why}.")


def _by_arithmetic(line: int, goal: Goal, scene: fixes.Scene, ctx: Context) -> Advice | None:
    """`apply h1` for `a < c` with `h1 : a < b`, `h2 : b < c`: no hypothesis concludes the
    goal alone, but two chain into it (`lt_trans h1 h2`), or it follows by adding them up
    (`linarith`, `omega`), checked by tutor/coach/linear.py."""
    facts = scene.facts() + [(n, h.type) for h in goal.hypotheses for n in h.names]
    types = {n: t for n, t in facts if t}
    domain = evidence.domain_of_text(goal.target, types)
    chain = families.chain_for_goal(goal.target, facts, domain, ctx.mathlib)
    given = [t for n, t in facts if t and n != "_" and "✝" not in n]
    if chain:
        return Advice(
            line,
            f"Do write `exact {chain}` on line {line}: no single hypothesis concludes the goal "
            f"`{shorten(goal.target, 20)}`, but these two chain into it, and this lemma joins "
            "them.",
        )
    if domain == evidence.REAL and ctx.mathlib and linear.entails(goal.target, given, domain):
        tactic = "linarith"
    elif domain in (evidence.NAT, evidence.INT) and linear.omega_proves(goal.target, given, domain):
        tactic = "omega"
    else:
        return None
    return Advice(
        line,
        f"Do write `{tactic}` on line {line} instead: no hypothesis concludes the goal "
        f"`{shorten(goal.target, 20)}` by itself, but it follows by adding your hypotheses up, "
        f"which {tactic} does.",
    )


def _concluding(
    target: str, facts: list[tuple[str, str]], applied: str
) -> tuple[str, str, str] | None:
    """(name, head, term) of a hypothesis other than `applied` whose conclusion (after its
    premises) is exactly `target`: the head is it at the values the goal needs (`h a`), the
    term applies that to proofs of its premises when the facts give them, else it is the head
    alone (its premises become the new goals)."""
    for name, typ in facts:
        if name in (applied, "_") or "✝" in name or not typ:
            continue
        head = name
        if typ.startswith("∀"):  # `∀ n, P n → Q n` for the goal `Q 5`: at the value read off
            instance = _forall_at_goal(typ, target)
            if instance is None:
                continue
            values, typ = instance
            head = f"{name} {values}"
        premises, conclusion = [], typ
        while (split := split_target(conclusion)).shape in (Shape.IMPLIES, Shape.NOT):
            # `¬q` is `q → False`: on the goal `False` it applies with `q` to prove.
            premises.append(split.left if split.shape is Shape.IMPLIES else split.right)
            conclusion = split.right if split.shape is Shape.IMPLIES else "False"
        if not same(conclusion, target):
            continue
        if not premises:
            return name, head, head  # the hypothesis (at those values) is the goal itself
        proofs = [proofs_of(premise, facts) for premise in premises]
        if all(proofs):
            return name, head, " ".join([head, *(as_argument(p[0]) for p in proofs)])
        return name, head, head
    return None


def _forall_at_goal(typ: str, target: str) -> tuple[str, str] | None:
    """(`5`, `P 5 → Q 5`) for `∀ n, P n → Q n` and the goal `Q 5`: the values that make the
    ∀'s conclusion the goal, and the statement at them."""
    names = binder_names(typ)
    body = typ.split(",", 1)[1].strip() if "," in typ else ""
    if not names or not body:
        return None
    conclusion = body
    while (split := split_target(conclusion)).shape is Shape.IMPLIES:
        conclusion = split.right
    values = forall_instance(target, f"∀ {' '.join(names)}, {conclusion}")
    if values is None:
        return None
    instance = instantiate(typ, values.split())
    return (values, instance) if instance else None


def _side_failed(d: Diagnostic, ctx: Context, tactic: str) -> list[Advice]:
    """`left` / `right` on a goal that is no ∨ (their precondition: a type with exactly two
    constructors), said as such, with the step the goal's shape needs."""
    scene = scene_at(d, ctx)
    goal = goal_here(d, scene)
    line = d.line
    if goal is None:
        return one(
            line,
            f"Don't use `{tactic}` on line {line}: it works only on an ∨ goal, where it "
            "chooses a side, and this goal is not an ∨. Check its shape first.",
        )
    shape = split_target(goal.target).shape
    if shape in (Shape.AND, Shape.IFF):
        facts = scene.facts() + [(n, h.type) for h in goal.hypotheses for n in h.names]
        proofs = proofs_of(goal.target, facts)
        both = f" (here `exact {proofs[0]}`)" if proofs else ""
        return one(
            line,
            f"Do use `constructor` on line {line} instead of `{tactic}`{both}: `{tactic}` works "
            f"only on an ∨ goal, where it chooses a side, but the goal "
            f"`{shorten(goal.target, 30)}` needs both parts.",
        )
    return one(
        line,
        f"Don't use `{tactic}` on line {line}: it chooses a side of an ∨ goal, and "
        f"`{shorten(goal.target, 30)}` is not an ∨. Instead, {next_step(goal, ctx.mathlib)}.",
    )
