"""What is in scope at a line, and the terms its facts build: a small `exact?` over the local
context, so the coach can name the proof a position needs instead of "look for a lemma".

A rule that knows the type a position needs (Lean printed it) asks `proofs_of(wanted, facts)`
for terms that certainly have that type: a hypothesis, a projection (`h.2.2`, `h.mpr`), an
application (`hpq hp`, `hf 5`), a constructor (`⟨hq, hp⟩`, `Or.inr hq`), `h.symm`,
`Nat.le_of_eq h`, or `absurd hp hnp` when the facts contradict. Types are compared as text
after normalising layout, binder annotations, `≥`/`>` and closed ℕ arithmetic (`2 * 5` is
`10` to Lean's kernel too), so a term is only offered when Lean would accept it by
definitional unfolding of numerals at most.

`facts_in_scope` adds to the statement's binders what the proof introduced before the line:
`intro` names peeled off the statement's conclusion, `obtain`/`rcases` patterns on ∧ and ∃
facts, and `have name : T`.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from tutor.coach.goals import Shape, Split, split_target, strip_parens
from tutor.coach.hypotheses import match_pattern
from tutor.coach.source import AttemptText, proof_conclusion, statement_hypotheses

Fact = tuple[str, str]  # (term, its type)

_NAME = r"[^\s⟨⟩,()\[\]:]+"
_NAT_LIMIT = 10**12


@dataclass(frozen=True)
class _Scope:
    facts: list[Fact]
    goal: str | None  # the goal at the line when the intros before it could be traced


def facts_in_scope(statement: str, text: AttemptText, line: int) -> list[Fact]:
    """The statement's hypotheses and what the proof introduced before `line`."""
    return _trace(statement, text, line).facts


def traced_goal(statement: str, text: AttemptText, line: int) -> str | None:
    """The goal at `line` when every step before it only introduced names, else None."""
    return _trace(statement, text, line).goal


@dataclass
class _Branches:
    """A `cases h with` / `rcases h with a | b` on a fact: each branch keeps the goal and adds
    the constructor's fields (the fact itself is cleared)."""

    goal: str | None
    facts: list[Fact]
    typ: str
    indent: int
    names: list[str]  # `rcases ... with a | b`: one name per branch, taken by `·` bullets
    taken: int = 0


_SPLIT_FACT = re.compile(r"^(?:cases|rcases)\s+([\w'₀-₉]+)\s+with\s*(.*)$")
_ALTERNATIVE = re.compile(r"^\|\s*(\w+)((?:\s+[\w'₀-₉]+)*)\s*=>\s*(.*)$")


def _trace(statement: str, text: AttemptText, line: int) -> _Scope:
    facts: list[Fact] = list(statement_hypotheses(statement))
    goal = proof_conclusion(statement)
    branches: _Branches | None = None
    start = _proof_start(text)
    for number in range(start, min(line, text.n_lines) + 1):
        raw = text.line(number).split("--", 1)[0]
        code = raw.strip()
        if not code:
            continue
        if branches is not None and text.indent(number) <= branches.indent:
            entered = _enter_branch(branches, code, text.indent(number))
            if entered is not None:
                goal, facts, code = branches.goal, entered, _rest_of_branch_line(code)
                if not code:
                    continue
            elif text.indent(number) < branches.indent or not code.startswith("|"):
                branches = None if not code.startswith("·") else branches
        if number == line:
            break  # the line itself: only the names its own branch binds
        code = code.lstrip("·").strip()
        split = _SPLIT_FACT.match(code)
        typ = dict(facts).get(split.group(1), "") if split else ""
        if split and typ and split_target(typ).shape in (Shape.OR, Shape.AND, Shape.EXISTS):
            names = [n.strip() for n in split.group(2).split("|")] if "|" in split.group(2) else []
            if split.group(2).strip() and not names:
                _destructure(f"rcases {split.group(1)} with {split.group(2).strip()}", facts)
                continue
            kept = [(n, t) for n, t in facts if n != split.group(1)]
            branches = _Branches(goal, kept, typ, text.indent(number), names)
            continue
        goal = _step(code, goal, facts)
    return _Scope(facts, goal)


def _enter_branch(branches: _Branches, code: str, indent: int) -> list[Fact] | None:
    """The facts of the branch `code` opens (`| inl hp =>`, or the next `·` after `rcases h
    with hp | hq`), else None."""
    split = split_target(branches.typ)
    sides = [split.left, split.right] if split.shape is Shape.OR else []
    alternative = _ALTERNATIVE.match(code)
    if alternative and indent == branches.indent and not branches.names:
        ctor, names = alternative.group(1), alternative.group(2).split()
        facts = list(branches.facts)
        if ctor in ("inl", "inr") and sides and names:
            facts.append((names[0], sides[0 if ctor == "inl" else 1]))
        elif ctor == "intro" and names:
            _split_pattern(names, branches.typ, facts)
        return facts
    if code.startswith("·") and branches.names and indent == branches.indent:
        index = branches.taken
        branches.taken += 1
        if index >= len(branches.names) or len(sides) != len(branches.names):
            return list(branches.facts)
        return [*branches.facts, (branches.names[index], sides[index])]
    return None


def _rest_of_branch_line(code: str) -> str:
    alternative = _ALTERNATIVE.match(code)
    if alternative:
        return alternative.group(3).strip()
    return code.lstrip("·").strip()


def _step(code: str, goal: str | None, facts: list[Fact]) -> str | None:
    """The goal after one tactic line: names introduced are traced, anything else is not."""
    intro = re.match(r"^(?:intro|intros|rintro)\s+(.+)$", code)
    if intro and goal is not None:
        for name in re.findall(r"⟨[^⟨⟩]*⟩|[^\s⟨⟩]+", intro.group(1)):
            if name.startswith("⟨"):  # `rintro ⟨hp, hq⟩`: peel, then take it apart
                goal = _peel(goal, "\x00", facts)
                if goal is not None:
                    premise = facts.pop()[1]
                    _split_pattern([n.strip() for n in name[1:-1].split(",")], premise, facts)
            else:
                goal = _peel(goal, name, facts)
            if goal is None:
                break
        return goal
    if _destructure(code, facts) or _have(code, facts):
        return goal
    contra = re.match(r"^by_contra\s+([\w'₀-₉]+)$", code)
    if contra and goal is not None:
        # Mathlib's `by_contra h`: `h : ¬goal` (`h : q` when the goal is `¬q`), goal `False`.
        split = split_target(goal)
        negated = split.right.strip() if split.shape is Shape.NOT else f"¬({goal})"
        if re.fullmatch(r"¬\(([\w'₀-₉.]+)\)", negated):
            negated = f"¬{negated[2:-1]}"
        facts.append((contra.group(1), negated))
        return "False"
    if code == "exfalso" and goal is not None:
        return "False"
    if code in ("left", "right") and goal is not None:
        # `left` / `right` on an ∨ keep the side they name.
        split = split_target(goal)
        if split.shape is Shape.OR:
            return (split.left if code == "left" else split.right).strip()
        return None
    special = re.match(r"^specialize\s+([\w'₀-₉]+)\s+(.+)$", code)
    if special:
        # `specialize h 2` replaces `h : ∀ n, P n` by `h : P 2` (Lean/Elab/Tactic/Specialize);
        # when the instance cannot be read here, the fact's type is left unknown.
        name, values = special.group(1), special.group(2).split()
        typ = dict(facts).get(name, "")
        instance = instantiate(typ, values)
        facts[:] = [(n, instance if n == name else t) for n, t in facts]
        return goal
    return None  # any other step changes the goal in ways not traced here


def instantiate(typ: str, values: list[str]) -> str:
    """`P 2` for `∀ n, P n` at `2` (binders in order, premises not taken); "" when unsure."""
    text = typ
    for value in values:
        binder = re.match(
            r"^∀\s*\(?\s*([\w'₀-₉]+)((?:\s+[\w'₀-₉]+)*)\s*(?::\s*([^,)]+))?\)?\s*,\s*(.+)$",
            normal(text),
        )
        if not binder:
            return ""
        var, more, kind, body = binder.groups()
        body = _rename(body, var, as_argument(value))
        rest = more.split()
        text = f"∀ {' '.join(rest)}{' : ' + kind.strip() if kind else ''}, {body}" if rest else body
    return text


def _proof_start(text: AttemptText) -> int:
    for number in range(1, text.n_lines + 1):
        if re.search(r":=\s*by\s*$", text.line(number)):
            return number + 1
    return 1


_SUBSET = re.compile(r"([^⊆]+?)\s*⊆\s*([^⊆]+)")


def _peel(goal: str, name: str, facts: list[Fact]) -> str | None:
    """The goal after `intro name`, recording the new fact; None when it cannot be traced."""
    split = split_target(goal)
    if split.shape is Shape.IMPLIES:
        facts.append((name, split.left))
        return split.right
    if split.shape is Shape.NOT:
        facts.append((name, split.right))
        return "False"
    subset = _SUBSET.fullmatch(" ".join(goal.split()))
    if subset and "(" not in goal:
        # `s ⊆ t` on sets is `∀ x, x ∈ s → x ∈ t` by definition, which `intro` unfolds.
        facts.append((name, ""))
        return f"{name} ∈ {subset.group(1)} → {name} ∈ {subset.group(2)}"
    if split.shape is Shape.FORALL:
        binder = re.match(
            r"^∀\s*\(?\s*([\w'₀-₉]+)((?:\s+[\w'₀-₉]+)*)\s*(?::\s*([^,)]+))?\)?\s*,\s*(.+)$", goal
        )
        if not binder:
            return None
        var, more, typ, body = binder.groups()
        facts.append((name, (typ or "").strip()))
        body = _rename(body, var, name)
        rest = more.split()
        if rest:
            return f"∀ {' '.join(rest)}{' : ' + typ.strip() if typ else ''}, {body}"
        return body
    return None


def _rename(text: str, old: str, new: str) -> str:
    return re.sub(rf"(?<![\w.']){re.escape(old)}(?![\w'])", new, text)


def _destructure(code: str, facts: list[Fact]) -> bool:
    match = re.match(r"^obtain\s+⟨(.+)⟩\s*:=\s*(\S+)$", code) or re.match(
        r"^rcases\s+(\S+)\s+with\s+⟨(.+)⟩$", code
    )
    if not match:
        return False
    names_text, source = (
        (match.group(1), match.group(2)) if code.startswith("obtain") else match.groups()[::-1]
    )
    names = [n.strip() for n in names_text.split(",")]
    typ = dict(facts).get(source)
    if typ is not None:
        # rcases clears the hypothesis it takes apart (Mathlib/Tactic/RCases.lean), and an
        # `rfl` part substitutes its equation away instead of naming it.
        facts[:] = [(n, t) for n, t in facts if n != source]
        _split_pattern(names, typ, facts)
        facts[:] = [(n, t) for n, t in facts if n != "rfl"]
    return True


def _split_pattern(names: list[str], typ: str, facts: list[Fact]) -> None:
    """Record what `⟨a, b, c⟩` names when it takes apart a fact of type `typ` (∧ and ∃)."""
    for name in names[:-1]:
        split = split_target(typ)
        if split.shape is Shape.AND:
            facts.append((name, split.left))
            typ = split.right
            continue
        exists = re.match(r"^∃\s*\(?\s*([\w'₀-₉]+)\s*(?::\s*[^,)]+)?\)?\s*,\s*(.+)$", typ)
        if not exists:
            return
        facts.append((name, ""))
        typ = _rename(exists.group(2), exists.group(1), name)
    facts.append((names[-1], typ))


def _have(code: str, facts: list[Fact]) -> bool:
    match = re.match(r"^have\s+([\w'₀-₉]+)\s*:\s*(.+?)\s*:=", code)
    if match:
        facts.append((match.group(1), match.group(2)))
        return True
    untyped = re.match(r"^have\s+([\w'₀-₉]+)\s*:=\s*(.+?)\s*$", code)
    if not untyped:
        return False
    typ = _type_of_term(untyped.group(2), facts)
    if typ:
        facts.append((untyped.group(1), typ))
    return True


def _type_of_term(term: str, facts: Sequence[Fact]) -> str | None:
    """What `have h2 := term` states when the term is read off the facts: a half of an ∧
    (`h.1`, `h.right`), a ∀ at values (`hf 3`), or a library lemma of the coach's table applied
    to facts (`abs_lt.mp h`); None when not known (nothing is guessed)."""
    from tutor.coach import lemmas  # the table reads goals only; imported here, not at load

    types = dict(facts)
    half = re.fullmatch(r"([\w'₀-₉]+)\.(1|2|left|right)", term)
    if half:
        split = split_target(types.get(half.group(1), ""))
        if split.shape is not Shape.AND:
            return None
        return split.left if half.group(2) in ("1", "left") else split.right
    words = term.split()
    if not words or any(not re.fullmatch(r"[\w'₀-₉.]+", w) for w in words):
        return None
    head, args = words[0], words[1:]
    if head in types:
        typ = instantiate(types[head], args)
        return typ or None
    for lemma in lemmas.LEMMAS:
        if lemma.name != head or len(args) != len(lemma.args) + len(lemma.premises):
            continue
        bound = dict(zip(lemma.args, args, strict=False))
        for premise, proof in zip(lemma.premises, args[len(lemma.args) :], strict=True):
            found = match_pattern(lemmas.substituted(premise, bound), types.get(proof, ""))
            if found is None:
                return None
            bound.update(found)
        conclusion = lemmas.substituted(lemma.conclusion, bound)
        return None if "?" in conclusion else conclusion
    return None


# ---------------------------------------------------------------------- normal forms


def normal(text: str) -> str:
    """A type's text in the form facts are compared in."""
    text = " ".join(text.split())
    text = re.sub(r"\s*:\s*(Prop|Type\S*|Sort\S*)\s*$", "", text)
    text = re.sub(r"\bNat\.succ\s+([\w'₀-₉]+)", r"\1 + 1", text)
    text = re.sub(r"([\w'₀-₉]+)\.succ\b", r"\1 + 1", text)
    # Binder annotations: `∀ (n : Nat), P` and `∀ n, P` print the same proposition.
    text = re.sub(r"([∀∃])\s*\(\s*([\w'₀-₉ ]+?)\s*:\s*[^()]+?\)\s*,", r"\1 \2,", text)
    text = re.sub(r"([∀∃])\s*([\w'₀-₉ ]+?)\s*:\s*[^,]+,", r"\1 \2,", text)
    text = strip_parens(text)
    text = membership(text)
    split = split_target(text)
    if split.shape in (Shape.LE, Shape.LT) and split.op in ("≥", ">"):
        op = "≤" if split.op == "≥" else "<"
        text = f"{split.right} {op} {split.left}"
        split = split_target(text)
    if split.shape in (Shape.EQ, Shape.NE, Shape.LE, Shape.LT) and split.op:
        left, right = _fold(split.left), _fold(split.right)
        text = f"{left} {split.op} {right}"
    return text.replace("( ", "(").replace(" )", ")")


_MEMBERSHIP = re.compile(r"^([^\s∈]+) ∈ ([^\s∩∪]+) ([∩∪]) ([^\s∩∪]+)$")


def membership(text: str) -> str:
    """`x ∈ A ∩ B` as `x ∈ A ∧ x ∈ B` (and `∪` as `∨`): Mathlib's `Set.mem_inter_iff` and
    `Set.mem_union` hold by `Iff.rfl`, so `hx.1` and `Or.inl hx` are accepted as they are."""
    match = _MEMBERSHIP.match(text.strip())
    if not match:
        return text
    element, left, op, right = match.groups()
    return f"{element} ∈ {left} {'∧' if op == '∩' else '∨'} {element} ∈ {right}"


def _fold(side: str) -> str:
    """A closed ℕ expression as its value (`2 * 5` -> `10`), else the side unchanged."""
    side = strip_parens(side)
    if not re.fullmatch(r"[\d\s+*^()%/-]+", side) or not re.search(r"\d", side):
        return side
    value = nat_value(side)
    return str(value) if value is not None else side


def nat_value(text: str, env: dict[str, int] | None = None) -> int | None:
    """The value Lean computes for an ℕ expression (truncated `-`, floor `/`), its variables
    taken from `env`; None when it is not such an expression or a variable is missing."""
    tree = _parsed(text)
    return None if tree is None else _evaluate(tree, env or {})


@lru_cache(maxsize=1024)
def _parsed(text: str) -> ast.expr | None:
    try:
        return ast.parse(text.replace("^", "**").replace("/", "//"), mode="eval").body
    except SyntaxError:
        return None


def _evaluate(node: ast.expr, env: dict[str, int]) -> int | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    if isinstance(node, ast.Name):
        return env.get(node.id)
    if not isinstance(node, ast.BinOp):
        return None
    a, b = _evaluate(node.left, env), _evaluate(node.right, env)
    if a is None or b is None or a > _NAT_LIMIT or b > _NAT_LIMIT:
        return None
    if isinstance(node.op, ast.Add):
        return a + b
    if isinstance(node.op, ast.Sub):
        return max(a - b, 0)
    if isinstance(node.op, ast.Mult):
        return a * b
    if isinstance(node.op, ast.FloorDiv):
        return a // b if b else 0
    if isinstance(node.op, ast.Mod):
        return a % b if b else a
    if isinstance(node.op, ast.Pow) and b <= 64:
        return int(a**b)
    return None


def same(a: str, b: str) -> bool:
    return bool(a) and bool(b) and normal(a) == normal(b)


# ---------------------------------------------------------------------- derivations


def as_argument(term: str) -> str:
    """The term as one argument of an application: parenthesised unless it is a name."""
    return term if re.fullmatch(r"[\w.'₀-₉]+", term) else f"({term})"


def expanded(facts: Iterable[Fact]) -> list[Fact]:
    """Each fact with its projections: `h.1`/`h.2` of ∧ (nested), `h.mp`/`h.mpr` of ↔ (as
    implications), `h.symm` of =."""
    out: list[Fact] = []
    todo = [(n, membership(t)) for n, t in facts if t and "✝" not in n]
    while todo:
        term, typ = todo.pop(0)
        out.append((term, typ))
        split = split_target(typ)
        if split.shape is Shape.AND and term.count(".") < 4:
            todo.append((f"{term}.1", split.left))
            todo.append((f"{term}.2", split.right))
        elif split.shape is Shape.IFF:
            out.append((f"{term}.mp", f"{split.left} → {split.right}"))
            out.append((f"{term}.mpr", f"{split.right} → {split.left}"))
        elif split.shape is Shape.EQ:
            out.append((f"{as_argument(term)}.symm", f"{split.right} = {split.left}"))
        elif split.shape is Shape.NE:
            out.append((f"Ne.symm {as_argument(term)}", f"{split.right} ≠ {split.left}"))
    return out


def proofs_of(wanted: str, facts: Sequence[Fact], depth: int = 2) -> list[str]:
    """Terms built from `facts` whose type is `wanted`, simplest first (may be empty)."""
    atoms = expanded(facts)
    found = _derive(normal(wanted), atoms, depth) or _by_contradiction(wanted, facts, depth)
    unique = list(dict.fromkeys(found))
    return sorted(unique, key=len)


def _by_contradiction(wanted: str, facts: Sequence[Fact], depth: int) -> list[str]:
    """`Classical.byContradiction fun hn => …` when assuming `hn : ¬wanted` lets the facts
    derive `False` and nothing proves `wanted` directly: `h : ¬¬p` for `p`, or the
    contrapositive `h : ¬q → ¬p` with `hp : p` for `q`. Only when the proof of `False` uses
    `hn` (else the facts contradict each other, which `_contradictions` says), and never for a
    goal `intro` opens (¬, →, ∀)."""
    shape = split_target(wanted).shape
    if shape in (Shape.NOT, Shape.IMPLIES, Shape.FORALL, Shape.FALSE, Shape.TRUE) or depth <= 0:
        return []
    if not any("¬" in typ for _, typ in facts):
        return []
    taken = {name for name, _ in facts}
    name = next(n for n in ("hn", "hnot", "h_not", "hcontra") if n not in taken)
    negation = f"¬{wanted}" if re.fullmatch(r"[\w'₀-₉.]+", wanted.strip()) else f"¬({wanted})"
    atoms = expanded([*facts, (name, negation)])
    uses = re.compile(rf"(?<![\w.']){re.escape(name)}(?![\w'])")
    return [
        f"Classical.byContradiction fun {name} => {proof}"
        for proof in _derive("False", atoms, depth)
        if uses.search(proof)
    ][:1]


def _derive(wanted: str, atoms: list[Fact], depth: int) -> list[str]:
    out = [term for term, typ in atoms if normal(typ) == wanted]
    if out or depth <= 0:
        return out
    out += _applications(wanted, atoms, depth)
    out += _instances(wanted, atoms)
    out += _constructors(wanted, atoms, depth)
    out += _relations(wanted, atoms)
    out += _case_splits(wanted, atoms, depth)
    if not out:
        out += _contradictions(atoms)
    return out


def _applications(wanted: str, atoms: list[Fact], depth: int) -> list[str]:
    """`f a` for `f : A → wanted` (and `hn a` for `hn : ¬A` when `wanted` is False)."""
    out = []
    for term, typ in atoms:
        split = split_target(typ)
        if split.shape is Shape.IMPLIES and normal(split.right) == wanted:
            premise = split.left
        elif split.shape is Shape.NOT and wanted == "False":
            premise = split.right
        else:
            continue
        for argument in _derive(normal(premise), atoms, depth - 1)[:1]:
            out.append(f"{as_argument(term)} {as_argument(argument)}")
    if wanted == "False":
        out += _negated_conclusions(atoms, depth)
    out += _subset_applications(wanted, atoms, depth)
    return out


def _subset_applications(wanted: str, atoms: list[Fact], depth: int) -> list[str]:
    """`h hx` for `h : s ⊆ t` and `hx : x ∈ s` when `x ∈ t` is wanted: a subset relation is
    a function from membership in one set to membership in the other."""
    member = re.fullmatch(r"(.+?) ∈ (.+)", wanted)
    if member is None:
        return []
    out = []
    for term, typ in atoms:
        subset = re.fullmatch(r"(.+?) ⊆ (.+)", normal(typ))
        if subset is None or normal(subset.group(2)) != normal(member.group(2)):
            continue
        premise = normal(f"{member.group(1)} ∈ {subset.group(1)}")
        for argument in _derive(premise, atoms, depth - 1)[:1]:
            out.append(f"{as_argument(term)} {as_argument(argument)}")
    return out


def _negated_conclusions(atoms: list[Fact], depth: int) -> list[str]:
    """`h ha hb` for `h : A → ¬B` with proofs of `A` and `B`: a contrapositive used on the
    facts (`h : ¬q → ¬p` with `hn : ¬q` and `hp : p`)."""
    out = []
    for term, typ in atoms:
        split = split_target(typ)
        if split.shape is not Shape.IMPLIES:
            continue
        conclusion = split_target(split.right)
        if conclusion.shape is not Shape.NOT:
            continue
        first = _derive(normal(split.left), atoms, depth - 1)[:1]
        second = _derive(normal(conclusion.right), atoms, depth - 1)[:1]
        if first and second:
            out.append(f"{as_argument(term)} {as_argument(first[0])} {as_argument(second[0])}")
    return out


def _instances(wanted: str, atoms: list[Fact]) -> list[str]:
    """`h v` for `h : ∀ x, P x` where `P v` is `wanted` (up to closed arithmetic)."""
    out = []
    values = _candidate_values(wanted)
    for term, typ in atoms:
        binder = re.match(r"^∀\s*([\w'₀-₉ ]+?)\s*,\s*(.+)$", normal(typ))
        if not binder:
            continue
        names, body = binder.group(1).split(), binder.group(2)
        if len(names) > 2 or split_target(body).shape is Shape.IMPLIES:
            continue
        for chosen in _assignments(len(names), values):
            instance = body
            for name, value in zip(names, chosen, strict=True):
                instance = _rename(instance, name, as_argument(value))
            if normal(instance) == wanted:
                out.append(f"{as_argument(term)} {' '.join(as_argument(v) for v in chosen)}")
                break
    return out


def _candidate_values(wanted: str) -> list[str]:
    tokens = re.findall(r"(?<![\w.'])(\d+|[a-zA-Z_][\w'₀-₉]*)(?![\w'])", wanted)
    keywords = {"fun", "by", "at", "with"}
    return list(dict.fromkeys(t for t in tokens if t not in keywords))[:8]


def _assignments(n: int, values: list[str]) -> list[tuple[str, ...]]:
    if n == 1:
        return [(v,) for v in values]
    return [(a, b) for a in values for b in values]


def _constructors(wanted: str, atoms: list[Fact], depth: int) -> list[str]:
    split = split_target(wanted)
    if split.shape is Shape.AND:
        left = _derive(normal(split.left), atoms, depth - 1)
        right = _derive(normal(split.right), atoms, depth - 1)
        if left and right:
            return [f"⟨{left[0]}, {right[0]}⟩"]
    if split.shape is Shape.IFF:
        forward = _derive(normal(f"{split.left} → {split.right}"), atoms, depth - 1)
        backward = _derive(normal(f"{split.right} → {split.left}"), atoms, depth - 1)
        if forward and backward:
            return [f"⟨{forward[0]}, {backward[0]}⟩"]
    if split.shape is Shape.OR:
        left = _derive(normal(split.left), atoms, depth - 1)
        if left:
            return [f"Or.inl {as_argument(left[0])}"]
        right = _derive(normal(split.right), atoms, depth - 1)
        if right:
            return [f"Or.inr {as_argument(right[0])}"]
    if split.shape is Shape.EXISTS:
        return _witnesses(wanted, atoms, depth)
    if split.shape is Shape.NOT:
        inner = split_target(split.right)
        if inner.shape is Shape.NOT:  # ¬¬A from a proof of A
            proof = _derive(normal(inner.right), atoms, depth - 1)
            if proof:
                name = negation_name(inner.right)
                return [f"fun {name} => {name} {as_argument(proof[0])}"]
        # ¬A is A → False: assume A under a fresh name and derive False with it.
        name = _fresh("h", atoms)
        proof = _derive("False", expanded([(name, split.right)]) + atoms, depth - 1)
        if proof and not proof[0].startswith("absurd rfl"):
            return [f"fun {name} => {proof[0]}"]
    return []


def _fresh(base: str, atoms: list[Fact]) -> str:
    taken = {term for term, _ in atoms}
    name, i = base, 1
    while name in taken:
        name, i = f"{base}{i}", i + 1
    return name


def _case_splits(wanted: str, atoms: list[Fact], depth: int) -> list[str]:
    """`h.elim f g` for `h : A ∨ B` when `f : A → wanted` and `g : B → wanted` are derivable."""
    out = []
    for term, typ in atoms:
        split = split_target(typ)
        if split.shape is not Shape.OR:
            continue
        left = _derive(normal(f"{split.left} → {wanted}"), atoms, depth - 1)
        right = _derive(normal(f"{split.right} → {wanted}"), atoms, depth - 1)
        if left and right:
            out.append(f"{as_argument(term)}.elim {as_argument(left[0])} {as_argument(right[0])}")
    return out


def _witnesses(wanted: str, atoms: list[Fact], depth: int) -> list[str]:
    """`⟨w, proof⟩` for `∃ x, P x`: a witness whose property the facts prove, or the least ℕ
    value (up to 1000) that makes a closed arithmetic property true (proved by `rfl`/`decide`)."""
    pair = re.match(r"^∃\s*([\w'₀-₉]+)\s+([\w'₀-₉]+)\s*,\s*(.+)$", wanted)
    if pair:
        return _closed_pair(*pair.groups())
    binder = re.match(r"^∃\s*([\w'₀-₉]+)\s*,\s*(.+)$", wanted)
    if not binder:
        return []
    var, body = binder.groups()
    names = [t for t, typ in atoms if re.fullmatch(r"(Nat|ℕ|Int|ℤ)", typ.strip())]
    for witness in [*names, "0"]:
        proof = _derive(normal(_rename(body, var, witness)), atoms, depth - 1)
        if proof:
            return [f"⟨{witness}, {proof[0]}⟩"]
    instance = split_target(body)
    if instance.shape not in (Shape.EQ, Shape.NE, Shape.LE, Shape.LT):
        return []
    for value in range(1001):
        left = nat_value(instance.left, {var: value})
        right = nat_value(instance.right, {var: value})
        if left is None or right is None:
            return []
        holds = {"=": left == right, "≠": left != right, "≤": left <= right, "<": left < right}
        if holds.get(instance.op, False):
            return [f"⟨{value}, {'rfl' if instance.op == '=' else 'by decide'}⟩"]
    return []


def _closed_pair(first: str, second: str, body: str) -> list[str]:
    """`⟨1, 2, rfl, rfl⟩` for `∃ a b, P a b` with P a conjunction of closed ℕ comparisons once
    both values are in (values up to 30 each)."""
    parts = []
    rest = body
    while True:
        split = split_target(rest)
        if split.shape is Shape.AND:
            parts.append(split.left)
            rest = split.right
            continue
        parts.append(rest)
        break
    comparisons = [split_target(p) for p in parts]
    if any(c.shape not in (Shape.EQ, Shape.NE, Shape.LE, Shape.LT) for c in comparisons):
        return []
    for a in range(31):
        for b in range(31):
            if all(_holds(c, {first: a, second: b}) for c in comparisons):
                proofs = ", ".join("rfl" if c.op == "=" else "by decide" for c in comparisons)
                return [f"⟨{a}, {b}, {proofs}⟩"]
    return []


def _holds(comparison: Split, values: dict[str, int]) -> bool:
    left, right = nat_value(comparison.left, values), nat_value(comparison.right, values)
    if left is None or right is None:
        return False
    truth = {"=": left == right, "≠": left != right, "≤": left <= right, "<": left < right}
    return truth.get(comparison.op, False)


def negation_name(prop: str) -> str:
    """`hnp` for a premise `¬p`: the name Lean users give it."""
    prop = strip_parens(prop)
    return f"hn{prop}" if re.fullmatch(r"[a-z]\w{0,2}", prop) else "hn"


def number_type(text: str, atoms: Sequence[Fact]) -> str | None:
    """ "Nat" or "Int" when every variable of `text` is declared ℕ (or ℤ) in the facts; the
    lemmas named here exist only for those (ℝ needs Mathlib's general ones)."""
    types = {term: " ".join(typ.split()) for term, typ in atoms}
    kinds = set()
    for name in re.findall(r"(?<![\w.'])([A-Za-z_][\w'₀-₉]*)(?![\w'])", text):
        typ = types.get(name)
        if typ is not None:
            kinds.add({"Nat": "Nat", "ℕ": "Nat", "Int": "Int", "ℤ": "Int"}.get(typ, "other"))
    return kinds.pop() if len(kinds) == 1 and "other" not in kinds else None


def _relations(wanted: str, atoms: list[Fact]) -> list[str]:
    split = split_target(wanted)
    prefix = number_type(wanted, atoms)
    if split.shape is not Shape.LE or prefix is None:
        return []
    out = []
    for term, typ in atoms:
        fact = split_target(normal(typ))
        sides = (normal(fact.left), normal(fact.right)) if fact.op else ("", "")
        if sides != (normal(split.left), normal(split.right)):
            continue
        if fact.shape is Shape.EQ:
            out.append(f"{prefix}.le_of_eq {as_argument(term)}")
        elif fact.shape is Shape.LT:
            out.append(f"{prefix}.le_of_lt {as_argument(term)}")
    return out


def _contradictions(atoms: list[Fact]) -> list[str]:
    """Terms of any type: the facts contradict each other."""
    for term, typ in atoms:
        split = split_target(typ)
        prefix = number_type(typ, atoms)
        if split.shape is Shape.FALSE:
            return [f"{as_argument(term)}.elim"]
        if split.shape is Shape.NE and normal(split.left) == normal(split.right):
            return [f"absurd rfl {as_argument(term)}"]
        if (
            split.shape is Shape.LT
            and split.op == "<"
            and prefix is not None
            and normal(split.left) == normal(split.right)
        ):
            return [
                f"absurd {as_argument(term)} ({prefix}.lt_irrefl {as_argument(split.left.strip())})"
            ]
        if split.shape is Shape.EQ and prefix == "Nat":
            succ = re.fullmatch(r"(.+?)\s*\+\s*1", normal(split.left))
            if succ and normal(split.right) == "0":
                return [
                    f"absurd {as_argument(term)} (Nat.succ_ne_zero {as_argument(succ.group(1))})"
                ]
        if split.shape is Shape.NOT:
            for other, other_type in atoms:
                if normal(other_type) == normal(split.right):
                    return [f"absurd {as_argument(other)} {as_argument(term)}"]
    return []


def contradiction(facts: Sequence[Fact]) -> str | None:
    """A term proving anything from contradictory facts (`absurd rfl h` for `h : 0 ≠ 0`)."""
    found = _contradictions(expanded(facts))
    return found[0] if found else None
