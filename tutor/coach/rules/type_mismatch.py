"""`type mismatch` / `application type mismatch`: a term proves something other than what its
position needs. The message's three parts (term, its type, the expected type) decide the fix."""

from __future__ import annotations

import re

from tutor.coach import evidence, families, fixes, lemmas, linear
from tutor.coach.context import facts_in_scope, instantiate, nat_value, proofs_of, same, traced_goal
from tutor.coach.goals import (
    Shape,
    Split,
    shorten,
    split_target,
    strip_parens,
)
from tutor.coach.rules.base import (
    Advice,
    Context,
    one,
    projected,
    scene_at,
    strip_sort,
    witness_step,
)
from tutor.lean.messages import Mismatch, mismatch_parts
from tutor.lean.types import Diagnostic


def advise(d: Diagnostic, ctx: Context) -> list[Advice]:
    line = d.line
    parts = mismatch_parts(d.message)
    if not parts:
        return one(
            line,
            f"Do make the term on line {line} have the type Lean expects: read both types "
            "in the message and rewrite the term or the goal until they agree.",
        )
    term = shorten(parts.term, 30)
    has, want = strip_sort(parts.has), strip_sort(parts.expected)
    has_split, want_split = split_target(has), split_target(want)
    if (
        has_split.shape is Shape.EQ
        and want_split.shape is Shape.EQ
        and has_split.left.strip() == want_split.right.strip()
        and has_split.right.strip() == want_split.left.strip()
    ):
        swapped = _swapped_arguments(parts.term, has, want)
        if swapped:
            return one(
                line,
                f"Do write `exact {swapped}` on line {line}: the arguments of "
                f"`{parts.term.split()[0]}` are in the wrong order; with them swapped it "
                f"proves `{shorten(want, 40)}`, the goal.",
            )
        return one(
            line,
            f"Do use `{projected(term)}.symm` on line {line}: `{term}` proves `{shorten(has, 40)}`, but "
            f"the goal is `{shorten(want, 40)}`, the same equation read backwards.",
        )
    for special in (
        _wrong_instance(parts, d, ctx),
        _other_side_of_or(parts, d, ctx),
        _mirrored_lemma(parts, d, ctx),
        _one_intro_short(parts, d, ctx),
        _bool_equality(parts, d),
        _forall_body(parts, d, ctx),
        _composition_order(parts, d, ctx),
    ):
        if special:
            return [special]
    if (
        want_split.shape is Shape.EQ
        and "?" not in want
        and same(want_split.left, want_split.right)
        and term != "rfl"
    ):
        # `some n = some n`: both sides are the same term, so `rfl` is the whole proof.
        source = ctx.text.line(line).split("--", 1)[0]
        spot = list(re.finditer(rf"(?<![\w.']){re.escape(parts.term.strip())}(?![\w'])", source))
        fixed = (
            (source[: spot[0].start()] + "rfl" + source[spot[0].end() :])
            .strip()
            .lstrip("·")
            .strip()
            if len(spot) == 1
            else "rfl"
        )
        return one(
            line,
            f"Do write `{shorten(fixed, 40)}` on line {line}: this position needs "
            f"`{shorten(want, 30)}`, whose two sides are the same, which `rfl` proves; `{term}` "
            f"proves `{shorten(has, 24)}` instead.",
        )
    if term == "rfl" and want_split.shape is Shape.EQ and _numeric(want):
        witness = _witness_for(d, ctx)
        if witness:
            return one(
                line,
                f"Do write `exact {witness}` on line {line}: with your witness the property "
                f"becomes `{shorten(want, 30)}`, which is false, and this witness makes it true.",
            )
        return one(
            line,
            f"Do check the numbers on line {line}: `{shorten(want, 40)}` is false, so `rfl` "
            "cannot prove it. Choose a different witness or value so that both sides agree.",
        )
    calc_step = _calc_missing_step(term, has_split, want_split, d, ctx) or _calc_relation(
        term, has_split, want_split, d, ctx
    )
    if calc_step:
        return [calc_step]
    if want_split.shape is Shape.AND and has.strip() in (
        want_split.left.strip(),
        want_split.right.strip(),
    ):
        return one(
            line,
            f"Do prove both halves of `{shorten(want, 40)}` on line {line}: `{term}` gives only "
            "one. Use `constructor` with one `·` block per half, or `exact ⟨_, _⟩` with both "
            "proofs.",
        )
    relative = _lemma_relative(parts, d, ctx)
    if relative:
        return [relative]
    related = _relatives(parts, d, ctx)
    if related:
        return related
    found = fixes.type_mismatch(d.message, scene_at(d, ctx))
    if found:
        return [Advice(at, text) for at, text in found]
    built = _built_argument(parts, d, ctx)
    if built:
        return [built]
    whole = _whole_step_by_arithmetic(d, ctx) or _whole_step_from_facts(parts, d, ctx)
    if whole:
        return [whole]
    stated = (
        _other_projection(parts, d, ctx)
        or _lemma_stating(parts, d, ctx)
        or _witness_too_small(parts, d, ctx)
        or _bounded_from_unbounded(parts, d)
    )
    if stated:
        return [stated]
    # Unsure: name no tactic (a wrong concrete fix is worse than none).
    return one(
        line,
        f"Do compare the two types on line {line}: `{term}` proves `{shorten(has, 40)}`, but "
        f"this position needs `{shorten(want, 40)}`. Look for a hypothesis or lemma that "
        "states exactly the needed fact; `exact?` can search for one.",
    )


_PROJECTED = re.compile(r"^\(?(?P<base>.+?)\)?\.(?P<side>1|2|left|right)$")


def _other_projection(parts: Mismatch, d: Diagnostic, ctx: Context) -> Advice | None:
    """`(abs_lt.mp h).2` where `-2 < x` is needed: the term's ∧ (a fact in scope, or a table
    lemma applied to one) has the needed fact as its other half: the other projection."""
    found = _PROJECTED.match(parts.term.strip())
    if found is None:
        return None
    base, side = found.group("base").strip(), found.group("side")
    facts = dict(scene_at(d, ctx).facts())
    typ = facts.get(base)
    applied = re.fullmatch(r"([\w.']+)\s+([\w'₀-₉]+)", base)
    if typ is None and applied and applied.group(2) in facts:
        typ = lemmas.forward(applied.group(1), facts[applied.group(2)])
    split = split_target(typ or "")
    if split.shape is not Shape.AND:
        return None
    other_half, other = (split.left, ".1") if side in ("2", "right") else (split.right, ".2")
    if not same(other_half, strip_sort(parts.expected)):
        return None
    fixed = f"({base}){other}" if " " in base else f"{base}{other}"
    which = "first (left)" if other == ".1" else "second (right)"
    return Advice(
        d.line,
        f"Do write `exact {fixed}` on line {d.line}: `{shorten(base, 20)}` proves "
        f"`{shorten(split.left, 12)} ∧ {shorten(split.right, 12)}`, and the needed "
        f"`{shorten(strip_sort(parts.expected), 12)}` is its {which} component.",
    )


_BOUNDED = re.compile(r"^∀\s*([\w'₀-₉]+)\s*∈\s*([^,]+),\s*(.+)$")
_UNBOUNDED = re.compile(r"^∀\s*\(?([\w'₀-₉]+)(?:\s*:\s*[^,)]+)?\)?\s*,\s*(.+)$")


def _bounded_from_unbounded(parts: Mismatch, d: Diagnostic) -> Advice | None:
    """`exact hf` with `hf : ∀ i, 0 ≤ f i` where `∀ i ∈ s, 0 ≤ f i` is taken: the bounded ∀
    also takes the membership proof, which `hf` has no use for: `fun i _ => hf i`."""
    bounded = _BOUNDED.match(" ".join(strip_sort(parts.expected).split()))
    unbounded = _UNBOUNDED.match(" ".join(strip_sort(parts.has).split()))
    term = parts.term.strip()
    if bounded is None or unbounded is None or not re.fullmatch(r"[\w'₀-₉.]+", term):
        return None
    var, _, body = bounded.groups()
    other, other_body = unbounded.groups()
    renamed = re.sub(rf"(?<![\w.']){re.escape(other)}(?![\w'])", var, other_body)
    if " ".join(renamed.split()) != " ".join(body.split()):
        return None
    fixed = f"fun {var} _ => {term} {var}"
    return Advice(
        d.line,
        f"Do write `exact {fixed}` on line {d.line}: the needed `∀ {var} ∈ …` also passes a "
        f"proof that `{var}` is in the set, which `{term}` does not take, so take it and "
        "leave it unused.",
    )


def _witness_too_small(parts: Mismatch, d: Diagnostic, ctx: Context) -> Advice | None:
    """`refine ⟨n, ?_⟩` then `exact hn` (`hn : n > 5`) where `n > 6` is needed: the needed
    fact is the ∃'s property at the witness, and a nearby witness (`n + 1`) makes it follow
    from the facts (checked by tutor/coach/linear.py); the fix goes where the witness was."""
    step = witness_step(ctx, d.line - 1)
    if step is None or len(step.values) != 1 or step.line >= d.line:
        return None
    value = step.values[0]
    expected = strip_sort(parts.expected)
    word = rf"(?<![\w.']){re.escape(value)}(?![\w'])"
    if not re.fullmatch(r"[\w'₀-₉]+", value) or not re.search(word, expected):
        return None
    facts = [t for n, t in scene_at(d, ctx).facts() if t and n != "_"]
    facts.append(strip_sort(parts.has))
    for candidate in (f"{value} + 1", f"{value} + 2", f"2 * {value}", f"{value} - 1"):
        moved = re.sub(word, f"({candidate})", expected)
        if linear.entails(moved, facts, step.domain) is True:
            fixed = step.form.format(candidate)
            return Advice(
                step.line,
                f"Do write `{fixed}` on line {step.line}: with the witness `{value}` the goal "
                f"is `{shorten(expected, 20)}`, which `{shorten(parts.term, 12)}` does not give; "
                f"with `{candidate}` it follows from your facts (then `omega`).",
            )
    return None


def _lemma_stating(parts: Mismatch, d: Diagnostic, ctx: Context) -> Advice | None:
    """`exact Real.sqrt_nonneg x` where `0 < √x` is needed and `hx : 0 < x` is in scope: the
    library lemma whose statement is exactly the needed fact, from the facts in scope
    (tutor/coach/lemmas.py); only for the whole step (`exact term`)."""
    code = ctx.text.line(d.line).split("--", 1)[0].strip().lstrip("·").strip()
    if parts.application or not code.startswith("exact "):
        return None
    facts = [(n, t) for n, t in scene_at(d, ctx).facts() if t and n != "_"]
    found = lemmas.instances(strip_sort(parts.expected), facts, ctx.mathlib)
    if not found:
        return None
    return Advice(
        d.line,
        f"Do write `exact {found[0]}` on line {d.line}: `{shorten(parts.term, 20)}` proves "
        f"`{shorten(strip_sort(parts.has), 20)}`, and `{found[0].split()[0]}` states exactly "
        f"the needed `{shorten(strip_sort(parts.expected), 20)}` from your facts.",
    )


def _whole_step_by_arithmetic(d: Diagnostic, ctx: Context) -> Advice | None:
    """`exact Nat.succ_le_of_lt h` that does not fit, on a goal the hypotheses give by adding
    them up: `omega` (ℕ, ℤ) or `linarith` (Mathlib) is the whole step, checked by
    tutor/coach/linear.py."""
    source = ctx.text.line(d.line).split("--", 1)[0].strip().lstrip("·").strip()
    if not source.startswith("exact "):
        return None
    goal = traced_goal(ctx.statement, ctx.text, d.line)
    if goal is None:
        return None
    facts = scene_at(d, ctx).facts()
    types = {n: t for n, t in facts if t}
    domain = evidence.domain_of_text(goal, types)
    closer = linear.closer(goal, facts, domain, ctx.mathlib)
    if closer is None:
        return None
    return Advice(
        d.line,
        f"Do replace `{shorten(source, 30)}` on line {d.line} with `{closer}`: the term does "
        f"not fit here, and the goal `{shorten(goal, 24)}` follows by adding up your "
        "hypotheses.",
    )


def _swapped_arguments(term: str, has: str, want: str) -> str | None:
    """`Nat.add_comm a b` for the goal `a + b = b + a` written `Nat.add_comm b a`: swapping
    the two value arguments turns the proved equation into the goal."""
    match = re.fullmatch(r"([\w.']+)\s+([\w'₀-₉]+)\s+([\w'₀-₉]+)", " ".join(term.split()))
    if not match or match.group(2) == match.group(3):
        return None
    head, a, b = match.groups()
    exchanged = re.sub(
        rf"(?<![\w.'])({re.escape(a)}|{re.escape(b)})(?![\w'])",
        lambda m: b if m.group(1) == a else a,
        has,
    )
    return f"{head} {b} {a}" if same(exchanged, want) else None


def _witness_for(d: Diagnostic, ctx: Context) -> str | None:
    """`⟨4, rfl⟩` when the goal at the line is an ∃ whose property a ℕ value makes true."""
    goal = traced_goal(ctx.statement, ctx.text, d.line)
    if goal is None or not goal.startswith("∃"):
        return None
    proofs = proofs_of(goal, [])
    return proofs[0] if proofs else None


def _calc_missing_step(
    term: str, has: Split, want: Split, d: Diagnostic, ctx: Context
) -> Advice | None:
    """A calc chain that proves `a = b` where `a = c` is needed: one more step `_ = c` closes
    it, with a proof from the facts in scope."""
    if not term.startswith("calc") or has.shape is Shape.OTHER or not has.op or not want.op:
        return None
    if has.left.strip() != want.left.strip() or has.right.strip() == want.right.strip():
        return None
    op = want.op if has.shape in (Shape.EQ, want.shape) else has.op
    step = f"{has.right.strip()} {op} {want.right.strip()}"
    proofs = proofs_of(step, fixes.Scene(ctx.statement, ctx.text, d.line).facts())
    proof = proofs[0] if proofs else "?_"
    last = ctx.text.block_last_line(d.line, d.column, d.end_line, d.end_column)
    return Advice(
        d.line,
        f"Do add the step `_ {op} {shorten(want.right.strip(), 20)} := {proof}` after line "
        f"{last}: the chain ends at `{shorten(has.right.strip(), 20)}`, but the goal "
        f"`{shorten(' '.join([want.left, want.op, want.right]), 30)}` ends at "
        f"`{shorten(want.right.strip(), 20)}`.",
    )


_CALC_STEP = re.compile(
    r"^(?:calc\s+)?(?P<lhs>.+?)\s*(?P<op>[<≤=])\s*(?P<rhs>.+?)\s*:=\s*(?P<proof>.+)$"
)
_COMPOSE = {("<", "<"): "<", ("<", "≤"): "<", ("≤", "<"): "<", ("≤", "≤"): "≤"}


def _calc_relation(
    term: str, has: Split, want: Split, d: Diagnostic, ctx: Context
) -> Advice | None:
    """A calc step `_ < c := h2` whose proof gives `b ≤ c`: the step may state the relation
    its proof gives, since calc chains `<` with `≤` (Lean's `Trans` instances), as long as the
    chain still gives the goal's relation (at least one `<` for a `<` goal)."""
    source = ctx.text.line(d.line).strip()
    step = _CALC_STEP.match(source)
    if step is None or step.group("proof").strip() != term.strip():
        return None
    if has.op not in ("<", "≤") or want.op not in ("<", "≤") or has.op == want.op:
        return None
    if (has.left.strip(), has.right.strip()) != (want.left.strip(), want.right.strip()):
        return None
    relations = []
    opening = next(
        (n for n in range(d.line, 0, -1) if ctx.text.line(n).strip().startswith("calc")), None
    )
    if opening is None:
        return None
    for number in range(opening, ctx.text.n_lines + 1):
        code = ctx.text.line(number).strip()
        found = _CALC_STEP.match(code)
        if not found or not (code.startswith("calc") or code.startswith("_")):
            break
        relations.append(has.op if number == d.line else found.group("op"))
    goal = traced_goal(ctx.statement, ctx.text, opening) or ""
    result = None
    for op in relations:
        result = (
            op
            if result is None or op == "="
            else (result if result == "=" else _COMPOSE[(result, op)])
        )
    goal_op = split_target(goal).op
    if result is None or goal_op not in ("<", "≤") or (goal_op == "<" and result != "<"):
        return None
    fixed = f"_ {has.op} {step.group('rhs').strip()} := {term}"
    return Advice(
        d.line,
        f"Do write `{fixed}` on line {d.line}: `{term}` proves `{shorten(' '.join([has.left, has.op, has.right]), 20)}`, "
        f"and a calc chain may mix `<` and `≤` steps; with this one it still proves "
        f"`{shorten(goal, 24)}`.",
    )


def _numeric(text: str) -> bool:
    return bool(re.fullmatch(r"[\d\s+*\-^/%().=<>≤≥≠]+", text))


def _relatives(parts: Mismatch, d: Diagnostic, ctx: Context) -> list[Advice]:
    """A fix one name away (tutor/coach/families.py), or the earlier `apply` that chose the
    hypothesis whose premise the student cannot prove while another's fits."""
    scene = scene_at(d, ctx)
    facts = scene.facts()
    types = {**scene.variable_types(), **{n: t for n, t in facts if t}}
    source = ctx.text.line(d.line).strip()
    goal = traced_goal(ctx.statement, ctx.text, d.line)
    previous = ctx.text.last_code_line(d.line - 1)
    after_apply = (
        families.chain_after_apply(
            ctx.text.line(previous),
            previous,
            traced_goal(ctx.statement, ctx.text, previous),
            facts,
            ctx.mathlib,
        )
        if previous is not None and "?" in parts.expected
        else []
    )
    for found in (
        after_apply,
        families.conjunction_half(parts, d.line, source),
        families.abs_half(parts, d.line, source, ctx.mathlib),
        families.chain_lemma(parts, d.line, source, facts, ctx.mathlib),
        families.relation_swap(parts, d.line, source, ctx.mathlib, goal, facts),
        families.result_relation_swap(parts, d.line, source, facts, ctx.mathlib),
        families.already_proves(parts, d.line, goal, facts),
        _other_premise(parts, d.line, ctx, facts),
        families.weaker_relation(parts, d.line, types, ctx.mathlib),
        families.weaker_projection(parts, d.line, source, ctx.mathlib),
        families.nonzero_for_positive(parts, d.line, goal, ctx.mathlib),
        families.strict_from_weak(parts, d.line, facts, ctx.mathlib, source),
        families.operation_swap(parts, d.line, ctx.mathlib),
    ):
        if found:
            return [Advice(at, text) for at, text in found]
    return []


def _other_premise(
    parts: Mismatch, line: int, ctx: Context, facts: list[tuple[str, str]]
) -> list[tuple[int, str]]:
    """`apply h1` (`h1 : p → r`) then `exact hq` (`hq : q`) where `h2 : q → r` exists: the
    earlier line chose the hypothesis whose premise is not the fact the student has."""
    previous = ctx.text.last_code_line(line - 1)
    match = re.fullmatch(r"(?:·\s*)?apply\s+([\w'₀-₉.]+)", ctx.text.line(previous or 0).strip())
    if previous is None or match is None or parts.application:
        return []
    kinds = dict(facts)
    chosen = split_target(kinds.get(match.group(1), ""))
    if chosen.shape is not Shape.IMPLIES or not same(chosen.left, parts.expected):
        return []
    for name, typ in facts:
        other = split_target(typ)
        if (
            name != match.group(1)
            and other.shape is Shape.IMPLIES
            and same(other.right, chosen.right)
            and same(other.left, parts.has)
        ):
            return [
                (
                    previous,
                    f"Do write `apply {name}` on line {previous} instead of "
                    f"`apply {match.group(1)}`: it leaves the premise "
                    f"`{shorten(chosen.left, 16)}`, which you cannot prove, while `{name}` needs "
                    f"`{shorten(strip_sort(parts.has), 16)}`, which `{parts.term}` proves.",
                )
            ]
    return []


def _lemma_relative(parts: Mismatch, d: Diagnostic, ctx: Context) -> Advice | None:
    """`dvd_mul_right a b` where `a ∣ b * a` is needed: the student's lemma, or its relative
    with the other side (`dvd_mul_left`), instantiated so that its statement is exactly what
    the position needs (tutor/coach/lemmas.py matches statements, not names)."""
    head = parts.term.split()[0] if parts.term.split() else ""
    if not any(head == lemma.name for lemma in lemmas.available(ctx.mathlib)):
        return None
    facts = scene_at(d, ctx).facts()
    found = lemmas.instances(strip_sort(parts.expected), facts, ctx.mathlib, family=head)
    if not found or same(found[0], parts.term):
        return None
    source = ctx.text.line(d.line).split("--", 1)[0]
    written = " ".join(parts.term.split())
    fixed = (
        source.replace(written, found[0], 1).strip().lstrip("·").strip()
        if written in source
        else found[0]
    )
    return Advice(
        d.line,
        f"Do write `{shorten(fixed, 40)}` on line {d.line} instead of `{shorten(written, 24)}`: "
        "that "
        f"states exactly `{shorten(strip_sort(parts.expected), 24)}`, while yours states "
        f"`{shorten(strip_sort(parts.has), 24)}`.",
    )


def _built_argument(parts: Mismatch, d: Diagnostic, ctx: Context) -> Advice | None:
    """An argument of a larger term that proves the wrong fact (`⟨x, hx, rfl⟩` where `x ∈ t`
    is needed) while the facts in scope build the needed one (`h hx` from `h : s ⊆ t`): the
    argument is replaced by that term, the rest of the step kept."""
    wanted = strip_sort(parts.expected)
    term = " ".join(parts.term.split())
    if "?" in wanted or not re.fullmatch(r"[\w'₀-₉.]+", term):
        return None
    source = ctx.text.line(d.line).split("--", 1)[0]
    spots = list(re.finditer(rf"(?<![\w.']){re.escape(term)}(?![\w'])", source))
    code = source.strip().lstrip("·").strip()
    if len(spots) != 1 or re.fullmatch(rf"(?:exact|apply|refine)\s+{re.escape(term)}", code):
        return None
    # The message gives the term's own type: a name bound by a pattern is a fact here too.
    facts = [*facts_in_scope(ctx.statement, ctx.text, d.line), (term, strip_sort(parts.has))]
    proofs = [
        p
        for p in proofs_of(wanted, facts)
        if " " in p and not p.startswith(("Classical", "fun ")) and len(p) <= 40
    ]
    if not proofs:
        return None  # a bare hypothesis in its place is a swap or a choice: other rules say
    proof = proofs[0]
    spot = spots[0]
    argument = proof if re.fullmatch(r"[\w'₀-₉.]+", proof) else f"({proof})"
    fixed = (source[: spot.start()] + argument + source[spot.end() :]).strip().lstrip("·").strip()
    fixed = re.sub(r"([⟨,]\s*)\(([^()]*)\)(\s*[,⟩])", r"\1\2\3", fixed)
    return Advice(
        d.line,
        f"Do write `{shorten(fixed, 40)}` on line {d.line}: this position needs "
        f"`{shorten(wanted, 24)}`, which `{proof}` proves from your facts; `{term}` proves "
        f"`{shorten(strip_sort(parts.has), 20)}`.",
    )


def _fresh(base: str, taken: set[str]) -> str:
    name, index = base, 1
    while name in taken:
        index += 1
        name = f"{base}{index}"
    return name


def _one_intro_short(parts: Mismatch, d: Diagnostic, ctx: Context) -> Advice | None:
    """`intro hp` then `exact hp` on `p → q → p`: the term proves the conclusion once one more
    premise is introduced, so the earlier `intro` takes one more name (`intro hp hq`)."""
    want = split_target(strip_sort(parts.expected))
    if want.shape is not Shape.IMPLIES or not same(want.right, strip_sort(parts.has)):
        return None
    previous = ctx.text.last_code_line(d.line - 1)
    if previous is None or ctx.text.indent(previous) != ctx.text.indent(d.line):
        return None
    words = ctx.text.line(previous).split("--", 1)[0].strip().lstrip("·").split()
    if not words or words[0] not in ("intro", "intros"):
        return None
    premise = want.left.strip()
    taken = {n for n, _ in facts_in_scope(ctx.statement, ctx.text, d.line)} | set(words)
    base = f"h{premise}" if re.fullmatch(r"[A-Za-z][\w']*", premise) else "h"
    name = _fresh(base, taken)
    return Advice(
        previous,
        f"Do write `{' '.join(words + [name])}` on line {previous}: the goal has one more "
        f"premise, `{shorten(premise, 16)}`, to introduce before `{shorten(parts.term, 12)}` "
        f"proves what is left (`{shorten(strip_sort(parts.has), 16)}`).",
    )


_BEQ = re.compile(r"^\((?P<a>.+?) == (?P<b>.+)\) = true$")


def _bool_equality(parts: Mismatch, d: Diagnostic) -> Advice | None:
    """`(a == b) = true` needed, `a = b` given: `==` is the Bool test, `=` the proposition;
    `simp [h]` turns the first into the second (`beq_iff_eq`) and closes it with `h`."""
    want = _BEQ.match(" ".join(strip_sort(parts.expected).split()))
    if want is None:
        return None
    prop = f"{want.group('a')} = {want.group('b')}"
    if not same(prop, strip_sort(parts.has)):
        return None
    term = shorten(parts.term, 12)
    return Advice(
        d.line,
        f"Do write `simp [{term}]` on line {d.line}: `==` is Bool equality, a test that returns "
        f"`true` or `false`, while `{term}` is the Prop `{shorten(prop, 20)}`; simp turns "
        "`(a == b) = true` into `a = b` (`beq_iff_eq`) and then uses it.",
    )


def _forall_body(parts: Mismatch, d: Diagnostic, ctx: Context) -> Advice | None:
    """`exact h` with `h : ∀ n, f n > 0` for `∀ n, f n ≠ 0`: the bodies differ, so introduce
    the variable and prove the body from `h n` (omega does when it is linear, checked)."""
    has = re.match(r"^∀\s*\(?([\w'₀-₉]+)(?:\s*:\s*[^),]+)?\)?,\s*(.+)$", strip_sort(parts.has))
    want = re.match(
        r"^∀\s*\(?([\w'₀-₉]+)(?:\s*:\s*[^),]+)?\)?,\s*(.+)$", strip_sort(parts.expected)
    )
    term = parts.term.strip()
    if has is None or want is None or not re.fullmatch(r"[\w'₀-₉]+", term):
        return None
    name = want.group(1)
    body = re.sub(rf"(?<![\w.']){re.escape(has.group(1))}(?![\w'])", name, has.group(2))
    if same(body, want.group(2)):
        return None
    domain = evidence.domain_of_text(strip_sort(parts.expected))
    domain = evidence.INT if domain == evidence.INT else evidence.NAT
    if linear.omega_proves(want.group(2), [body], domain) is not True:
        return Advice(
            d.line,
            f"Do start with `intro {name}` before line {d.line}, then prove "
            f"`{shorten(want.group(2), 20)}` from `{term} {name}`: `{term}` states "
            f"`{shorten(body, 20)}` for each `{name}`, not the goal's body.",
        )
    return Advice(
        d.line,
        f"Do write `intro {name}` and then `have := {term} {name}` and `omega` instead of line "
        f"{d.line}: `{term} {name}` gives `{shorten(body, 20)}`, from which omega proves "
        f"`{shorten(want.group(2), 20)}`; `{term}` itself states a different body.",
    )


_COMPOSED = re.compile(r"\((?P<outer>[\w'₀-₉]+) ∘ (?P<inner>[\w'₀-₉]+)\) (?P<x>[\w'₀-₉]+)")


def _composition_order(parts: Mismatch, d: Diagnostic, ctx: Context) -> Advice | None:
    """`h : (g ∘ f) a = (g ∘ f) b` where `f (g a) = f (g b)` is needed: `g ∘ f` applies `f`
    first, so the injectivity facts were applied in the wrong order; `hf (hg h)` peels `g`
    off first, then `f`."""
    found = _COMPOSED.search(strip_sort(parts.has))
    if found is None:
        return None
    outer, inner, x = found.group("outer"), found.group("inner"), found.group("x")
    if f"{inner} ({outer} {x})" not in strip_sort(parts.expected):
        return None
    facts = dict(
        (t.replace("Function.Injective", "").strip(), n)
        for n, t in facts_in_scope(ctx.statement, ctx.text, d.line)
        if t.startswith("Function.Injective")
    )
    if outer not in facts or inner not in facts:
        return None
    term = f"{facts[inner]} ({facts[outer]} {parts.term.strip()})"
    applies = [
        n
        for n in range(1, d.line)
        if re.fullmatch(
            rf"\s*(?:·\s*)?apply\s+({re.escape(facts[outer])}|{re.escape(facts[inner])})\s*",
            ctx.text.line(n),
        )
    ]
    at = applies[0] if applies else d.line
    where = f"lines {at}-{d.line}" if at != d.line else f"line {d.line}"
    return Advice(
        at,
        f"Do replace {where} with `exact {term}`, the injectivity facts in the other order: "
        f"`({outer} ∘ {inner}) {x}` is `{outer} ({inner} {x})`, so `{facts[outer]}` removes "
        f"`{outer}` first and `{facts[inner]}` then removes `{inner}`; in the order written the "
        f"goal became `{inner} ({outer} {x}) = …`.",
    )


def _whole_step_from_facts(parts: Mismatch, d: Diagnostic, ctx: Context) -> Advice | None:
    """`exact hq (h hp)` after `by_contra hq` where the facts build the goal another way
    (`h hq hp` from `h : ¬q → ¬p`): the whole `exact` is replaced by the term that is
    checked, by the facts' types, to prove the goal at this line."""
    source = ctx.text.line(d.line).split("--", 1)[0].strip().lstrip("·").strip()
    if not source.startswith("exact "):
        return None
    goal = traced_goal(ctx.statement, ctx.text, d.line)
    if goal is None:
        return None
    facts = facts_in_scope(ctx.statement, ctx.text, d.line)
    proofs = [p for p in proofs_of(goal, facts) if not p.startswith(("Classical", "fun "))]
    if not proofs or same(f"exact {proofs[0]}", source):
        return None
    return Advice(
        d.line,
        f"Do write `exact {shorten(proofs[0], 30)}` on line {d.line}: `{shorten(parts.term, 16)}` "
        f"proves `{shorten(strip_sort(parts.has), 16)}` where `{shorten(strip_sort(parts.expected), 16)}` "
        f"is needed, and this term builds the goal `{shorten(goal, 16)}` from your facts.",
    )


_TOKEN = re.compile(r"[\w.'₀-₉]+|\S")


def _wrong_instance(parts: Mismatch, d: Diagnostic, ctx: Context) -> Advice | None:
    """`h 2 h3` with `h : ∀ n, n > 0 → P n` and `h3 : 3 > 0`: the argument's type differs from
    the expected one in a single value, `3` for `2`, and that `2` is an earlier explicit
    argument of the same application: `h` was instantiated at the wrong value."""
    if not parts.application:
        return None
    words = parts.application.split()
    if parts.term.strip() not in words:
        return None
    earlier = words[1 : words.index(parts.term.strip())]
    found = _instance_value(parts.has, parts.expected, earlier)
    if found is None:
        return _wrong_instances(parts, d, ctx, words, earlier)
    written, meant = found
    goal = traced_goal(ctx.statement, ctx.text, d.line)
    about_goal = goal is not None and meant in " ".join(goal.split())
    concludes = goal is not None and _concludes_at(ctx, d.line, words[0], meant, goal)
    if goal is not None and not about_goal and not concludes:
        return None  # the goal is not about the value meant: no evidence for it
    fixed = list(words)
    fixed[words.index(written, 1)] = meant if _TOKEN.fullmatch(meant) else f"({meant})"
    source = ctx.text.line(d.line)
    step = " ".join(fixed)
    if parts.application in source:
        step = source.replace(parts.application, step).strip().lstrip("·").strip()
    about = f" and the goal is about `{meant}`" if about_goal else ""
    if concludes and not about_goal:
        about = f", and at `{meant}` it concludes the goal `{shorten(goal or '', 20)}`"
    return Advice(
        d.line,
        f"Do write `{shorten(step, 40)}` on line {d.line}: instantiate `{words[0]}` at "
        f"`{meant}`, not `{written}`, since `{parts.term.strip()}` proves "
        f"`{shorten(parts.has, 20)}`{about}.",
    )


def _concludes_at(ctx: Context, line: int, function: str, value: str, goal: str) -> bool:
    """`step : ∀ n, P n → P (n + 1)` at `0` concludes `P (0 + 1)`, which is the goal `P 1`:
    closed numerals inside parentheses compare by their value, as Lean's `decide` sees them."""
    typ = dict(facts_in_scope(ctx.statement, ctx.text, line)).get(function)
    body = instantiate(typ, [value]) if typ else ""
    if not body or body.startswith("∀"):
        return False
    conclusion = _closed_folded(re.split(r"\s→\s", body)[-1])
    return same(conclusion, _closed_folded(goal))


def _closed_folded(text: str) -> str:
    """`P (0 + 1)` as `P 1`: each parenthesised closed ℕ expression by its value."""

    def value(match: re.Match[str]) -> str:
        found = nat_value(match.group(1))
        return match.group(0) if found is None else str(found)

    return re.sub(r"\(([\d\s+*^%/-]+)\)", value, text)


def _wrong_instances(
    parts: Mismatch, d: Diagnostic, ctx: Context, words: list[str], earlier: list[str]
) -> Advice | None:
    """`hf a b h` with `h : f (g a) = f (g b)` where `f a = f b` is taken: two earlier
    arguments read as other values (`g a`, `g b`) make the expected type exactly what the
    argument proves; instantiate at those."""
    has, expected = lemmas.oriented(parts.has), lemmas.oriented(parts.expected)
    names = [w for w in dict.fromkeys(earlier) if re.fullmatch(r"[\w'₀-₉]+", w)]
    for first, second in ((a, b) for i, a in enumerate(names) for b in names[i + 1 :]):
        pattern, groups = "", {first: "v0", second: "v1"}
        seen: set[str] = set()
        for piece in re.split(
            rf"(?<![\w.'])({re.escape(first)}|{re.escape(second)})(?![\w'])", expected
        ):
            if piece in groups:
                group = groups[piece]
                pattern += f"(?P={group})" if group in seen else f"(?P<{group}>.+?)"
                seen.add(group)
            else:
                pattern += re.escape(piece)
        if seen != {"v0", "v1"}:
            continue
        match = re.fullmatch(pattern, has)
        if match is None:
            continue
        meant = {
            first: strip_parens(match.group("v0").strip()),
            second: strip_parens(match.group("v1").strip()),
        }
        if meant[first] == first and meant[second] == second:
            continue
        if any(v.count("(") != v.count(")") for v in meant.values()):
            continue
        fixed = [
            (meant[w] if _TOKEN.fullmatch(meant[w]) else f"({meant[w]})") if w in meant and i else w
            for i, w in enumerate(words)
        ]
        step = " ".join(fixed)
        source = ctx.text.line(d.line)
        application = parts.application or ""
        if application and application in source:
            step = source.replace(application, step).strip().lstrip("·").strip()
        return Advice(
            d.line,
            f"Do write `{shorten(step, 48)}` on line {d.line}: instantiate `{words[0]}` at "
            f"`{meant[first]}` and `{meant[second]}`, since `{parts.term.strip()}` proves "
            f"`{shorten(parts.has, 24)}`.",
        )
    return None


def _instance_value(has: str, expected: str, earlier: list[str]) -> tuple[str, str] | None:
    """(written, meant): the earlier explicit argument `written` such that the expected type,
    with `written` read as some value, is what the argument proves; that value is `meant`
    (`hP m hm` with `hm : 0 < m + 1` where `0 < m` was expected: `m + 1` was meant)."""
    # `m > 0` and `0 < m + 1` compare as one relation: `>` is notation for the flipped `<`.
    has, expected = lemmas.oriented(has), lemmas.oriented(expected)
    for written in dict.fromkeys(earlier):
        if not _TOKEN.fullmatch(written):
            continue
        word = rf"(?<![\w.']){re.escape(written)}(?![\w'])"
        pieces = re.split(word, expected)
        if len(pieces) < 2:
            continue
        pattern = "(?P<v>.+?)".join(re.escape(p) for p in pieces[:2])
        pattern += "".join(f"(?P=v){re.escape(p)}" for p in pieces[2:])
        match = re.fullmatch(pattern, has)
        if match is None or match.group("v").strip() == written:
            continue
        meant = match.group("v").strip()
        if meant.count("(") == meant.count(")"):
            return written, meant
    return None


_SIDE = re.compile(r"(?<![\w.])(left|right)(?=\s*(;|<;>|$))")


def _other_side_of_or(parts: Mismatch, d: Diagnostic, ctx: Context) -> Advice | None:
    """`right; exact hq` on `q ∨ p`: `right` chose `p`, while `hq : q` proves the left side:
    the other side of the ∨ was meant (`left`)."""
    number = d.line
    code = ctx.text.line(number).split("--", 1)[0]
    injected = re.fullmatch(r"Or\.in([lr])\s+\S+", (parts.application or "").strip())
    if injected:
        return _other_injection(parts, d, ctx, "left" if injected.group(1) == "l" else "right")
    chosen = _SIDE.search(code.split("exact", 1)[0]) if "exact" in code else None
    if chosen is None and number > 1:
        number -= 1
        code = ctx.text.line(number).split("--", 1)[0]
        chosen = re.fullmatch(r"\s*[·.]?\s*(left|right)\s*", code)
    if chosen is None:
        return None
    goal = traced_goal(ctx.statement, ctx.text, number)
    split = split_target(goal) if goal else None
    if split is None or split.shape is not Shape.OR:
        return None
    side = chosen.group(1)
    other, other_part, this_part = (
        ("left", split.left, split.right) if side == "right" else ("right", split.right, split.left)
    )
    has = strip_sort(parts.has)
    if not same(has, other_part) or same(has, this_part):
        return None
    return Advice(
        number,
        f"Do use `{other}` instead of `{side}` on line {number}: `{shorten(parts.term, 16)}` "
        f"proves `{shorten(has, 16)}`, the {other} side of `{shorten(goal or '', 24)}`, and "
        f"`{side}` chose the {side} side.",
    )


def _other_injection(parts: Mismatch, d: Diagnostic, ctx: Context, side: str) -> Advice | None:
    """`Or.inr h` where `h : b ≥ a` proves the ∨'s left side `a ≤ b` (`≥` is the flipped `≤`):
    `Or.inl h` was meant."""
    goal = _goal_in_branch(ctx, d.line)
    split = split_target(goal) if goal else None
    if split is None or split.shape is not Shape.OR:
        return None
    other, other_part, this_part = (
        ("left", split.left, split.right) if side == "right" else ("right", split.right, split.left)
    )
    has = strip_sort(parts.has)
    if not same(has, other_part) or same(has, this_part):
        return None
    meant = "Or.inl" if other == "left" else "Or.inr"
    term = parts.term.strip()
    step = f"{meant} {term}"
    source = ctx.text.line(d.line).split("--", 1)[0]
    application = (parts.application or "").strip()
    if application and application in source:
        step = source.replace(application, step).strip().lstrip("·").strip()
        step = re.sub(r"^\|.*?=>\s*", "", step)  # the alternative's own step
    return Advice(
        d.line,
        f"Do write `{shorten(step, 40)}` on line {d.line}: `{shorten(term, 16)}` proves "
        f"`{shorten(has, 16)}`, which is the {other} side `{shorten(other_part, 16)}` of "
        f"`{shorten(goal or '', 28)}`, not the {side} side.",
    )


def _goal_in_branch(ctx: Context, line: int) -> str | None:
    """The goal at `line`, also inside an alternative of `cases`/`rcases` on a proof: taking a
    proof apart leaves the goal as it was unless the goal mentions what is taken apart."""
    goal = traced_goal(ctx.statement, ctx.text, line)
    if goal is not None:
        return goal
    for number in range(line, 0, -1):
        split = re.match(
            r"^\s*(?:·\s*)?(?:cases|rcases|obtain|match)\s+(.+?)\s+with\b",
            ctx.text.line(number).split("--", 1)[0],
        )
        if split is None:
            continue
        before = traced_goal(ctx.statement, ctx.text, number)
        taken = re.match(r"[\w'₀-₉]+", split.group(1).strip())
        head = taken.group(0) if taken else ""
        if before is None or head in re.findall(r"[\w'₀-₉]+", before):
            return None  # `cases n` on a goal about `n`: each branch has its own goal
        return before
    return None


def _mirrored_lemma(parts: Mismatch, d: Diagnostic, ctx: Context) -> Advice | None:
    """`mul_le_mul_of_nonneg_left h hc : c * a ≤ c * b` where `a * c ≤ b * c` is needed: the
    same fact with each product's factors swapped, which the `_right` twin of the lemma states."""
    words = parts.term.split()
    head = words[0] if words else ""
    side = re.search(r"_(left|right)$", head)
    if side is None:
        return None
    twin = head[: side.start()] + ("_right" if side.group(1) == "left" else "_left")
    if not evidence.in_library(twin, ctx.mathlib):
        return None
    has, want = split_target(strip_sort(parts.has)), split_target(strip_sort(parts.expected))
    if has.op != want.op or not has.op:
        return None
    pairs = ((has.left, want.left), (has.right, want.right))
    if not all(_factors_swapped(a, b) for a, b in pairs):
        return None
    source = ctx.text.line(d.line).split("--", 1)[0]
    fixed = source.replace(head, twin, 1).strip().lstrip("·").strip() if head in source else twin
    return Advice(
        d.line,
        f"Do write `{shorten(fixed, 40)}` on line {d.line}: `{head}` multiplies on the "
        f"{side.group(1)} (`{shorten(strip_sort(parts.has), 20)}`), and the goal needs the "
        f"factor on the other side; the {twin.rsplit('_', 1)[1]} version `{twin}` gives it.",
    )


def _factors_swapped(a: str, b: str) -> bool:
    """`c * a` and `a * c`: one product of two factors, in the other order."""
    x, y = a.strip().split(" * "), b.strip().split(" * ")
    return len(x) == 2 and x == y[::-1] and x[0] != x[1]
