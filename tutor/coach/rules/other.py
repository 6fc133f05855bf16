"""Messages without a rule of their own: matched on their wording (no goals, rfl, decide,
constructor, an ∨ used as an ∧, instances, applying a non-function)."""

from __future__ import annotations

import re

from tutor.coach import evidence, fixes, linear
from tutor.coach.advice import next_step
from tutor.coach.context import proofs_of, traced_goal
from tutor.coach.goals import (
    Shape,
    shorten,
    split_target,
)
from tutor.coach.hypotheses import pattern_regex
from tutor.coach.rules.apply import constructor_failed
from tutor.coach.rules.base import (
    Advice,
    Context,
    goals_of,
    one,
)
from tutor.coach.source import statement_hypotheses
from tutor.lean.types import Diagnostic


def advise(d: Diagnostic, ctx: Context) -> list[Advice]:
    line = d.line
    lowered = " ".join(d.message.lower().replace("`", "'").split())
    first = shorten(d.message.splitlines()[0] if d.message else "", 60)
    binder = re.search(r"failed to infer (?:binder )?type(?: of binder '?([^'\s]+)'?)?", lowered)
    if binder or lowered.startswith("failed to infer"):
        # `∀ x, x + 0 = x` in a `have` or `fun x => ...` with nothing fixing `x`'s type.
        name = binder.group(1) if binder and binder.group(1) else None
        what = f"`{name}`" if name else "the variable Lean points at"
        example = f"`({name} : ℕ)`" if name else "`(x : ℕ)`"
        return one(
            line,
            f"Do give {what} a type on line {line}, for example {example} (with the type it "
            "should have): Lean cannot work it out from how it is used, so it does not know "
            "which `+`, `≤` or `0` you mean.",
        )
    if lowered.startswith("no goals"):
        step = shorten(ctx.text.line(line).strip().lstrip("·").strip(), 24)
        closer = ctx.text.last_code_line(line - 1)
        closed_by = (
            f" (`{shorten(ctx.text.line(closer).strip().lstrip('·').strip(), 20)}` on line "
            f"{closer} already closed it)"
            if closer is not None and ctx.text.indent(closer) == ctx.text.indent(line)
            else ""
        )
        return one(
            line,
            f"Don't keep the tactic on line {line} (`{step}`): the goal was already closed "
            f"before it{closed_by}, so Lean has nothing left to prove. Delete line {line}.",
        )
    if (
        "'rfl' failed" in lowered
        or "rfl tactic" in lowered
        or "not definitionally equal" in lowered
    ):
        goals = goals_of(d)
        step = next_step(goals[0], ctx.mathlib) if goals else "use `simp` or `omega` instead"
        return one(
            line,
            f"Don't use `rfl` on line {line}: the two sides are not equal by computation "
            f"alone. Instead, {step}.",
        )
    if "decide" in lowered[:40]:
        return one(
            line,
            f"Don't use `decide` on line {line}: it only evaluates closed, decidable "
            "statements. Check that the statement is true, then use `omega` or `simp`.",
        )
    if "'constructor' failed" in lowered:
        return constructor_failed(d, ctx)
    taken = _taking_apart_a_function(d, ctx)
    if taken:
        return [taken]
    if lowered.startswith("gcongr did not make progress"):
        return [_gcongr(d, ctx)]
    if "invalid field" in lowered and "or." in lowered:
        return one(
            line,
            f"Do split the disjunction on line {line} with `cases h with | inl h1 => ... | "
            "inr h2 => ...`: an `∨` hypothesis has no `.left` or `.right`, you must handle "
            "both cases.",
        )
    if "'apply' failed" in lowered or "failed to unify" in lowered:
        return one(
            line,
            f"Do check that the conclusion of the lemma on line {line} matches the goal: "
            "apply could not unify them. Rewrite the goal first, or find a fitting lemma "
            "with `exact?`.",
        )
    if "binders" in lowered or "introN" in d.message:
        return one(
            line,
            f"Don't introduce more names on line {line} than the goal has ∀ or → binders; "
            "check the goal first and use `intro` only for what is there.",
        )
    if "failed to synthesize" in lowered:
        return one(
            line,
            f"Do give the numbers on line {line} an explicit type, such as `(2 : ℝ)`: Lean "
            f"could not find an instance it needs ({first}).",
        )
    if "function expected" in lowered:
        turned = _function_expected(d, ctx)
        if turned:
            return [turned]
        return one(
            line,
            f"Do check what you apply on line {line}: only a hypothesis of ∀ or → shape can "
            "be applied to arguments, and this term is not a function.",
        )
    return one(
        line,
        f"Do fix line {line}: Lean reports '{first}'. Look at the goal just before this line "
        "and choose a step that fits its shape.",
    )


_FUNCTION_EXPECTED = re.compile(
    r"Function expected at\s+(?P<head>.+?)\s+but this term has type\s+(?P<type>.+?)"
    r"(?:\s+Note: Expected a function because this term is being applied to the argument"
    r"\s+(?P<arg>.+?))?\s*$",
    re.S,
)


def _function_expected(d: Diagnostic, ctx: Context) -> Advice | None:
    """`hp hpq` with `hp : p`: a fact is applied as if it were a function. When the facts in
    scope build the goal (here `hpq hp`, the application the other way round), say so."""
    match = _FUNCTION_EXPECTED.search(d.message)
    if not match:
        return None
    head = " ".join(match.group("head").split())
    facts = fixes.Scene(ctx.statement, ctx.text, d.line).facts()
    goal = traced_goal(ctx.statement, ctx.text, d.line)
    source = ctx.text.line(d.line).strip()
    if goal is not None and source.startswith("exact "):
        proofs = proofs_of(goal, facts)
        if proofs:
            return Advice(
                d.line,
                f"Do write `exact {proofs[0]}` on line {d.line}: `{shorten(head, 16)}` proves "
                f"`{shorten(match.group('type').strip(), 20)}`, which is not a function, so it "
                "cannot take an argument; the function is the one whose premise it proves.",
            )
    argument = " ".join((match.group("arg") or "").split())
    direction = _iff_applied(d, match.group("type"), head, argument, facts)
    if direction:
        return direction
    pair = split_target(" ".join(match.group("type").split()))
    if pair.shape is Shape.AND and re.fullmatch(r"[\w'₀-₉]+", head):
        # `h x` with `h : x > 0 ∧ x < 5`: an ∧ is a pair of proofs, not a function; its parts
        # are `h.1` and `h.2`, and the one whose statement is needed replaces `h x`.
        return Advice(
            d.line,
            f"Do use `{head}.1` (`{shorten(pair.left.strip(), 16)}`) or `{head}.2` "
            f"(`{shorten(pair.right.strip(), 16)}`) on line {d.line} instead of applying "
            f"`{head}` to `{shorten(argument, 10)}`: `{head}` is an ∧, a pair of proofs, not a "
            "function.",
        )
    exists = re.match(r"∃\s*([\w'₀-₉]+)", " ".join(match.group("type").split()))
    if exists and argument:
        # `h ε hε 3` where `h ε hε : ∃ N, ...`: an ∃ is a witness and its proof, not a
        # function; `obtain` takes it apart, and the witness is then `N`, not a number chosen.
        witness = exists.group(1)
        return Advice(
            d.line,
            f"Do take `{shorten(head, 16)}` apart before line {d.line} with `obtain "
            f"⟨{witness}, h{witness}⟩ := {head}`: it proves an ∃, which is not a function and "
            f"cannot be applied to `{shorten(argument, 10)}`; then use `{witness}` and "
            f"`h{witness}`.",
        )
    if " " in head and argument and not head.startswith("("):
        # `h 2 3` with `h : ∀ x, f x > x`: `h 2` is already the whole fact, a proposition,
        # so the argument after it has nothing to go into.
        return Advice(
            d.line,
            f"Do drop the extra argument `{shorten(argument, 12)}` on line {d.line}: "
            f"`{shorten(head, 16)}` already proves `{shorten(match.group('type').strip(), 20)}`, "
            f"which is not a ∀ or →, so `{head.split()[0]}` takes no more arguments after "
            f"{'it' if len(head.split()) == 2 else 'them'}.",
        )
    return None


def _iff_applied(
    d: Diagnostic, typ: str, head: str, argument: str, facts: list[tuple[str, str]]
) -> Advice | None:
    """`Nat.lt_iff_add_one_le h`: an ↔ is no function; `.mpr h` when `h` states its right side,
    `.mp h` its left (sides matched as patterns, `?m` any term)."""
    split = split_target(" ".join(typ.split()))
    if split.shape is not Shape.IFF or not argument:
        return None
    stated = dict(facts).get(argument)
    if not stated:
        return None
    for side, field in ((split.right, "mpr"), (split.left, "mp")):
        regex = pattern_regex(side.strip())
        if regex and regex.fullmatch(" ".join(stated.split())):
            lemma = head if re.fullmatch(r"[\w'₀-₉.]+", head) else f"({head})"
            return Advice(
                d.line,
                f"Do write `{lemma}.{field} {argument}` on line {d.line}: `{shorten(head, 24)}` is "
                f"an ↔, not a function; `.{field}` is its direction from "
                f"`{shorten(side.strip(), 20)}`, which `{argument}` states.",
            )
    return None


# Lean's rcases: "rcases tactic failed: {e} : {type} is not an inductive datatype".
_NOT_INDUCTIVE = re.compile(
    r"rcases(?: tactic failed)?:\s*(?:The type\s+|(?P<name>[^\s:]+)\s*:\s*)(?P<type>.+?)"
    r"\s+is not an inductive datatype",
    re.DOTALL,
)


def _taking_apart_a_function(d: Diagnostic, ctx: Context) -> Advice | None:
    """`obtain ⟨x, hx⟩ := h` on `h : ∀ x, P x` (or an implication): a ∀ has no parts to take
    apart; it is used by applying it to a value (`h 3`), after which it says `P 3`."""
    found = _NOT_INDUCTIVE.search(d.message)
    if not found:
        return None
    typ = " ".join(found.group("type").split())
    shape = split_target(typ).shape
    if shape not in (Shape.FORALL, Shape.IMPLIES):
        return None
    source = ctx.text.line(d.line)
    named = re.search(r":=\s*([\w'₀-₉.]+)\s*$", source.split("--", 1)[0]) or re.search(
        r"\b(?:rcases|cases)\s+([\w'₀-₉.]+)", source
    )
    name = found.group("name") or (named.group(1) if named else "h")
    what = "a ∀" if shape is Shape.FORALL else "an implication"
    use = "a value" if shape is Shape.FORALL else "a proof of its premise"
    return Advice(
        d.line,
        f"Do apply `{name}` to {use} instead of taking it apart on line {d.line} (`have h1 := "
        f"{name} a`, or `{name} a` inside `rw`, `simp` or `exact`): `{shorten(typ, 30)}` is "
        f"{what}, with no parts to split.",
    )


def _gcongr(d: Diagnostic, ctx: Context) -> Advice:
    """`gcongr did not make progress`: the two sides do not share a shape differing in one
    place (`a + 1 ≤ 1 + b`); when the goal follows linearly, the tactic that proves it."""
    goal = traced_goal(ctx.statement, ctx.text, d.line)
    facts = fixes.Scene(ctx.statement, ctx.text, d.line).facts()
    domain = evidence.domain_of_text(goal or "", dict(statement_hypotheses(ctx.statement)))
    closer = linear.closer(goal, facts, domain, ctx.mathlib) if goal else None
    if closer:
        return Advice(
            d.line,
            f"Do use `{closer}` on line {d.line} instead of `gcongr`: the two sides of "
            f"`{shorten(goal or '', 24)}` are not the same expression with one part changed, "
            f"which gcongr needs, and the goal follows by adding up your hypotheses.",
        )
    return Advice(
        d.line,
        f"Do rewrite the goal so both sides have the same shape before `gcongr` on line "
        f"{d.line}: gcongr needs the two sides to be one expression differing in the parts to "
        "compare (`a + c ≤ b + c`), in the same order.",
    )
