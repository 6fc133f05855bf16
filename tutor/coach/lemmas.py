"""Library lemmas by statement: a short table of lemmas beginners need, each with its
explicit arguments, its premises and its conclusion as patterns (`?a` any term). It answers
"which lemma states exactly this goal?" (`x ≤ |x|` is `le_abs_self x`) and "which relative of
the lemma the student wrote fits?" (`min_eq_left h` where `min_eq_right h` did not), always
by matching the statement, never by a name's spelling. Statements as in Mathlib and core Lean
(Mathlib's `Order/Lattice`, `Algebra/Order/AbsoluteValue`, `Algebra/GroupPower/Order`,
`Algebra/Group/Basic`, `Data/Nat/Prime/Defs`; core `Init/Data/Nat/Basic`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from tutor.coach.goals import Shape, split_target
from tutor.coach.hypotheses import match_pattern


@dataclass(frozen=True)
class Lemma:
    name: str
    args: tuple[str, ...]  # explicit value arguments, in order: metavariables of the patterns
    premises: tuple[str, ...]  # explicit hypotheses, in order, as patterns
    conclusion: str
    mathlib: bool = True


LEMMAS = (
    Lemma("le_abs_self", ("?a",), (), "?a ≤ |?a|"),
    Lemma("neg_abs_le", ("?a",), (), "-|?a| ≤ ?a"),
    Lemma("abs_nonneg", ("?a",), (), "0 ≤ |?a|"),
    Lemma("sq_nonneg", ("?a",), (), "0 ≤ ?a ^ 2"),
    Lemma("mul_self_nonneg", ("?a",), (), "0 ≤ ?a * ?a"),
    Lemma("abs_sub_comm", ("?a", "?b"), (), "|?a - ?b| = |?b - ?a|"),
    Lemma("abs_of_nonneg", (), ("0 ≤ ?a",), "|?a| = ?a"),
    Lemma("abs_of_nonpos", (), ("?a ≤ 0",), "|?a| = -?a"),
    Lemma("min_eq_left", (), ("?a ≤ ?b",), "min ?a ?b = ?a"),
    Lemma("min_eq_right", (), ("?b ≤ ?a",), "min ?a ?b = ?b"),
    Lemma("max_eq_left", (), ("?b ≤ ?a",), "max ?a ?b = ?a"),
    Lemma("max_eq_right", (), ("?a ≤ ?b",), "max ?a ?b = ?b"),
    Lemma("le_max_left", ("?a", "?b"), (), "?a ≤ max ?a ?b"),
    Lemma("le_max_right", ("?a", "?b"), (), "?b ≤ max ?a ?b"),
    Lemma("min_le_left", ("?a", "?b"), (), "min ?a ?b ≤ ?a"),
    Lemma("min_le_right", ("?a", "?b"), (), "min ?a ?b ≤ ?b"),
    Lemma("dvd_mul_right", ("?a", "?b"), (), "?a ∣ ?a * ?b"),
    Lemma("dvd_mul_left", ("?a", "?b"), (), "?a ∣ ?b * ?a"),
    Lemma("two_mul", ("?a",), (), "2 * ?a = ?a + ?a"),
    Lemma("mul_two", ("?a",), (), "?a * 2 = ?a + ?a"),
    Lemma("Nat.Prime.two_le", (), ("Nat.Prime ?p",), "2 ≤ ?p"),
    Lemma("Nat.le_mul_self", ("?n",), (), "?n ≤ ?n * ?n"),
    Lemma("mul_pos", (), ("0 < ?a", "0 < ?b"), "0 < ?a * ?b"),
    Lemma("mul_nonneg", (), ("0 ≤ ?a", "0 ≤ ?b"), "0 ≤ ?a * ?b"),
    Lemma("Real.sq_sqrt", (), ("0 ≤ ?a",), "√?a ^ 2 = ?a"),
    Lemma("Real.sqrt_nonneg", ("?a",), (), "0 ≤ √?a"),
    Lemma("Real.exp_pos", ("?a",), (), "0 < Real.exp ?a"),
    Lemma("Real.sqrt_sq", (), ("0 ≤ ?a",), "√(?a ^ 2) = ?a"),
    Lemma("Real.exp_nonneg", ("?a",), (), "0 ≤ Real.exp ?a"),
    Lemma("Real.add_one_le_exp", ("?a",), (), "?a + 1 ≤ Real.exp ?a"),
    Lemma("Real.sqrt_pos.mpr", (), ("0 < ?a",), "0 < √?a"),
    # Order/Basic, Algebra/Order/Group/Defs, Algebra/Order/Ring/Lemmas
    Lemma("le_of_lt", (), ("?a < ?b",), "?a ≤ ?b"),
    Lemma("le_of_eq", (), ("?a = ?b",), "?a ≤ ?b"),
    Lemma("ne_of_lt", (), ("?a < ?b",), "?a ≠ ?b"),
    Lemma("ne_of_gt", (), ("?b < ?a",), "?a ≠ ?b"),
    Lemma("le_antisymm", (), ("?a ≤ ?b", "?b ≤ ?a"), "?a = ?b"),
    Lemma("add_pos", (), ("0 < ?a", "0 < ?b"), "0 < ?a + ?b"),
    Lemma("add_nonneg", (), ("0 ≤ ?a", "0 ≤ ?b"), "0 ≤ ?a + ?b"),
    Lemma("add_pos_of_pos_of_nonneg", (), ("0 < ?a", "0 ≤ ?b"), "0 < ?a + ?b"),
    Lemma("add_pos_of_nonneg_of_pos", (), ("0 ≤ ?a", "0 < ?b"), "0 < ?a + ?b"),
    Lemma("add_le_add", (), ("?a ≤ ?b", "?c ≤ ?d"), "?a + ?c ≤ ?b + ?d"),
    Lemma("add_lt_add", (), ("?a < ?b", "?c < ?d"), "?a + ?c < ?b + ?d"),
    Lemma("sub_nonneg.mpr", (), ("?b ≤ ?a",), "0 ≤ ?a - ?b"),
    Lemma("sub_pos.mpr", (), ("?b < ?a",), "0 < ?a - ?b"),
    Lemma("mul_le_mul_of_nonneg_left", (), ("?b ≤ ?c", "0 ≤ ?a"), "?a * ?b ≤ ?a * ?c"),
    Lemma("mul_le_mul_of_nonneg_right", (), ("?b ≤ ?c", "0 ≤ ?a"), "?b * ?a ≤ ?c * ?a"),
    Lemma("abs_pos.mpr", (), ("?a ≠ 0",), "0 < |?a|"),
    Lemma("abs_mul", ("?a", "?b"), (), "|?a * ?b| = |?a| * |?b|"),
    Lemma("abs_neg", ("?a",), (), "|-?a| = |?a|"),
    Lemma("sq_abs", ("?a",), (), "|?a| ^ 2 = ?a ^ 2"),
    Lemma("abs_sub_abs_le_abs_sub", ("?a", "?b"), (), "|?a| - |?b| ≤ |?a - ?b|"),
    Lemma("add_comm", ("?a", "?b"), (), "?a + ?b = ?b + ?a"),
    Lemma("mul_comm", ("?a", "?b"), (), "?a * ?b = ?b * ?a"),
    # core Init/Data/Nat/Basic, Init/Prelude
    Lemma("Nat.lt_succ_self", ("?n",), (), "?n < ?n + 1", mathlib=False),
    Lemma("Nat.le_succ", ("?n",), (), "?n ≤ ?n + 1", mathlib=False),
    Lemma("Nat.zero_le", ("?n",), (), "0 ≤ ?n", mathlib=False),
    Lemma("Nat.succ_pos", ("?n",), (), "0 < ?n + 1", mathlib=False),
    Lemma("Nat.succ_ne_zero", ("?n",), (), "?n + 1 ≠ 0", mathlib=False),
    Lemma("Nat.pos_of_ne_zero", (), ("?n ≠ 0",), "0 < ?n", mathlib=False),
    Lemma("Nat.le_of_lt_succ", (), ("?m < ?n + 1",), "?m ≤ ?n", mathlib=False),
    Lemma("Nat.add_comm", ("?n", "?m"), (), "?n + ?m = ?m + ?n", mathlib=False),
    Lemma("Nat.mul_comm", ("?n", "?m"), (), "?n * ?m = ?m * ?n", mathlib=False),
    Lemma("Nat.mul_pos", (), ("0 < ?a", "0 < ?b"), "0 < ?a * ?b", mathlib=False),
    Lemma("Nat.two_mul", ("?n",), (), "2 * ?n = ?n + ?n", mathlib=False),
    Lemma("Nat.le_of_dvd", (), ("0 < ?n", "?m ∣ ?n"), "?m ≤ ?n", mathlib=False),
    Lemma("Set.inter_comm", ("?a", "?b"), (), "?a ∩ ?b = ?b ∩ ?a"),
    # Mathlib/Algebra/Order/AbsoluteValue: `abs_lt : |a| < b ↔ -b < a ∧ a < b`, `abs_le`
    Lemma("abs_lt.mp", (), ("|?a| < ?b",), "-?b < ?a ∧ ?a < ?b"),
    Lemma("abs_le.mp", (), ("|?a| ≤ ?b",), "-?b ≤ ?a ∧ ?a ≤ ?b"),
    Lemma("Set.union_comm", ("?a", "?b"), (), "?a ∪ ?b = ?b ∪ ?a"),
    # Mathlib/Algebra/Group/Nat/Even.lean: `Nat.odd_iff : Odd n ↔ n % 2 = 1`, `Nat.even_iff`
    Lemma("Nat.odd_iff.mp", (), ("Odd ?n",), "?n % 2 = 1"),
    Lemma("Nat.odd_iff.mpr", (), ("?n % 2 = 1",), "Odd ?n"),
    Lemma("Nat.even_iff.mp", (), ("Even ?n",), "?n % 2 = 0"),
    Lemma("Nat.even_iff.mpr", (), ("?n % 2 = 0",), "Even ?n"),
    # Mathlib/Algebra/Group/Even.lean `even_two_mul (a : α) : Even (2 * a)`;
    # Mathlib/Algebra/Ring/Parity.lean `odd_two_mul_add_one (a : α) : Odd (2 * a + 1)`
    Lemma("even_two_mul", ("?a",), (), "Even (2 * ?a)"),
    Lemma("odd_two_mul_add_one", ("?a",), (), "Odd (2 * ?a + 1)"),
    Lemma("Finset.card_range", ("?n",), (), "(Finset.range ?n).card = ?n"),
    Lemma("Nat.le_add_right", ("?n", "?k"), (), "?n ≤ ?n + ?k", mathlib=False),
    Lemma("Nat.le_add_left", ("?n", "?m"), (), "?n ≤ ?m + ?n", mathlib=False),
    Lemma("Nat.dvd_mul_right", ("?a", "?b"), (), "?a ∣ ?a * ?b", mathlib=False),
    Lemma("Nat.dvd_mul_left", ("?a", "?b"), (), "?a ∣ ?b * ?a", mathlib=False),
)

_NAT_TWINS = {
    "Nat.two_mul": "two_mul",
    "Nat.add_comm": "add_comm",
    "Nat.mul_comm": "mul_comm",
    "Nat.dvd_mul_right": "dvd_mul_right",
    "Nat.dvd_mul_left": "dvd_mul_left",
    "Nat.mul_pos": "mul_pos",
}


def available(mathlib: bool) -> list[Lemma]:
    """The lemmas a course can name: core's always, Mathlib's only with Mathlib; a core
    lemma Mathlib generalises is left to its general name there."""
    if mathlib:
        return [lemma for lemma in LEMMAS if lemma.name not in _NAT_TWINS]
    return [lemma for lemma in LEMMAS if not lemma.mathlib]


def concludes(name: str, target: str) -> bool:
    """Whether the lemma `name` can conclude `target`: True when its statement is not in the
    table (nothing known against it), else whether its conclusion matches."""
    statement = next((lemma for lemma in LEMMAS if lemma.name == name), None)
    return statement is None or match_pattern(statement.conclusion, oriented(target)) is not None


def forward(name: str, fact: str) -> str | None:
    """The statement `name fact` proves: the lemma's conclusion at the values its one premise
    takes from `fact` (`abs_lt.mp h` with `h : |x| < 2` proves `-2 < x ∧ x < 2`)."""
    lemma = next((x for x in LEMMAS if x.name == name), None)
    if lemma is None or len(lemma.premises) != 1 or lemma.args:
        return None
    bound = match_pattern(lemma.premises[0], oriented(fact))
    if bound is None:
        return None
    result = _substitute(lemma.conclusion, bound)
    return None if "?" in result else result


def _argument(term: str) -> str:
    term = term.strip()
    return term if re.fullmatch(r"[\w'₀-₉.]+|\(.*\)|-?\d+", term) else f"({term})"


def _same(a: str, b: str) -> bool:
    return oriented(a) == oriented(b)


def oriented(prop: str) -> str:
    """`a > b` as `b < a`, `a ≥ b` as `b ≤ a` (the same proposition in Lean: `>` is notation
    for the flipped `<`), so statements are matched whichever way they are written."""
    text = " ".join(prop.split())
    split = split_target(text)
    if split.shape in (Shape.LT, Shape.LE) and split.op in (">", "≥"):
        return f"{split.right.strip()} {'<' if split.op == '>' else '≤'} {split.left.strip()}"
    return text


def instances(
    target: str, facts: Sequence[tuple[str, str]], mathlib: bool, family: str | None = None
) -> list[str]:
    """Terms `lemma args hyps` that prove `target` exactly: the conclusion matches, every
    explicit argument is bound by the match, every premise is a fact in scope. `family`
    keeps only lemmas whose name shares the stem (`min_eq`, `dvd_mul`) of the one written.
    A `Nat.` lemma is kept only when no name it binds is declared of another type."""
    out = []
    types = {n: " ".join(t.split()) for n, t in facts}
    for lemma in available(mathlib):
        if family is not None and _stem(lemma.name) != _stem(family):
            continue
        bound = match_pattern(lemma.conclusion, oriented(target))
        if bound is None or any(a not in bound for a in lemma.args):
            continue
        if lemma.name.startswith("Nat.") and any(
            types.get(v, "ℕ") not in ("ℕ", "Nat") for v in bound.values() if v in types
        ):
            continue
        if lemma.name.startswith("Set.") and any(
            not types.get(v, "Set").startswith("Set") for v in bound.values() if v in types
        ):
            continue
        proofs = []
        for premise in lemma.premises:
            wanted = _substitute(premise, bound)
            name = next((n for n, t in facts if "✝" not in n and t and _same(t, wanted)), None)
            if name is None or "?" in wanted:
                break
            proofs.append(name)
        else:
            parts = [lemma.name, *(_argument(bound[a]) for a in lemma.args), *proofs]
            out.append(" ".join(parts))
    return out


def rewrites_for(
    target: str, facts: Sequence[tuple[str, str]], mathlib: bool, family: str
) -> list[str]:
    """`min_eq_left h` for a `rw` whose lemma (`min_eq_right h`) found nothing: the relatives
    whose premises the same facts prove and whose left side is in the goal."""
    out = []
    for lemma in available(mathlib):
        if _stem(lemma.name) != _stem(family) or lemma.args or not lemma.premises:
            continue
        for name, typ in facts:
            if "✝" in name or not typ:
                continue
            bound = match_pattern(lemma.premises[0], oriented(typ))
            if bound is None or len(lemma.premises) != 1:
                continue
            left = _substitute(lemma.conclusion.split(" = ")[0], bound)
            if "?" not in left and re.search(
                rf"(?<![\w.']){re.escape(left)}(?![\w'])", " ".join(target.split())
            ):
                out.append(f"{lemma.name} {name}")
    return out


def _stem(name: str) -> str:
    """`min_eq_left` → `min_eq`, `le_max_right` → `le_max`: the family, without the side."""
    return re.sub(r"_(left|right)$", "", name.split(".")[-1])


def substituted(pattern: str, bound: dict[str, str]) -> str:
    """The pattern with its bound metavariables filled in (`?a` left as it is where unbound)."""
    return re.sub(
        r"\?[\w'₀-₉]+",
        lambda m: _argument(bound[m.group(0)]) if m.group(0) in bound else m.group(0),
        pattern,
    )


def _substitute(pattern: str, bound: dict[str, str]) -> str:
    return re.sub(r"\?[\w'₀-₉]+", lambda m: _argument(bound.get(m.group(0), m.group(0))), pattern)
