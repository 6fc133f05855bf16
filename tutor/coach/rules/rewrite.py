"""`rewrite failed` / `motive is not type correct`: the rule's left side is not in the goal."""

from __future__ import annotations

import re

from tutor.coach import evidence, fixes, hypotheses, lemmas, linear, rewriting
from tutor.coach.context import same
from tutor.coach.goals import (
    Goal,
    Shape,
    parse_goals,
    shorten,
    split_target,
)
from tutor.coach.rules.base import (
    Advice,
    Context,
    one,
    strip_sort,
)
from tutor.coach.source import statement_hypotheses
from tutor.lean.types import Diagnostic

_PATTERN = re.compile(r"pattern(?: in the target expression)?\s*\n\s+(.+?)\n", re.DOTALL)


def advise(d: Diagnostic, ctx: Context) -> list[Advice]:
    line = d.line
    lowered = d.message.lower()
    if "motive is not type correct" in lowered:
        return one(
            line,
            f"Do use `simp only [h]` instead of `rw` on line {line}: rewriting there breaks "
            "a term that depends on the rewritten expression (motive is not type correct).",
        )
    match = _PATTERN.search(d.message)
    pattern = strip_sort(match.group(1)) if match else ""
    goals = parse_goals(d.goal) if d.goal else parse_goals(_after_pattern(d.message))
    written = _rule_at(ctx, d)
    if pattern and goals:
        stale = _successor_already_plus_one(line, pattern, goals[0], ctx)
        if stale:
            return [stale]
        closing = _other_rule_closes(line, written or _written_on(ctx, line), goals[0])
        if closing:
            return [closing]
        own = _own_rule(line, written, pattern, goals[0], ctx)
        if own:
            return [own]
        for name, typ in goals[0].named_facts():
            if written is not None and name != written[1]:
                continue  # the student's own rule is what to fix, not another hypothesis
            hyp = split_target(typ)
            flipped = (
                hyp.shape in (Shape.EQ, Shape.IFF)
                and hyp.left.strip() == pattern
                and _occurs_as_term(hyp.right.strip(), goals[0].target)
            )
            if flipped:
                return one(
                    line,
                    f"Do rewrite right to left with `rw [← {name}]` on line {line}: the "
                    f"goal contains `{shorten(hyp.right, 30)}`, not `{shorten(pattern, 30)}`.",
                )
    if pattern and goals:
        relative = _relative_rewrite(line, goals[0], ctx) or _premise_for_the_goals_term(
            line, goals[0], ctx
        )
        if relative:
            return [relative]
        value = _other_value(line, pattern, goals[0], ctx)
        if value:
            return [value]
        elsewhere = _meant_for_hypothesis(line, pattern, goals[0], ctx)
        if elsewhere:
            return [elsewhere]
    shown = f"`{shorten(pattern, 40)}`" if pattern else "the rule's left side"
    if pattern and goals:
        other = (
            _another_rewrite_first(line, pattern, goals[0], ctx)
            or _rewriting_the_wrong_place(line, pattern, goals[0], ctx)
            or _through_a_composition(line, goals[0], ctx)
            or _hidden_inside(line, pattern, goals[0], ctx)
            or _lemma_states_the_goal(line, goals[0], ctx)
        )
        if other:
            return [other]
    types = dict(statement_hypotheses(ctx.statement))
    if pattern and goals:
        peeled = _sum_not_peeled(line, pattern, goals[0], ctx)
        if peeled:
            return [peeled]
        whole = _ring_instead(line, shown, pattern, goals[0], ctx)
        if whole:
            return [whole]
    if goals and fixes.is_linear_arith(goals[0].target, types) and _omega_proves(goals[0], types):
        return one(
            line,
            f"Do prove `{shorten(goals[0].target, 30)}` with `omega` on line {line} instead of "
            f"`rw`: {shown} does not appear literally in the goal, and the goal is linear "
            "arithmetic that omega decides.",
        )
    return one(
        line,
        f"Do check that {shown} appears literally in the goal before `rw` on line {line}: "
        "rw only rewrites exact matches. Use `rw [← h]` for the other direction, "
        "`simp only [h]`, or `rw [h] at h'` for a hypothesis.",
    )


_SUCCESSOR = re.compile(r"(?:Nat\.)?succ\s+\S+|\S+\.succ")


def _successor_already_plus_one(line: int, pattern: str, goal: Goal, ctx: Context) -> Advice | None:
    """`rw [Nat.succ_eq_add_one]` in an induction step Lean already shows as `k + 1` (as the
    goal printed in the message says): nothing to rewrite, the step is to be removed."""
    if not _SUCCESSOR.fullmatch(pattern.strip()) or "succ" in goal.target:
        return None
    if "+ 1" not in goal.target:
        return None
    step = re.search(r"\b(?:rw|rewrite|rwa)\s*\[([^\[\]]+)\]", ctx.text.line(line))
    rules = [r.strip() for r in step.group(1).split(",")] if step else []
    stale = [r for r in rules if "succ" in r]
    what = (
        f"remove `{stale[0]}` from the rules on line {line}"
        if len(rules) > 1 and len(stale) == 1
        else f"delete the `rw` on line {line}"
    )
    return Advice(
        line,
        f"Do {what}: the goal already writes the successor as `+ 1` "
        f"(`{shorten(goal.target, 40)}`), so there is no `succ` left to rewrite; go on with "
        "the next step.",
    )


def _rule_step(ctx: Context, line: int) -> re.Match[str] | None:
    """The `rw [rule]` step (one rule, not `at`) written on `line`, comments left out."""
    return _ONE_RULE.search(ctx.text.line(line).split("--", 1)[0])


_ONE_RULE = re.compile(r"\b(rw|rewrite|rwa)\s*\[([^\[\],]+)\](?!\s*at\b)")


def _relative_rewrite(line: int, goal: Goal, ctx: Context) -> Advice | None:
    """`rw [min_eq_right h]` where its left side is not in the goal but `min_eq_left h`'s is:
    the relative of the written lemma whose premise the same hypothesis proves
    (tutor/coach/lemmas.py)."""
    step = _rule_step(ctx, line)
    words = step.group(2).split() if step else []
    if len(words) < 2 or not any(w == words[0] for w in (x.name for x in lemmas.LEMMAS)):
        return None
    facts = [(n, t) for n, t in goal.named_facts() if n in words[1:]]
    found = lemmas.rewrites_for(goal.target, facts, ctx.mathlib, words[0])
    if not found:
        return None
    return Advice(
        line,
        f"Do write `rw [{found[0]}]` on line {line}: with `{words[1]}` it is `{found[0].split()[0]}` "
        f"whose left side is in the goal `{shorten(goal.target, 24)}`; `{words[0]}` rewrites "
        "the other one.",
    )


def _written_on(ctx: Context, line: int) -> tuple[bool, str] | None:
    step = _rule_step(ctx, line)
    if step is None:
        return None
    rule = step.group(2).strip()
    backwards = rule.startswith(("←", "<-"))
    return backwards, rule.lstrip("←<-").strip()


def _other_rule_closes(line: int, written: tuple[bool, str] | None, goal: Goal) -> Advice | None:
    """`rw [h1]` in a calc step whose goal `b + 1 = c + 1 + 1` another hypothesis closes
    (`h2 : b = c + 1`): the step was meant with that hypothesis."""
    if written is None:
        return None
    facts = [(n, t) for n, t in goal.named_facts() if n != written[1] and "✝" not in n]
    for found in rewriting.rewrites(facts, goal.target):
        if rewriting.closes_by_rfl(found):
            return Advice(
                line,
                f"Do write `rw [{found.name}]` on line {line} instead: `{written[1]}` does not "
                f"match this goal, and `{found.name}` turns `{shorten(goal.target, 24)}` into "
                "the same term on both sides.",
            )
    return None


def _another_rewrite_first(line: int, pattern: str, goal: Goal, ctx: Context) -> Advice | None:
    """`rw [h2]` (`h2 : y = 3`) on `x = 6` with `h1 : x = 2 * y`: `y` appears only once `h1`
    has replaced `x`, so rewrite with `h1` first (or use `h2` inside `h1`)."""
    step = _rule_step(ctx, line)
    if step is None or "," in step.group(2):
        return None
    rule = step.group(2).strip()
    regex = hypotheses.pattern_regex(pattern, whole=False) or re.compile(
        rf"(?<![\w.']){re.escape(pattern.strip())}(?![\w'])"
    )
    if rule.startswith(("←", "<-")):
        return None
    facts = [(n, t) for n, t in goal.named_facts() if n != rule and "✝" not in n]
    for found in rewriting.rewrites(facts, goal.target):
        if regex.search(" ".join(found.target.split())):
            return Advice(
                line,
                f"Do rewrite with `{found.name}` first on line {line}: `rw [{found.name}, {rule}]`. "
                f"`{shorten(pattern, 16)}` is not in the goal until `{found.name}` brings it in.",
            )
    return None


_AT_HYPOTHESIS = re.compile(r"\b(rw|rewrite)\s*\[([^\]]+)\]\s+at\s+([\w'₀-₉]+)\s*$")


def _rewriting_the_wrong_place(line: int, pattern: str, goal: Goal, ctx: Context) -> Advice | None:
    """`rw [Nat.even_iff] at h` where `Even ?n` is in the goal, not in `h`: the rewrite was
    meant for the goal, so drop `at h` (the target Lean searched was `h`)."""
    code = ctx.text.line(line).split("--", 1)[0].strip().lstrip("·").strip()
    found = _AT_HYPOTHESIS.search(code)
    regex = hypotheses.pattern_regex(pattern, whole=False)
    if found is None or regex is None or not regex.search(" ".join(goal.target.split())):
        return None
    fixed = code[: found.start()] + f"{found.group(1)} [{found.group(2)}]"
    return Advice(
        line,
        f"Do write `{shorten(fixed, 40)}` on line {line}, without `at {found.group(3)}`: "
        f"`{shorten(pattern, 20)}` is in the goal, not in `{found.group(3)}`, so rewrite the goal.",
    )


def _through_a_composition(line: int, goal: Goal, ctx: Context) -> Advice | None:
    """`rw [hg]` on `(f ∘ g) 3 = 7`: `g 3` appears only once the composition is unfolded,
    which `Function.comp_apply` does (Mathlib; `simp` uses it on its own)."""
    if "∘" not in goal.target or not ctx.mathlib:
        return None
    step = _rule_step(ctx, line)
    rule = step.group(2).strip() if step else "h"
    return Advice(
        line,
        f"Do write `rw [Function.comp_apply, {rule}]` on line {line} (or `simp [{rule}]`): "
        f"the goal applies a composition `∘`, and `{rule}`'s pattern appears only after "
        "`Function.comp_apply` unfolds it.",
    )


_FIELD = re.compile(r"^([\w'₀-₉]+)\.(\w+)$")


def _hidden_inside(line: int, pattern: str, goal: Goal, ctx: Context) -> Advice | None:
    """`rw [h]` (`h : xs.length = 3`) on `(xs ++ ys).length = …`: the pattern `xs.length` is
    not in the goal yet; `simp [h]` first rewrites `(xs ++ ys).length` with its simp lemmas
    (`List.length_append`), which makes it appear."""
    field = _FIELD.match(pattern.strip())
    if field is None:
        return None
    name, attribute = field.groups()
    inside = re.search(
        rf"\((?:[^()]*(?<![\w.']){re.escape(name)}(?![\w'])[^()]*)\)\.{re.escape(attribute)}\b",
        goal.target,
    )
    step = _rule_step(ctx, line)
    if inside is None or step is None:
        return None
    return Advice(
        line,
        f"Do write `simp [{step.group(2).strip()}]` on line {line} instead: `{pattern}` does "
        f"not appear yet, only `{shorten(inside.group(0), 24)}`, which simp first splits "
        f"with its lemmas (such as `List.length_append`), making `{pattern}` appear.",
    )


def _lemma_states_the_goal(line: int, goal: Goal, ctx: Context) -> Advice | None:
    """The rewrite failed, but a library lemma states exactly the goal (`sq_abs x` for
    `|x| ^ 2 = x ^ 2`): that lemma is the step."""
    facts = [(n, t) for n, t in goal.named_facts() if "✝" not in n]
    found = lemmas.instances(goal.target, facts, ctx.mathlib)
    if not found:
        return None
    return Advice(
        line,
        f"Do write `exact {found[0]}` on line {line} instead: `{found[0].split()[0]}` states "
        f"exactly the goal `{shorten(goal.target, 24)}`, while the left side of the rule you "
        "wrote does not occur in it.",
    )


def _premise_for_the_goals_term(line: int, goal: Goal, ctx: Context) -> Advice | None:
    """`rw [abs_of_nonneg h0]` (`h0 : 0 ≤ x`) on a goal about `|x - 1|`: the lemma's left side
    is in the goal at another term, so the premise it needs is about that term (`0 ≤ x - 1`);
    name the fact that states it, or the tactic that proves it from the facts."""
    step = _rule_step(ctx, line)
    words = step.group(2).split() if step else []
    lemma = next((x for x in lemmas.available(ctx.mathlib) if words and x.name == words[0]), None)
    if lemma is None or len(words) != 2 or len(lemma.premises) != 1 or lemma.args:
        return None
    left = lemma.conclusion.split(" = ")[0].strip()
    holes = re.findall(r"\?[\w'₀-₉]+", left)
    if len(set(holes)) != 1:
        return None
    if left == f"|{holes[0]}|":
        terms = [m.group(1).strip() for m in re.finditer(r"\|([^|]+)\|", goal.target)]
    else:
        regex = hypotheses.pattern_regex(left)
        terms = [m.group("m0") for m in regex.finditer(goal.target)] if regex else []
    facts = [(n, t) for n, t in goal.named_facts() if "✝" not in n]
    domain = evidence.domain_of_text(goal.target, goal.variable_types())
    for term in dict.fromkeys(terms):
        needed = lemma.premises[0].replace(holes[0], term)
        stated = next((n for n, t in facts if same(t, needed)), None)
        if stated is None and linear.entails(needed, [t for _, t in facts], domain) is not True:
            continue
        proof = stated or ("(by linarith)" if ctx.mathlib else "(by omega)")
        return Advice(
            line,
            f"Do write `rw [{lemma.name} {proof}]` on line {line}: the goal has "
            f"`{shorten(left.replace(holes[0], term), 20)}`, so `{lemma.name}` needs "
            f"`{shorten(needed, 20)}` there, not `{words[1]}`"
            + ("" if stated else "; that follows from your hypotheses")
            + ".",
        )
    return None


_VALUE = re.compile(r"[\w'₀-₉.]+")


def _other_value(line: int, pattern: str, goal: Goal, ctx: Context) -> Advice | None:
    """`rw [hf 3]` with `hf : ∀ n, f n = n + 1` on a goal about `f 2`: the ∀ hypothesis was
    instantiated at a value the goal does not have; the goal's own value makes the pattern
    occur."""
    step = _rule_step(ctx, line)
    words = step.group(2).split() if step else []
    if len(words) != 2 or words[0].startswith(("←", "<-")):
        return None
    name, value = words
    if split_target(dict(goal.named_facts()).get(name, "")).shape is not Shape.FORALL:
        return None
    spots = list(re.finditer(rf"(?<![\w.']){re.escape(value)}(?![\w'])", pattern))
    if not spots:
        return None
    for other in dict.fromkeys(_VALUE.findall(goal.target)):
        if other == value:
            continue
        candidate = re.sub(rf"(?<![\w.']){re.escape(value)}(?![\w'])", other, pattern)
        if _occurs_as_term(candidate, goal.target):
            return Advice(
                line,
                f"Do write `{step.group(1) if step else 'rw'} [{name} {other}]` on line {line}: "
                f"`{name} {value}` rewrites `{shorten(pattern, 20)}`, which is not in the goal; "
                f"the goal has `{shorten(candidate, 20)}`, at `{other}`, not `{value}`.",
            )
    return None


def _meant_for_hypothesis(line: int, pattern: str, goal: Goal, ctx: Context) -> Advice | None:
    """`rw [Nat.add_zero]` on a goal without `?n + 0` while `h` has `n + 0`: the rewrite was
    meant for `h`, and `rw` without `at` rewrites only the goal. Said for a step with one rule
    and one hypothesis holding the pattern (with more rules, the others did rewrite the goal)."""
    step = _rule_step(ctx, line)
    if step is None:
        return None
    rule = step.group(2).strip().removeprefix("←").removeprefix("<-").strip()
    facts = [(n, t) for n, t in goal.named_facts() if n != rule]  # its own side is no evidence
    held = hypotheses.holding_pattern(pattern, facts, goal.target)
    if len(held) != 1:
        return None
    name = held[0]
    return Advice(
        line,
        f"Do rewrite the hypothesis instead: write `{step.group(1)} [{step.group(2).strip()}] "
        f"at {name}` on line {line}. `{shorten(pattern, 24)}` occurs in `{name}`, not in the "
        f"goal `{shorten(goal.target, 24)}`, and without `at` a rewrite changes only the goal.",
    )


def _rule_at(ctx: Context, d: Diagnostic) -> tuple[bool, str] | None:
    """(reversed, name) of the rewrite rule Lean points at (`rw [← h1]`): its column is where
    the rule starts in the student's line."""
    rest = ctx.text.line(d.line)[d.column :]
    match = re.match(r"\s*(←|<-)?\s*([\w'₀-₉.]+)\s*(?:[,\]]|at\b|$)", rest)
    if not match:
        return None
    return match.group(1) is not None, match.group(2)


_COMMUTE = {"*": ("mul_comm", "Nat.mul_comm"), "+": ("add_comm", "Nat.add_comm")}


def _own_rule(
    line: int, written: tuple[bool, str] | None, pattern: str, goal: Goal, ctx: Context
) -> Advice | None:
    """The rule the student wrote, read against the goal: `rw [← h]` whose other side is in
    the goal was meant without the arrow; a pattern `a * b` whose goal has `b * a` needs the
    factors swapped first (`mul_comm`)."""
    target = goal.target
    if written is not None:
        backwards, name = written
        typ = dict(goal.named_facts()).get(name, "")
        hyp = split_target(typ)
        if (
            backwards
            and hyp.shape in (Shape.EQ, Shape.IFF)
            and hyp.right.strip() == pattern
            and _occurs_as_term(hyp.left.strip(), target)
        ):
            return Advice(
                line,
                f"Do write `rw [{name}]` on line {line}, without the `←`: the arrow rewrites "
                f"`{shorten(hyp.right, 16)}` into `{shorten(hyp.left, 16)}`, the wrong "
                f"direction here, since the goal contains `{shorten(hyp.left, 16)}`.",
            )
        swapped_in_goal = re.fullmatch(r"(\S+) ([*+]) (\S+)", pattern.strip()) and _occurs_as_term(
            re.sub(r"^(\S+) ([*+]) (\S+)$", r"\3 \2 \1", pattern.strip()), target
        )
        if (
            not backwards
            and not swapped_in_goal  # then the order, not the direction, is what is off
            and hyp.shape in (Shape.EQ, Shape.IFF)
            and hyp.left.strip() == pattern
            and _occurs_as_term(hyp.right.strip(), target)
        ):
            # The goal holds the rule's other side: the one-character fix is the direction.
            return Advice(
                line,
                f"Do rewrite right to left with `rw [← {name}]` on line {line}: the goal "
                f"contains `{shorten(hyp.right, 30)}`, not `{shorten(pattern, 30)}`.",
            )
    swap = re.fullmatch(r"(\S+) ([*+]) (\S+)", pattern.strip())
    if swap:
        a, op, b = swap.groups()
        swapped = f"{b} {op} {a}"
        if a != b and _occurs_as_term(swapped, target):
            general, core = _COMMUTE[op]
            lemma = general if ctx.mathlib else core
            if evidence.in_library(lemma, ctx.mathlib):
                rule = f", {'← ' if written and written[0] else ''}{written[1]}" if written else ""
                return Advice(
                    line,
                    f"Do swap the order first: write `rw [{lemma} {b} {a}{rule}]` on line {line}. "
                    f"The goal has `{swapped}`, and rw matches only the order written in the rule, "
                    f"`{pattern}`.",
                )
    return None


_RANGE = re.compile(r"Finset\.range\s+(\([^()]*\)|[\w'₀-₉]+)")


def _sum_not_peeled(line: int, pattern: str, goal: Goal, ctx: Context) -> Advice | None:
    """`rw [ih]` where `ih` is about `Finset.range (k + 1)` and the goal sums over
    `Finset.range (k + 1 + 1)`: the sum must lose its last term first (`Finset.sum_range_succ`)
    before the induction hypothesis's sum appears in it."""
    if not ctx.mathlib or not evidence.in_library("Finset.sum_range_succ", True):
        return None
    bounds = _RANGE.findall(pattern)
    if len(bounds) != 1 or "∑" not in pattern:
        return None
    inner = bounds[0].strip("()")
    larger = rf"Finset\.range\s+\(\s*{re.escape(inner)}\s*\+\s*1\s*\)"
    if not re.search(larger, goal.target):
        return None
    step = _rule_step(ctx, line) or re.search(r"\b(rw|rewrite)\s*\[([^\]]+)\]", ctx.text.line(line))
    rules = [r.strip() for r in step.group(2).split(",")] if step else []
    rest = [r for r in rules if r != "Finset.sum_range_succ"]
    fixed = f"rw [{', '.join(['Finset.sum_range_succ', *rest])}]" if rest else None
    shown = f"`{fixed}`" if fixed else "`rw [Finset.sum_range_succ]` before this rewrite"
    return Advice(
        line,
        f"Do rewrite with `Finset.sum_range_succ` first on line {line}: {shown}. The goal "
        f"sums over `Finset.range ({inner} + 1)`, one term more than the sum in the rule; "
        "peeling off the last term makes the rule's sum appear.",
    )


def _ring_instead(line: int, shown: str, pattern: str, goal: Goal, ctx: Context) -> Advice | None:
    """A rewrite that finds nothing on a goal that is an identity of commutative algebra
    (checked by evaluation at several points): `ring` proves it without any rewriting."""
    split = split_target(goal.target)
    if not ctx.mathlib or split.shape is not Shape.EQ:
        return None
    if not evidence.identity(goal.target, evidence.REAL):
        return None
    power = "*" in pattern and "^" in goal.target and "^" not in pattern
    why = (
        "a power such as `x ^ 2` is not a product until rewritten with `sq`"
        if power
        else f"{shown} does not appear in the goal as written"
    )
    return Advice(
        line,
        f"Do close the goal with `ring` on line {line} instead of this `rw`: {why}, and the "
        "goal is an identity of algebra, which `ring` proves directly.",
    )


def _omega_proves(goal: Goal, types: dict[str, str]) -> bool:
    facts = [t for n, t in goal.named_facts() if "✝" not in n]
    domain = evidence.domain_of_text(goal.target, {**types, **goal.variable_types()})
    domain = evidence.INT if domain == evidence.INT else evidence.NAT
    return linear.omega_proves(goal.target, facts, domain) is not False


def _occurs_as_term(term: str, target: str) -> bool:
    """`term` appears in `target` as a whole term and is not a bare numeral: `rw [← h]` with
    `h : k * 0 = 0` would turn every `0` of the goal into `k * 0`, not undo one rewrite."""
    if not term or re.fullmatch(r"\d+", term):
        return False
    return re.search(rf"(?<![\w.']){re.escape(term)}(?![\w'])", target) is not None


def _after_pattern(message: str) -> str:
    # The goal context follows the pattern block in rewrite messages.
    parts = message.split("\n")
    for i, part in enumerate(parts):
        if part and not part.startswith(" ") and i > 1 and (" : " in part or part.startswith("⊢")):
            return "\n".join(parts[i:])
    return ""
