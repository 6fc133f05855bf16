"""`intro` failed: the goal has fewer ∀/→ binders than the names given."""

from __future__ import annotations

import re

from tutor.coach import evidence, fixes, linear
from tutor.coach.advice import binder_names, next_step
from tutor.coach.goals import (
    Shape,
    shorten,
    split_target,
)
from tutor.coach.rules.base import (
    Advice,
    Context,
    goals_of,
    one,
    scene_at,
)
from tutor.lean.types import Diagnostic


def advise(d: Diagnostic, ctx: Context) -> list[Advice]:
    scene = scene_at(d, ctx)
    goal = fixes.goal_at_first_step(scene)
    line = d.line
    extra = _too_many_names(d, ctx)
    if extra is not None:
        return [extra]
    if goal is None:
        return one(
            line,
            f"Don't introduce more names on line {line} than the goal has ∀ or → binders: "
            "`intro` only works on an implication or a ∀. Check the goal's shape first.",
        )
    split = split_target(goal.target)
    if split.shape is Shape.AND or split.shape is Shape.IFF:
        what = "∧" if split.shape is Shape.AND else "↔"
        return one(
            line,
            f"Do use `constructor` on line {line} instead of `intro`: the goal "
            f"`{shorten(goal.target, 30)}` is an {what}, not an implication, so split it "
            "and prove each part in its own `·` block.",
        )
    taken = _hypothesis_to_take_apart(ctx, line, scene)
    if taken is not None:
        return [taken]
    if split.shape is Shape.EXISTS:
        values = evidence.witness(goal.target, evidence.domain_of_text(ctx.statement))
        if values:
            step = ("use " if ctx.mathlib else "exists ") + ", ".join(values)
            return one(
                line,
                f"Do give the witness with `{step}` on line {line} instead of `intro`: the goal "
                f"`{shorten(goal.target, 30)}` is an ∃, so you choose the value, and "
                f"{' and '.join(values)} makes the property true.",
            )
        domain = evidence.domain_of_text(ctx.statement)
        term = linear.witness_term(goal.target, domain)
        tactic = "use" if ctx.mathlib else "exists"
        if term:
            return one(
                line,
                f"Do give the witness with `{tactic} {term}` on line {line} instead of `intro`: "
                f"the goal `{shorten(goal.target, 30)}` is an ∃, so you choose the value; this "
                "one works whatever the other variables are.",
            )
        return one(
            line,
            f"Do give a witness on line {line} with `{tactic} w` or `refine ⟨w, ?_⟩` instead "
            f"of `intro`: the goal `{shorten(goal.target, 30)}` is an ∃, so you choose the value.",
        )
    if split.shape is Shape.EQ and _is_set_equality(goal.target, scene) and ctx.mathlib:
        name = (ctx.text.line(line).split() + ["x"])[1]
        name = name if name.isidentifier() else "x"
        return one(
            line,
            f"Do write `ext {name}` on line {line} instead of `intro`: the goal "
            f"`{shorten(goal.target, 30)}` is an equality of sets, not an implication, and "
            f"`ext {name}` (extensionality) turns it into `{name} ∈ … ↔ {name} ∈ …`.",
        )
    source = ctx.text.line(line).strip().split()
    premises = _count_binders(goal.target)
    if source and source[0] == "intro" and premises and len(source) - 1 > premises:
        keep = " ".join(source[1 : 1 + premises])
        return one(
            line,
            f"Do write `intro {keep}` on line {line}: the goal `{shorten(goal.target, 30)}` has "
            f"only {premises} premise{'s' if premises > 1 else ''} to introduce, not "
            f"{len(source) - 1}.",
        )
    return one(
        line,
        f"Don't use `intro` on line {line}: the goal `{shorten(goal.target, 30)}` is not an "
        f"implication or ∀. Instead, {next_step(goal, ctx.mathlib)}.",
    )


def _count_binders(target: str) -> int:
    count = 0
    while True:
        split = split_target(target)
        if split.shape is Shape.IMPLIES:
            count += 1
            target = split.right
        elif split.shape is Shape.FORALL:
            count += max(1, len(binder_names(target)))
            target = target.split(",", 1)[1] if "," in target else ""
        else:
            return count


def _too_many_names(d: Diagnostic, ctx: Context) -> Advice | None:
    """`intro x hx hy` where Lean's message shows `x` and `hx` already in the context and a goal
    with nothing left to introduce: the names after those are too many (the goal Lean printed
    is what remains after the intros that worked)."""
    words = ctx.text.line(d.line).split("--", 1)[0].strip().lstrip("·").split()
    goals = goals_of(d)
    if len(words) < 3 or words[0] not in ("intro", "intros") or not goals:
        return None
    names = words[1:]
    present = {n for h in goals[0].hypotheses for n in h.names}
    done = 0
    while done < len(names) and names[done] in present:
        done += 1
    if done == 0 or done == len(names):
        return None
    kept, dropped = " ".join(names[:done]), ", ".join(f"`{n}`" for n in names[done:])
    many = "one name" if len(names) - done == 1 else f"{len(names) - done} names"
    return Advice(
        d.line,
        f"Do write `intro {kept}` on line {d.line}: after those the goal is "
        f"`{shorten(goals[0].target, 30)}`, with no ∀ or → left (there was only "
        f"{'one binder' if done == 1 else f'{done} binders'} to introduce), so {dropped} "
        f"{'is' if len(names) - done == 1 else 'are'} {many} too many: remove "
        f"{'it' if len(names) - done == 1 else 'them'}.",
    )


def _is_set_equality(target: str, scene: fixes.Scene) -> bool:
    """Both sides are sets: built with `∩`, `∪`, `\\`, `ᶜ`, or variables declared `Set …`."""
    if re.search(r"[∩∪ᶜ]|\s\\\s", target):
        return True
    sets = {n for n, t in scene.hypotheses if t.startswith(("Set ", "Finset "))}
    split = split_target(target)
    return bool(sets) and {split.left.strip(), split.right.strip()} <= sets


def _hypothesis_to_take_apart(ctx: Context, line: int, scene: fixes.Scene) -> Advice | None:
    """`intro n hn` on a goal with no binder while a hypothesis `h : ∃ n, P n` (or an ∧) is
    what the names were meant for: `intro` works on the goal; a hypothesis is taken apart
    with `obtain`."""
    words = ctx.text.line(line).split("--", 1)[0].strip().lstrip("·").split()
    if len(words) < 3 or words[0] not in ("intro", "rintro"):
        return None
    names = [w for w in words[1:] if re.fullmatch(r"[\w'₀-₉]+", w)]
    pairs = [
        (n, t)
        for n, t in scene.facts()
        if t and split_target(t).shape in (Shape.EXISTS, Shape.AND) and "✝" not in n
    ]
    if len(pairs) != 1 or len(names) != 2:
        return None
    fact = pairs[0][0]
    return Advice(
        line,
        f"Do write `obtain ⟨{', '.join(names)}⟩ := {fact}` on line {line} instead of "
        f"`{words[0]}`: `{words[0]}` works on the goal's ∀ and →, and the goal has none; the "
        f"names are for the parts of the hypothesis `{fact}`, which `obtain` takes apart.",
    )
