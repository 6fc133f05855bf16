"""Which step fits a goal: the tactic knowledge the compiler rules (and others) share.

`next_step(goal, mathlib)` returns an imperative phrase such as "split it with
`constructor` and prove each side in its own `·` block", chosen from the goal's shape, the
arithmetic it lives in, and the student's own hypotheses (by their names).
"""

from __future__ import annotations

import re

from tutor.coach import evidence, lemmas, linear
from tutor.coach.algebra import ac_step
from tutor.coach.context import contradiction, proofs_of
from tutor.coach.goals import (
    Domain,
    Goal,
    Shape,
    domain_of,
    is_nonlinear,
    shorten,
    split_target,
    strip_parens,
)
from tutor.coach.linear import constraints_of
from tutor.coach.rewriting import closes_by_computation, closes_by_rfl, rewrites


def _norm(text: str) -> str:
    return " ".join(text.replace("(", " ( ").replace(")", " ) ").split())


def _same(a: str, b: str) -> bool:
    return _norm(a) == _norm(b)


def hypothesis_match(goal: Goal) -> str | None:
    """A one-step close from a hypothesis the student already has, by its name."""
    target = goal.target
    split = split_target(target)
    facts = goal.named_facts()
    for name, typ in facts:
        if _same(typ, target):
            if "✝" in name:
                # The name cannot be typed, but `assumption` finds the hypothesis by its type.
                return f"close it with `assumption`: `{name}` states exactly this"
            return f"close it with `exact {name}`, since `{name}` states exactly this"
    for name, typ in facts:
        values = forall_instance(target, typ)
        if values and "✝" not in name:
            return f"close it with `exact {name} {values}`: it is `{name}` at {values}"
    partial = None  # an implication whose premise is not in scope: only if no other fits
    for name, typ in facts:
        if "✝" in name:
            continue
        hyp_split = split_target(typ)
        if (
            split.shape is Shape.EQ
            and hyp_split.shape is Shape.EQ
            and _same(hyp_split.left, split.right)
            and _same(hyp_split.right, split.left)
        ):
            return f"close it with `exact {name}.symm`: `{name}` is this equation read backwards"
        if hyp_split.shape is Shape.AND:
            if _same(hyp_split.left, target):
                return f"close it with `exact {name}.1`, the left half of `{name}`"
            if _same(hyp_split.right, target):
                return f"close it with `exact {name}.2`, the right half of `{name}`"
        if hyp_split.shape is Shape.IMPLIES and _same(hyp_split.right, target):
            for other, other_type in facts:
                if other != name and _same(other_type, hyp_split.left):
                    if "✝" in other:
                        return f"close it with `apply {name}` and then `assumption`"
                    return f"close it with `exact {name} {other}`"
            partial = partial or (
                f"use `apply {name}` and then prove `{shorten(hyp_split.left, 40)}`"
            )
    return partial


_VALUE = r"(\([^()]*\)|[^\s()]+)"


def forall_instance(target: str, typ: str) -> str | None:
    """`2` when `typ` is `∀ n, f n = n` and `target` is `f 2 = 2`: the values that make the
    ∀'s body (without premises) exactly the target, in binder order, else None."""
    match = re.match(r"^∀\s*[^,]+,\s*(.+)$", typ.strip())
    if not match or "→" in match.group(1):
        return None
    names = binder_names(typ)
    if not names:
        return None
    body = _norm(match.group(1))
    pieces = re.split(r"(?<![\w.'])(" + "|".join(map(re.escape, names)) + r")(?![\w'])", body)
    pattern, seen = "", []
    for index, piece in enumerate(pieces):
        if index % 2 == 0:
            pattern += re.escape(piece)
        elif piece in seen:
            pattern += f"(?P={piece})"
        else:
            seen.append(piece)
            pattern += f"(?P<{piece}>{_VALUE})"
    try:
        found = re.fullmatch(pattern, _norm(target))
    except re.error:
        return None
    if not found or len(seen) != len(names):
        return None
    # `_norm` spaced the brackets out to compare terms; print each value as Lean writes it.
    values = [found.group(v).replace("( ", "(").replace(" )", ")") for v in names]
    return " ".join(values)


def binder_names(quantified: str) -> list[str]:
    """Variable names bound by a leading ∀/∃: `∀ (n m : ℕ), ...` -> ["n", "m"]."""
    head = quantified.lstrip("∀∃ ").split(",", 1)[0]
    names: list[str] = []
    for group in re.findall(r"\(([^():]+):[^()]*\)|\{([^{}:]+):[^{}]*\}", head):
        names.extend(" ".join(group).split())
    if not names:
        names = head.split(":", 1)[0].split()
    return [n for n in names if re.match(r"^[A-Za-z_α-ω][\w'₀-₉]*$", n)]


def _fact_list(goal: Goal, limit: int = 3) -> str:
    names = goal.usable_fact_names()[:limit]
    return ", ".join(f"`{n}`" for n in names)


def _real_variables(goal: Goal) -> list[str]:
    return [
        name
        for hyp in goal.hypotheses
        for name in hyp.names
        if hyp.type.strip() in ("ℝ", "ℚ", "Real", "Rat") and "✝" not in name
    ]


def nlinarith_hint(goal: Goal) -> str:
    """An nlinarith call with square facts built from the student's own variables."""
    variables = _real_variables(goal) or [
        n for h in goal.hypotheses for n in h.names if h.type.strip() in ("ℕ", "ℤ", "Nat", "Int")
    ]
    if len(variables) >= 2:
        a, b = variables[0], variables[1]
        return f"nlinarith [sq_nonneg ({a} - {b}), sq_nonneg ({a} + {b})]"
    if variables:
        return f"nlinarith [sq_nonneg {variables[0]}]"
    return "nlinarith [sq_nonneg (a - b)]"


def checked_nlinarith(goal: Goal, domain: str) -> str | None:
    """`nlinarith`, or `nlinarith [sq_nonneg (…)]` with the square that makes it work, as
    tutor/coach/linear.py checks nlinarith's preprocessing; None when neither is shown to work.
    Where the terms cannot be read the squares of the variables are offered to try."""
    facts = [t for n, t in goal.named_facts() if "✝" not in n]
    proves = linear.nlinarith_proves(goal.target, facts, domain)
    if proves:
        return "nlinarith"
    if proves is None:
        return nlinarith_hint(goal)
    squares = linear.square_hints(goal.target, facts, domain)
    return f"nlinarith [{', '.join(squares)}]" if squares else None


def arithmetic_step(goal: Goal, shape: Shape, mathlib: bool) -> str:
    domain = domain_of(goal.target, goal.variable_types())
    nonlinear = is_nonlinear(goal.target)
    facts = _fact_list(goal)
    using = f" using {facts}" if facts else ""
    if domain is Domain.LIST:
        # `l₁.length + l₂.length = l₂.length + l₁.length` is arithmetic on lengths, not a fact
        # about lists: the swap that makes both sides equal, not induction.
        reordered = ac_step(goal.target)
        if reordered:
            return (
                f"close it with `{reordered}`: both sides are the same numbers up to the order "
                "of `+` and `*`, so no fact about lists is needed"
            )
        return (
            "try `simp` (it knows `List.length_append` and `List.reverse_reverse`), or "
            "`induction` on the list with `nil` and `cons` cases"
        )
    if domain is Domain.REAL:
        if re.fullmatch(r"[\d\s+*\-^/().=<>≤≥≠]+", goal.target):
            return "close it with `norm_num`, which evaluates numeric expressions"
        divided = division_step(goal.target, goal.named_facts())
        if divided:
            return divided
        linear = _follows_linearly(goal, evidence.REAL)
        if shape is Shape.EQ and evidence.identity(goal.target, evidence.REAL):
            return "close it with `ring`: it is an identity of algebra, true for every value"
        if linear:
            return (
                f"close it with `linarith`{using}: the goal is a linear combination of "
                "hypotheses, which linarith finds (norm_num and simp do not use them)"
            )
        bounded = linear_abs(goal) if linear is False and mathlib else None
        if bounded:
            return bounded
        helped = _with_library_facts(goal) if linear is False and mathlib else None
        if helped:
            return helped
        if shape is Shape.EQ:
            if linear is False and evidence.identity(goal.target, evidence.REAL) is False:
                return (
                    "find the fact it needs first: it is not an identity of algebra, and no "
                    "linear combination of your hypotheses gives it"
                )
            return "use `ring` if it is an algebraic identity, else `linarith` or `field_simp`"
        if nonlinear:
            call = checked_nlinarith(goal, evidence.REAL)
            if call is None:
                return (
                    "find the square or product fact it needs first: linarith cannot multiply "
                    "hypotheses, and no simple square makes nlinarith prove it"
                )
            return f"use `{call}`, since linarith cannot multiply hypotheses"
        if linear is False:
            return (
                "find the fact it needs first: no linear combination of your hypotheses gives "
                "it, so linarith would fail; prove the missing inequality with `have`"
            )
        return f"close it with `linarith`{using}, which combines linear hypotheses"
    reordered = ac_step(goal.target) if domain is not Domain.REAL else None
    if reordered:
        return (
            f"close it with `{reordered}`: both sides are the same up to the order of `+` and `*`"
        )
    if domain is Domain.NAT or domain is Domain.UNKNOWN and shape in (Shape.LE, Shape.LT):
        if re.fullmatch(r"[\d\s+*\-^/%().=<>≤≥≠]+", goal.target):
            return "close it with `decide` or `rfl`, since both sides are numerals"
        if nonlinear:
            if mathlib:
                return f"use `{nlinarith_hint(goal)}` or `ring` (omega cannot handle products)"
            if re.search(r"\^\s*2\b", goal.target):
                return (
                    "rewrite the square with `Nat.pow_two` (`x ^ 2 = x * x`), or `Nat.pow_succ` "
                    "for other powers, then compare the products"
                )
            return (
                "rewrite with `Nat.mul_comm`, `Nat.mul_add` or `Nat.pow_succ`, or use "
                "`induction`: products of variables are not linear arithmetic"
            )
        numbers = evidence.INT if _is_int(goal) else evidence.NAT
        follows = _follows_linearly(goal, numbers)
        if follows is False:
            return (
                "find the fact it needs first: no linear combination of your hypotheses gives "
                "it, so omega would fail as the goal stands"
            )
        goal_read = constraints_of(goal.target, numbers) is not None
        if follows is None and (goal_read or not _omega_language(goal.target)):
            # The goal is read but not proved from the facts read, and omega reads nothing else
            # (`Injective f` is not arithmetic): say what to work from, name no tactic.
            return (
                "work from what the hypotheses mean (their definitions or a library lemma): "
                "omega reads only linear arithmetic on ℕ and ℤ, not them"
            )
        return f"close it with `omega`{using}, which proves linear facts over ℕ and ℤ"
    if shape is Shape.EQ:
        return "use `rfl` if both sides compute to the same value, else `simp` or `rw [h]`"
    return "use `simp`, or `apply` a lemma whose conclusion matches this goal"


_DENOMINATOR = re.compile(r"/\s*(\((?:[^()]|\([^()]*\))*\)|[A-Za-zα-ω][\w'₀-₉]*)")


def variable_denominators(target: str) -> list[str]:
    """The denominators of `target` that contain a variable (`x` in `y / x`, `(a - b)`)."""
    found = [m.group(1) for m in _DENOMINATOR.finditer(target)]
    return [d for d in dict.fromkeys(found) if re.search(r"[A-Za-zα-ω]", d)]


def division_step(target: str, facts: list[tuple[str, str]]) -> str | None:
    """An equation over a field that needs a denominator to be nonzero (`x / x = 1`): Lean
    defines `x / 0 = 0`, so `ring` cannot prove it (evidence.identity checks at 0) and
    `field_simp` clears a denominator only with a hypothesis that it is not 0."""
    denominators = variable_denominators(target)
    if not denominators or split_target(target).shape is not Shape.EQ:
        return None
    if evidence.identity(target, evidence.REAL) is not False:
        return None
    nonzero = {
        strip_parens(m.group(1)): name
        for name, typ in facts
        if "✝" not in name and (m := re.fullmatch(r"\s*(.+?)\s*≠\s*0\s*", typ or ""))
    }
    missing = [d for d in denominators if strip_parens(d) not in nonzero]
    if missing:
        d = strip_parens(missing[0])
        return (
            f"state `h : {d} ≠ 0` first: Lean's division by 0 gives 0, so the equation fails "
            "there, and no tactic clears that denominator without it"
        )
    names = ", ".join(
        f"`{n}`" for n in dict.fromkeys(nonzero[strip_parens(d)] for d in denominators)
    )
    return (
        f"use `field_simp` (it needs {names}: the denominator is not 0), then `ring`; `ring` "
        "alone never cancels a division by a variable"
    )


def _domain_name(goal: Goal) -> str:
    return evidence.domain_of_text(goal.target, goal.variable_types())


def _follows_linearly(goal: Goal, domain: str) -> bool | None:
    """Whether linarith (omega on ℕ and ℤ) proves the goal from its hypotheses as they are:
    tutor/coach/linear.py; None when some term is not read."""
    facts = [t for n, t in goal.named_facts() if n != "_"]
    return linear.entails(goal.target, facts, domain)


def linear_abs(goal: Goal) -> str | None:
    """`rw [abs_lt]; constructor <;> linarith` for `|e| < c` when both bounds follow."""
    facts = [t for n, t in goal.named_facts() if "✝" not in n]
    lemma = linear.abs_bound(goal.target, facts, evidence.REAL)
    if lemma is None:
        return None
    return (
        f"close it with `rw [{lemma}]; constructor <;> linarith`: `{lemma}` splits the absolute "
        "value into two bounds, each a linear consequence of your hypotheses"
    )


def _with_library_facts(goal: Goal) -> str | None:
    """`close it with `linarith [neg_abs_le x]`` when a Mathlib fact about `|x|`, a square or
    a product makes the goal a linear consequence (checked, tutor/coach/linear.py)."""
    facts = [(n, t) for n, t in goal.named_facts() if "✝" not in n]
    found = linear.missing_facts(goal.target, facts, evidence.REAL)
    if not found:
        return None
    if len(found) == 1 and linear.states(found[0][1], goal.target, evidence.REAL):
        return f"close it with `exact {found[0][0]}`, the library lemma that states it"
    listed = ", ".join(term for term, _ in found)
    return (
        f"close it with `linarith [{listed}]`: linarith cannot see inside `|x|`, squares or "
        "products, and with this fact the goal is a linear combination"
    )


def _omega_language(target: str) -> bool:
    """No function application, projection (`s.card`) or `fun` that omega would take as an
    opaque atom: the goal is in the language omega decides."""
    return not re.search(
        r"\bfun\b|=>|[\w')]\.[A-Za-z]|(?<![\w.'])(?!Nat\b|Int\b)[A-Za-z_][\w'₀-₉]*\s+[\w(]",
        target,
    )


def _is_int(goal: Goal) -> bool:
    types = goal.variable_types()
    return any(
        types.get(name, "").strip() in ("ℤ", "Int")
        for name in re.findall(r"[A-Za-z_][\w'₀-₉]*", goal.target)
    )


def derived_step(goal: Goal) -> str | None:
    """`close it with `exact t`` when the goal's own hypotheses build a proof of it (`h.2`,
    `hpq hp`, `absurd rfl h` from `h : 0 ≠ 0`, ...)."""
    facts = [(n, h.type) for h in goal.hypotheses for n in h.names if "✝" not in n]
    proofs = proofs_of(goal.target, facts)
    if not proofs:
        return None
    contradiction_only = contradiction(facts) == proofs[0]
    why = (
        "your hypotheses contradict each other, so this case is impossible"
        if contradiction_only
        else "it is built from the hypotheses you have"
    )
    if proofs[0].startswith("Classical.byContradiction"):
        why = (
            f"argue by contradiction: assume `¬{goal.target.strip()}` as `hn`, and your "
            "hypotheses then derive `False`"
        )
    return f"close it with `exact {proofs[0]}`: {why}"


def substitution_step(goal: Goal, mathlib: bool) -> str | None:
    """`simp [h]` (`norm_num [h]` with Mathlib) when a hypothesis `h : x = 2` gives a variable
    of the goal a value and the goal is then true by computation (evaluated, not assumed)."""
    facts = [(n, t) for n, t in goal.named_facts() if "✝" not in n]
    domain = evidence.domain_of_text(goal.target, goal.variable_types())
    for found in rewrites(facts, goal.target):
        if found.substitution and closes_by_computation(found, domain):
            closer = f"norm_num [{found.name}]" if mathlib else f"simp [{found.name}]"
            return (
                f"close it with `{closer}` (or `rw [{found.name}]` first): with `{found.name}` "
                f"the goal becomes `{shorten(found.target, 24)}`, true by computation"
            )
    for found in rewrites(facts, goal.target):
        if closes_by_rfl(found):
            return (
                f"close it with `simp [{found.name}]` (or `rw [{found.name}]`): `simp` never uses "
                f"a hypothesis you do not list, and rewriting with `{found.name}` makes both "
                "sides the same"
            )
        others = [t for n, t in facts if n != found.name]
        if not found.substitution and linear.entails(found.target, others, domain) is True:
            closer = "omega" if domain in (evidence.NAT, evidence.INT) else "linarith"
            return (
                f"close it with `simp [{found.name}]` (or `rw [{found.name}]`, then `{closer}`): "
                f"simp only uses hypotheses you list, and with `{found.name}` the goal adds up"
            )
    return None


def _rewrite_first(goal: Goal, mathlib: bool) -> str | None:
    """`rw [hf]` first when a hypothesis (`hf : ∀ x, f x = 2 * x`) rewrites the goal into one a
    library lemma states (`Even (2 * n)`, `even_two_mul n`)."""
    facts = [(n, t) for n, t in goal.named_facts() if "✝" not in n]
    for found in rewrites(facts, goal.target):
        if found.substitution:
            continue
        target = re.sub(r"\(\(([^()]*)\)\)", r"(\1)", found.target)  # `((2 * n))`
        stated = lemmas.instances(target, facts, mathlib)
        if stated:
            return (
                f"rewrite with `rw [{found.name}]` first: the goal becomes "
                f"`{shorten(target, 24)}`, which `exact {stated[0]}` then closes"
            )
    return None


def next_step(goal: Goal, mathlib: bool) -> str:
    """An imperative phrase naming a tactic that fits the goal's shape."""
    matched = hypothesis_match(goal)
    if matched:
        return matched
    built = derived_step(goal)
    if built:
        return built
    substituted = substitution_step(goal, mathlib)
    if substituted:
        return substituted
    stated = lemmas.instances(goal.target, goal.named_facts(), mathlib)
    if stated and _follows_linearly(goal, _domain_name(goal)) is not True:
        # A lemma only where adding up the facts (omega, linarith) does not already do it.
        return f"close it with `exact {stated[0]}`: that library lemma states exactly this goal"
    rewritten = _rewrite_first(goal, mathlib)
    if rewritten:
        return rewritten
    split = split_target(goal.target)
    shape = split.shape
    if shape is Shape.AND:
        return "split it with `constructor` and prove each side in its own `·` block"
    if shape is Shape.IFF:
        return "split it with `constructor`, then prove each direction starting with `intro h`"
    if shape is Shape.IMPLIES:
        built = _assumed_and_built(goal, split.left, split.right)
        if built:
            return built
        return f"assume the premise with `intro h`, then prove `{shorten(split.right, 40)}`"
    if shape is Shape.FORALL:
        names = " ".join(binder_names(goal.target)) or "x"
        return f"introduce the variables with `intro {names}`, then prove the body"
    if shape is Shape.NOT:
        return f"assume `{shorten(split.right, 40)}` with `intro h` and derive `False` from it"
    if shape is Shape.EXISTS:
        domain = evidence.domain_of_text(goal.target, goal.variable_types())
        term = linear.witness_term(goal.target, domain)
        if term:
            tactic = "use" if mathlib else "exists"
            return f"give the witness with `{tactic} {term}`: it makes the property hold for every value"
        tactic = "use w" if mathlib else "exists w"
        return f"give a witness with `{tactic}` (or `refine ⟨w, ?_⟩`), then prove its property"
    if shape is Shape.OR:
        for name, typ in goal.named_facts():
            if "✝" in name:
                continue
            if _same(typ, split.left):
                return f"close it with `exact Or.inl {name}`: `{name}` proves the left side"
            if _same(typ, split.right):
                return f"close it with `exact Or.inr {name}`: `{name}` proves the right side"
        return "choose the side you can prove with `left` or `right`, then prove that side"
    if shape is Shape.FALSE:
        return contradiction_step(goal)
    if shape is Shape.TRUE:
        return "close it with `trivial`"
    if shape in (Shape.EQ, Shape.LE, Shape.LT, Shape.NE, Shape.DVD):
        return arithmetic_step(goal, shape, mathlib)
    if _is_proposition_variable(goal):
        return (
            f"prove it from a hypothesis whose conclusion is `{goal.target.strip()}` (`apply` "
            "that hypothesis), or by contradiction: it is a proposition variable, with no "
            "definition to unfold"
        )
    return "unfold its definition with `unfold` or `simp only [...]`, then continue"


def _is_proposition_variable(goal: Goal) -> bool:
    """The goal is a variable `p : Prop` of the statement: nothing to unfold or split."""
    target = goal.target.strip()
    return bool(re.fullmatch(r"[\w'₀-₉]+", target)) and any(
        target in hyp.names and hyp.type.strip() == "Prop" for hyp in goal.hypotheses
    )


def _assumed_and_built(goal: Goal, premise: str, conclusion: str) -> str | None:
    """`p → p ∧ p`: with the premise assumed as `h`, the facts build the conclusion
    (`⟨h, h⟩`), so the whole step is `exact fun h => ⟨h, h⟩`."""
    taken = {n for h in goal.hypotheses for n in h.names}
    name = next(n for n in ("h", "h1", "hp0", "hyp") if n not in taken)
    facts = [(n, h.type) for h in goal.hypotheses for n in h.names if "✝" not in n]
    proofs = [
        p
        for p in proofs_of(conclusion, [*facts, (name, premise.strip())])
        if re.search(rf"(?<![\w.']){name}(?![\w'])", p) and not p.startswith("Classical")
    ]
    if not proofs:
        return None
    return (
        f"close it with `exact fun {name} => {proofs[0]}` (or `intro {name}` then "
        f"`exact {proofs[0]}`): with the premise assumed, your facts build the conclusion"
    )


def contradiction_step(goal: Goal) -> str:
    facts = [(n, t) for n, t in goal.named_facts() if "✝" not in n]
    for name, typ in facts:
        negated = typ.strip()
        if negated.startswith("¬"):
            for other, other_type in facts:
                if _same(other_type, negated[1:]):
                    return f"close it with `exact absurd {other} {name}`"
            # `hnq : ¬q`, `hpq : p → q`, `hp : p`: reach `q`, then contradict it.
            for link, link_type in facts:
                step = split_target(link_type)
                if step.shape is not Shape.IMPLIES or not _same(step.right, negated[1:]):
                    continue
                for given, given_type in facts:
                    if _same(given_type, step.left):
                        return f"close it with `exact {name} ({link} {given})`"
    if domain_of(" ".join(t for _, t in facts), goal.variable_types()) is Domain.NAT:
        return "close it with `omega`, which finds contradictions among linear facts"
    return "find two hypotheses that contradict each other and use `contradiction` or `simp at h`"


def first_step(goal: Goal, mathlib: bool) -> str | None:
    """The kind of first step the goal's shape asks for, naming no term or tactic that closes it
    outright (for a `sorry` the student has not started on: the answer is a hint, not this)."""
    split = split_target(goal.target)
    shape = split.shape
    if shape is Shape.AND:
        return "it is an ∧, so split it with `constructor` and prove each part in its own `·` block"
    if shape is Shape.IFF:
        return "it is an ↔, so split it with `constructor` and prove each direction"
    if shape in (Shape.IMPLIES, Shape.NOT):
        return "start with `intro h` to assume the premise, then prove what remains"
    if shape is Shape.FORALL:
        names = " ".join(binder_names(goal.target)) or "x"
        return f"start with `intro {names}`, then prove the statement for those values"
    if shape is Shape.EXISTS:
        tactic = "use" if mathlib else "exists"
        return f"it is an ∃, so choose a value with `{tactic}` and then prove its property"
    if shape is Shape.OR:
        return "it is an ∨, so choose the side you can prove with `left` or `right`"
    return None
