"""`unsolved goals`: the proof stops while goals are open. Lean reports it at `by`, `·`, `=>`
or `}`; the fix goes after the last tactic of that block."""

from __future__ import annotations

import re
from itertools import product

from tutor.coach import evidence, fixes, linear
from tutor.coach.advice import next_step
from tutor.coach.algebra import ac_step
from tutor.coach.context import as_argument, proofs_of, same, traced_goal
from tutor.coach.goals import (
    Goal,
    shorten,
    split_target,
)
from tutor.coach.rules.base import (
    Advice,
    Context,
    definitions,
    false_because,
    false_claim_advice,
    goals_of,
    impossible_case,
    open_goal_phrase,
    refuted_claim,
)
from tutor.coach.source import AttemptText
from tutor.lean.types import Diagnostic

_IFF_DIRECTIONS = {"mp": "left-to-right", "mpr": "right-to-left"}


def advise(d: Diagnostic, ctx: Context) -> list[Advice]:
    anchor = ctx.text.block_last_line(d.line, d.column, d.end_line, d.end_column)
    goals = goals_of(d)
    if not goals:
        return [Advice(anchor, f"Do add the missing steps after line {anchor}: {_UNSOLVED_TAIL}")]
    goal = goals[0]
    if impossible_case(anchor, goal) is None:
        refuted = refuted_claim(ctx, anchor, goal.target)
        if refuted:
            return refuted
    for rule in (
        _witness_never_given,
        _side_condition_left,
        _bare_commutativity,
        _unfolded_in_goal_only,
        _cast_numerals,
        _false_statement,
        _witness_false_for_every_value,
    ):
        found = rule(ctx, anchor, goals)
        if found:
            return [found]
    more = f" ({len(goals)} goals remain)" if len(goals) > 1 else ""
    text = (
        f"Do add a step after line {anchor}: {open_goal_phrase(goal)} is still open{more}; "
        f"{next_step(goal, ctx.mathlib)}."
    )
    direction = goal.case.rsplit(".", 1)[-1] if goal.case else None
    if direction in _IFF_DIRECTIONS:
        # `constructor` on an ↔ names its goals `mp` and `mpr`: say which direction is missing.
        text = (
            f"Do add a step after line {anchor}: the other direction of the ↔, "
            f"{_IFF_DIRECTIONS[direction]} (case `{goal.case}`), is still open, "
            f"`{shorten(goal.target)}`{more}; "
            f"{next_step(goal, ctx.mathlib)}."
        )
    advice = [Advice(anchor, text)]
    dagger = next((n for h in goal.hypotheses for n in h.names if "✝" in n), None)
    origin = _origin_line(ctx.text, anchor) if dagger else None
    if dagger and origin is not None:
        advice.insert(
            0,
            Advice(
                origin,
                f"Do name the variables on line {origin} (for `induction`, write `induction n "
                f"with` and `| succ k ih => ...`, or use `rename_i`): `{dagger}` is an "
                "inaccessible name Lean made up, which you cannot type.",
            ),
        )
    if anchor != d.line and ctx.text.token_at(d.line, d.column) == "by":
        advice.append(
            Advice(
                anchor,
                "Don't change the statement line where Lean shows the error: `by` only marks "
                f"the block, and the proof simply stops too early after line {anchor}.",
            )
        )
    return advice


def _false_statement(ctx: Context, anchor: int, goals: list[Goal]) -> Advice | None:
    """`norm_num` (or `simp`) that leaves `⊢ False` with no hypotheses, on a statement with no
    variables: it evaluated the statement and found it false; no step proves it."""
    goal = goals[0]
    if goal.target.strip() != "False" or goal.hypotheses:
        return None
    claim = traced_goal(ctx.statement, ctx.text, anchor)
    if claim is None or not evidence.is_closed(re.sub(r"\((\d+)\s*:\s*[ℕℤℝℚ]\)", r"\1", claim)):
        return None
    plain = re.sub(r"\((\d+)\s*:\s*[ℕℤℝℚ]\)", r"\1", claim)
    domain = evidence.domain_of_text(claim)
    if evidence.holds(plain, domain) is not False:
        return None
    return false_claim_advice(anchor, false_because(plain, domain))


# How a proof names a witness: `exists w`, `use w`, `refine ⟨w, ?_⟩`, `exact ⟨w, _⟩`.
_WITNESS_CHOICE = re.compile(
    r"(?:(?P<tactic>exists|use)\s+(?P<plain>.+)|(?:refine|exact|apply)\s+⟨\s*(?P<tuple>[^,⟨⟩]+?)\s*,.*⟩)"
)
# Steps that turn a goal into an equivalent one: if the goal after them is false, it was
# false before them, so they are not where the proof went wrong.
_EQUIVALENT_STEP = re.compile(r"(rw|rewrite|simp|norm_num|ring_nf|unfold|dsimp|show|push_cast)\b")


def _witness_choice(ctx: Context, anchor: int) -> tuple[int, str, str] | None:
    """(line, code, witness) of the step above `anchor` that chose the witness, when every
    step between them only rewrites the goal into an equivalent one."""
    first, _ = ctx.text.declaration_span(anchor)
    for number in range(anchor, first, -1):
        code = ctx.text.line(number).split("--", 1)[0].strip().lstrip("·").strip()
        if not code:
            continue
        chosen = _WITNESS_CHOICE.fullmatch(code)
        if chosen is not None:
            witness = chosen.group("plain") or chosen.group("tuple")
            return number, code, witness.strip()
        if not _EQUIVALENT_STEP.match(code):
            return None
    return None


def _witness_false_for_every_value(ctx: Context, anchor: int, goals: list[Goal]) -> Advice | None:
    """`intro n` then `exists n` on `∃ m, m > n` leaves `n > n`, false whatever `n` is (and so
    does `refine ⟨k, ?_⟩` then `rw [hk]` on an `Odd (n + 2)`): the witness is wrong, not the
    steps after it, which only rewrote the goal. So is a goal false at some value of variables
    no hypothesis mentions (`use x * 2` on `∃ y, y * 2 = x` leaves `x * 2 * 2 = x`): it must
    hold for all of them. The witness solved from the property, or a term in the other
    variables that makes it follow (checked by tutor/coach/linear.py), else say it is wrong."""
    choice = _witness_choice(ctx, anchor)
    if choice is None:
        return None
    at, code, witness = choice
    goal = goals[0]
    domain = evidence.domain_of_text(goal.target, goal.variable_types())
    free = sorted(set(re.findall(r"(?<![\w.'])([a-z][\w'₀-₉]*)(?![\w'])", goal.target)))
    if not 1 <= len(free) <= 2 or domain not in (evidence.NAT, evidence.INT, evidence.REAL):
        return None
    points = [
        dict(zip(free, values, strict=True)) for values in product(range(-3, 6), repeat=len(free))
    ]
    if domain == evidence.NAT:
        points = [p for p in points if min(p.values()) >= 0]
    verdicts = [evidence.holds(goal.target, domain, point) for point in points]
    facts_about = [
        t
        for _, t in goal.named_facts()
        if any(re.search(rf"(?<![\w.']){re.escape(v)}(?![\w'])", t) for v in free)
    ]
    # False everywhere; or, where no hypothesis says anything about the variables (so the goal
    # must hold for each of their values), false somewhere: either way no later step finishes.
    unprovable = all(v is False for v in verdicts) or (
        not facts_about and None not in verdicts and False in verdicts
    )
    if not unprovable:
        return None
    everywhere = all(v is False for v in verdicts)
    how_false = (
        "false whatever `{}` is" if everywhere else "false for some `{}` (nothing rules it out)"
    )
    in_witness = [v for v in free if re.search(rf"(?<![\w.']){re.escape(v)}(?![\w'])", witness)]
    var_name = (in_witness or free)[0]
    how_false = how_false.format(var_name)
    before = traced_goal(ctx.statement, ctx.text, at)
    found = evidence.existential(before, evidence.domain_of_text(ctx.statement)) if before else None
    chosen = _WITNESS_CHOICE.fullmatch(code)
    if found and len(found.names) == 1 and chosen is not None and chosen.group("tactic"):
        solved = linear.witness_term(before or "", found.domain)
        if solved is not None and solved != witness:
            return Advice(
                at,
                f"Do write `{chosen.group('tactic')} {solved}` on line {at} instead of `{code}`: "
                f"with your witness the goal is `{shorten(goal.target, 20)}`, {how_false}, so "
                f"no step after it can finish; `{solved}` works.",
            )
        facts = [t for n, t in goal.named_facts() if "✝" not in n]
        var = found.names[0]
        for candidate in [f"{free[0]} + 1", free[0], f"{free[0]} + 2", f"2 * {free[0]}", "0", "1"]:
            body = re.sub(rf"(?<![\w.']){re.escape(var)}(?![\w'])", f"({candidate})", found.body)
            if linear.entails(body, facts, found.domain):
                fixed = f"{chosen.group('tactic')} {candidate}"
                return Advice(
                    at,
                    f"Do write `{fixed}` on line {at} instead of `{code}`: with your witness the "
                    f"goal is `{shorten(goal.target, 20)}`, {how_false}, so no step after it "
                    "can finish; this one makes the property hold.",
                )
    return Advice(
        at,
        f"Do choose another witness than `{witness}` on line {at}: the witness is wrong, since "
        f"with it the goal becomes `{shorten(goal.target, 20)}`, {how_false}, so no step "
        "after it can finish.",
    )


def _cast_numerals(ctx: Context, anchor: int, goals: list[Goal]) -> Advice | None:
    """`↑3 + 1 = 4` left after `rw [h]`: only numerals and their casts remain, and the claim
    is true once the casts are read as the numbers they are; `norm_num` evaluates it."""
    target = goals[0].target
    if not ctx.mathlib or "↑" not in target:
        return None
    plain = re.sub(r"↑\s*\(?(\d+)\)?", r"\1", target)
    if "↑" in plain or not evidence.is_closed(plain):
        return None
    if evidence.holds(plain, evidence.REAL) is not True:
        return None
    cast = re.search(r"↑\s*\(?(\d+)\)?", target)
    number = cast.group(1) if cast else "3"
    return Advice(
        anchor,
        f"Do add `norm_num` after line {anchor}: only numbers are left in "
        f"`{shorten(target, 20)}`, `↑{number}` being the number {number} cast to another type, "
        "and norm_num evaluates them, casts included.",
    )


def _unfolded_in_goal_only(ctx: Context, anchor: int, goals: list[Goal]) -> Advice | None:
    """`simp [f]` (or `unfold f`) unfolded the exercise's `def` in the goal only, while a
    hypothesis the goal needs still mentions `f`: unfold it there too (`at h ⊢`)."""
    code = ctx.text.line(anchor).split("--", 1)[0].strip().lstrip("·").strip()
    if " at " in code:
        return None
    step = re.match(r"(simp|simp only|unfold|rw|dsimp)\s*\[?([^\]]*)\]?\s*$", code)
    if step is None:
        return None
    listed = set(re.findall(r"[\w'.₀-₉]+", step.group(2)))
    unfolded = [d for d in definitions(ctx) if d in listed]
    goal = goals[0]
    mention = r"(?<![\w.']){}(?![\w'])"
    hiding = [
        (n, d)
        for n, t in goal.named_facts()
        for d in unfolded
        if "✝" not in n
        and re.search(mention.format(re.escape(d)), t)
        and not re.search(mention.format(re.escape(d)), goal.target)
    ]
    if not hiding:
        return None
    name, defined = hiding[0]
    head = (
        "unfold" if step.group(1) == "unfold" else "simp only" if "only" in code else step.group(1)
    )
    fixed = (
        f"{head} {defined} at {name} ⊢" if head == "unfold" else f"{head} [{defined}] at {name} ⊢"
    )
    return Advice(
        anchor,
        f"Do unfold `{defined}` in `{name}` too: write `{fixed}` on line {anchor}. Without "
        f"`at` it works on the goal only, and the fact the goal `{shorten(goal.target, 20)}` "
        f"needs is still hidden inside `{name}`.",
    )


_METAVARIABLE = re.compile(r"\?([\w.]+)")


def _witness_never_given(ctx: Context, anchor: int, goals: list[Goal]) -> Advice | None:
    """`constructor` (or `apply Exists.intro`) on an ∃ leaves the value open: one goal shows a
    placeholder `?w` and another, `case w`, asks for a number. The witness was never chosen;
    name one that evaluation shows works, else say which kind of step is missing."""
    values = {g.case for g in goals if g.case and fixes.is_value_type(g.target)}
    holes = {m for g in goals for m in _METAVARIABLE.findall(g.target)}
    open_values = sorted(values & holes)
    code = ctx.text.line(anchor).strip().lstrip("·").strip()
    opening = r"constructor|apply\s+Exists\.intro|(?:refine|exact)\s+⟨\s*\??_\s*,.*⟩"
    if not open_values or not re.fullmatch(opening, code):
        return None
    tactic = "use" if ctx.mathlib else "exists"
    statement_goal = traced_goal(ctx.statement, ctx.text, anchor)
    found = (
        evidence.witness(statement_goal, evidence.domain_of_text(ctx.statement))
        if statement_goal and statement_goal.startswith("∃")
        else None
    )
    step = f"`{tactic} {', '.join(found)}`" if found else f"`{tactic} v` with a value `v`"
    hole = open_values[0]
    return Advice(
        anchor,
        f"Do write {step} on line {anchor} instead of `{code}`: on an ∃ it leaves the witness "
        f"unspecified, the placeholder `?{hole}` (goal `case {hole}`), so you never chose the "
        "value; the ∃ needs the number that makes its property true.",
    )


_SIDE_CASES = {"zero", "succ", "nil", "cons", "inl", "inr", "intro", "mp", "mpr", "left", "right"}


def _side_condition_left(ctx: Context, anchor: int, goals: list[Goal]) -> Advice | None:
    """`rw [abs_of_nonneg]` closes the main goal but leaves the lemma's hypothesis (`0 ≤ x`,
    as `case h`) as a new goal: pass its proof to the lemma (found from the facts, or the
    strict fact's `.le`), else say that a side condition is what is left."""
    match = re.fullmatch(r"(?:·\s*)?rw\s*\[\s*([\w.']+)\s*\]", ctx.text.line(anchor).strip())
    goal = goals[0]
    if not match or not goal.case or goal.case in _SIDE_CASES or len(goals) != 1:
        return None
    lemma = match.group(1)
    if not ("_" in lemma or "." in lemma) or lemma in dict(goal.named_facts()):
        return None  # a hypothesis of the student's, not a lemma with hypotheses
    facts = fixes.Scene(ctx.statement, ctx.text, anchor).facts() + goal.named_facts()
    proofs = proofs_of(goal.target, facts)
    proof = proofs[0] if proofs else _weakened(goal.target, facts, ctx.mathlib)
    side = f"its hypothesis `{shorten(goal.target, 20)}` as a new goal (`case {goal.case}`)"
    if proof is None:
        return Advice(
            anchor,
            f"Do prove the side condition after line {anchor}: `rw [{lemma}]` rewrote the goal "
            f"and left {side}; prove it next, or pass its proof to `{lemma}` in the `rw`.",
        )
    return Advice(
        anchor,
        f"Do write `rw [{lemma} {as_argument(proof)}]` on line {anchor}: `rw [{lemma}]` "
        f"rewrote the goal but left {side}, and `{shorten(proof, 16)}` proves it.",
    )


def _weakened(target: str, facts: list[tuple[str, str]], mathlib: bool) -> str | None:
    """`hx.le` for the goal `0 ≤ x` from `hx : 0 < x` (Mathlib's `LT.lt.le`), or
    `Nat.le_of_lt hx` in core."""
    want = split_target(target)
    if want.op != "≤":
        return None
    for name, typ in facts:
        have = split_target(typ)
        if have.op == "<" and same(have.left, want.left) and same(have.right, want.right):
            return f"{name}.le" if mathlib else f"Nat.le_of_lt {name}"
    return None


_BARE_COMM = re.compile(r"^(?:·\s*)?rw\s*\[\s*(?:←\s*)?((?:Nat\.|Int\.)?(?:add|mul)_comm)\s*\]\s*$")


def _bare_commutativity(ctx: Context, anchor: int, goals: list[Goal]) -> Advice | None:
    """`rw [Nat.add_comm]` with no arguments rewrites the first sum it matches (often the whole
    side), which leaves a goal that is still true by reordering: say so, and name the closing
    step (omega on ℕ/ℤ, else the reordering)."""
    goal = goals[0]
    match = _BARE_COMM.match(ctx.text.line(anchor).strip())
    reordered = ac_step(goal.target) if match else None
    if not match or not reordered:
        return None
    lemma = match.group(1)
    op = "sum" if "add" in lemma else "product"
    types = goal.variable_types()
    closer = "omega" if fixes.is_linear_arith(goal.target, types) else reordered
    return Advice(
        anchor,
        f"Do name the terms to swap on line {anchor}, as in `rw [{lemma} x y]`, or close the goal "
        f"with `{closer}`: with no arguments `{lemma}` rewrites the first {op} it matches (the "
        f"outermost, leftmost one), leaving `{shorten(goal.target, 30)}`.",
    )


def _origin_line(text: AttemptText, line: int) -> int | None:
    """The `induction` / `cases` / `intro` line above `line` that made inaccessible names."""
    for number in range(line, 0, -1):
        if re.match(r"^\s*(induction|cases|intro|rcases|match)\b", text.line(number)):
            return number
    return None


_UNSOLVED_TAIL = "the proof ends while goals are still open; finish each remaining goal."
