"""`unknown identifier` / `unknown constant`: a name Lean does not know. Bind it where the
student meant to (an `intro`, a pattern, a ∀ not yet introduced), translate a Lean 3
spelling, or name the existing lemma or hypothesis it is a typo of."""

from __future__ import annotations

import re

from tutor.coach import evidence, linear
from tutor.coach import lemmas as lemmas_by_statement
from tutor.coach.advice import binder_names
from tutor.coach.context import facts_in_scope, proofs_of, same, traced_goal
from tutor.coach.goals import (
    Shape,
    shorten,
    split_target,
)
from tutor.coach.names import (
    CORE_LEMMAS,
    MATHLIB_LEMMAS,
    MATHLIB_TACTICS,
    NAMESPACED_FUNCTIONS,
    TACTICS,
    NameGuess,
    closest_name,
    damerau_levenshtein,
)
from tutor.coach.rules.base import (
    Advice,
    Context,
    goal_at,
    one,
)
from tutor.coach.source import AttemptText, proof_conclusion, statement_hypotheses
from tutor.lean.types import Diagnostic

# Capitalised hypothesis names (`H`, `H1`, `Hp`, `IH`) are how Lean 3 courses name facts.
_LOCAL_NAME = re.compile(r"[a-zα-ω][\w'₀-₉]{0,5}|H[\w'₀-₉]{0,3}|IH[\w'₀-₉]{0,2}")
_UNKNOWN_NAME = re.compile(r"unknown (?:identifier|constant)\s*['`‘’]?([^'`’\s]+)", re.IGNORECASE)


def advise(d: Diagnostic, ctx: Context) -> list[Advice]:
    match = _UNKNOWN_NAME.search(d.message)
    name = match.group(1).rstrip("'`’") if match else ctx.text.token_at(d.line, d.column)
    line = d.line
    if name in ("left", "right") and _unnamed_binder(ctx, name, line) is not None:
        pass  # the names Lean 3 `cases` gave the halves of an ∧: handled below
    elif name in TACTICS:
        extra = (
            " (and not part of core Lean)" if name in MATHLIB_TACTICS and not ctx.mathlib else ""
        )
        return one(
            line,
            f"Don't use `{name}` as a term on line {line}: it is a tactic{extra}, so write "
            f"it as its own step inside a `by` block, not after `exact` or `:=`.",
        )
    conclusion = proof_conclusion(ctx.statement) or ""
    if conclusion.startswith("∀") and name in binder_names(conclusion):
        widened = _widened_intro(ctx, name, line, binder_names(conclusion))
        if widened is not None:
            at, fixed = widened
            return one(
                at,
                f"Do write `{fixed}` on line {at}: `{name}` is bound by the ∀ in the goal, and "
                f"only the names an `intro` gives are in the context, so `{name}` is unknown "
                f"on line {line}.",
            )
        return one(
            line,
            f"Do add `intro {name}` before line {line}: `{name}` is bound by the ∀ in the "
            "goal and is not in the context until you introduce it.",
        )
    variable = unfolding_a_variable(ctx, name, line)
    if variable is not None:
        return [variable]
    if name == "begin":
        return one(
            line,
            f"Do replace Lean 3 `begin ... end` on line {line} with `:= by` followed by the "
            "tactics, one per line, indented under it: Lean 4 has no `begin`.",
        )
    pattern = _unbound_in_pattern(ctx, name, line)
    if pattern is not None:
        at, fixed, why = pattern
        return one(
            at,
            f"Do name it in the pattern: write `{fixed}` on line {at}. {why}, so `{name}` is "
            f"never bound and Lean does not know it on line {line}.",
        )
    unnamed = _unnamed_binder(ctx, name, line)
    if unnamed is not None:
        origin, form = unnamed
        also = "" if "obtain" in form else "; `assumption` also finds it"
        maker = "`intros`" if ctx.text.line(origin).strip().startswith("intros") else "Lean"
        return one(
            origin,
            f"Do name the hypothesis where it is made: write {form} on line {origin}. "
            f"Without names {maker} makes up inaccessible ones (shown with ✝) that you cannot "
            f"type, so `{name}` is unknown on line {line}{also}.",
        )
    consumed = _taken_apart(ctx, name, line)
    if consumed is not None:
        return [consumed]
    witness = _witness_of_an_exists(ctx, name, line)
    if witness is not None:
        return [witness]
    parts = _parts_never_named(ctx, name, line)
    if parts is not None:
        return [parts]
    substituted = _substituted_by_rfl(ctx, name, line)
    if substituted is not None:
        return [substituted]
    premise = _premise_not_introduced(ctx, name, line)
    if premise is not None:
        return [premise]
    anonymous = _anonymous_have(ctx, name, line)
    if anonymous is not None:
        return [anonymous]
    lean4 = _lean3_namespace(name)
    if lean4 is not None:
        return [
            Advice(
                line,
                f"Do write `{lean4}` on line {line} instead of `{name}`: that is the Lean 3 name; "
                "Lean 4 capitalises the namespaces of its core types (`Eq.`, `Nat.`, `Or.`).",
            ),
            _name_search_advice(line),
        ]
    fact = _fact_for_goal(name, ctx, line)
    if fact is not None:
        return one(
            line,
            f"Do use `{fact}` on line {line} instead of `{name}`: there is no hypothesis `{name}`, "
            f"and `{fact}` is the one whose statement matches the goal.",
        )
    namespace = NAMESPACED_FUNCTIONS.get(name) if ctx.mathlib else None
    if namespace is not None and not _local_names_include(ctx, name, line):
        code = ctx.text.line(line).split("--", 1)[0].strip()
        fixed = re.sub(rf"(?<![\w.']){re.escape(name)}(?![\w'])", f"{namespace}.{name}", code)
        return one(
            line,
            f"Do write `{shorten(fixed, 40)}` on line {line} (or put `open {namespace}` above the "
            f"theorem): Mathlib's `{name}` lives in the namespace `{namespace}`, and a name "
            "inside a namespace needs its prefix unless the namespace is open.",
        )
    if _looks_local(name):
        underscore = _underscore_binder(ctx, name, line)
        if underscore is not None:
            return [underscore]
        built = _built_for_goal(ctx, name, line)
        if built is not None:
            return [built]
        return one(line, _local_name_advice(ctx, name, line))
    stated = _lemma_for_goal(ctx, name, line)
    if stated is not None:
        return [stated, _name_search_advice(line)]
    lemmas = [*CORE_LEMMAS, *(MATHLIB_LEMMAS if ctx.mathlib else [])]
    candidates = set(lemmas) | ctx.text.identifiers() | AttemptText(ctx.statement).identifiers()
    candidates = {c for c in candidates if re.match(r"[A-Za-zα-ωℕℤ]", c)}  # never `_`
    name, suffix = _split_projection(name, candidates)
    # A one-letter name is one edit from every other letter: no typo guess can be trusted.
    # A root lemma in a core course is its namespaced version for the statement's numbers.
    prefix = "Int" if evidence.domain_of_text(ctx.statement) == evidence.INT else "Nat"
    namespaced = f"{prefix}.{name}" if "." not in name and f"{prefix}.{name}" in lemmas else None
    guess = (
        (NameGuess(namespaced, 1) if namespaced and not ctx.mathlib else None)
        or _reordered_name(name, lemmas)
        or (closest_name(name, candidates) if len(name) > 1 else None)
    )
    if guess is None and f"Nat.{name}" in lemmas:
        guess = NameGuess(f"Nat.{name}", 1)
    if guess is None and "." in name:
        head, _, rest = name.partition(".")
        head_guess = closest_name(head, candidates)
        if head_guess is not None:
            guess = NameGuess(f"{head_guess.name}.{rest}", head_guess.distance)
    secondary = _name_search_advice(line)
    if guess is not None:
        why = (
            " (Lean 4 capitalises namespaces)"
            if guess.name.lower() == name.lower() and guess.name != name
            else ""
        )
        name, guess = name + suffix, NameGuess(guess.name + suffix, guess.distance)
        return [
            Advice(
                line,
                f"Do replace `{name}` on line {line} with `{guess.name}`: Lean knows no "
                f"`{name}`, and `{guess.name}` is the closest existing name{why}.",
            ),
            secondary,
        ]
    replaced = _known_lemma_with_a_suffix(ctx, name, line) or _step_by_step(ctx, name, line)
    if replaced is not None:
        return [replaced, secondary]
    return [
        Advice(
            line,
            f"Do check the name `{name}` on line {line}: no such lemma or hypothesis exists "
            "in scope. Find the lemma you mean with `exact?` and copy its exact name.",
        ),
        secondary,
    ]


def _lemma_for_goal(ctx: Context, name: str, line: int) -> Advice | None:
    """`exact mul_pos_of_pos_of_pos ha hb` on `0 < a * b`: no such lemma, and the library lemma
    whose statement is exactly the goal from the facts in scope (tutor/coach/lemmas.py) is the
    fix, matched by statement, never by the spelling of the name written."""
    code = ctx.text.line(line).split("--", 1)[0].strip().lstrip("·").strip()
    if not re.match(rf"(?:exact|apply)\s+{re.escape(name)}(?![\w.'])", code):
        return None
    goal = traced_goal(ctx.statement, ctx.text, line)
    if goal is None:
        return None
    facts = [(n, t) for n, t in facts_in_scope(ctx.statement, ctx.text, line) if t and n != "_"]
    found = lemmas_by_statement.instances(goal, facts, ctx.mathlib)
    if not found:
        return None
    # Of several, the one sharing most of the written name's words (`mul`, `pos`).
    words = set(re.split(r"[._]", name))
    best = max(found, key=lambda term: len(words & set(re.split(r"[._]", term.split()[0]))))
    return Advice(
        line,
        f"Do write `exact {best}` on line {line}: there is no `{name}`, and "
        f"`{best.split()[0]}` is the library lemma whose statement is exactly the goal "
        f"`{shorten(goal, 24)}`.",
    )


def _step_by_step(ctx: Context, name: str, line: int) -> Advice | None:
    """`exact Nat.add_comm_three a b c` on a goal no single library lemma states but that is
    linear arithmetic over ℕ or ℤ: omega proves it, with no lemma to remember."""
    code = ctx.text.line(line).split("--", 1)[0].strip().lstrip("·").strip()
    whole = rf"(?:(?:exact|apply)\s+{re.escape(name)}(?![\w.'])|(?:rw|rewrite)\s*\[\s*{re.escape(name)}\s*\]\s*$)"
    if not re.match(whole, code):
        return None
    goal = traced_goal(ctx.statement, ctx.text, line)
    if goal is None:
        return None
    facts = [(n, t) for n, t in facts_in_scope(ctx.statement, ctx.text, line) if t and n != "_"]
    domain = evidence.domain_of_text(ctx.statement)
    if domain not in (evidence.NAT, evidence.INT):
        return None
    if linear.omega_proves(goal, [t for _, t in facts], domain) is not True:
        return None
    return Advice(
        line,
        f"Do write `omega` on line {line} instead: there is no `{name}`, and the goal "
        f"`{shorten(goal, 24)}` is linear arithmetic over ℕ or ℤ, which omega proves from your "
        "facts without any lemma name.",
    )


def _witness_of_an_exists(ctx: Context, name: str, line: int) -> Advice | None:
    """`exact ⟨x, hx⟩` with `h : ∃ x, f x = 0` in scope and no `x`: the name is the ∃'s bound
    variable, which exists only once `h` is taken apart (`obtain ⟨x, hx⟩ := h`)."""
    if not _looks_local(name) or _bound_somewhere(ctx, name):
        return None
    for fact, typ in facts_in_scope(ctx.statement, ctx.text, line):
        if "✝" in fact or not typ.startswith("∃") or name not in binder_names(typ):
            continue
        proof = (
            "h" + name
            if ("h" + name) not in dict(facts_in_scope(ctx.statement, ctx.text, line))
            else "hw"
        )
        return Advice(
            line,
            f"Do take `{fact}` apart first: write `obtain ⟨{name}, {proof}⟩ := {fact}` before line "
            f"{line}. `{name}` is bound inside the ∃ of `{fact}`, so it is not a name you can use "
            "until you destructure it.",
        )
    return None


def _known_lemma_with_a_suffix(ctx: Context, name: str, line: int) -> Advice | None:
    """`sq_nonneg_of x`, `mul_pos_of_pos ha hb`: a lemma name the library has, with words
    added after it (`_of`, `_of_pos`, `_real`): the library's name is the one meant."""
    known = [*CORE_LEMMAS, *(MATHLIB_LEMMAS if ctx.mathlib else [])]
    stems = [k for k in known if name.startswith(k + "_") and "." not in name[len(k) :]]
    if not stems:
        return None
    stem = max(stems, key=len)
    code = ctx.text.line(line).split("--", 1)[0].strip().lstrip("·").strip()
    if not re.match(r"(?:exact|apply|refine|have)\b", code):
        return None  # in a `rw [...]` the shorter lemma rewrites something else
    fixed = re.sub(rf"(?<![\w.']){re.escape(name)}(?![\w'])", stem, code, count=1)
    return Advice(
        line,
        f"Do write `{shorten(fixed, 48)}` on line {line}: there is no `{name}`; the library's "
        f"lemma is `{stem}`, without `{name[len(stem) :]}`.",
    )


def _local_names_include(ctx: Context, name: str, line: int) -> bool:
    return any(n == name for n, _ in _local_names(ctx, line))


def _underscore_binder(ctx: Context, name: str, line: int) -> Advice | None:
    """`fun _ => ⟨hq, hp⟩`: the premise was bound as `_`, so the name used for it is unbound;
    naming the binder is the fix (one `_` binder on the line or in an `intro _` just above).
    Never when a name in scope of the same length, one edit away, is not already used on the
    line: that reads as a typo of it instead."""
    used = set(re.findall(r"[\w'₀-₉]+", ctx.text.line(line)))
    if any(
        len(n) == len(name) and damerau_levenshtein(name.lower(), n.lower()) <= 1 and n not in used
        for n, _ in _local_names(ctx, line)
        if n != name and "✝" not in n
    ):
        return None
    for number in range(line, 0, -1):
        code = ctx.text.line(number).split("--", 1)[0]
        if number < line and re.match(r"\s*(theorem|lemma|example)\b", code):
            return None
        binders = re.findall(r"(?<![\w.])(fun|λ|intro)\s+_(?=\s|$|=>|↦)", code)
        if len(binders) == 1:
            keyword = binders[0]
            fixed = re.sub(
                rf"(?<![\w.]){keyword}\s+_(?=\s|$|=>|↦)", f"{keyword} {name}", code, count=1
            )
            return Advice(
                number,
                f"Do write `{shorten(fixed.strip(), 40)}` on line {number}: the `_` binder "
                f"leaves the hypothesis unnamed, so `{name}` is never bound and Lean does not "
                f"know it on line {line}.",
            )
        if binders:
            return None
    return None


def _reads_as_proof(name: str) -> bool:
    """A name students give proofs: `h`, `hp`, `h₁`, `ih`, or the Lean 3 `H`, `Hp`, `IH`."""
    return re.match(r"(h|H|ih|IH)[\w'₀-₉]*$", name) is not None


def _proof_names(prop: str) -> tuple[str, ...]:
    """The names students give a proof of `prop` (`hp`, `h_p`, and the Lean 3 `Hp`)."""
    return (f"h{prop}", f"h_{prop}", f"H{prop}")


def _looks_local(name: str) -> bool:
    """A short name without a namespace (`hq`, `ih`, `x`, `h₁`, and the Lean 3 habits `H`,
    `Hp`, `IH`): a hypothesis or a variable of the proof, never a library lemma (so no lemma
    is offered for it)."""
    return _LOCAL_NAME.fullmatch(name) is not None and "_" not in name


def _local_names(ctx: Context, line: int) -> list[tuple[str, str]]:
    """(name, type or "") of what is in scope at `line`: the statement's binders, what the
    proof introduced (traced), and names written in patterns, `intro`s and `fun`s above."""
    names = [(n, t) for n, t in facts_in_scope(ctx.statement, ctx.text, line) if n != "_"]
    known = {n for n, _ in names}
    for number in range(1, line + 1):
        code = ctx.text.line(number).split("--", 1)[0]
        binding = re.match(
            r"^\s*(?:·\s*)?(?:obtain|rcases|rintro|intro|cases|induction|match|fun|λ|\|)", code
        ) or re.search(r"(?<![\w.])(fun|λ)\s*⟨", code)
        if not binding:
            continue  # `exact ⟨x, hx⟩` uses names, it does not make them
        for group in re.findall(r"⟨([^⟨⟩]*)⟩|\|\s*\w+((?:\s+[\w'₀-₉]+)*)\s*=>", code):
            for word in re.findall(r"[\w'₀-₉]+", " ".join(group)):
                if word not in known and word != "_" and not word[0].isdigit():
                    names.append((word, ""))
                    known.add(word)
    return names


def _local_name_advice(ctx: Context, name: str, line: int) -> str:
    """A typo of a name in scope only with evidence (one candidate within one edit, a
    hypothesis where the name reads as one); otherwise say what is in scope, naming no fix."""
    scope = _local_names(ctx, line)
    # A name a pattern gave (`obtain ⟨k, hk⟩ := h` on an `Even n`) has no type the trace can
    # read; one that reads as a hypothesis (`hk`) still counts as one.
    proofs = [
        n
        for n, t in scope
        if "✝" not in n and (t and not _type_word(t) or not t and _reads_as_proof(n))
    ]
    pool = proofs if _reads_as_proof(name) else [n for n, _ in scope if "✝" not in n]
    near = [n for n in pool if damerau_levenshtein(name.lower(), n.lower()) <= 1 and n != name]
    same_letters = [n for n in near if sorted(n) == sorted(name)]
    near = same_letters if len(same_letters) == 1 else near
    # A one-letter name is one edit from every two-letter one: only the statement the
    # position needs picks one of them.
    fitting = _fitting_the_slot(ctx, name, line, near, scope)
    near = fitting if len(fitting) == 1 or len(name) == 1 else near
    if len(near) == 1 and _fits_where_used(ctx, name, near[0], scope, line):
        code = ctx.text.line(line).split("--", 1)[0].strip()
        fixed = re.sub(rf"(?<![\w.']){re.escape(name)}(?![\w'])", near[0], code)
        step = f"write `{fixed}`" if len(fixed) <= 40 else f"replace `{name}` with `{near[0]}`"
        why = (
            f"`{near[0]}` is spelled almost the same and proves `{shorten(dict(scope)[near[0]], 24)}`, "
            "what this position needs"
            if fitting == near
            else f"`{near[0]}` is the one name in scope spelled almost the same"
        )
        return f"Do {step} on line {line}: nothing named `{name}` is in scope there, and {why}."
    taken_apart = _only_fact_to_take_apart(ctx, name, line, scope)
    if taken_apart is not None:
        return taken_apart
    argument = _argument_of_a_hypothesis(ctx, name, line, scope)
    if argument is not None:
        return argument
    shown = ", ".join(f"`{n}`" for n in proofs[:4])
    listed = f" The hypotheses in scope are {shown}." if shown else ""
    return (
        f"Do bind `{name}` before you use it on line {line}, or use a name that is in scope: "
        f"nothing named `{name}` was introduced (by `intro`, a pattern or `have`).{listed}"
    )


def _slot_type(ctx: Context, name: str, line: int) -> str | None:
    """The statement the unknown name must prove where it is written: the goal on `exact name`,
    a half of an ∧ goal in `exact ⟨a, name⟩`, a side of an ∨ goal in `Or.inl name`."""
    code = ctx.text.line(line).split("--", 1)[0].strip().lstrip("·").strip()
    goal = goal_at(ctx, line)
    if goal is None:
        return None
    if code == f"exact {name}":
        return goal
    split = split_target(goal)
    pair = re.fullmatch(r"exact\s*⟨\s*([\w'₀-₉]+)\s*,\s*([\w'₀-₉]+)\s*⟩", code)
    if pair and split.shape is Shape.AND and name in pair.groups():
        return split.left if pair.group(1) == name else split.right
    side = re.fullmatch(rf"exact\s+Or\.in([lr])\s+{re.escape(name)}", code)
    if side and split.shape is Shape.OR:
        return split.left if side.group(1) == "l" else split.right
    return None


def _fitting_the_slot(
    ctx: Context, name: str, line: int, near: list[str], scope: list[tuple[str, str]]
) -> list[str]:
    """Of several names one edit from the unknown one (`hp`, `hq` for `h`), those whose
    statement is what the position needs; [] when the position's statement is not known."""
    wanted = _slot_type(ctx, name, line)
    if wanted is None:
        return []
    types = dict(scope)
    return [n for n in near if types.get(n) and same(types[n], wanted)]


def _argument_of_a_hypothesis(
    ctx: Context, name: str, line: int, scope: list[tuple[str, str]]
) -> str | None:
    """`hpq h` where no `h` exists and `hpq : p → q`: the argument must prove `p`, and the one
    fact in scope stating `p` (`hp`) is the name meant."""
    code = ctx.text.line(line).split("--", 1)[0]
    types = dict(scope)
    for match in re.finditer(rf"(?<![\w.'])([\w'₀-₉]+)\s+{re.escape(name)}(?![\w'])", code):
        function = split_target(types.get(match.group(1), ""))
        if function.shape is not Shape.IMPLIES:
            continue
        fitting = [n for n, t in scope if n != name and t and same(t, function.left)]
        if len(fitting) == 1:
            fixed = f"{match.group(1)} {fitting[0]}"
            return (
                f"Do write `{fixed}` on line {line}: there is no `{name}`; `{match.group(1)}` "
                f"takes a proof of `{shorten(function.left, 20)}`, and that is `{fitting[0]}`."
            )
    return None


_TAKES_APART = re.compile(
    r"^(?:·\s*)?(?:(?:cases|rcases|induction)\s+(?P<a>[\w'₀-₉]+)\b|obtain\b.*:=\s*(?P<b>[\w'₀-₉]+)\s*$)"
)
_SPLITTABLE = (Shape.OR, Shape.AND, Shape.EXISTS, Shape.IFF)


def _only_fact_to_take_apart(
    ctx: Context, name: str, line: int, scope: list[tuple[str, str]]
) -> str | None:
    """`cases h with ...` where no `h` exists and exactly one fact in scope is an ∨, ∧, ∃ or ↔
    (the kinds `cases` takes apart): that fact is the one meant, under its own name."""
    code = ctx.text.line(line).split("--", 1)[0].strip()
    match = _TAKES_APART.match(code)
    if match is None or name not in (match.group("a"), match.group("b")):
        return None
    fitting = [
        n
        for n, t in scope
        if t and "✝" not in n and split_target(t).shape in _SPLITTABLE and n != name
    ]
    if len(fitting) != 1:
        return None
    fixed = re.sub(rf"(?<![\w.']){re.escape(name)}(?![\w'])", fitting[0], code, count=1)
    typ = dict(scope)[fitting[0]]
    return (
        f"Do write `{shorten(fixed, 40)}` on line {line}: there is no `{name}`; the hypothesis "
        f"you mean is named `{fitting[0]}` (`{shorten(typ, 20)}`), the one fact here that "
        "`cases` can take apart."
    )


def _widened_intro(
    ctx: Context, name: str, line: int, binders: list[str]
) -> tuple[int, str] | None:
    """`intro x y` for the proof's first `intro x` when `y` is the ∀'s next binder."""
    first = ctx.text.tactic_lines(ctx.text.declaration_span(line))
    for tactic in first:
        if tactic.line >= line:
            return None
        match = re.fullmatch(r"intro((?:\s+[\w'₀-₉]+)+)", tactic.text.strip())
        if not match:
            continue
        given = match.group(1).split()
        if name in given or binders.index(name) < len(given):
            return None
        wanted = given + binders[len(given) : binders.index(name) + 1]
        return tactic.line, "intro " + " ".join(wanted)
    return None


# The fields of the constructors a starter course splits on, with the names Lean's docs use,
# for `induction` (with the induction hypothesis) and `cases`.
_FIELDS = {
    ("induction", "zero"): (),
    ("induction", "succ"): ("k", "ih"),
    ("induction", "nil"): (),
    ("induction", "cons"): ("x", "xs", "ih"),
    ("cases", "zero"): (),
    ("cases", "succ"): ("k",),
    ("cases", "nil"): (),
    ("cases", "cons"): ("x", "xs"),
    ("cases", "inl"): ("h",),
    ("cases", "inr"): ("h",),
    ("cases", "intro"): ("w", "h"),
}
_ALTERNATIVE = re.compile(r"^(?P<indent>\s*)\|\s*(?P<ctor>\w+)(?P<names>(?:\s+[\w'₀-₉]+)*)\s*=>")
_SPLITTER = re.compile(r"^\s*(?:·\s*)?(induction|cases|rcases|match)\b")
_ANONYMOUS = re.compile(r"⟨([^⟨⟩]*)⟩")


def _unbound_in_pattern(ctx: Context, name: str, line: int) -> tuple[int, str, str] | None:
    """(line, the pattern with `name` bound, why) when the alternative around `line` names fewer
    fields than its constructor has (`| succ k =>` then `ih`), or a `⟨.., _⟩` pattern above
    drops exactly one part with `_`. Only for a name that is bound nowhere in the attempt."""
    if not _looks_local(name) or _bound_somewhere(ctx, name):
        return None
    alternative = _enclosing_alternative(ctx.text, line)
    if alternative is not None:
        at, match, tactic = alternative
        fields = _FIELDS.get((tactic, match.group("ctor")))
        names = match.group("names").split()
        if fields is not None and len(names) < len(fields):
            slot = len(fields) - 1 if _reads_as_proof(name) else len(names)
            filled = list(names) + list(fields[len(names) :])
            filled[max(slot, len(names))] = name
            fixed = f"| {match.group('ctor')} {' '.join(filled)} =>"
            why = (
                f"The alternative `| {match.group('ctor')}{match.group('names')} =>` names "
                f"{len(names)} of the {len(fields)} parts `{tactic}` gives"
            )
            return at, fixed, why
    for number in range(line, 0, -1):
        code = ctx.text.line(number).split("--", 1)[0].strip()
        if re.match(r"^(theorem|lemma|example)\b", code):
            break
        if not re.match(
            r"^(?:·\s*)?(obtain|rcases|rintro|intro|fun|λ|match|cases)\b|^\|\s*⟨", code
        ) and not re.search(r"(?<![\w.])(fun|λ)\s*⟨", code):
            continue
        # A `match` alternative: only its pattern (before `=>`) names anything.
        pattern = code.split("=>", 1)[0].strip() if code.startswith("|") else code
        groups = _ANONYMOUS.findall(pattern)
        holes = [g for g in groups if "_" in [p.strip() for p in g.split(",")]]
        if len(holes) == 1:
            parts = [p.strip() for p in holes[0].split(",")]
            hole = _slot_for(name, parts, _destructured(ctx, number, code))
            if hole is None:
                continue
            named = ", ".join(name if i == hole else p for i, p in enumerate(parts))
            fixed = code.replace(f"⟨{holes[0]}⟩", f"⟨{named}⟩", 1)
            what = "that part" if parts.count("_") == 1 else "a part (each `_` does)"
            why = f"The `_` in `⟨{holes[0]}⟩` on line {number} throws {what} away"
            return number, fixed, why
        short = _short_pattern(ctx, name, number, code, groups)
        if short is not None:
            return short
    return None


def _anonymous_have(ctx: Context, name: str, line: int) -> Advice | None:
    """`have : a ≤ b := …` then `exact h2`: a `have` without a name calls its fact `this`, so
    the name the student uses was never given; name the fact where it is made."""
    if not _looks_local(name) or _bound_somewhere(ctx, name):
        return None
    scope = _local_names(ctx, line)
    near = [
        n
        for n, _ in scope
        if damerau_levenshtein(name, n) <= 1 and _fits_where_used(ctx, name, n, scope, line)
    ]
    if near and goal_at(ctx, line) is not None:
        return None  # a spelling slip of a name in scope is the likelier reading
    for number in range(line - 1, 0, -1):
        code = ctx.text.line(number).split("--", 1)[0].strip()
        if re.match(r"^(theorem|lemma|example)\b", code):
            return None
        if re.match(r"^(?:·\s*)?have\s*:", code):
            fixed = re.sub(r"\bhave\s*:", f"have {name} :", code, count=1)
            shown = f"`{fixed}`" if len(fixed) <= 40 else f"`have {name} : …`"
            return Advice(
                number,
                f"Do name the fact on line {number}: write {shown}. A `have` without a name "
                f"calls its fact `this`, so `{name}` is never bound and is unknown on line "
                f"{line} (or write `this` there).",
            )
    return None


def _destructured(ctx: Context, number: int, code: str) -> str | None:
    """The type a `⟨…⟩` pattern on line `number` takes apart: the fact after `:=` of an
    `obtain`/`rcases`, else (for `intro`, `rintro`, `fun`) the premise of the goal there."""
    taken = re.search(r":=\s*([\w'₀-₉]+)\s*$", code) or re.match(
        r"^(?:·\s*)?(?:rcases|cases)\s+([\w'₀-₉]+)\s+with\b", code
    )
    if code.startswith("|"):  # a `match h with` alternative takes `h` apart
        for above in range(number - 1, 0, -1):
            matched = re.match(r"^\s*(?:·\s*)?match\s+([\w'₀-₉]+)\s+with\b", ctx.text.line(above))
            if matched:
                taken = matched
                break
    if taken:
        return dict(facts_in_scope(ctx.statement, ctx.text, number)).get(taken.group(1))
    goal = traced_goal(ctx.statement, ctx.text, number)
    split = split_target(goal) if goal else None
    if split is not None and split.shape is Shape.IMPLIES:
        return split.left
    return None


def _parts_of(typ: str | None) -> list[str] | None:
    """The parts a two-place `⟨a, b⟩` gives of an ∧ (its halves) or an ∃ (witness, property)."""
    if typ is None:
        return None
    split = split_target(typ)
    if split.shape is Shape.AND:
        return [split.left, split.right]
    if split.shape is Shape.EXISTS:
        body = split.right.split(",", 1)
        return ["", body[1].strip()] if len(body) == 2 else None
    return None


def _slot_for(name: str, parts: list[str], typ: str | None) -> int | None:
    """Which `_` of the pattern `name` was meant for: the only one, else the part whose
    statement the name spells (`hp` for the half `p`), else None (no guess)."""
    holes = [i for i, p in enumerate(parts) if p == "_"]
    if len(holes) == 1:
        return holes[0]
    halves = _parts_of(typ)
    if halves is None or len(halves) != len(parts):
        return None
    spelled = [i for i in holes if halves[i] and name in _proof_names(halves[i])]
    if len(spelled) == 1:
        return spelled[0]
    # An ∃'s property is its one proof part: a name that reads as a proof goes there.
    if halves[0] == "" and _reads_as_proof(name) and len(parts) - 1 in holes:
        return len(parts) - 1
    return None


def _short_pattern(
    ctx: Context, name: str, number: int, code: str, groups: list[str]
) -> tuple[int, str, str] | None:
    """`rintro ⟨n⟩` on `(∃ n, P n) → …`, then `hn`: the pattern names one part of the two an
    ∃ (or ∧) has, so the other is never bound; add it, `name` where it reads as the proof."""
    singles = [g for g in groups if "," not in g and g.strip()]
    if len(groups) != 1 or len(singles) != 1:
        return None
    halves = _parts_of(_destructured(ctx, number, code))
    if halves is None:
        return None
    given = singles[0].strip()
    if halves[0] == "" and not _reads_as_proof(name):
        return None  # an ∃'s second part is its property: only a proof-like name goes there
    fixed = code.replace(f"⟨{singles[0]}⟩", f"⟨{given}, {name}⟩", 1)
    why = f"The pattern `⟨{given}⟩` on line {number} names one of the two parts it takes apart"
    return number, fixed, why


def _bound_somewhere(ctx: Context, name: str) -> bool:
    """`name` is written where a name is made: a binder of the statement, an `intro`, a
    pattern, a `have`, a `fun` or an alternative."""
    if any(n == name for n, _ in statement_hypotheses(ctx.statement)):
        return True
    word = rf"(?<![\w.']){re.escape(name)}(?![\w'])"
    for code in ctx.text.lines:
        code = code.split("--", 1)[0]
        if re.search(
            rf"^\s*(?:·\s*)?(intro|intros|rintro|have|obtain|rcases|fun|λ)\b.*{word}", code
        ):
            return True
        if re.search(rf"\|\s*\w+[^=]*{word}[^=]*=>", code) or re.search(
            rf"(?<![\w.])(fun|λ)\s[^=↦]*{word}", code
        ):
            return True
    return False


def _enclosing_alternative(text: AttemptText, line: int) -> tuple[int, re.Match[str], str] | None:
    """The `| ctor names =>` whose branch holds `line`, and the tactic that split (`induction`
    or `cases`)."""
    for number in range(line, 0, -1):
        match = _ALTERNATIVE.match(text.line(number))
        if match is None:
            continue
        if number != line and text.indent(line) <= len(match.group("indent")):
            return None
        for above in range(number - 1, 0, -1):
            split = _SPLITTER.match(text.line(above))
            if split:
                tactic = "induction" if split.group(1) == "induction" else "cases"
                return number, match, tactic
        return None
    return None


# Lean 3 core namespaces whose Lean 4 spelling is only capitalised (`eq.symm` -> `Eq.symm`).
_LEAN3_NAMESPACES = {
    "eq": "Eq",
    "ne": "Ne",
    "or": "Or",
    "and": "And",
    "iff": "Iff",
    "not": "Not",
    "false": "False",
    "true": "True",
    "exists": "Exists",
    "function": "Function",
}


def _lean3_namespace(name: str) -> str | None:
    """`Eq.symm` for `eq.symm`: a Lean 3 core namespace (ℕ and lists are handled by the lemma
    table, which knows which of their lemmas exist)."""
    head, dot, rest = name.partition(".")
    if not dot or not rest or head not in _LEAN3_NAMESPACES:
        return None
    return f"{_LEAN3_NAMESPACES[head]}.{rest}"


def _name_search_advice(line: int) -> Advice:
    return Advice(
        line,
        "Don't guess lemma names from memory: search with `exact?` and copy the exact Lean 4 "
        "name, which capitalises namespaces such as `Nat.` and `List.`.",
    )


_BARE_SPLIT = re.compile(r"^(cases|induction)\s+([\w'₀-₉]+)\s*;?$")


def _obtain_names(name: str, typ: str, shape: Shape) -> str:
    """The pattern of an `obtain` that gives `name` to the part the student used: a proof name
    (`h...`) is the property of an ∃ or the second half of an ∧; another name is the witness."""
    if name in ("left", "right"):
        return "left, right"  # the names Lean 4 `cases` gives the halves (`left✝`, `right✝`)
    if shape is Shape.EXISTS:
        witness = (binder_names(typ) or ["w"])[0]
        return f"{witness}, {name}" if _reads_as_proof(name) else f"{name}, h{name}"
    return f"{name}, h2" if not name.endswith("2") else f"h1, {name}"


def _unnamed_binder(ctx: Context, name: str, line: int) -> tuple[int, str] | None:
    """(line, how to name it) for the bare `intro` / `cases h` / `induction n` above `line`,
    when `name` looks like a hypothesis the student expected it to make (a short local name
    that the statement does not have): Lean names those hypotheses inaccessibly."""
    if not _LOCAL_NAME.match(name):
        return None
    if re.search(rf"(?<![\w.']){re.escape(name)}(?![\w'])", ctx.statement):
        return None
    for number in range(line - 1, 0, -1):
        code = ctx.text.line(number).strip()
        if re.match(r"^(theorem|lemma|example)\b", code):
            return None
        if re.fullmatch(r"intros?;?", code) or re.fullmatch(r"intros? _.*", code):
            return number, f"`intro {name}`"
        split = _BARE_SPLIT.match(code)
        if split:
            target = split.group(2)
            typ = dict(statement_hypotheses(ctx.statement)).get(target, "")
            shape = split_target(typ).shape
            if shape is Shape.OR:
                form = f"`cases {target} with | inl {name} => ... | inr {name} => ...`"
            elif shape in (Shape.EXISTS, Shape.AND):
                form = f"`obtain ⟨{_obtain_names(name, typ, shape)}⟩ := {target}`"
            elif split.group(1) == "induction":
                form = f"`induction {target} with | zero => ... | succ k {name} => ...`"
            else:
                form = f"`cases {target} with` and one `| name {name} => ...` per constructor"
            return number, form
    return None


_PROJECTIONS = (".mpr", ".mp", ".symm", ".elim", ".left", ".right", ".le", ".1", ".2")


def _split_projection(name: str, candidates: set[str]) -> tuple[str, str]:
    """`nat.succ_le_iff.mpr` -> (`nat.succ_le_iff`, `.mpr`): keep the projection on the fix."""
    # The whole name is unknown (Lean said so): a projection on it is the student's, keep it.
    for suffix in _PROJECTIONS:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)], suffix
    return name, ""


def _reordered_name(name: str, lemmas: list[str]) -> NameGuess | None:
    """`List.append_length` -> `List.length_append`: same words in another order."""
    if "." not in name:
        return None
    space, _, last = name.rpartition(".")
    words = sorted(last.lower().split("_"))
    for lemma in lemmas:
        l_space, _, l_last = lemma.rpartition(".")
        same_words = sorted(l_last.lower().split("_")) == words
        if l_space.lower() == space.lower() and same_words and lemma != name:
            return NameGuess(lemma, 2)
    return None


def _fact_for_goal(name: str, ctx: Context, line: int) -> str | None:
    """A misspelt hypothesis (`h` for `hp`): the one fact in scope whose type is exactly the
    goal at the line (traced from the statement); no guess without that evidence."""
    if not _reads_as_proof(name):
        return None
    goal = traced_goal(ctx.statement, ctx.text, line)
    if goal is None:
        return None
    facts = [
        n
        for n, t in facts_in_scope(ctx.statement, ctx.text, line)
        if t and n != "_" and "✝" not in n and not _type_word(t) and same(t, goal)
    ]
    return facts[0] if len(facts) == 1 else None


def _type_word(typ: str) -> bool:
    return bool(
        re.fullmatch(r"(Prop|Type\S*|Nat|Int|ℕ|ℤ|ℝ|List\s+\S+|Bool|.*→\s*(Nat|Prop|ℕ))", typ)
    )


_RFL_PATTERN = re.compile(r"^(?:·\s*)?(?:obtain|rcases|rintro)\b.*⟨[^⟨⟩]*\brfl\b[^⟨⟩]*⟩")


def _substituted_by_rfl(ctx: Context, name: str, line: int) -> Advice | None:
    """`obtain ⟨k, rfl⟩ := h`, then `rw [hk]`: the `rfl` part substituted the equation into
    the goal instead of naming it, so there is no `hk` (and `h` itself is gone)."""
    if not _looks_local(name) or _bound_somewhere(ctx, name):
        return None
    for number in range(line - 1, 0, -1):
        code = ctx.text.line(number).split("--", 1)[0].strip()
        if re.match(r"^(theorem|lemma|example)\b", code):
            return None
        if not _RFL_PATTERN.match(code) or code.count("rfl") != 1:
            continue
        fixed = re.sub(r"\brfl\b", name, code, count=1)
        step = ctx.text.line(line).strip()
        if re.fullmatch(
            rf"(?:rw|rewrite|simp only|simp)\s*\[\s*(?:←\s*)?{re.escape(name)}\s*\]", step
        ):
            return Advice(
                line,
                f"Do delete `{step}` on line {line}: the `rfl` in the pattern on line {number} "
                f"already substituted the equation into the goal, so there is nothing named "
                f"`{name}` and nothing left to rewrite (or write `{fixed}` to keep it).",
            )
        return Advice(
            number,
            f"Do write `{fixed}` on line {number} if you want the equation as `{name}`: the "
            f"`rfl` in the pattern substitutes it away, so no hypothesis is named `{name}`. "
            f"Or delete `{step}` on line {line}: the goal already uses the substitution.",
        )
    return None


def _premise_not_introduced(ctx: Context, name: str, line: int) -> Advice | None:
    """`exact hqp hp` where the goal there is the implication `q → p` and nothing is named
    `hp`: the premise was never introduced. When the function alone is the goal (`hqp : q →
    p`), `exact hqp` is the whole step; else `intro` the premise first."""
    if not _looks_local(name) or _bound_somewhere(ctx, name):
        return None
    goal = goal_at(ctx, line)
    split = split_target(goal or "")
    if split.shape not in (Shape.IMPLIES, Shape.NOT):
        return None
    code = ctx.text.line(line).split("--", 1)[0].strip().lstrip("·").strip()
    call = re.fullmatch(rf"exact\s+([\w'₀-₉.]+)\s+{re.escape(name)}", code)
    facts = dict(facts_in_scope(ctx.statement, ctx.text, line))
    assert goal is not None
    function = split_target(facts.get(call.group(1), "")) if call else None
    premise = split.left if split.shape is Shape.IMPLIES else split.right
    if (
        call is None
        and _reads_as_proof(name)
        and not any(same(t, premise) for t in facts.values())
        and _underscore_binder(ctx, name, line) is None  # a `fun _ =>` names it: said there
    ):
        # Used anywhere on the line, a proof name with the goal's premise nowhere in scope:
        # the premise was never introduced; the `intro` just above is where it goes.
        return _widened_to_premise(ctx, name, line, goal)
    if call is None or function is None or function.shape is not Shape.IMPLIES:
        return None
    if not same(function.left, premise):
        return None  # the argument is not the goal's premise: not a missing `intro`
    if same(facts.get(call.group(1), ""), goal):
        head = call.group(1)
        return Advice(
            line,
            f"Do write `exact {head}` on line {line}: the goal `{goal}` is an implication, "
            f"and `{head}` already is one, so it needs no argument; `{name}` was never "
            "introduced.",
        )
    return Advice(
        line,
        f"Do start with `intro {name}` before line {line}: the goal `{goal}` is an "
        f"implication, and its premise is not in the context (as `{name}`) until you "
        "introduce it.",
    )


def _widened_to_premise(ctx: Context, name: str, line: int, goal: str) -> Advice:
    previous = ctx.text.last_code_line(line - 1)
    code = ctx.text.line(previous or 0).split("--", 1)[0].strip().lstrip("·").strip()
    if previous is not None and re.fullmatch(r"intro(?:\s+[\w'₀-₉]+)+", code):
        return Advice(
            previous,
            f"Do write `{code} {name}` on line {previous}: after it the goal is still the "
            f"implication `{shorten(goal, 24)}`, whose premise is not in the context as `{name}` "
            "until you introduce it too.",
        )
    return Advice(
        line,
        f"Do start with `intro {name}` before line {line}: the goal `{shorten(goal, 24)}` is an "
        f"implication, and its premise is not in the context (as `{name}`) until you "
        "introduce it.",
    )


_TAKE_APART = re.compile(
    r"^(?:·\s*)?(?:obtain\s+⟨(?P<a>[^⟨⟩]+)⟩\s*:=\s*(?P<src>[\w'₀-₉]+)"
    r"|rcases\s+(?P<src2>[\w'₀-₉]+)\s+with\s+⟨(?P<b>[^⟨⟩]+)⟩)\s*$"
)


def _taken_apart(ctx: Context, name: str, line: int) -> Advice | None:
    """`obtain ⟨k, hk⟩ := h` above, then `h` again: rcases removes the hypothesis it takes
    apart (Mathlib/Tactic/RCases.lean clears it), so only its parts are left."""
    for number in range(line - 1, 0, -1):
        code = ctx.text.line(number).split("--", 1)[0].strip()
        if re.match(r"^(theorem|lemma|example)\b", code):
            return None
        match = _TAKE_APART.match(code)
        if not match or (match.group("src") or match.group("src2")) != name:
            continue
        parts = [p.strip() for p in (match.group("a") or match.group("b")).split(",")]
        facts = dict(facts_in_scope(ctx.statement, ctx.text, line))
        proofs = [
            p for p in parts if p in facts and facts[p] and not _type_word(facts[p]) and p != "_"
        ]
        shown = ", ".join(f"`{p}`" for p in parts)
        if len(proofs) == 1:
            return Advice(
                line,
                f"Do use `{proofs[0]}` on line {line} instead of `{name}`: the `{code.split()[0]}` "
                f"on line {number} took `{name}` apart and removed it; its parts are {shown}, "
                f"and `{proofs[0]} : {facts[proofs[0]]}` is the fact.",
            )
        return Advice(
            line,
            f"Do use the parts of `{name}` on line {line}: the `{code.split()[0]}` on line "
            f"{number} took `{name}` apart and removed it, leaving {shown}.",
        )
    return None


def _parts_never_named(ctx: Context, name: str, line: int) -> Advice | None:
    """`intro h` (h : p ∧ q), then `hp`, `hq`: the names of the halves, in the usual `h` + the
    proposition's name, were never given; the fact is still whole. Take it apart where it is
    introduced (`intro ⟨hp, hq⟩`), or with `obtain`, or use its projections."""
    if not _looks_local(name) or _bound_somewhere(ctx, name):
        return None
    for fact, typ in facts_in_scope(ctx.statement, ctx.text, line):
        split = split_target(typ) if typ else None
        if split is None or split.shape is not Shape.AND or "✝" in fact:
            continue
        sides = [split.left.strip(), split.right.strip()]
        prefix = "H" if name.startswith("H") else "h"
        names = [
            f"{prefix}{side}" if re.fullmatch(r"[a-zα-ω][\w'₀-₉]*", side) else "" for side in sides
        ]
        if name not in names or "" in names:
            continue
        pattern = f"⟨{', '.join(names)}⟩"
        projection = f"{fact}.{names.index(name) + 1}"
        for number in range(line - 1, 0, -1):
            code = ctx.text.line(number).split("--", 1)[0].strip().lstrip("·").strip()
            intro = re.fullmatch(r"(intro|rintro)((?:\s+\S+)+)", code)
            if intro and fact in intro.group(2).split():
                fixed = re.sub(rf"(?<![\w.']){re.escape(fact)}(?![\w'])", pattern, code, count=1)
                return Advice(
                    number,
                    f"Do write `{fixed}` on line {number}: `{fact} : {shorten(typ, 20)}` is "
                    f"introduced whole, and its halves are never named `{names[0]}` and "
                    f"`{names[1]}` (or use `{projection}` for `{name}` on line {line}).",
                )
        return Advice(
            line,
            f"Do take `{fact}` apart first: write `obtain {pattern} := {fact}` before line {line}, "
            f"since `{fact} : {shorten(typ, 20)}` has halves that are never named `{names[0]}` "
            f"and `{names[1]}` (or use `{projection}` for `{name}`).",
        )
    return None


def _fits_where_used(
    ctx: Context, name: str, candidate: str, scope: list[tuple[str, str]], line: int
) -> bool:
    """A spelling fix only where the replacement could work: on `exact name` (the whole step)
    the candidate must state the goal there; elsewhere nothing says otherwise."""
    code = ctx.text.line(line).split("--", 1)[0].strip().lstrip("·").strip()
    if code != f"exact {name}":
        return True
    goal = goal_at(ctx, line)
    typ = dict(scope).get(candidate, "")
    return goal is None or not typ or same(typ, goal)


def _built_for_goal(ctx: Context, name: str, line: int) -> Advice | None:
    """`exact hq` with no `hq` and no fact that is the goal, where the facts build it
    (`hpq h`): that term is the step, when no name in scope is one edit from `hq`."""
    code = ctx.text.line(line).split("--", 1)[0].strip().lstrip("·").strip()
    goal = goal_at(ctx, line)
    if code != f"exact {name}" or goal is None or _bound_somewhere(ctx, name):
        return None
    facts = [(n, t) for n, t in facts_in_scope(ctx.statement, ctx.text, line) if n != "_"]
    near = [n for n, _ in facts if damerau_levenshtein(name.lower(), n.lower()) <= 1]
    if any(same(t, goal) for n, t in facts if n in near):
        return None  # a spelling slip of a fact that states the goal: said elsewhere
    proofs = proofs_of(goal, facts)
    if not proofs:
        return None
    return Advice(
        line,
        f"Do write `exact {proofs[0]}` on line {line}: nothing named `{name}` is in scope, and "
        f"this builds the goal `{shorten(goal, 24)}` from the facts you have.",
    )


def unfolding_a_variable(ctx: Context, name: str, line: int) -> Advice | None:
    """`unfold f` (or `simp only [f]`, `rw [f]`) where `f` is a variable of the statement, not a
    `def`: there is no definition to unfold; what is known about `f` is a hypothesis (`hf`),
    and that is what to rewrite with."""
    source = ctx.text.line(line).split("--", 1)[0]
    written = re.search(
        rf"\b(?:unfold|delta)\b[^\n]*(?<![\w.']){re.escape(name)}(?![\w'])"
        rf"|\[[^\]]*(?<![\w.']){re.escape(name)}(?![\w'])[^\]]*\]",
        source,
    )
    variables = dict(statement_hypotheses(ctx.statement))
    if written is None or name not in variables or not _is_value(variables[name]):
        return None
    about = [
        n
        for n, t in statement_hypotheses(ctx.statement)
        if n != name and re.search(rf"(?<![\w.']){re.escape(name)}(?![\w'])", t)
    ]
    if not about:
        return Advice(
            line,
            f"Don't unfold `{name}` on line {line}: it is a variable of the statement, not a "
            "`def`, so it has no definition; nothing is known about it except what the "
            "hypotheses say.",
        )
    fact = about[0]
    return Advice(
        line,
        f"Do write `simp only [{fact}]` (or `rw [{fact}]`) on line {line} instead: `{name}` is a "
        f"variable of the statement, not a `def`, so there is nothing to unfold; what you know "
        f"about it is the hypothesis `{fact}`.",
    )


def _is_value(typ: str) -> bool:
    """A function or value variable (`ℕ → ℕ`, `ℝ`), not a proposition."""
    return "Prop" not in typ and not re.search(r"[=≤<≥>≠∧∨¬↔]", typ)
