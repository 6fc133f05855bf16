"""`simp made no progress`: none of simp's lemmas rewrote the goal."""

from __future__ import annotations

import re

from tutor.coach import context, evidence, fixes, hypotheses, linear
from tutor.coach.algebra import ac_step_inside
from tutor.coach.goals import (
    Goal,
    Shape,
    shorten,
    split_target,
)
from tutor.coach.rewriting import closes_by_computation, rewrites
from tutor.coach.rules.base import (
    Advice,
    Context,
    definitions,
    goal_here,
    one,
    scene_at,
)
from tutor.coach.source import AttemptText
from tutor.lean.types import Diagnostic


def advise(d: Diagnostic, ctx: Context) -> list[Advice]:
    line = d.line
    tactic = shorten(ctx.text.line(line).strip(), 30) or "simp"
    scene = scene_at(d, ctx)
    meant = _meant_for_hypothesis(d, ctx, scene)
    if meant:
        return [meant]
    premise = _premise_in_context(d, ctx, scene)
    if premise:
        return [premise]
    early = goal_here(d, scene)
    unlisted = _with_hypothesis(early, scene, tactic) if early is not None else None
    plain = ctx.text.line(line).split("--", 1)[0].strip().lstrip("·").strip() in (
        "simp",
        "norm_num",
    )
    named = re.search(r"`simp \[([\w'₀-₉]+)\]`", unlisted or "")
    later = " ".join(ctx.text.line(n) for n in range(line + 1, ctx.text.n_lines + 1))
    linear_closer = (
        linear.closer(
            early.target,
            scene.facts() + [(n, h.type) for h in early.hypotheses for n in h.names],
            evidence.domain_of_text(
                early.target, {**scene.variable_types(), **early.variable_types()}
            ),
            ctx.mathlib,
        )
        if early is not None
        else None
    )
    # When the goal follows by adding up the facts, that tactic (below) is the fix, not simp.
    if unlisted and plain and named and not linear_closer and not _mentions(later, named.group(1)):
        # A hypothesis rewrites the goal but simp was not given it, and no later step uses it:
        # listing it, not removing simp, is the fix.
        return one(line, unlisted.replace("{line}", str(line)))
    if _starts_with_simp(ctx.text.line(line)) and _later_step_in_block(ctx.text, line):
        # No progress means the goal after this line is the goal before it: the steps that
        # follow see exactly what they would without it, so removing it is the whole fix here.
        return one(
            line,
            f"Don't keep `{tactic}` on line {line}: it does nothing here (no progress) and only "
            "stops the proof: remove it, and the next steps see the goal as it is.",
        )
    goal = goal_here(d, scene)
    step = fixes.closing_step(goal.target, scene, goal.hypotheses) if goal else None
    if goal is not None and step:
        return one(
            line,
            f"Don't keep `{tactic}` on line {line}: it made no progress on "
            f"`{shorten(goal.target, 30)}`. Use `{step}` there instead, which proves it "
            "directly.",
        )
    if goal is not None:
        facts = scene.facts() + [(n, h.type) for h in goal.hypotheses for n in h.names]
        types = {**scene.variable_types(), **goal.variable_types()}
        domain = evidence.domain_of_text(goal.target, types)
        closer = linear.closer(goal.target, facts, domain, ctx.mathlib)
        if closer:
            return one(
                line,
                f"Do use `{closer}` on line {line} instead of `{tactic}`: the goal "
                f"`{shorten(goal.target, 30)}` follows by adding up your hypotheses, which "
                f"{closer} does and simp does not.",
            )
    defined = [n for n in definitions(ctx) if goal is not None and _mentions(goal.target, n)]
    if defined:
        head = "norm_num" if tactic.startswith("norm_num") else "simp"
        return one(
            line,
            f"Do write `{head} [{defined[0]}]` on line {line}: `{defined[0]}` is a `def` of the "
            f"exercise, and {head} unfolds a definition only when you list it.",
        )
    if goal is not None:
        listed = _with_hypothesis(goal, scene, tactic)
        if listed:
            return one(line, listed.replace("{line}", str(line)))
        built = _built_from_facts(goal, scene)
        if built:
            return one(line, built.replace("{line}", str(line)))
        denominator = _nonzero_denominator(goal, scene) if ctx.mathlib else None
        if denominator:
            return one(line, denominator.replace("{line}", str(line)))
        inside = ac_step_inside(goal.target, ctx.mathlib)
        if inside:
            return one(
                line,
                f"Do write `{inside}` on line {line} instead of `{tactic}`: the two sides of "
                f"`{shorten(goal.target, 30)}` differ only in the order of a sum or product "
                "inside, and simp does not reorder terms (commutativity is not a simp lemma).",
            )
    only = re.fullmatch(r"simp only \[([^\],]+)\]", ctx.text.line(line).strip())
    if only:
        # `simp only [L]` with one lemma and no progress: L's left-hand side is nowhere in it.
        lemma = only.group(1).strip()
        return one(
            line,
            f"Don't keep `{tactic}` on line {line}: the lemma `{lemma}` does not apply here, "
            "since its left-hand side does not occur in the goal (simp made no progress). "
            "Choose a lemma about what the goal does contain.",
        )
    return one(
        line,
        f"Don't keep `{tactic}` on line {line}: simp made no progress, so none of its simp "
        "lemmas apply here. List in brackets what it needs (a hypothesis, or a `def` of the "
        "exercise), or find the lemma for this goal with `exact?`.",
    )


def _meant_for_hypothesis(d: Diagnostic, ctx: Context, scene: fixes.Scene) -> Advice | None:
    """A plain `simp` that made no progress on the goal while a hypothesis holds what simp's
    basic lemmas rewrite (`h : 0 + n = 5`): it was meant for `h`; `simpa using h` when the
    simplified `h` is the goal."""
    source = ctx.text.line(d.line).split("--", 1)[0].strip().lstrip("·").strip()
    if not re.fullmatch(r"simp( only \[[^\]]*\])?", source):
        return None
    goal = goal_here(d, scene)
    if goal is None:
        return None
    facts = scene.facts() + [(n, h.type) for h in goal.hypotheses for n in h.names]
    found = hypotheses.simp_target(goal.target, list(dict.fromkeys(facts)))
    if found is None:
        return None
    name, simplified, closes = found
    if closes:
        return Advice(
            d.line,
            f"Do write `simpa using {name}` on line {d.line}: simp found nothing to change in the "
            f"goal, but `{name}` simplifies to `{shorten(simplified, 24)}`, which is the goal.",
        )
    return Advice(
        d.line,
        f"Do write `{source} at {name}` on line {d.line}: simp found nothing to change in the "
        f"goal, but `{name}` simplifies (to `{shorten(simplified, 24)}`), and without `at` simp "
        "works only on the goal.",
    )


def _with_hypothesis(goal: Goal, scene: fixes.Scene, tactic: str) -> str | None:
    """`simp [hf]` when a hypothesis rewrites the goal: simp (and norm_num) use hypotheses
    only when listed. Said as the fix when the rewritten goal is true by computation."""
    facts = scene.facts() + [(n, h.type) for h in goal.hypotheses for n in h.names]
    found = rewrites(facts, goal.target)
    if not found:
        return None
    types = {**scene.variable_types(), **goal.variable_types()}
    domain = evidence.domain_of_text(goal.target, types)
    head = "norm_num" if tactic.startswith("norm_num") else "simp"
    closing = [r for r in found if closes_by_computation(r, domain)]
    if closing:
        name = closing[0].name
        return (
            f"Do write `{head} [{name}]` on line {{line}}: {head} uses a hypothesis only when you "
            f"list it, and `{name}` turns the goal into `{shorten(closing[0].target, 30)}`, "
            "which it then computes."
        )
    name = found[0].name
    return (
        f"Do list the hypothesis {head} needs: try `{head} [{name}]` on line {{line}}; {head} "
        f"never uses hypotheses unless you list them, and `{name}` rewrites part of the goal "
        f"`{shorten(goal.target, 30)}`."
    )


def _built_from_facts(goal: Goal, scene: fixes.Scene) -> str | None:
    """`simp` on `p ∧ q` with `hp : p`, `hq : q` in scope: the goal is built from the
    hypotheses, which simp never uses unless they are listed; the term that builds it."""
    facts = scene.facts() + [(n, h.type) for h in goal.hypotheses for n in h.names]
    proofs = context.proofs_of(goal.target, facts)
    if not proofs:
        return None
    proof = proofs[0]
    names = [n for n, _ in facts if re.search(rf"(?<![\w.']){re.escape(n)}(?![\w'])", proof)]
    if not names:
        return None
    listed = ", ".join(dict.fromkeys(names))
    return (
        f"Do write `exact {proof}` on line {{line}} (or `simp [{listed}]`): simp does not use "
        f"your hypotheses unless you list them, and the goal `{shorten(goal.target, 30)}` is "
        "built from them."
    )


def _nonzero_denominator(goal: Goal, scene: fixes.Scene) -> str | None:
    """`x / x = 1` with `hx : x ≠ 0`: simp cannot cancel a denominator it does not know is
    nonzero; `div_self hx` is the fact, `field_simp` the tactic that uses `hx`."""
    facts = scene.facts() + [(n, h.type) for h in goal.hypotheses for n in h.names]
    for name, typ in facts:
        nonzero = re.fullmatch(r"\s*(.+?)\s*≠\s*0\s*", typ or "")
        if nonzero is None or "✝" in name:
            continue
        e = nonzero.group(1)
        atom = e if re.fullmatch(r"[\w'₀-₉]+", e) else f"({e})"
        if not re.search(rf"/\s*{re.escape(atom)}(?![\w'])", goal.target):
            continue
        if context.same(goal.target, f"{atom} / {atom} = 1"):
            return (
                f"Do write `exact div_self {name}` on line {{line}}: `{atom} / {atom} = 1` holds "
                f"only because `{name}` says `{e} ≠ 0`, which simp does not use unless told."
            )
        return (
            f"Do use `field_simp` on line {{line}} instead: it clears the denominator `{e}` using "
            f"`{name} : {e} ≠ 0`, which simp does not, and leaves an equation without division."
        )
    return None


def _starts_with_simp(source: str) -> bool:
    return re.match(r"^\s*(?:simp|dsimp|simp_all|norm_num|simp_arith)\b", source) is not None


def _later_step_in_block(text: AttemptText, line: int) -> bool:
    """True when a tactic follows `line` in the same block (same indent, not a new bullet)."""
    base = text.indent(line)
    for number in range(line + 1, text.n_lines + 1):
        if not text.is_code(number):
            continue
        code = text.line(number).strip()
        return text.indent(number) == base and not code.startswith(("·", "|", "case ", "next"))
    return False


def _mentions(text: str, name: str) -> bool:
    return re.search(rf"(?<![\w.']){re.escape(name)}(?![\w'])", text) is not None


def _premise_in_context(d: Diagnostic, ctx: Context, scene: fixes.Scene) -> Advice | None:
    """`simp at h` with `h : p → q` and `hp : p` in scope: simp does not use `hp` unless told,
    so `h` stays; `h hp` proves `q` (the goal, when it is), else `simp [hp] at h`. With
    `h : a = b` for the goal `b = a`, simp has nothing to do: `h.symm` is the goal."""
    written = re.fullmatch(r"simp at ([\w'₀-₉]+)", ctx.text.line(d.line).strip())
    if written is None:
        return None
    name = written.group(1)
    facts = scene.facts()
    typ = dict(facts).get(name, "")
    split = split_target(typ)
    goal = context.traced_goal(ctx.statement, ctx.text, d.line)
    wanted = split_target(goal) if goal else None
    if (
        split.shape is Shape.EQ
        and wanted is not None
        and wanted.shape is Shape.EQ
        and context.same(split.left, wanted.right)
        and context.same(split.right, wanted.left)
        and not context.same(split.left, split.right)
    ):
        # `h : a = b` for the goal `b = a`: nothing for simp to do to `h`; read backwards, it
        # is the goal.
        return Advice(
            d.line,
            f"Do write `exact {name}.symm` on line {d.line} instead of `simp at {name}`: "
            f"`{name} : {shorten(typ, 24)}` is the goal read backwards (the sides swapped), "
            "and `.symm` reverses it; simp had nothing to simplify.",
        )
    if split.shape is not Shape.IMPLIES:
        return None
    proof = next((n for n, t in facts if n != name and context.same(t, split.left)), None)
    if proof is None:
        return None
    why = (
        f"`simp at {name}` does not use your hypothesis `{proof}`, so it cannot simplify "
        f"`{name} : {shorten(typ, 24)}`"
    )
    if goal is not None and context.same(goal, split.right):
        return Advice(
            d.line,
            f"Do write `exact {name} {proof}` on line {d.line}: {why}; `{name} {proof}` "
            "proves the goal.",
        )
    return Advice(d.line, f"Do write `simp [{proof}] at {name}` on line {d.line}: {why}.")
