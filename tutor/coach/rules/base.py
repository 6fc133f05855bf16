"""What every rule shares: the context a rule reads, its answer, and the helpers several
kinds of message use (the goal Lean printed, the statement's goal at the first step, false
claims about numerals and the witness that made them, impossible cases)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from itertools import product

from tutor.coach import evidence, fixes
from tutor.coach.context import contradiction, facts_in_scope, traced_goal
from tutor.coach.goals import (
    Goal,
    Shape,
    parse_goals,
    shorten,
    split_target,
)
from tutor.coach.source import AttemptText, proof_conclusion, statement_hypotheses
from tutor.lean.types import Diagnostic


@dataclass
class Context:
    statement: str
    text: AttemptText
    mathlib: bool


@dataclass(frozen=True)
class Advice:
    line: int | None
    text: str
    # The advice gives away the answer to a step the student has not attempted (the whole
    # proof of a `sorry`): a hint, offered after the exercise's own hints and counted as one.
    reveals: bool = False
    # The advice shows the goal at its line is false (by evaluation or a counterexample).
    refutes: bool = False


def one(line: int | None, text: str) -> list[Advice]:
    """A rule's answer when it has exactly one suggestion (the shape most rules return)."""
    return [Advice(line, text)]


def scene_at(d: Diagnostic, ctx: Context) -> fixes.Scene:
    return fixes.Scene(ctx.statement if ctx.statement.strip() else ctx.text.text, ctx.text, d.line)


def goals_of(d: Diagnostic) -> list[Goal]:
    return parse_goals(d.goal or d.message)


def goal_here(d: Diagnostic, scene: fixes.Scene) -> Goal | None:
    """The first goal the message prints, else the statement's when the line is the first step."""
    goals = goals_of(d)
    return goals[0] if goals else fixes.goal_at_first_step(scene)


# The case tags `constructor`, `cases` and `ext` give the goals after the first: said the way
# a teacher says it ("the second goal"), with the tag Lean prints.
_LATER_CASES = {
    "right": "the second goal",
    "inr": "the other case",
    "mpr": "the other direction",
    "succ": "the inductive step",
    "cons": "the inductive step",
}


def case_phrase(goal: Goal) -> str:
    return f"of case `{goal.case}` " if goal.case else ""


def open_goal_phrase(goal: Goal) -> str:
    """`the second goal (case `right`), `1 < n`,` / `the goal `1 < n`` for advice on a goal
    left open."""
    target = f"`{shorten(goal.target)}`"
    later = _LATER_CASES.get(goal.case.rsplit(".", 1)[-1]) if goal.case else None
    if later:
        return f"{later} (case `{goal.case}`), {target},"
    return f"the goal {case_phrase(goal)}{target}"


def projected(term: str) -> str:
    """`term` ready for `.symm`: an application must be parenthesised, or `.symm` would apply
    to its last argument (`f h₁ h₂.symm` is `f h₁ (h₂.symm)`)."""
    return f"({term})" if re.search(r"\s", term.strip()) else term


def strip_sort(text: str) -> str:
    return re.sub(r"\s*:\s*(Prop|Type\S*|Sort\S*)\s*$", "", " ".join(text.split()))


def impossible_case(line: int, goal: Goal) -> Advice | None:
    """The goal may be false, but the hypotheses of this case contradict each other (a `cases`
    branch such as `n = 0` beside `h : n ≠ 0`): the case is closed from them, not from the goal."""
    facts = [(n, h.type) for h in goal.hypotheses for n in h.names if "✝" not in n]
    term = contradiction(facts)
    if term is None:
        return None
    return Advice(
        line,
        f"Do close this case with `exact {term}` on line {line} (or `contradiction`): "
        f"{case_phrase(goal)}its hypotheses contradict each other, so the goal "
        f"`{shorten(goal.target, 24)}` never has to be proved from the numbers.",
    )


def false_claim_advice(line: int, claim: str) -> Advice:
    return Advice(
        line,
        f"Don't try to prove it with any tactic on line {line}: {claim}, so nothing can prove "
        "it. Check the numbers in the statement or in your earlier steps.",
        refutes=True,
    )


def same_text(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())


# ---------------------------------------------------------------------- false claims

_WITNESS_STEP = re.compile(
    r"^(?:·\s*)?(?:(?P<tactic>exists|use|existsi)\s+(?P<values>[^⟨⟩]+?)"
    r"|refine\s+⟨(?P<refined>[^⟨⟩]+?),\s*\?_\s*⟩"
    r"|exact\s+⟨(?P<exact>[^,⟨⟩]+?),[^⟩]*⟩)\s*$"
)


@dataclass(frozen=True)
class WitnessStep:
    """The line where the student chose the value of the statement's ∃, and what it gives."""

    line: int
    values: list[str]
    form: str  # the step with `{}` where the values go: `exists {}`, `refine ⟨{}, ?_⟩`
    conclusion: str  # the statement's ∃
    domain: str
    written: str = ""  # the student's step as written (`exact ⟨6, by decide⟩`)


_DIVIDES = re.compile(r"^(.+?)\s*∣\s*(.+)$")


def _as_exists(conclusion: str) -> str:
    """`a ∣ b` is `∃ c, b = a * c` (`Dvd.dvd` on ℕ and ℤ), so `use c` chooses `c`."""
    found = _DIVIDES.match(conclusion.strip())
    if found is None or "∃" in conclusion:
        return conclusion
    a, b = found.group(1).strip(), found.group(2).strip()
    return f"∃ c, {b} = {a} * c"


def _with_known_values(ctx: Context, conclusion: str) -> str:
    """The conclusion with each variable a hypothesis pins to a numeral (`h : n = 4`) replaced
    by it, so a witness can be judged by evaluation."""
    for _, typ in statement_hypotheses(ctx.statement):
        pinned = re.fullmatch(r"([A-Za-z_][\w'₀-₉]*)\s*=\s*(-?\d+)", typ.strip())
        if pinned:
            value = pinned.group(2)
            value = f"({value})" if value.startswith("-") else value
            conclusion = re.sub(
                rf"(?<![\w.']){re.escape(pinned.group(1))}(?![\w'])", value, conclusion
            )
    return conclusion


def witness_step(ctx: Context, before: int) -> WitnessStep | None:
    """The `exists v` / `use v` / `refine ⟨v, ?_⟩` / `exact ⟨v, ...⟩` for the statement's ∃ on
    a line before `before` (or on it), when the statement's conclusion is an ∃."""
    conclusion = _as_exists(_with_known_values(ctx, proof_conclusion(ctx.statement) or ""))
    if not conclusion.startswith("∃"):
        return None
    domain = evidence.domain_of_text(ctx.statement)
    found = evidence.existential(conclusion, domain)
    if found is None:
        return None
    span = ctx.text.declaration_span(before)
    for tactic in ctx.text.tactic_lines(span):
        if tactic.line > before:
            break
        match = _WITNESS_STEP.match(tactic.text)
        if not match:
            continue
        if match.group("tactic"):
            raw, form = match.group("values"), match.group("tactic") + " {}"
        elif match.group("refined"):
            raw, form = match.group("refined"), "refine ⟨{}, ?_⟩"
        else:
            raw, form = match.group("exact"), "exact ⟨{}, ?_⟩"
        # `refine ⟨6, ?_, ?_⟩` leaves the ∃'s property (an ∧) as two holes: only values count.
        values = [v.strip() for v in raw.split(",") if v.strip() not in ("?_", "_")]
        if len(values) == len(found.names):
            written = tactic.text.strip().lstrip("·").strip()
            return WitnessStep(tactic.line, values, form, conclusion, found.domain, written)
    return None


def _with_values(form: str, values: list[str]) -> str:
    return form.format(", ".join(values))


def _rewritten(step: WitnessStep, values: list[str]) -> str:
    """The student's own step with the new values in place of hers (`exact ⟨7, by decide⟩`),
    when her values appear in it exactly once; else the step's plain form."""
    old = ", ".join(step.values)
    if step.written and step.written.count(old) == 1:
        return step.written.replace(old, ", ".join(values), 1)
    return _with_values(step.form, values)


def wrong_witness(ctx: Context, line: int, claim: str | None = None) -> Advice | None:
    """The witness chosen before `line` makes the ∃'s property false (evaluated; `claim` is the
    goal Lean printed, when it printed one), so no tactic can finish: name a value that makes
    it true when a small one exists, else say to choose another."""
    step = witness_step(ctx, line)
    if step is None:
        return None
    instance = evidence.instance(step.conclusion, step.values, step.domain)
    if instance is None:
        return None
    body, domain = instance
    shown = claim if claim and evidence.is_closed(claim) else body
    if evidence.holds(body, domain) is not False:
        return None
    chosen = step.written or _with_values(step.form, step.values)
    good = evidence.witness(step.conclusion, domain)
    prop = shorten(" ".join(shown.split()), 30)
    if good:
        fixed = _rewritten(step, good)
        return Advice(
            step.line,
            f"Do write `{fixed}` on line {step.line} instead of `{chosen}`: with your witness "
            f"the property becomes `{prop}`, which is false, so no tactic can finish the "
            "proof; this witness makes it true.",
        )
    return Advice(
        step.line,
        f"Do choose another witness than `{chosen}` on line {step.line}: with it the property "
        f"becomes `{prop}`, which is false, so no tactic can finish the proof.",
    )


def refuted_claim(ctx: Context, line: int, target: str) -> list[Advice] | None:
    """Advice for a goal that is a false claim about numerals: the wrong witness that led to
    it, or "it is false" (naming no tactic); None unless the goal is certainly false."""
    if target.strip() == "False":
        found = wrong_witness(ctx, line)
        return [found] if found else None
    step = witness_step(ctx, line)
    domain = step.domain if step else evidence.domain_of_text(ctx.statement + "\n" + target)
    if not evidence.refuted(target, domain):
        return None
    found = wrong_witness(ctx, line, target) or _witness_in_goal(ctx, line, target, domain)
    if found:
        return [found]
    return [false_claim_advice(line, _false_because(target, domain))]


def _witness_in_goal(ctx: Context, line: int, target: str, domain: str) -> Advice | None:
    """`use 4` on `Even 10` (an ∃ in disguise: `10 = r + r`) leaves `10 = 4 + 4`: the value
    chosen on the `use`/`exists` line is in the false goal; the value that makes it true,
    found by evaluation, is the fix, said at that line."""
    for number in range(line, 0, -1):
        code = ctx.text.line(number).split("--", 1)[0].strip().lstrip("·").strip()
        if re.match(r"^(theorem|lemma|example)\b", code):
            return None
        chosen = re.fullmatch(r"(use|exists)\s+(-?\d+)", code)
        if chosen is None:
            continue
        value = chosen.group(2)
        pattern = rf"(?<![\w.]){re.escape(value)}(?![\w.])"
        if value.startswith("-"):
            pattern = rf"\(?{re.escape(value)}\)?"
        if not re.search(pattern, target):
            return None
        typ = {evidence.NAT: "ℕ", evidence.INT: "ℤ"}.get(domain, "ℝ")
        # Every occurrence is the witness, or (`12 = 3 * 3` after `use 3` on `3 ∣ 12`) one of
        # them is: a value counts only when every reading that has one agrees on it.
        spots = list(re.finditer(pattern, target))
        readings = [re.sub(pattern, "w", target)] + [
            target[: m.start()] + "w" + target[m.end() :] for m in spots if len(spots) > 1
        ]
        answers = set()
        for template in readings:
            good = evidence.witness(f"∃ w : {typ}, {template}", domain)
            if good:
                answers.add(good[0])
            if good and template == readings[0]:
                break
        if len(answers) != 1 or value in answers:
            return None
        good = sorted(answers)
        return Advice(
            number,
            f"Do write `{chosen.group(1)} {good[0]}` on line {number} instead of `{code}`: with "
            f"{value} the goal becomes `{shorten(' '.join(target.split()), 24)}`, which is "
            f"false, so no tactic can finish the proof; {good[0]} makes it true.",
        )
    return None


_DOMAIN_NAMES = {evidence.NAT: "ℕ", evidence.INT: "ℤ", evidence.REAL: "ℝ"}


def false_because(target: str, domain: str) -> str:
    """Why a closed claim is false, for advice that names no tactic (see `_false_because`)."""
    return _false_because(target, domain)


def _false_because(target: str, domain: str) -> str:
    """ "`2 + 2 = 5` is false (the left side is 4 on ℕ, the right 5)" for one comparison."""
    claim = f"`{shorten(' '.join(target.split()), 30)}` is false"
    split = split_target(target)
    left, right = evidence.evaluate(split.left, domain), evidence.evaluate(split.right, domain)
    if split.shape is Shape.AND or split.shape is Shape.OR or left is None or right is None:
        return claim
    where = _DOMAIN_NAMES[domain]
    return f"{claim} (the left side is {evidence.show(left)} on {where}, the right {evidence.show(right)})"


# ---------------------------------------------------------------------- dropped facts

_HOLE_PATTERN = re.compile(r"^(?:·\s*)?(?:obtain|rcases|rintro)\b.*⟨[^⟨⟩]*\b_\b[^⟨⟩]*⟩")


def dropped_fact(ctx: Context, line: int, about: set[str]) -> Advice | None:
    """An `obtain ⟨n, _⟩ := h` above `line` threw away a fact about one of the variables in
    `about` (those automation reported on): naming it puts it back where omega, linarith and
    simp can see it. Only with the fact's type known (traced from the statement)."""
    start, _ = ctx.text.declaration_span(line)
    for number in range(start, line):
        code = ctx.text.line(number).split("--", 1)[0].strip()
        if not _HOLE_PATTERN.match(code):
            continue
        before = facts_in_scope(ctx.statement, ctx.text, number)
        after = facts_in_scope(ctx.statement, ctx.text, number + 1)
        made = after[len(before) :]
        for name, typ in made:
            words = set(re.findall(r"(?<![\w.'])([a-zα-ω][\w'₀-₉]*)(?![\w'])", typ))
            if name != "_" or not typ or not words & about:
                continue
            var = sorted(words & about)[0]
            fixed = code.replace("_", f"h{var}", 1) if code.count("_") == 1 else None
            if fixed is None:
                return None
            return Advice(
                number,
                f"Do name the fact you dropped: write `{fixed}` on line {number}. The `_` threw "
                f"away `{shorten(typ, 20)}`, and tactics such as omega only use the hypotheses in "
                "the context, so they cannot see it.",
            )
    return None


def definitions(ctx: Context) -> list[str]:
    """The names the exercise itself defines (`def f ...`): only these can be unfolded, and
    simp uses their equations only when they are listed."""
    text = ctx.statement + "\n" + ctx.text.text
    return re.findall(r"^\s*(?:@\[[^\]]*\]\s*)?def\s+([\w'.₀-₉]+)", text, re.MULTILINE)


# ---------------------------------------------------------------------- goal at a line


def goal_at(ctx: Context, line: int) -> str | None:
    """The goal at `line` as far as the proof text shows it: traced through `intro`s from the
    statement, or the part of an ∧ / ↔ that a `·` bullet after `constructor` proves."""
    traced = traced_goal(ctx.statement, ctx.text, line)
    return traced if traced is not None else bullet_part(ctx, line)


def bullet_part(ctx: Context, line: int) -> str | None:
    """`q` in the second `·` after `constructor` on the goal `p ∧ q` (`q → p` for an ↔)."""
    indent = ctx.text.indent(line)
    code = ctx.text.line(line).strip()
    if not code.startswith("·"):
        # a line inside a bullet block: the bullet is the nearest `·` above, less indented
        for number in range(line - 1, 0, -1):
            above = ctx.text.line(number)
            if ctx.text.is_code(number) and ctx.text.indent(number) < indent:
                if above.strip().startswith("·"):
                    return bullet_part(ctx, number)
                return None
        return None
    bullets = 0
    for number in range(line, 0, -1):
        if not ctx.text.is_code(number) or ctx.text.indent(number) > indent:
            continue
        if ctx.text.indent(number) < indent:
            return None
        text = ctx.text.line(number).strip()
        if text.startswith("·"):
            bullets += 1
            continue
        if text != "constructor" or bullets > 2:
            return None
        split = split_target(traced_goal(ctx.statement, ctx.text, number) or "")
        parts = {
            Shape.AND: (split.left, split.right),
            Shape.IFF: (f"{split.left} → {split.right}", f"{split.right} → {split.left}"),
        }.get(split.shape)
        return parts[bullets - 1] if parts else None
    return None


# ---------------------------------------------------------------------- false statements

_GRID = (Fraction(0), Fraction(1), Fraction(-1), Fraction(2), Fraction(1, 2), Fraction(3))


def refuted_statement(ctx: Context) -> tuple[str, dict[str, Fraction]] | None:
    """(conclusion, point) when the theorem's own statement is false: at `point` every
    hypothesis of the signature holds and the conclusion does not, all evaluated exactly as
    Lean computes in their type (tutor/coach/evidence.py). Up to three number variables and
    only hypotheses that evaluate; anything unread means no claim."""
    conclusion = proof_conclusion(ctx.statement)
    if not conclusion:
        return None
    binders = statement_hypotheses(ctx.statement)
    variables = [n for n, t in binders if evidence.domain_of_type(t) is not None]
    facts = [t for n, t in binders if evidence.domain_of_type(t) is None]
    if not 1 <= len(variables) <= 3 or any(t in ("Prop", "Type") for _, t in binders):
        return None
    domains = {evidence.domain_of_type(t) for n, t in binders if n in variables}
    if len(domains) != 1:
        return None
    domain = domains.pop() or evidence.NAT
    values = [v for v in _GRID if domain == evidence.REAL or v.denominator == 1]
    if domain == evidence.NAT:
        values = [v for v in values if v >= 0]
    for combo in product(values, repeat=len(variables)):
        point = dict(zip(variables, combo, strict=True))
        if evidence.holds(conclusion, domain, point) is not False:
            continue
        if all(evidence.holds(f, domain, point) is True for f in facts):
            return conclusion, point
    return None
