"""Advice rules that name a concrete fix only when the message and the goal make it certain.

Each rule returns a list of (line, text) pairs, or [] when it is not sure: the caller then
falls back to a conceptual hint that names no tactic (saying nothing specific beats saying
something wrong). Rules read the parts Lean printed (tutor.lean.messages.mismatch_parts), the
statement's hypotheses and conclusion, and the student's own line.

Also here: one short clause for each symbol a beginner cannot read (`?m.N`, `↑`, `case` tags,
`✝` names, `sorryAx`), added inside the suggestion that shows it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from tutor.coach import context, evidence, linear
from tutor.coach.algebra import ac_step
from tutor.coach.goals import Goal, Hypothesis, Shape, is_nonlinear, shorten, split_target
from tutor.coach.source import AttemptText, proof_conclusion, statement_hypotheses
from tutor.lean.messages import Mismatch, mismatch_parts

Advice = tuple[int | None, str]

_NAT_TYPES = ("Nat", "ℕ", "Int", "ℤ")
_METAVAR = re.compile(r"\?[\w.]+")


@dataclass
class Scene:
    """What a rule knows: the statement's binders, the attempt, the failing line."""

    statement: str
    text: AttemptText
    line: int

    @property
    def hypotheses(self) -> list[tuple[str, str]]:
        return statement_hypotheses(self.statement)

    @property
    def conclusion(self) -> str | None:
        return proof_conclusion(self.statement)

    def source(self) -> str:
        return self.text.line(self.line).strip()

    def is_first_tactic(self) -> bool:
        """True when the failing line is the proof's first step (so the goal is the statement)."""
        lines = self.text.lines
        for number in range(1, self.line):
            code = lines[number - 1].strip()
            if code.endswith(":= by") or code.endswith(":=") or not code or code.startswith("--"):
                continue
            if re.match(r"^(theorem|lemma|example|def)\b", code):
                continue
            return False
        return True

    def fact_with_type(self, wanted: str) -> str | None:
        for name, typ in self.hypotheses:
            if _norm(typ) == _norm(wanted):
                return name
        return None

    def variable_types(self) -> dict[str, str]:
        return dict(self.hypotheses)

    def facts(self) -> list[tuple[str, str]]:
        """The statement's binders and what the proof introduced before the failing line."""
        return context.facts_in_scope(self.statement, self.text, self.line)


def _norm(text: str) -> str:
    text = " ".join(text.replace("(", " ( ").replace(")", " ) ").split())
    text = re.sub(r"\s*:\s*(Prop|Type\S*|Sort\S*)\s*$", "", text)
    return text.replace("( ", "(").replace(" )", ")")


def _strip_parens(text: str) -> str:
    text = text.strip()
    while text.startswith("(") and text.endswith(")"):
        text = text[1:-1].strip()
    return text


def is_linear_arith(target: str, types: dict[str, str]) -> bool:
    """A (dis)equation or inequality over ℕ/ℤ variables that omega decides: no products of
    variables, no function applications, no lists."""
    shape = split_target(target).shape
    if shape not in (Shape.EQ, Shape.LE, Shape.LT, Shape.NE):
        return False
    if is_nonlinear(target) or re.search(r"[A-Za-z_][\w']*\s*\*\s*[A-Za-z_(]", target):
        return False
    if any(sym in target for sym in ("::", "[", ".length", "ℝ", "ℚ", "/", "^", "∑", "∏", "∈")):
        return False
    if re.search(r"[\w')]\.[A-Za-z]|\bfun\b", target):  # `Finset.range n`, `s.card`: opaque
        return False
    words = set(re.findall(r"(?<![\w.])[A-Za-z_][\w']*", target)) - {"Nat", "Int"}
    return all(types.get(w, "Nat").strip() in _NAT_TYPES for w in words) and not any(
        re.search(rf"\b{re.escape(w)}\s+[\w(]", target) for w in words
    )


# ---------------------------------------------------------------------- explanations

_CASE = re.compile(r"^case (\S+)", re.MULTILINE)


def explanations(message: str, goal_text: str | None = None) -> list[str]:
    """Short clauses explaining the symbols in a message that a beginner cannot read."""
    text = message + "\n" + (goal_text or "")
    clauses = []
    meta = _METAVAR.search(text)
    if meta:
        clauses.append(f"`{meta.group(0)}` is a placeholder for a term Lean could not work out yet")
    if "↑" in text:
        clauses.append("`↑x` is a cast (coercion) of `x` into another number type, such as ℕ to ℤ")
    case = _CASE.search(text)
    if case:
        clauses.append(f"`case {case.group(1)}` names the goal left from that branch")
    dagger = re.search(r"[\w']+✝[¹²³⁴⁵⁶⁷⁸⁹⁰]*", text)
    if dagger:
        clauses.append(
            f"`{dagger.group(0)}` is an inaccessible name Lean made up; you cannot type it until "
            "you name it (`with` or `rename_i`)"
        )
    if "sorryAx" in text:
        clauses.append("`sorryAx` is how Lean shows a `sorry` inside a term")
    return clauses


# ---------------------------------------------------------------------- type mismatch


def type_mismatch(message: str, scene: Scene) -> list[Advice]:
    parts = mismatch_parts(message)
    if parts is None:
        return []
    parts = Mismatch(parts.term, _norm(parts.has), _norm(parts.expected), parts.application)
    for rule in (
        _respecialize,
        _absurd_order,
        _missing_argument,
        _premise_left,
        _negation_to_false,
        _false_fact,
        _beta_redex,
        _implicit_value,
        _lemma_at_other_value,
        _other_side_lemma,
        _abs_sub_order,
        _iff_direction,
        _cast_mismatch,
        _needs_intro,
        _wrong_side_chosen,
        _instantiate_forall,
        _apply_implication,
        _false_elim,
        _swapped_sides,
        _or_constructor_side,
        _or_side,
        _anonymous_order,
        _exists_as_value,
        _convert_with_hypothesis,
        _contrapositive,
        _exists_from_instance,
        _missing_values,
        _explicit_arguments,
        _derived,
        _hypothesis_fits,
        _hypothesis_states_it,
        _linear_consequence,
        _linear_omega,
    ):
        advice = rule(parts, scene)
        if advice:
            return advice
    return []


def _respecialize(p: Mismatch, s: Scene) -> list[Advice]:
    """`specialize h 2` then `exact h` where the goal is `h`'s statement at 3: the earlier line
    chose the value; the ∀ as stated gives the goal at the value read off the goal."""
    for number in range(s.line - 1, 0, -1):
        code = s.text.line(number).split("--", 1)[0].strip().lstrip("·").strip()
        match = re.fullmatch(rf"specialize\s+{re.escape(p.term)}\s+(.+)", code)
        if not match:
            continue
        original = dict(context.facts_in_scope(s.statement, s.text, number)).get(p.term, "")
        chosen = match.group(1).split()
        candidates = list(
            dict.fromkeys(re.findall(r"(?<![\w.'])(\d+|[a-z][\w'₀-₉]*)(?![\w'])", p.expected))
        )
        fits = [
            v
            for v in candidates[:8]
            if len(chosen) == 1
            and original
            and context.same(context.instantiate(original, [v]), p.expected)
        ]
        if len(fits) != 1 or fits[0] == chosen[0]:
            return []
        values = fits[0]
        return [
            (
                number,
                f"Do write `specialize {p.term} {values}` on line {number}: the goal "
                f"`{shorten(p.expected, 24)}` is `{p.term}` at {values}, and with "
                f"{match.group(1).strip()} it says `{shorten(p.has, 24)}` instead.",
            )
        ]
    return []


def _absurd_order(p: Mismatch, s: Scene) -> list[Advice]:
    """`absurd hnp hp`: `absurd (h₁ : a) (h₂ : ¬a) : b` (Init/Prelude.lean) takes the fact
    first and its negation second, so the negation in first place asks for `¬¬p`."""
    match = re.fullmatch(r"absurd\s+(\S+)\s+(\S+)", " ".join((p.application or "").split()))
    if not match or match.group(2) != p.term:
        return []
    first = dict(s.facts()).get(match.group(1), "")
    if not first or _norm(first) not in (
        f"¬{_norm(p.has)}",
        f"¬ {_norm(p.has)}",
        f"¬({_norm(p.has)})",
    ):
        return []
    fixed = f"absurd {p.term} {match.group(1)}"
    return [
        (
            s.line,
            f"Do write `exact {fixed}` on line {s.line}: `absurd` takes the fact first and its "
            f"negation second, so with `{match.group(1)}` first it asks for `¬¬...` next.",
        )
    ]


def _missing_argument(p: Mismatch, s: Scene) -> list[Advice]:
    """`Nat.le_trans h₁` : `b ≤ ?m → a ≤ ?m` for goal `a ≤ c`: a premise is still missing."""
    split = split_target(p.has)
    if split.shape is not Shape.IMPLIES or "?" not in p.has:
        return []
    pattern = re.escape(_norm(split.right))
    for meta in set(_METAVAR.findall(_norm(split.right))):
        pattern = pattern.replace(re.escape(meta), r"(.+?)", 1).replace(re.escape(meta), r"\S+")
    match = re.fullmatch(pattern, _norm(p.expected))
    premise = _norm(split.left)
    if match and match.groups():
        for meta in _METAVAR.findall(_norm(split.right)):
            premise = premise.replace(meta, match.group(1))
    name = s.fact_with_type(premise)
    if name is None:
        return []
    return [
        (
            s.line,
            f"Do pass the missing argument on line {s.line}: write `{p.term} {name}`, since "
            f"`{p.term}` still needs a proof of `{shorten(premise, 30)}`, which `{name}` is.",
        )
    ]


def _premise_left(p: Mismatch, s: Scene) -> list[Advice]:
    """`h 3 : 3 > 0 → P 3` where `P 3` is needed: the term still takes a proof of its premise;
    pass one (a fact in scope, or `by decide` / `by norm_num` when the premise is a true
    closed claim), else say which proof is missing and name none."""
    split = split_target(p.has)
    if (
        split.shape is not Shape.IMPLIES
        or "?" in p.has
        or not context.same(split.right, p.expected)
    ):
        return []
    premise = _strip_parens(split.left)
    facts = s.facts()
    proofs = context.proofs_of(premise, facts)
    proof = proofs[0] if proofs else None
    if proof is None and evidence.is_closed(premise):
        # `decide` evaluates closed comparisons on ℕ and ℤ (core Lean); ℝ and ℚ need norm_num.
        domain = evidence.domain_of_text(s.statement)
        if evidence.holds(premise, domain) is True:
            proof = "(by decide)" if domain in (evidence.NAT, evidence.INT) else "(by norm_num)"
    term = context.as_argument(p.term) if p.application else p.term
    domain = evidence.domain_of_text(s.statement)
    if proof is None and evidence.is_closed(premise) and evidence.holds(premise, domain) is False:
        return [
            (
                s.line,
                f"Don't use `{shorten(p.term, 16)}` on line {s.line} for "
                f"`{shorten(p.expected, 20)}`: it still needs a proof of its premise "
                f"`{shorten(premise, 16)}`, which is false, so this route cannot work.",
            )
        ]
    if proof is None:
        return _premise_from_goal(p, s, premise)
    fixed = f"{term} {proof if proof.startswith('(') else context.as_argument(proof)}"
    if p.application:  # the argument of a larger application: show the whole of it
        whole = _replace_term(" ".join(p.application.split()), p.term, f"({fixed})")
        fixed = whole if whole is not None else fixed
    source = " ".join(s.source().split())
    plain = source.startswith("exact ") and (
        source[6:] in (p.term, " ".join((p.application or "").split()))
    )
    step = f"exact {fixed}" if plain else fixed
    return [
        (
            s.line,
            f"Do write `{step}` on line {s.line}: `{shorten(p.term, 16)}` still needs a proof of "
            f"its premise `{shorten(premise, 24)}` before it proves `{shorten(p.expected, 24)}`.",
        )
    ]


def _premise_from_goal(p: Mismatch, s: Scene, premise: str) -> list[Advice]:
    """`exact hnq h` on the goal `¬p` with `h : p → q`: the premise `h` still needs is the
    goal's own premise (`¬p` is `p → False`); introduce it first, then apply `h` to it."""
    goal = context.traced_goal(s.statement, s.text, s.line)
    split = split_target(goal) if goal else None
    if split is None:
        return []
    given = split.right if split.shape is Shape.NOT else split.left
    if split.shape not in (Shape.NOT, Shape.IMPLIES) or not context.same(given, premise):
        return []
    name = _intro_name(premise, {n for n, _ in s.facts()})
    applied = f"{context.as_argument(p.term)} {name}"
    whole = (
        _replace_term(" ".join(p.application.split()), p.term, f"({applied})")
        if p.application
        else applied
    )
    return [
        (
            s.line,
            f"Do write `intro {name}` before line {s.line}, then `exact {whole}`: the goal "
            f"`{shorten(goal or '', 16)}` has the premise `{shorten(premise, 12)}`, which "
            f"`{shorten(p.term, 12)}` still needs; introducing it gives the proof.",
        )
    ]


def _negation_to_false(p: Mismatch, s: Scene) -> list[Advice]:
    """`exact lt_irrefl x` (`¬x < x`) where `False` is needed, with `h : x < x` in scope: a
    negation is a function into `False`; apply it to the fact it negates."""
    split = split_target(p.has)
    if _strip_parens(p.expected) != "False" or split.shape is not Shape.NOT:
        return []
    negated = _strip_parens(split.right)
    names = [t for t in context.proofs_of(negated, s.facts()) if t != p.term]
    if not names:
        return []  # no proof of what it negates in scope: other rules, or the general hint
    fixed = f"{context.as_argument(p.term)} {context.as_argument(names[0])}"
    return [
        (
            s.line,
            f"Do write `exact {fixed}` on line {s.line}: `{shorten(p.term, 20)}` proves "
            f"`¬{shorten(negated, 20)}`, a function from `{shorten(negated, 20)}` to `False`; "
            f"apply it to `{shorten(names[0], 16)}` to get `False`.",
        )
    ]


def _false_fact(p: Mismatch, s: Scene) -> list[Advice]:
    """`h : 2 = 3` where `False` is needed (after `intro h` on `2 ≠ 3`): `h` is not `False`
    itself, but a claim evaluation shows false; `absurd h (by decide)` turns it into any goal."""
    if _strip_parens(p.expected) != "False" or not evidence.is_closed(p.has):
        return []
    domain = evidence.domain_of_text(s.statement)
    if domain not in (evidence.NAT, evidence.INT) or evidence.holds(p.has, domain) is not False:
        return []
    return [
        (
            s.line,
            f"Do write `exact absurd {context.as_argument(p.term)} (by decide)` on line {s.line}: "
            f"`{shorten(p.term, 16)}` states `{shorten(p.has, 20)}`, which is false, not `False` "
            "itself; `decide` proves its negation and `absurd` turns the two into the goal.",
        )
    ]


def _implicit_value(p: Mismatch, s: Scene) -> list[Advice]:
    """`h x hx` with `h : s ⊆ t`: a value (`x : ℕ`) given where a proof (`x ∈ s`) is expected,
    and the proof follows it on the line: the value is implicit (Lean reads it off the proof),
    so it goes."""
    if not p.application or not _is_value_type(p.has) or _is_value_type(p.expected):
        return []
    proofs = [t for t in context.proofs_of(p.expected, s.facts()) if t != p.term]
    source = " ".join(s.source().split())
    if not proofs:
        return []
    gap = re.search(
        rf"(?<![\w.']){re.escape(p.term)}\s+{re.escape(context.as_argument(proofs[0]))}(?![\w'])",
        source,
    )
    if gap is None:
        return []
    fixed = source[: gap.start()] + source[gap.start() + len(p.term) :].lstrip()
    return [
        (
            s.line,
            f"Do write `{fixed}` on line {s.line}: `{p.term}` is a value, and this position "
            f"wants the proof `{shorten(p.expected, 20)}`; the value is implicit there (Lean "
            f"reads it off `{shorten(proofs[0], 12)}`), so leave it out.",
        )
    ]


def _lemma_at_other_value(p: Mismatch, s: Scene) -> list[Advice]:
    """`sq_nonneg a : 0 ≤ a ^ 2` where `0 ≤ (a - b) ^ 2` is needed: the lemma's statement is
    right, at another value; the value read off the goal by matching the two."""
    match = re.fullmatch(r"([\w.']+)\s+([\w'₀-₉]+)", " ".join(p.term.split()))
    if p.application or match is None or "?" in p.has:
        return []
    head, value = match.groups()
    has, want = _norm(p.has), _norm(p.expected)
    pieces = re.split(rf"(?<![\w.']){re.escape(value)}(?![\w'])", has)
    if len(pieces) < 2:
        return []
    pattern = r"(?P<v>\(.+\)|[\w'₀-₉.]+)".join(re.escape(x) for x in pieces[:2])
    for piece in pieces[2:]:
        pattern += r"(?P=v)" + re.escape(piece)
    found = re.fullmatch(pattern, want)
    if found is None or found.group("v") == value:
        return []
    other = found.group("v")
    fixed = f"{head} {context.as_argument(other.strip('()'))}"
    step = f"exact {fixed}" if s.source() == f"exact {p.term}" else f"`{fixed}`"
    return [
        (
            s.line,
            f"Do write `{step}` on line {s.line}: `{head}` states the right fact, but at "
            f"`{value}`; the goal `{shorten(p.expected, 24)}` is it at `{shorten(other, 16)}`.",
        )
    ]


def _other_side_lemma(p: Mismatch, s: Scene) -> list[Advice]:
    """`le_max_right a b : b ≤ max a b` where `a ≤ max a b` is needed: the lemma's twin for
    the other argument (`_left` for `_right`), when it exists and the goal is about that one."""
    match = re.fullmatch(r"([\w.']+_(left|right))\s+(\S+)\s+(\S+)", " ".join(p.term.split()))
    if p.application or match is None:
        return []
    head, side, a, b = match.groups()
    other = head[: -len(side)] + ("right" if side == "left" else "left")
    # A core name always; a Mathlib one only where the statement shows a Mathlib number type
    # (the scene does not know the course).
    mathlib_numbers = _OTHER_NUMBERS.search(s.statement) is not None
    if a == b or not evidence.in_library(other, mathlib_numbers):
        return []
    has, want = split_target(_norm(p.has)), split_target(_norm(p.expected))
    if has.op != want.op or not has.op:
        return []
    # The two statements differ only in which argument stands on one side.
    swapped_left = context.same(has.right, want.right) and {has.left, want.left} == {a, b}
    swapped_right = context.same(has.left, want.left) and {has.right, want.right} == {a, b}
    if not (swapped_left or swapped_right):
        return []
    return [
        (
            s.line,
            f"Do write `exact {other} {a} {b}` on line {s.line}: `{head}` gives the fact about "
            f"its {side} argument, and the goal `{shorten(p.expected, 24)}` is about the other, "
            f"which `{other}` gives.",
        )
    ]


_BETA = re.compile(r"\(fun\s+[^=]+(?:=>|↦)[^()]*\)\s*[\w(]")


def _beta_redex(p: Mismatch, s: Scene) -> list[Advice]:
    """`h : (fun x => x + 1) a = (fun x => x + 1) b` where `a = b` is needed: the function is
    written but not yet applied (no beta reduction); simplify the hypothesis first."""
    if not _BETA.search(p.has) or _BETA.search(p.expected):
        return []
    if not re.fullmatch(r"[\w'₀-₉]+", p.term.strip()):
        return []
    return [
        (
            s.line,
            f"Do simplify `{p.term}` first: write `simp at {p.term}` (or `dsimp only at "
            f"{p.term}`) before line {s.line}. `(fun x => …) a` is not yet reduced to its "
            "body at `a` (beta reduction), so its statement does not match the goal as written.",
        )
    ]


_ABS_DIFF = re.compile(r"\|([^|]+?)\s-\s([^|]+?)\|")


def _abs_sub_order(p: Mismatch, s: Scene) -> list[Advice]:
    """`|a - b| < 1` where `|b - a| < 1` is needed: the same number (`abs_sub_comm`), not the
    same expression, so `exact` does not accept it."""
    swapped = _ABS_DIFF.sub(lambda m: f"|{m.group(2)} - {m.group(1)}|", p.has)
    if swapped == p.has or not context.same(swapped, p.expected):
        return []
    if not evidence.in_library("abs_sub_comm", True) or not _OTHER_NUMBERS.search(s.statement):
        return []
    source = s.source()
    fixed = "rwa [abs_sub_comm]" if re.fullmatch(rf"exact\s+{re.escape(p.term)}", source) else None
    step = f"write `{fixed}`" if fixed else "rewrite with `abs_sub_comm` first"
    return [
        (
            s.line,
            f"Do {step} on line {s.line}: `{shorten(p.has, 20)}` and `{shorten(p.expected, 20)}` "
            "differ in the order of the subtraction, equal by `abs_sub_comm` but not the same "
            "expression, so `exact` does not accept one for the other.",
        )
    ]


def _iff_direction(p: Mismatch, s: Scene) -> list[Advice]:
    app = p.application or ""
    has = split_target(p.has)
    want = split_target(p.expected)
    if has.shape is Shape.IFF and want.shape is Shape.IMPLIES:
        if _norm(has.left) == _norm(want.left):
            return [_term_advice(s, f"{p.term}.mp", "`.mp` is the left-to-right direction of ↔")]
        if _norm(has.right) == _norm(want.left):
            return [_term_advice(s, f"{p.term}.mpr", "`.mpr` is the right-to-left direction of ↔")]
    match = re.match(r"^(\S+)\.(mp|mpr|1|2)\s+(.+)$", app)
    if match and not _VALUE_TYPE.fullmatch(_norm(p.has)):
        flipped = {"mp": "mpr", "mpr": "mp", "1": "2", "2": "1"}[match.group(2)]
        fixed = f"{match.group(1)}.{flipped} {match.group(3)}"
        return [
            _term_advice(
                s, fixed, f"`.{match.group(2)}` goes the other way along the ↔ than you need"
            )
        ]
    return []


def _derived(p: Mismatch, s: Scene) -> list[Advice]:
    """A term built from the facts in scope has exactly the type this position needs."""
    proofs = [t for t in context.proofs_of(p.expected, s.facts()) if t != p.term]
    if not proofs:
        return _whole_goal_with(p, s)
    proof = proofs[0]
    source = s.source()
    whole = _whole_term(s, source)
    if whole is not None:
        return [
            (
                s.line,
                f"Do write `exact {whole}` on line {s.line}: `{shorten(p.term, 20)}` proves "
                f"`{shorten(p.has, 24)}` where `{shorten(p.expected, 24)}` is needed, and "
                f"`{shorten(whole, 30)}` builds the goal from the facts you have.",
            )
        ]
    if re.search(rf"(?<![\w.']){re.escape(proof)}(?![\w'])", source):
        swapped = swapped_arguments(source, p.term, proof)
        if swapped is None:
            return []  # a term already on the line: the whole line needs rethinking
        return [
            (
                s.line,
                f"Do swap the arguments: write `{swapped}` on line {s.line}, since the position "
                f"of `{p.term}` needs `{shorten(p.expected, 24)}`, which `{proof}` proves.",
            )
        ]
    if p.application:
        fixed = _replace_term(p.application, p.term, context.as_argument(proof))
        if fixed is None:
            return []
        step = f"`{fixed}`"
    elif re.fullmatch(rf"exact\s+{re.escape(p.term)}", source) or (
        source.startswith("exact ") and _replace_term(source, p.term, proof) is None
    ):  # the whole term (Lean may print `h.1` as `h.left`)
        step = f"`exact {proof}`"
    else:
        replaced = _replace_term(source, p.term, context.as_argument(proof))
        if replaced is None:
            return []
        step = f"`{replaced}`"
    return [
        (
            s.line,
            f"Do write {step} on line {s.line}: this position needs `{shorten(p.expected, 30)}`, "
            f"`{shorten(p.term, 20)}` proves `{shorten(p.has, 24)}`, and `{shorten(proof, 30)}` "
            "is built from the facts you have.",
        )
    ]


# `constructor` on an ∨ applies its first constructor, `Or.inl`: it chooses the left side.
_SIDE_STEP = re.compile(r"^(?:·\s*)?(left|right|constructor|apply\s+Or\.inl|apply\s+Or\.inr)\s*$")


def _whole_goal_with(p: Mismatch, s: Scene) -> list[Advice]:
    """`exact hpr h` with `h : p ∨ q`: nothing proves the needed `p`, but the goal itself is
    built from the facts with the student's term in it (`h.elim hpr hqr`): the whole step."""
    source = s.source()
    goal = context.traced_goal(s.statement, s.text, s.line)
    if goal is None or not re.fullmatch(r"exact\s+.+", source):
        return []
    uses = re.compile(rf"(?<![\w.']){re.escape(p.term)}(?![\w'])")
    proofs = [t for t in context.proofs_of(goal, s.facts()) if uses.search(t)]
    if not proofs:
        return []
    return [
        (
            s.line,
            f"Do write `exact {proofs[0]}` on line {s.line}: `{shorten(p.term, 16)}` proves "
            f"`{shorten(p.has, 20)}`, not `{shorten(p.expected, 16)}`, and this builds the goal "
            f"`{shorten(goal, 20)}` from it and the facts you have.",
        )
    ]


_MISSING_VALUES = re.compile(r"\?[\w.]+")


def _explicit_arguments(p: Mismatch, s: Scene) -> list[Advice]:
    """`exact List.mem_cons_self` printed as `?a ∈ ?a :: ?l` against `x ∈ x :: xs`: the
    lemma's values were not given; matching its statement against the goal reads them off
    (in the order they first appear)."""
    if p.application or not re.fullmatch(r"[\w.']+", p.term.strip()):
        return []
    has = _norm(p.has)
    metas = list(dict.fromkeys(_MISSING_VALUES.findall(has)))
    if not metas or "?" in p.expected:
        return []
    found = _MISSING_VALUES.findall(has)
    pattern, seen = "", list[str]()
    for index, piece in enumerate(_MISSING_VALUES.split(has)):
        pattern += re.escape(piece)
        if index < len(found):
            if found[index] in seen:
                pattern += rf"\{seen.index(found[index]) + 1}"
            else:
                seen.append(found[index])
                pattern += r"(\S+|\([^()]*\))"
    try:
        match = re.fullmatch(pattern, _norm(p.expected))
    except re.error:
        return []
    if not match:
        return []
    values = " ".join(context.as_argument(v.strip("()")) for v in match.groups())
    return [
        (
            s.line,
            f"Do give `{p.term}` its values: write `exact {p.term} {values}` on line {s.line}; "
            f"its statement `{shorten(has, 24)}` with them is the goal.",
        )
    ]


def _wrong_side_chosen(p: Mismatch, s: Scene) -> list[Advice]:
    """`apply Or.inl` (or `left`) then a proof of the right side: the earlier line chose the
    side the facts cannot prove."""
    previous = s.text.last_code_line(s.line - 1)
    if previous is None or p.application:
        return []
    step = _SIDE_STEP.match(s.text.line(previous).strip())
    goal = context.traced_goal(s.statement, s.text, previous)
    if not step or goal is None:
        return []
    split = split_target(goal)
    if split.shape is not Shape.OR:
        return []
    chose_left = step.group(1) in ("left", "constructor") or step.group(1).endswith("inl")
    other = split.right if chose_left else split.left
    if not context.same(p.has, other):
        return []
    fixed = (
        ("right" if chose_left else "left")
        if "Or." not in step.group(1)
        else ("apply Or.inr" if chose_left else "apply Or.inl")
    )
    side = "right" if chose_left else "left"
    why = (
        " (`constructor` on an ∨ always picks its first, left side, `Or.inl`)"
        if step.group(1) == "constructor"
        else ""
    )
    return [
        (
            previous,
            f"Do write `{fixed}` on line {previous}: `{shorten(p.term, 16)}` proves the {side} "
            f"side `{shorten(other, 20)}` of `{shorten(goal, 30)}`, so choose that side before "
            f"giving it on line {s.line}{why}.",
        )
    ]


def _whole_term(s: Scene, source: str) -> str | None:
    """For `exact ⟨…⟩` (or a calc-free term) whose part failed: a term for the whole goal."""
    match = re.fullmatch(r"exact\s+(⟨.+⟩|Or\.\w+ .+|fun .+)", source)
    goal = context.traced_goal(s.statement, s.text, s.line)
    if not match or goal is None:
        return None
    proofs = context.proofs_of(goal, s.facts())
    return proofs[0] if proofs and proofs[0] != match.group(1) else None


def _term_advice(s: Scene, term: str, why: str) -> Advice:
    return (s.line, f"Do write `exact {term}` on line {s.line} instead: {why}.")


def _cast_mismatch(p: Mismatch, s: Scene) -> list[Advice]:
    if p.has.count("↑") == p.expected.count("↑"):
        return []
    lemma = ""
    if re.fullmatch(r"0 ≤ ↑\w+", _norm(p.expected)):
        var = _norm(p.expected).split("↑", 1)[1]
        lemma = f" (or `Int.natCast_nonneg {var}`)"
    target = _cast_target(s)
    # omega reads casts from ℕ into ℤ, never into ℝ or ℚ: it is named only for ℤ.
    omega = ", or use `omega`" if target == "ℤ" else ""
    into = f"from ℕ to {target}" if target else "into another number type"
    return [
        (
            s.line,
            f"Do write `exact_mod_cast {p.term}` on line {s.line}{lemma}{omega}: the goal "
            f"`{shorten(p.expected, 30)}` has casts `↑` (coercions {into}) and `{p.term}` "
            "proves the fact without them.",
        )
    ]


_NUMBER_TYPES = {"ℤ": "ℤ", "Int": "ℤ", "ℝ": "ℝ", "Real": "ℝ", "ℚ": "ℚ", "Rat": "ℚ"}


def _cast_target(s: Scene) -> str | None:
    """The type a `↑` casts into, read off the statement: a type ascription `(3 : ℝ)` in the
    conclusion, else the one non-ℕ number type among the binders; None when it is not clear."""
    conclusion = s.conclusion or ""
    found = {_NUMBER_TYPES[t] for t in re.findall(r":\s*(ℤ|Int|ℝ|Real|ℚ|Rat)\s*\)", conclusion)}
    if not found:
        found = {_NUMBER_TYPES[t] for _, t in s.hypotheses if t in _NUMBER_TYPES}
    return found.pop() if len(found) == 1 else None


def _intro_name(premise: str, taken: set[str]) -> str:
    premise = _strip_parens(premise)
    base = "h" + premise if re.fullmatch(r"[a-z]\w{0,2}", premise) else "h"
    name, i = base, 1
    while name in taken:
        name, i = f"{base}{i}", i + 1
    return name


def _needs_intro(p: Mismatch, s: Scene) -> list[Advice]:
    if p.application:
        return []  # the expected type is an argument's, not the goal's: nothing to introduce
    want = split_target(p.expected)
    has = split_target(p.has)
    taken = {n for n, _ in s.hypotheses}
    if want.shape is Shape.IMPLIES and has.shape is not Shape.IMPLIES:
        name = _intro_name(want.left, taken)
        if want.left.strip().startswith("¬") or _norm(want.left) == "False":
            name = "hn"
        then = "" if _norm(p.has) != _norm(want.right) else f", then `exact {p.term}`"
        return [
            (
                s.line,
                f"Do start with `intro {name}` on line {s.line}{then}: the goal "
                f"`{shorten(p.expected, 30)}` is an implication, so introduce its premise "
                f"`{shorten(want.left, 20)}` before giving the conclusion.",
            )
        ]
    if want.shape is Shape.NOT and has.shape is not Shape.NOT:
        premise = want.right.strip()
        name = (
            context.negation_name(premise[1:])
            if premise.startswith("¬")
            else _intro_name(premise, taken)
        )
        return [
            (
                s.line,
                f"Do start with `intro {name}` on line {s.line}: `{shorten(p.expected, 30)}` means "
                f"`{shorten(want.right, 20)} → False`, so introduce that premise and derive False.",
            )
        ]
    if want.shape is Shape.FORALL and (
        _norm(p.has) == _norm(p.expected) or has.shape is not Shape.FORALL
    ):
        names = re.findall(r"∀\s*\(?\s*([\w' ]+?)\s*[:,]", p.expected)
        name = names[0].split()[0] if names else "x"
        return [
            (
                s.line,
                f"Do start with `intro {name}` on line {s.line}, then prove the statement for "
                f"that `{name}`: the goal is a ∀ statement, and the body is what you can prove.",
            )
        ]
    return []


def _instantiate_forall(p: Mismatch, s: Scene) -> list[Advice]:
    has = _norm(p.has)
    match = re.match(r"^∀\s*\(?\s*(\w+)\s*(?::\s*[^,)]+)?\)?\s*,\s*(.+)$", has)
    if not match:
        return []
    var, body = match.group(1), match.group(2)
    pattern = re.escape(body).replace(re.escape(var), r"(\S+?)")
    # A variable repeated in the body must get the same value: use one group, then backrefs.
    first = pattern.find(r"(\S+?)")
    if first < 0:
        return []
    pattern = pattern[: first + 6] + pattern[first + 6 :].replace(r"(\S+?)", r"\1")
    value = re.fullmatch(pattern, _norm(p.expected))
    found = value.group(1) if value else _spaced_value(body, var, _norm(p.expected))
    if not found:
        return []
    head = p.term.split()[0]
    argument = context.as_argument(found)
    return [
        (
            s.line,
            f"Do apply `{head}` to the value you need: write `exact {head} {argument}` on "
            f"line {s.line}, since `{head}` holds for every `{var}` and the goal is the case "
            f"where `{var}` is `{found}`.",
        )
    ]


def _spaced_value(body: str, var: str, target: str) -> str | None:
    """The value `v` (possibly `2 * n`) that makes `body` with `var := v` read as `target`:
    every occurrence gets the same value, checked by putting it back in."""
    pieces = re.split(rf"(?<![\w.']){re.escape(var)}(?![\w'])", body)
    if len(pieces) < 2:
        return None
    pattern = "(.+?)".join(re.escape(piece) for piece in pieces[:2])
    pattern += "".join(r"\1" + re.escape(piece) for piece in pieces[2:])
    match = re.fullmatch(pattern, target)
    if not match:
        return None
    value = match.group(1).strip()
    if not value or value.count("(") != value.count(")"):
        return None
    return value


def _apply_implication(p: Mismatch, s: Scene) -> list[Advice]:
    has = split_target(p.has)
    if has.shape is not Shape.IMPLIES or _norm(has.right) != _norm(p.expected):
        return []
    name = s.fact_with_type(has.left)
    if name is None:
        return []
    if p.application and p.application.strip() != p.term.strip():
        fixed = _replace_term(p.application, p.term, f"({p.term} {name})")
        if fixed is None:
            return []
        return [
            (
                s.line,
                f"Do apply `{p.term}` to `{name}` inside the application: write `exact {fixed}` "
                f"on line {s.line}; this argument must prove `{shorten(has.right, 20)}`, and "
                f"`{p.term}` gives that once it has `{name}`.",
            )
        ]
    return [
        (
            s.line,
            f"Do apply `{p.term}` to `{name}`: write `exact {p.term} {name}` on line {s.line}; "
            f"`{p.term}` turns a proof of `{shorten(has.left, 20)}` into the goal.",
        )
    ]


def _false_elim(p: Mismatch, s: Scene) -> list[Advice]:
    if _norm(p.has) != "False":
        return []
    term = p.term if " " not in p.term else f"({p.term})"
    return [
        (
            s.line,
            f"Do write `exact absurd ...` or `exact {term}.elim` on line {s.line}: `{p.term}` "
            "proves `False`, and `False.elim` turns False into any goal.",
        )
    ]


def _swapped_sides(p: Mismatch, s: Scene) -> list[Advice]:
    """`h : A ∧ B` (∨, ↔, ≠) where the goal is `B ∧ A`: the same fact, sides in the other order."""
    has, want = split_target(p.has), split_target(p.expected)
    if has.shape is not want.shape or has.shape not in _SWAPS or p.application:
        return []
    if (_norm(has.left), _norm(has.right)) != (_norm(want.right), _norm(want.left)):
        return []
    if _norm(has.left) == _norm(has.right):
        return []
    term = p.term if re.fullmatch(r"[\w.'₀-₉]+", p.term) else f"({p.term})"
    step, why = _SWAPS[has.shape]
    return [_term_advice(s, step.format(t=term), why)]


_SWAPS = {
    Shape.AND: ("⟨{t}.2, {t}.1⟩", "the goal wants the same two halves in the other order"),
    Shape.OR: ("Or.symm {t}", "`Or.symm` turns `A ∨ B` into `B ∨ A`, the order the goal wants"),
    Shape.IFF: ("{t}.symm", "`.symm` turns `A ↔ B` into `B ↔ A`, the order the goal wants"),
    Shape.NE: ("Ne.symm {t}", "`Ne.symm` turns `a ≠ b` into `b ≠ a`, the order the goal wants"),
}


def _or_constructor_side(p: Mismatch, s: Scene) -> list[Advice]:
    """`Or.inl hq` where `hq` proves the right side of the goal `p ∨ q` (or `Or.inr` the left):
    the other constructor takes it."""
    match = re.fullmatch(r"(?:@)?Or\.(inl|inr)\s+(.+)", (p.application or "").strip())
    goal = context.traced_goal(s.statement, s.text, s.line)
    if not match or goal is None or match.group(2).strip() != p.term.strip():
        return []
    split = split_target(goal)
    if split.shape is not Shape.OR:
        return []
    chose, other_side = match.group(1), "inr" if match.group(1) == "inl" else "inl"
    wanted = split.right if chose == "inl" else split.left
    proof = p.term
    if not context.same(p.has, wanted):
        built = [t for t in context.proofs_of(wanted, s.facts()) if p.term in t]
        if not built:
            return []
        proof = built[0]
    side = "right" if chose == "inl" else "left"
    return [
        _term_advice(
            s,
            f"Or.{other_side} {context.as_argument(proof)}",
            f"`{shorten(proof, 16)}` proves `{shorten(wanted, 16)}`, the {side} side of "
            f"`{shorten(goal, 24)}`, and `Or.{other_side}` builds that side",
        )
    ]


def _or_side(p: Mismatch, s: Scene) -> list[Advice]:
    want = split_target(p.expected)
    if want.shape is Shape.OR:
        if _norm(p.has) == _norm(want.left):
            return [
                _term_advice(s, f"Or.inl {p.term}", "the goal is an ∨ and you prove its left side")
            ]
        if _norm(p.has) == _norm(want.right):
            return [
                _term_advice(s, f"Or.inr {p.term}", "the goal is an ∨ and you prove its right side")
            ]
        return []
    # `left` chose the side you cannot prove: the fact proves the other side.
    for number in range(s.line - 1, 0, -1):
        code = s.text.line(number).strip()
        if code in ("left", "right"):
            other = "right" if code == "left" else "left"
            return [
                (
                    number,
                    f"Do use `{other}` instead of `{code}` on line {number}: `{p.term}` proves "
                    f"`{shorten(p.has, 20)}`, the other side of the ∨, not `{shorten(p.expected, 20)}`.",
                )
            ]
        if code:
            break
    return []


def _anonymous_order(p: Mismatch, s: Scene) -> list[Advice]:
    source = s.source()
    match = re.search(r"⟨([^⟨⟩]+)⟩", source)
    if not match:
        return []
    parts = [x.strip() for x in match.group(1).split(",")]
    if p.term not in parts or len(parts) != 2:
        return []
    swapped = f"⟨{parts[1]}, {parts[0]}⟩"
    if s.fact_with_type(p.expected) in parts:
        return [
            (
                s.line,
                f"Do swap the order to `{swapped}` on line {s.line}: the first component must "
                f"prove the left side of the goal, here `{shorten(p.expected, 20)}`.",
            )
        ]
    return []


def _exists_as_value(p: Mismatch, s: Scene) -> list[Advice]:
    if not _norm(p.has).startswith("∃"):
        return []
    binder = re.match(r"∃\s*\(?\s*(\w+)", _norm(p.has))
    var = binder.group(1) if binder else "x"
    return [
        (
            s.line,
            f"Do take `{p.term}` apart first with `obtain ⟨{var}, h{var}⟩ := {p.term}` before line "
            f"{s.line}: an ∃ fact is not a value; it gives a witness `{var}` and a proof `h{var}`.",
        )
    ]


def _convert_with_hypothesis(p: Mismatch, s: Scene) -> list[Advice]:
    """The term proves `A`, the position needs `B`, and a hypothesis `f : A → B` converts it:
    the student used the right facts in the wrong nesting (`hpq (hqr hp)` for `hqr (hpq hp)`)."""
    for name, typ in s.hypotheses:
        split = split_target(typ)
        if split.shape is not Shape.IMPLIES or name == p.term:
            continue
        if (_norm(split.left), _norm(split.right)) != (_norm(p.has), _norm(p.expected)):
            continue
        argument = p.term if re.fullmatch(r"[\w.'₀-₉]+", p.term) else f"({p.term})"
        converted = f"{name} {argument}"
        if p.application:
            fixed = _replace_term(p.application, p.term, f"({converted})")
            if fixed is None:
                return []
            step = f"`{fixed}`"
        else:
            step = f"`exact {converted}`"
        return [
            (
                s.line,
                f"Do write {step} on line {s.line}: `{shorten(p.term, 20)}` proves "
                f"`{shorten(p.has, 20)}`, this position needs `{shorten(p.expected, 20)}`, and "
                f"`{name}` turns the first into the second.",
            )
        ]
    return []


def _contrapositive(p: Mismatch, s: Scene) -> list[Advice]:
    """`hnq : ¬q` where the goal is `¬p`, with `hpq : p → q`: assume `p`, reach `q`, contradict."""
    has, want = split_target(p.has), split_target(p.expected)
    if has.shape is not Shape.NOT or want.shape is not Shape.NOT or p.application:
        return []
    if not re.fullmatch(r"[\w.'₀-₉]+", p.term):
        return []
    for name, typ in s.hypotheses:
        link = split_target(typ)
        if link.shape is not Shape.IMPLIES:
            continue
        if (_norm(link.left), _norm(link.right)) == (_norm(want.right), _norm(has.right)):
            step = f"fun h => {p.term} ({name} h)"
            why = (
                f"`¬{shorten(want.right, 12)}` is a function from a proof of it to False, and "
                f"`{name}` then `{p.term}` turn such a proof into False"
            )
            return [_term_advice(s, step, why)]
    return []


_VALUE_TYPE = re.compile(r"(Nat|Int|ℕ|ℤ|ℝ|ℚ|Real|Rat|Bool|List\s+\S+)(\s*:\s*Type)?")


def _missing_values(p: Mismatch, s: Scene) -> list[Advice]:
    """`hf h` where `hf : ∀ x y, x ≤ y → …`: a value is expected first, so the proof lands in a
    value's place; the values come from matching `h`'s type against the premise."""
    from tutor.coach.advice import forall_instance

    if not p.application or not _VALUE_TYPE.fullmatch(_norm(p.expected)):
        return []
    head = p.application.split()[0]
    typ = dict(s.hypotheses).get(head, "")
    match = re.match(r"^∀\s*([^,]+),\s*(.+)$", typ.strip())
    if not match:
        return _explicit_value_first(p, s, head)
    body = split_target(match.group(2))
    if body.shape is not Shape.IMPLIES:
        return []
    values = forall_instance(p.has, f"∀ {match.group(1)}, {body.left}")
    if values is None:
        return []
    fixed = f"{head} {values} {p.term}"
    return [
        (
            s.line,
            f"Do give `{head}` its values before the proof: write `{fixed}` on line {s.line}, "
            f"since `{head}` starts with ∀, so its first arguments are the values {values}, and "
            f"`{p.term}` comes after them.",
        )
    ]


def _explicit_value_first(p: Mismatch, s: Scene, head: str) -> list[Advice]:
    """`Nat.lt_irrefl h` (`h : a < a`): the lemma takes the number explicitly before any proof
    (`Nat.lt_irrefl (n : Nat) : ¬n < n`), so the proof sits in the value's place. The value
    is the one variable of that type in `h`'s statement, else `_` for Lean to work out."""
    if _VALUE_TYPE.fullmatch(_norm(p.has)) or not re.fullmatch(r"[\w.'₀-₉]+", head):
        return []
    wanted = _norm(p.expected).split(":")[0].strip()
    same_type = {"ℕ": "Nat", "ℤ": "Int", "ℝ": "Real", "ℚ": "Rat"}
    types = {n: same_type.get(t.strip(), t.strip()) for n, t in s.facts() if t}
    names = re.findall(r"(?<![\w.'])([A-Za-z_][\w'₀-₉]*)(?![\w'])", p.has)
    values = list(dict.fromkeys(n for n in names if types.get(n) == same_type.get(wanted, wanted)))
    value = values[0] if len(values) == 1 else "_"
    application = " ".join((p.application or "").split())
    if not application.endswith(p.term):
        return []
    fixed = f"{application[: -len(p.term)].rstrip()} {value} {context.as_argument(p.term)}"
    return [
        (
            s.line,
            f"Do give `{head}` its value first: write `{fixed}` on line {s.line}. Its first "
            f"explicit argument is the value (of type `{wanted}`), not a proof, so `{shorten(p.term, 16)}` goes "
            "after it.",
        )
    ]


def _exists_from_instance(p: Mismatch, s: Scene) -> list[Advice]:
    """`h : P 3` where the goal is `∃ n, P n`: the witness is 3 and `h` proves its property."""
    from tutor.coach.advice import forall_instance

    if not _norm(p.expected).startswith("∃") or p.application:
        return []
    as_forall = "∀" + _norm(p.expected)[1:]
    value = forall_instance(p.has, as_forall)
    if value is None or " " in value.strip("()"):
        return []
    return [
        _term_advice(
            s,
            f"⟨{value}, {p.term}⟩",
            f"the witness is `{value}` and `{p.term}` proves its property",
        )
    ]


def _replace_term(application: str, term: str, replacement: str) -> str | None:
    """`application` with its argument `term` (a whole word) replaced, or None if not found."""
    pattern = rf"(?<![\w.']){re.escape(term)}(?![\w'])"
    if not re.search(pattern, application):
        return None
    return re.sub(pattern, lambda _: replacement, application.strip(), count=1)


def _hypothesis_fits(p: Mismatch, s: Scene) -> list[Advice]:
    """The argument has the wrong type, but a hypothesis has exactly the expected one."""
    if not p.application:
        return []
    wanted = _norm(p.expected)
    fits = s.fact_with_type(wanted)
    if fits is None and "?" in wanted:
        pattern = re.escape(wanted)
        for meta in set(_METAVAR.findall(wanted)):
            pattern = pattern.replace(re.escape(meta), r"\S+")
        fits = next((n for n, t in s.hypotheses if re.fullmatch(pattern, _norm(t))), None)
    if fits is None or fits == p.term:
        return []
    swapped = swapped_arguments(s.source(), p.term, fits)
    if swapped:
        return [
            (
                s.line,
                f"Do swap the arguments: write `{swapped}` on line {s.line}, since the position "
                f"of `{p.term}` needs a proof of `{shorten(p.expected, 24)}`, which is what "
                f"`{fits}` states.",
            )
        ]
    fixed = re.sub(rf"(?<![\w.']){re.escape(p.term)}(?![\w'])", fits, p.application, count=1)
    return [
        (
            s.line,
            f"Do pass `{fits}` instead of `{p.term}`: write `{fixed}` on line {s.line}, since that "
            f"position needs a proof of `{shorten(p.expected, 24)}`, which is what `{fits}` states.",
        )
    ]


def swapped_arguments(source: str, term: str, other: str) -> str | None:
    """`exact f h1 h2` for `exact f h2 h1`: both names are arguments on the line, in the wrong
    order (replacing only one would pass the same proof twice)."""
    word = r"(?<![\w.']){}(?![\w'])"
    if term == other or not all(
        len(re.findall(word.format(re.escape(n)), source)) == 1 for n in (term, other)
    ):
        return None
    for name in (term, other):
        # A name applied to arguments (`hq (h hp)`) is a function there, not an argument:
        # swapping it into an argument's place would apply the other fact instead.
        head = rf"(?:^|exact\s|apply\s|refine\s|:=\s*|[(⟨,]\s*){re.escape(name)}\s+[\w(⟨]"
        if re.search(head, source.strip().lstrip("·").strip()):
            return None
    marker = "\u0000"
    out = re.sub(word.format(re.escape(term)), marker, source)
    out = re.sub(word.format(re.escape(other)), term, out)
    return out.replace(marker, other)


def _hypothesis_states_it(p: Mismatch, s: Scene) -> list[Advice]:
    """`exact h₁` where the goal is exactly another hypothesis `h₂`."""
    name = s.fact_with_type(p.expected)
    if name is None or name == p.term or p.application:
        return []
    return [
        (
            s.line,
            f"Do use `{name}` on line {s.line} instead of `{shorten(p.term, 20)}`: `{name}` states "
            f"exactly `{shorten(p.expected, 30)}`, while `{shorten(p.term, 20)}` proves "
            f"`{shorten(p.has, 24)}`.",
        )
    ]


def _linear_consequence(p: Mismatch, s: Scene) -> list[Advice]:
    """The needed fact follows from the term's fact (and the hypotheses) by adding them up:
    `linarith [t]` over ℝ (`0 < y ^ 2 + 3` from `sq_nonneg y`), checked by
    tutor/coach/linear.py, not guessed."""
    if "?" in p.expected or "?" in p.has:
        return []
    types = {n: t for n, t in s.facts() if t}
    domain = evidence.domain_of_text(s.statement + "\n" + p.expected, types)
    if domain != evidence.REAL or "import Mathlib" not in s.text.text and not _mathlib_text(s):
        return []
    facts = [t for n, t in s.facts() if t and n != "_"]
    in_scope = p.term in types
    given = facts if in_scope else [*facts, p.has]
    listed = "" if in_scope else f" [{p.term}]"
    if p.application:
        # Only this argument is wrong: replace it, not the step (whose goal is another one).
        return _argument_from_linear(p, s, given, domain)
    if linear.entails(p.expected, given, domain):
        tactic, why = f"linarith{listed}", "adds up linear facts"
    elif linear.nlinarith_proves(p.expected, given, domain):
        tactic, why = f"nlinarith{listed}", "also multiplies facts in pairs"
    else:
        return []
    return [
        (
            s.line,
            f"Do write `{tactic}` on line {s.line} instead: `{shorten(p.term, 20)}` proves only "
            f"`{shorten(p.has, 24)}`, and `{shorten(p.expected, 24)}` follows from it in one "
            f"step that {tactic.split()[0]} finds ({why}).",
        )
    ]


def _argument_from_linear(p: Mismatch, s: Scene, given: list[str], domain: str) -> list[Advice]:
    """`hf a b h` with `h : a < b` where `a ≤ b` is taken: `h.le` (a strict fact gives the weak
    one); another linear consequence is proved in place with `(by linarith)`."""
    has, want = split_target(context.normal(p.has)), split_target(context.normal(p.expected))
    strict_for_weak = (
        has.op == "<"
        and want.op == "≤"
        and context.same(has.left, want.left)
        and context.same(has.right, want.right)
    )
    if strict_for_weak and re.fullmatch(r"[\w'₀-₉]+", p.term.strip()):
        replacement, why = f"{p.term.strip()}.le", "a `<` fact gives the `≤` one with `.le`"
    elif linear.entails(p.expected, given, domain):
        replacement, why = "(by linarith)", "`by linarith` proves it from your facts"
    else:
        return []
    fixed = _replaced_argument(p, s, replacement)
    if fixed is None:
        return []
    return [
        (
            s.line,
            f"Do write `{shorten(fixed, 40)}` on line {s.line}: `{p.term.strip()}` proves "
            f"`{shorten(p.has, 20)}`, and this position needs `{shorten(p.expected, 20)}`; "
            f"{why}.",
        )
    ]


def _replaced_argument(p: Mismatch, s: Scene, replacement: str) -> str | None:
    """The student's line with the one mismatched argument replaced, or None when the term is
    not a name occurring once (or is the whole step)."""
    source = s.text.line(s.line).split("--", 1)[0]
    term = " ".join(p.term.split())
    if not re.fullmatch(r"[\w'₀-₉.]+", term):
        return None
    found = list(re.finditer(rf"(?<![\w.']){re.escape(term)}(?![\w'])", source))
    code = source.strip().lstrip("·").strip()
    if len(found) != 1 or re.fullmatch(rf"(?:exact|apply|refine)\s+{re.escape(term)}", code):
        return None
    at = found[0]
    return (source[: at.start()] + replacement + source[at.end() :]).strip().lstrip("·").strip()


def _mathlib_text(s: Scene) -> bool:
    return any(sym in s.statement + s.text.text for sym in ("ℝ", "ℚ"))


def _linear_omega(p: Mismatch, s: Scene) -> list[Advice]:
    # `?a < ?b` is a lemma's premise, not a goal; and omega knows only ℕ and ℤ.
    if "?" in p.expected or evidence.domain_of_text(s.statement) == evidence.REAL:
        return []
    if not is_linear_arith(p.expected, s.variable_types()):
        return []
    types = {n: t for n, t in s.facts() if t}
    domain = (
        evidence.INT if evidence.domain_of_text(p.expected, types) == evidence.INT else evidence.NAT
    )
    facts = [t for n, t in s.facts() if t and n != "_"] + [p.has]  # the term's own fact
    # Not proved from the facts read (`Odd n` is none omega reads either): no omega advice,
    # unless the claim is closed and true by evaluation (`(-3 : Int) < 0`).
    plain = re.sub(r"\((-?\d+)\s*:\s*(?:ℕ|ℤ|Nat|Int)\)", r"\1", p.expected)
    plain = re.sub(r"\s*:\s*Prop\s*$", "", plain)  # the older layout prints the sort
    where = evidence.domain_of_text(s.statement)  # a numeral's type is the statement's
    closed_true = evidence.is_closed(plain) and evidence.holds(plain, where) is True
    if not closed_true and linear.omega_proves(p.expected, facts, domain) is not True:
        return []
    inner = _argument_by_omega(p, s)
    if inner:
        return [(s.line, inner)]
    return [
        (
            s.line,
            f"Do prove `{shorten(p.expected, 30)}` with `omega` on line {s.line} instead: it is "
            f"linear arithmetic over ℕ or ℤ, which omega decides, while `{shorten(p.term, 20)}` "
            f"proves the different fact `{shorten(p.has, 24)}`.",
        )
    ]


def _argument_by_omega(p: Mismatch, s: Scene) -> str | None:
    """The mismatched term is one argument of a larger term (`⟨n, hn⟩`, `hP 3 h2`): the rest
    of the term is right, so only that argument is replaced, by `by omega` proving what the
    position needs."""
    term = " ".join(p.term.split())
    fixed = _replaced_argument(p, s, "(by omega)")
    if fixed is None:
        return None
    fixed = re.sub(r"([⟨,]\s*)\(by omega\)(\s*⟩)", r"\1by omega\2", fixed)
    return (
        f"Do write `{shorten(fixed, 40)}` on line {s.line}: `{term}` proves "
        f"`{shorten(p.has, 20)}`, which is not the `{shorten(p.expected, 20)}` this position "
        "needs; `by omega` proves that from your hypotheses (linear arithmetic over ℕ or ℤ)."
    )


# ---------------------------------------------------------------------- goals by shape


def commutativity_lemma(target: str) -> str | None:
    """`Nat.mul_comm a b` for `a * b = b * a` (and `+`), else None."""
    split = split_target(target)
    if split.shape is not Shape.EQ:
        return None
    for op, lemma in (("*", "Nat.mul_comm"), ("+", "Nat.add_comm")):
        left = [x.strip() for x in _strip_parens(split.left).split(op)]
        right = [x.strip() for x in _strip_parens(split.right).split(op)]
        if len(left) == 2 and left == right[::-1] and left[0] != left[1]:
            return f"{lemma} {left[0]} {right[0]}"
    return None


def distributivity_lemma(target: str) -> str | None:
    """`Nat.add_mul` for `(a + b) * c = a * c + b * c` (and `Nat.mul_add`): only when the right
    side is exactly the expansion, since `rw` closes the goal only then."""
    split = split_target(target)
    if split.shape is not Shape.EQ:
        return None
    right = " ".join(split.right.split())
    match = re.fullmatch(r"\(\s*(\w+)\s*\+\s*(\w+)\s*\)\s*\*\s*(\w+)", split.left.strip())
    if match and right == "{0} * {2} + {1} * {2}".format(*match.groups()):
        return "Nat.add_mul"
    match = re.fullmatch(r"(\w+)\s*\*\s*\(\s*(\w+)\s*\+\s*(\w+)\s*\)", split.left.strip())
    if match and right == "{0} * {1} + {0} * {2}".format(*match.groups()):
        return "Nat.mul_add"
    return None


_OTHER_NUMBERS = re.compile(r"ℤ|ℝ|ℚ|ℂ|\b(?:Int|Real|Rat|Float|Fin|UInt\d+)\b")
_CLOSED = re.compile(r"^[\d\s+*\-/%()^]+(=|≠|≤|<|≥|>)[\d\s+*\-/%()^]+$")


def closed_numeral_truth(target: str) -> tuple[bool, int, int] | None:
    """(holds, left, right) for a comparison of ℕ numerals such as `2 + 2 = 5`, computed the way
    Lean computes on ℕ (subtraction stops at 0, division rounds down), or None when the target
    is not such a comparison. Literals without a type ascription are ℕ in Lean."""
    match = _CLOSED.match(target.strip())
    if not match:
        return None
    left, right = (part.strip() for part in target.split(match.group(1), 1))
    values = _nat_value(left), _nat_value(right)
    if values[0] is None or values[1] is None:
        return None
    a, b = values[0], values[1]
    holds = {"=": a == b, "≠": a != b, "≤": a <= b, "<": a < b, "≥": a >= b, ">": a > b}
    return holds[match.group(1)], a, b


def _nat_value(text: str) -> int | None:
    return context.nat_value(text)


def closing_step(target: str, scene: Scene, hypotheses: Sequence[Hypothesis] = ()) -> str | None:
    """A step that certainly closes `target`, or None when unsure."""
    truth = closed_numeral_truth(target)
    if truth is not None and not truth[0] and not _OTHER_NUMBERS.search(scene.statement):
        return None  # no step proves a false claim
    lemma = commutativity_lemma(target)
    if lemma:
        return f"exact {lemma}"
    reordered = ac_step(target)
    if reordered:
        return reordered
    lemma = distributivity_lemma(target)
    if lemma:
        return f"rw [{lemma}]"
    if closed_in_real_statement(target, scene):
        return None  # numerals typed as ℝ or ℚ in the statement: omega does not apply
    types = scene.variable_types()
    for hyp in hypotheses:
        for name in hyp.names:
            types.setdefault(name, hyp.type)
    if is_linear_arith(target, types):
        facts = [t for n, t in scene.facts() if t and n != "_"]
        facts += [h.type for h in hypotheses if not _is_value_type(h.type)]
        domain = (
            evidence.INT if evidence.domain_of_text(target, types) == evidence.INT else evidence.NAT
        )
        if linear.omega_proves(target, facts, domain) is False:
            return None  # omega would fail: the goal needs a fact the context lacks
        return "omega"
    return None


def closed_in_real_statement(target: str, scene: Scene) -> bool:
    """A goal of numerals alone (`2 + 2 = 4`) in a statement that types numbers as ℝ or ℚ:
    Lean prints the goal without the ascription, so its numerals are read as the statement's."""
    if re.search(r"[A-Za-z_]", target):
        return False
    return evidence.domain_of_text(scene.statement) == evidence.REAL


def _is_value_type(typ: str) -> bool:
    return bool(_VALUE_TYPE.fullmatch(_norm(typ)))


def is_value_type(typ: str) -> bool:
    """A type of values (`Nat`, `ℝ`, `List α`), not a proposition: a goal that asks for one
    asks for a term, such as an ∃'s witness left open."""
    return _is_value_type(typ)


def goal_at_first_step(scene: Scene) -> Goal | None:
    if not scene.is_first_tactic() or scene.conclusion is None:
        return None
    return Goal(scene.conclusion, [Hypothesis((n,), t) for n, t in scene.hypotheses])


# ---------------------------------------------------------------------- Lean 3 syntax

_CASES_WITH = re.compile(r"^\s*(cases|rcases|induction)\s+(\S+)\s+with\s+([^|]+?)\s*$")


def lean3_syntax(source: str, scene: Scene) -> str | None:
    """The Lean 4 form of a Lean 3 line, with a short why, or None when the line is not Lean 3."""
    match = _CASES_WITH.match(source)
    if match:
        tactic, target, names = match.group(1), match.group(2), match.group(3).split()
        typ = scene.variable_types().get(target, "")
        shape = split_target(typ).shape if typ else Shape.OTHER
        if tactic == "induction":
            if "List" in typ or len(names) == 3:
                x, xs, ih = (names + ["x", "xs", "ih"])[:3]
                form = f"induction {target} with | nil => ... | cons {x} {xs} {ih} => ..."
            else:
                k, ih = (names + ["k", "ih"])[:2]
                form = f"induction {target} with | zero => ... | succ {k} {ih} => ..."
            return f"`{form}`, one `| case =>` per constructor"
        if shape is Shape.OR:
            a, b = (names + ["h1", "h2"])[:2]
            return f"`rcases {target} with {a} | {b}` (or `cases {target} with | inl {a} => ... | inr {b} => ...`)"
        pattern = ", ".join(names)
        return f"`obtain ⟨{pattern}⟩ := {target}` (or `rcases {target} with ⟨{pattern}⟩`)"
    assume = re.match(r"^(?:assume|assuming)\s+(.+?)\s*,?\s*$", source)
    if assume:
        names = " ".join(n.strip(",()") for n in assume.group(1).split(":")[0].split())
        return f"`intro {names}` (Lean 4 introduces premises with `intro`, not `assume`)"
    lean3_words = {
        "from": "exact",
        "by_contradiction": "by_contra",
        "rintros": "rintro",
    }
    word = re.match(r"^(from|by_contradiction|rintros)\b\s*(.*?)\s*,?\s*$", source)
    if word:
        fixed = f"{lean3_words[word.group(1)]} {word.group(2)}".strip()
        return f"`{fixed}` (`{word.group(1)}` is Lean 3)"
    if source.startswith("{") or source.startswith("}"):
        return "a `·` bullet per goal instead of `{ ... }` blocks, with no commas"
    return None
