"""Guess the name a student meant when Lean says an identifier is unknown.

Candidates: names already in the attempt and the statement (hypotheses, variables, lemmas
used elsewhere), and a short list of real core Lean 4 and Mathlib lemma names students
reach for. Distance: Damerau-Levenshtein on lower-cased names, so Lean 3 spellings
(`nat.succ_le_iff`) and swapped letters find their Lean 4 name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

# Names that exist in Lean 4 core (Init / Std) under these exact spellings.
CORE_LEMMAS = [
    "Nat.add_comm",
    "Nat.add_assoc",
    "Nat.add_zero",
    "Nat.zero_add",
    "Nat.add_succ",
    "Nat.succ_add",
    "Nat.add_one",
    "Nat.mul_comm",
    "Nat.mul_assoc",
    "Nat.mul_one",
    "Nat.one_mul",
    "Nat.mul_zero",
    "Nat.zero_mul",
    "Nat.left_distrib",
    "Nat.right_distrib",
    "Nat.mul_add",
    "Nat.add_mul",
    "Nat.mul_succ",
    "Nat.succ_mul",
    "Nat.le_refl",
    "Nat.le_trans",
    "Nat.lt_trans",
    "Nat.le_of_lt",
    "Nat.lt_of_lt_of_le",
    "Nat.lt_of_le_of_lt",
    "Nat.le_succ",
    "Nat.lt_succ_self",
    "Nat.succ_pos",
    "Nat.succ_le_succ",
    "Nat.succ_ne_zero",
    "Nat.zero_lt_succ",
    "Nat.pos_of_ne_zero",
    "Nat.le_antisymm",
    "Nat.sub_add_cancel",
    "Nat.add_sub_cancel",
    "Nat.pow_succ",
    "Nat.pow_zero",
    "Nat.le_add_right",
    "Nat.le_add_left",
    "Nat.add_le_add",
    "Nat.mul_le_mul",
    "Nat.succ_le_of_lt",
    "Nat.lt_irrefl",
    "Nat.le_total",
    "Nat.lt_or_ge",
    "Nat.succ_le_iff",
    "Nat.lt_succ_iff",
    "Nat.mod_two_eq_zero_or_one",
    "Nat.two_mul",
    "Nat.le_of_dvd",
    "Nat.mul_two",
    "Nat.add_left_cancel",
    "Nat.add_right_cancel",
    "Nat.sub_self",
    "Nat.sub_zero",
    "Nat.zero_le",
    "Nat.not_succ_le_self",
    "Nat.not_lt",
    "Nat.not_le",
    "Nat.mul_le_mul_left",
    "Nat.le_max_left",
    "Nat.le_max_right",
    "Nat.min_le_left",
    "Nat.min_le_right",
    "Nat.ne_of_lt",
    "Nat.ne_of_gt",
    "Nat.le_of_eq",
    "Nat.lt_of_le_of_ne",
    "Nat.lt_succ_of_le",
    "Nat.le_of_lt_succ",
    "Nat.mul_pos",
    "Nat.dvd_mul_right",
    "Nat.dvd_mul_left",
    "Int.le_of_lt",
    "Int.le_of_eq",
    "Int.lt_of_le_of_lt",
    "Int.lt_of_lt_of_le",
    "Int.le_trans",
    "Int.lt_trans",
    "List.length_append",
    "List.length_reverse",
    "List.reverse_reverse",
    "List.reverse_append",
    "List.append_nil",
    "List.nil_append",
    "List.append_assoc",
    "List.map_map",
    "List.length_map",
    "List.map_append",
    "List.length_cons",
    "List.length_nil",
    "List.mem_cons",
    "List.reverse_cons",
    "List.map_id",
    "And.intro",
    "And.left",
    "And.right",
    "Or.inl",
    "Or.inr",
    "Or.elim",
    "Iff.intro",
    "Iff.mp",
    "Iff.mpr",
    "absurd",
    "False.elim",
    "Eq.symm",
    "Eq.trans",
    "Eq.subst",
    "congrArg",
    "funext",
    "Classical.byContradiction",
    "Classical.em",
    "Exists.intro",
    "id",
]

# Mathlib functions that live in a namespace, so the bare name is unknown unless the namespace
# is open (`namespace Real ... noncomputable def sqrt`, with its prefix notation `√`; likewise
# `Real.exp`, `Real.log`, `Real.pi`, `Real.sin`, `Real.cos`, `Nat.factorial`, `Nat.choose`).
NAMESPACED_FUNCTIONS = {
    "sqrt": "Real",
    "exp": "Real",
    "log": "Real",
    "pi": "Real",
    "sin": "Real",
    "cos": "Real",
    "factorial": "Nat",
    "choose": "Nat",
}

# Mathlib lemma names that exist under these spellings (for attempts that import Mathlib).
MATHLIB_LEMMAS = [
    # multiplying an inequality by a nonnegative (positive) factor on the left or the right
    # (Mathlib/Algebra/Order/GroupWithZero/Unbundled/Defs.lean)
    "mul_le_mul_of_nonneg_left",
    "mul_le_mul_of_nonneg_right",
    "mul_lt_mul_of_pos_left",
    "mul_lt_mul_of_pos_right",
    # max / min (Mathlib/Order/Lattice.lean, Order/MinMax.lean) and division by a nonzero
    "max_le",
    "max_lt",
    "le_min",
    "lt_min",
    "le_max_left",
    "le_max_right",
    "min_le_left",
    "min_le_right",
    "div_self",
    "sq_nonneg",
    "mul_pos",
    "mul_nonneg",
    "add_pos",
    "add_nonneg",
    "pow_two",
    "sq",
    "mul_self_nonneg",
    "abs_nonneg",
    "abs_sub_comm",
    "div_pos",
    "div_nonneg",
    "sub_nonneg",
    "sub_pos",
    "add_sq",
    "sub_sq",
    "mul_comm",
    "add_comm",
    "mul_assoc",
    "add_assoc",
    "two_mul",
    "pow_pos",
    "le_of_lt",
    "lt_of_le_of_lt",
    "lt_of_lt_of_le",
    "le_trans",
    "lt_trans",
    "Real.sqrt_nonneg",
    "Real.sq_sqrt",
    "Real.sqrt_sq",
    "Nat.prime_two",
    "Finset.sum_range_succ",
    "abs_le",
    "abs_lt",
    "mul_le_mul",
    "add_pow_two",
    "neg_nonpos",
    "sq_abs",
    "abs_mul_abs_self",
    "mul_self_abs",
    "abs_of_nonneg",
    "abs_of_pos",
    "abs_eq_self",
    "le_of_eq",
    "ne_of_lt",
    "ne_of_gt",
    "lt_of_le_of_ne",
    "le_abs_self",
    "neg_abs_le",
    "abs_pos",
    "abs_sub_lt_iff",
    "abs_sub_le_iff",
    "sq_pos_of_pos",
    "add_pos_of_pos_of_nonneg",
    "add_pos_of_nonneg_of_pos",
    "mul_pos_of_neg_of_neg",
    "Set.mem_setOf_eq",
    # the statements tutor/coach/lemmas.py matches goals against
    "abs_of_nonpos",
    "min_eq_left",
    "min_eq_right",
    "max_eq_left",
    "max_eq_right",
    "dvd_mul_right",
    "dvd_mul_left",
    "mul_two",
    "Nat.Prime.two_le",
    "Nat.le_mul_self",
    "Real.exp_pos",
    "Real.exp_nonneg",
    "Real.add_one_le_exp",
    "Real.sqrt_pos.mpr",
    "le_antisymm",
    "add_le_add",
    "add_lt_add",
    "sub_nonneg.mpr",
    "sub_pos.mpr",
    "abs_pos.mpr",
    "abs_mul",
    "abs_neg",
    "abs_sub_abs_le_abs_sub",
    "Finset.card_range",
    "Set.inter_comm",
    "abs_lt.mp",
    "abs_le.mp",
    "Set.union_comm",
    "Nat.odd_iff.mp",
    "Nat.odd_iff.mpr",
    "Nat.even_iff.mp",
    "Nat.even_iff.mpr",
    "even_two_mul",
    "odd_two_mul_add_one",
    "Nat.not_even_iff_odd",
    "Nat.not_odd_iff_even",
    "Int.not_even_iff_odd",
    "Int.not_odd_iff_even",
    "not_lt",
    "not_le",
]

TACTICS = [
    "omega",
    "simp",
    "simp_all",
    "decide",
    "rfl",
    "exact",
    "apply",
    "intro",
    "intros",
    "constructor",
    "cases",
    "rcases",
    "obtain",
    "induction",
    "rw",
    "rewrite",
    "exists",
    "refine",
    "trivial",
    "contradiction",
    "assumption",
    "calc",
    "show",
    "have",
    "unfold",
    "left",
    "right",
    "exfalso",
    "by_cases",
    "ext",
    "funext",
    "linarith",
    "nlinarith",
    "norm_num",
    "ring",
    "ring_nf",
    "positivity",
    "field_simp",
    "use",
    "push_cast",
    "norm_cast",
    "exact_mod_cast",
    "aesop",
    "gcongr",
    "interval_cases",
    "simpa",
]

MATHLIB_TACTICS = frozenset(
    [
        "linarith",
        "nlinarith",
        "norm_num",
        "ring",
        "ring_nf",
        "positivity",
        "field_simp",
        "use",
        "push_cast",
        "gcongr",
        "interval_cases",
        "polyrith",
    ]
)


def mathlib_names_in(text: str, allowed: str = "") -> set[str]:
    """The Mathlib-only tactics and lemmas a suggestion names in its code spans, or `Mathlib`
    itself, leaving out those in `allowed` (the student's own attempt, which already uses
    them): advice a course without Mathlib must not show."""
    only = (set(MATHLIB_LEMMAS) | set(MATHLIB_TACTICS)) - set(CORE_LEMMAS)
    code = " ".join(re.findall(r"`([^`]+)`", text))
    named = set(re.findall(r"[\w.']+", code)) & only
    if re.search(r"\bMathlib\b", text):
        named.add("Mathlib")
    return {n for n in named if not re.search(rf"(?<![\w.']){re.escape(n)}(?![\w'])", allowed)}


@dataclass(frozen=True)
class NameGuess:
    name: str
    distance: int


def damerau_levenshtein(a: str, b: str) -> int:
    """Edit distance counting a swap of two neighbouring letters as one edit."""
    previous_previous: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], previous_previous[j - 2] + 1)
        previous_previous, previous = previous, current
    return previous[len(b)]


def closest_name(unknown: str, candidates: Iterable[str]) -> NameGuess | None:
    """The candidate nearest to `unknown`, if near enough to be a plausible typo."""
    target = unknown.lower()
    # At most two edits: a lemma two letters away is a typo, one four away is another lemma
    # (`List.length_nonneg` is not `List.length_cons`).
    limit = max(1, min(2, len(unknown) // 4))
    best: NameGuess | None = None
    best_rank: tuple[int, bool, int] = (0, False, 0)
    for candidate in set(candidates):
        if candidate == unknown or not candidate:
            continue
        lowered = candidate.lower()
        suffix_match = "." in candidate and lowered.rsplit(".", 1)[1] == target
        if abs(len(lowered) - len(target)) > limit and not suffix_match:
            continue  # the distance is at least the length difference: skip the DP
        distance = damerau_levenshtein(target, lowered)
        # A missing namespace (`add_comm` for `Nat.add_comm`) is a near miss, not far away.
        if suffix_match:
            distance = min(distance, 1)
        if distance > limit:
            continue
        # Ties: prefer a rearrangement of the same letters (`hqp` -> `hpq`), then the
        # candidate closest in length.
        rank = (distance, sorted(lowered) != sorted(target), abs(len(lowered) - len(target)))
        if best is None or (rank, candidate) < (best_rank, best.name):
            best, best_rank = NameGuess(candidate, distance), rank
    return best
