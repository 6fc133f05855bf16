"""The starter course: core Lean 4 exercises (no Mathlib) with reference proofs written for
this project. Each statement ends with `:= by`; the student writes only what follows.

Reference proofs use only Lean 4 core (Init): rfl, exact, intro, cases, induction, constructor,
simp, omega, decide and core lemmas such as Nat.add_comm and Nat.succ_le_of_lt. Names carry
an `lc_` prefix so they never clash with a core declaration. `verify_course` checks every one
with the real checker where Lean is installed.
"""

from __future__ import annotations

COURSE = {
    "slug": "core-lean",
    "title": "Core Lean: logic, Nat and List",
    "description": (
        "Forty-odd short proofs in plain Lean 4 (no Mathlib): propositional logic, "
        "natural numbers and lists. The statement is given; you write the proof."
    ),
}

# (world slug, world title, [(name, title, informal, statement, reference proof), ...])
WORLDS: list[tuple[str, str, list[tuple[str, str, str, str, str]]]] = [
    (
        "logic",
        "Logic world",
        [
            (
                "lc_id",
                "A proposition implies itself",
                "If p holds, p holds.",
                "theorem lc_id (p : Prop) : p → p := by",
                "  intro hp\n  exact hp",
            ),
            (
                "lc_modus_ponens",
                "Modus ponens",
                "From p and p → q, conclude q.",
                "theorem lc_modus_ponens (p q : Prop) (hp : p) (hpq : p → q) : q := by",
                "  exact hpq hp",
            ),
            (
                "lc_imp_trans",
                "Chaining implications",
                "Implication is transitive.",
                "theorem lc_imp_trans (p q r : Prop) (hpq : p → q) (hqr : q → r) : p → r := by",
                "  intro hp\n  exact hqr (hpq hp)",
            ),
            (
                "lc_and_swap",
                "Swapping a conjunction",
                "If p and q, then q and p.",
                "theorem lc_and_swap (p q : Prop) (h : p ∧ q) : q ∧ p := by",
                "  exact ⟨h.2, h.1⟩",
            ),
            (
                "lc_and_left",
                "Taking the left part",
                "From p and q, conclude p.",
                "theorem lc_and_left (p q : Prop) (h : p ∧ q) : p := by",
                "  exact h.1",
            ),
            (
                "lc_or_swap",
                "Swapping a disjunction",
                "If p or q, then q or p.",
                "theorem lc_or_swap (p q : Prop) (h : p ∨ q) : q ∨ p := by",
                "  cases h with\n  | inl hp => exact Or.inr hp\n  | inr hq => exact Or.inl hq",
            ),
            (
                "lc_or_intro_left",
                "Weakening to a disjunction",
                "If p, then p or q.",
                "theorem lc_or_intro_left (p q : Prop) (hp : p) : p ∨ q := by",
                "  exact Or.inl hp",
            ),
            (
                "lc_and_comm_iff",
                "Conjunction commutes",
                "p and q is equivalent to q and p.",
                "theorem lc_and_comm_iff (p q : Prop) : p ∧ q ↔ q ∧ p := by",
                "  constructor\n  · intro h\n    exact ⟨h.2, h.1⟩\n  · intro h\n    exact ⟨h.2, h.1⟩",
            ),
            (
                "lc_curry",
                "Currying",
                "A function of a pair is a function of two arguments.",
                "theorem lc_curry (p q r : Prop) (h : p ∧ q → r) : p → q → r := by",
                "  intro hp hq\n  exact h ⟨hp, hq⟩",
            ),
            (
                "lc_uncurry",
                "Uncurrying",
                "A function of two arguments is a function of a pair.",
                "theorem lc_uncurry (p q r : Prop) (h : p → q → r) : p ∧ q → r := by",
                "  intro hpq\n  exact h hpq.1 hpq.2",
            ),
            (
                "lc_false_elim",
                "From false, anything",
                "From False, anything follows.",
                "theorem lc_false_elim (p : Prop) (h : False) : p := by",
                "  exact False.elim h",
            ),
            (
                "lc_not_not_intro",
                "Double negation introduction",
                "If p, then not not p.",
                "theorem lc_not_not_intro (p : Prop) (hp : p) : ¬¬p := by",
                "  intro hnp\n  exact hnp hp",
            ),
            (
                "lc_contrapositive",
                "Contrapositive",
                "If p → q and not q, then not p.",
                "theorem lc_contrapositive (p q : Prop) (hpq : p → q) (hnq : ¬q) : ¬p := by",
                "  intro hp\n  exact hnq (hpq hp)",
            ),
            (
                "lc_or_false",
                "Dropping False",
                "If p or False, then p.",
                "theorem lc_or_false (p : Prop) (h : p ∨ False) : p := by",
                "  cases h with\n  | inl hp => exact hp\n  | inr hf => exact False.elim hf",
            ),
            (
                "lc_and_or_distrib",
                "Distributing and over or",
                "p and (q or r) gives (p and q) or (p and r).",
                "theorem lc_and_or_distrib (p q r : Prop) (h : p ∧ (q ∨ r)) : (p ∧ q) ∨ (p ∧ r) := by",
                "  cases h.2 with\n  | inl hq => exact Or.inl ⟨h.1, hq⟩\n  | inr hr => exact Or.inr ⟨h.1, hr⟩",
            ),
            (
                "lc_not_or",
                "De Morgan",
                "Not (p or q) gives not p and not q.",
                "theorem lc_not_or (p q : Prop) (h : ¬(p ∨ q)) : ¬p ∧ ¬q := by",
                "  exact ⟨fun hp => h (Or.inl hp), fun hq => h (Or.inr hq)⟩",
            ),
            (
                "lc_excluded_middle",
                "Excluded middle",
                "Every proposition is true or false.",
                "theorem lc_excluded_middle (p : Prop) : p ∨ ¬p := by",
                "  exact Classical.em p",
            ),
        ],
    ),
    (
        "quantifiers",
        "Quantifier world",
        [
            (
                "lc_exists_witness",
                "Give a witness",
                "Some natural number plus 2 is 5.",
                "theorem lc_exists_witness : ∃ n : Nat, n + 2 = 5 := by",
                "  exact ⟨3, rfl⟩",
            ),
            (
                "lc_exists_of_mem",
                "Existence from an example",
                "If P a holds, some x has P x.",
                "theorem lc_exists_of_mem (α : Type) (P : α → Prop) (a : α) (h : P a) : ∃ x, P x := by",
                "  exact ⟨a, h⟩",
            ),
            (
                "lc_forall_and_left",
                "Splitting a universal",
                "If every x has P and Q, every x has P.",
                "theorem lc_forall_and_left (α : Type) (P Q : α → Prop) (h : ∀ x, P x ∧ Q x) : ∀ x, P x := by",
                "  intro x\n  exact (h x).1",
            ),
            (
                "lc_forall_imp",
                "Pushing an implication through ∀",
                "If P implies Q everywhere and P holds everywhere, so does Q.",
                "theorem lc_forall_imp (α : Type) (P Q : α → Prop) (hpq : ∀ x, P x → Q x) (hp : ∀ x, P x) : ∀ x, Q x := by",
                "  intro x\n  exact hpq x (hp x)",
            ),
            (
                "lc_exists_imp",
                "Mapping a witness",
                "If P implies Q and some x has P, some x has Q.",
                "theorem lc_exists_imp (α : Type) (P Q : α → Prop) (hpq : ∀ x, P x → Q x) (h : ∃ x, P x) : ∃ x, Q x := by",
                "  cases h with\n  | intro x hx => exact ⟨x, hpq x hx⟩",
            ),
            (
                "lc_not_exists",
                "No witness",
                "If no x has P, then every x fails P.",
                "theorem lc_not_exists (α : Type) (P : α → Prop) (h : ¬∃ x, P x) : ∀ x, ¬P x := by",
                "  intro x hx\n  exact h ⟨x, hx⟩",
            ),
        ],
    ),
    (
        "nat",
        "Natural number world",
        [
            (
                "lc_add_zero",
                "Adding zero on the right",
                "n + 0 = n holds by definition.",
                "theorem lc_add_zero (n : Nat) : n + 0 = n := by",
                "  rfl",
            ),
            (
                "lc_zero_add",
                "Adding zero on the left",
                "0 + n = n needs induction.",
                "theorem lc_zero_add (n : Nat) : 0 + n = n := by",
                "  induction n with\n  | zero => rfl\n  | succ k ih =>\n    show 0 + k + 1 = k + 1\n    rw [ih]",
            ),
            (
                "lc_add_comm",
                "Addition commutes",
                "a + b = b + a.",
                "theorem lc_add_comm (a b : Nat) : a + b = b + a := by",
                "  exact Nat.add_comm a b",
            ),
            (
                "lc_add_assoc",
                "Addition associates",
                "(a + b) + c = a + (b + c).",
                "theorem lc_add_assoc (a b c : Nat) : a + b + c = a + (b + c) := by",
                "  exact Nat.add_assoc a b c",
            ),
            (
                "lc_mul_comm",
                "Multiplication commutes",
                "a * b = b * a.",
                "theorem lc_mul_comm (a b : Nat) : a * b = b * a := by",
                "  exact Nat.mul_comm a b",
            ),
            (
                "lc_left_distrib",
                "Distributivity",
                "a * (b + c) = a * b + a * c.",
                "theorem lc_left_distrib (a b c : Nat) : a * (b + c) = a * b + a * c := by",
                "  exact Nat.left_distrib a b c",
            ),
            (
                "lc_zero_mul",
                "Zero times anything",
                "0 * n = n * 0.",
                "theorem lc_zero_mul (n : Nat) : 0 * n = n * 0 := by",
                "  rw [Nat.zero_mul, Nat.mul_zero]",
            ),
            (
                "lc_succ_ne_zero",
                "A successor is never zero",
                "n + 1 ≠ 0.",
                "theorem lc_succ_ne_zero (n : Nat) : n + 1 ≠ 0 := by",
                "  exact Nat.succ_ne_zero n",
            ),
            (
                "lc_le_succ",
                "n ≤ n + 1",
                "Every number is at most its successor.",
                "theorem lc_le_succ (n : Nat) : n ≤ n + 1 := by",
                "  exact Nat.le_succ n",
            ),
            (
                "lc_succ_le_of_lt",
                "From < to ≤",
                "If a < b then a + 1 ≤ b.",
                "theorem lc_succ_le_of_lt (a b : Nat) (h : a < b) : a + 1 ≤ b := by",
                "  exact Nat.succ_le_of_lt h",
            ),
            (
                "lc_le_trans",
                "≤ is transitive",
                "If a ≤ b and b ≤ c then a ≤ c.",
                "theorem lc_le_trans (a b c : Nat) (h₁ : a ≤ b) (h₂ : b ≤ c) : a ≤ c := by",
                "  exact Nat.le_trans h₁ h₂",
            ),
            (
                "lc_solve_linear",
                "Solve for x",
                "If x + 3 = 7 then x = 4.",
                "theorem lc_solve_linear (x : Nat) (h : x + 3 = 7) : x = 4 := by",
                "  omega",
            ),
            (
                "lc_two_mul",
                "Doubling",
                "2 * n = n + n.",
                "theorem lc_two_mul (n : Nat) : 2 * n = n + n := by",
                "  omega",
            ),
            (
                "lc_succ_inj",
                "Successor is injective",
                "If a + 1 = b + 1 then a = b.",
                "theorem lc_succ_inj (a b : Nat) (h : a + 1 = b + 1) : a = b := by",
                "  omega",
            ),
            (
                "lc_double_even",
                "n + n is even",
                "(n + n) % 2 = 0.",
                "theorem lc_double_even (n : Nat) : (n + n) % 2 = 0 := by",
                "  omega",
            ),
            (
                "lc_odd_ne_zero",
                "An odd number is not zero",
                "If n % 2 = 1 then n ≠ 0.",
                "theorem lc_odd_ne_zero (n : Nat) (h : n % 2 = 1) : n ≠ 0 := by",
                "  omega",
            ),
            (
                "lc_pow_two_ten",
                "Compute a power",
                "2 ^ 10 = 1024.",
                "theorem lc_pow_two_ten : 2 ^ 10 = 1024 := by",
                "  decide",
            ),
            (
                "lc_mod_compute",
                "Compute a remainder",
                "17 % 5 = 2.",
                "theorem lc_mod_compute : 17 % 5 = 2 := by",
                "  decide",
            ),
            (
                "lc_lt_two_pow",
                "n < 2 ^ n",
                "Every n is below 2 ^ n, by induction.",
                "theorem lc_lt_two_pow (n : Nat) : n < 2 ^ n := by",
                "  induction n with\n  | zero => decide\n  | succ k ih =>\n    have h : 2 ^ (k + 1) = 2 ^ k * 2 := Nat.pow_succ\n    omega",
            ),
        ],
    ),
    (
        "list",
        "List world",
        [
            (
                "lc_length_literal",
                "Length of a literal",
                "[1, 2, 3] has three elements.",
                "theorem lc_length_literal : [1, 2, 3].length = 3 := by",
                "  rfl",
            ),
            (
                "lc_reverse_literal",
                "Reverse a literal",
                "[1, 2, 3] reversed is [3, 2, 1].",
                "theorem lc_reverse_literal : [1, 2, 3].reverse = [3, 2, 1] := by",
                "  rfl",
            ),
            (
                "lc_length_cons",
                "Length of a cons",
                "x :: xs is one longer than xs.",
                "theorem lc_length_cons (x : Nat) (xs : List Nat) : (x :: xs).length = xs.length + 1 := by",
                "  rfl",
            ),
            (
                "lc_nil_append",
                "Appending to nil",
                "[] ++ xs = xs holds by definition.",
                "theorem lc_nil_append (xs : List Nat) : [] ++ xs = xs := by",
                "  rfl",
            ),
            (
                "lc_append_nil",
                "Appending nil",
                "xs ++ [] = xs needs a lemma (or simp).",
                "theorem lc_append_nil (xs : List Nat) : xs ++ [] = xs := by",
                "  simp",
            ),
            (
                "lc_length_append",
                "Length of an append",
                "By induction on xs.",
                "theorem lc_length_append (xs ys : List Nat) : (xs ++ ys).length = xs.length + ys.length := by",
                "  induction xs with\n  | nil => simp\n  | cons x xs ih =>\n    simp only [List.cons_append, List.length_cons]\n    omega",
            ),
            (
                "lc_reverse_reverse",
                "Reversing twice",
                "Reversing twice gives the list back.",
                "theorem lc_reverse_reverse (xs : List Nat) : xs.reverse.reverse = xs := by",
                "  simp",
            ),
            (
                "lc_map_id",
                "Mapping the identity",
                "Mapping id changes nothing.",
                "theorem lc_map_id (xs : List Nat) : xs.map id = xs := by",
                "  simp",
            ),
            (
                "lc_map_append",
                "Map distributes over append",
                "(xs ++ ys).map f = xs.map f ++ ys.map f.",
                "theorem lc_map_append (f : Nat → Nat) (xs ys : List Nat) : (xs ++ ys).map f = xs.map f ++ ys.map f := by",
                "  simp",
            ),
            (
                "lc_map_literal",
                "Map on a literal",
                "Doubling [1, 2, 3] gives [2, 4, 6].",
                "theorem lc_map_literal : [1, 2, 3].map (fun x => x * 2) = [2, 4, 6] := by",
                "  rfl",
            ),
            (
                "lc_mem_literal",
                "Membership by computation",
                "3 is in [1, 2, 3].",
                "theorem lc_mem_literal : 3 ∈ [1, 2, 3] := by",
                "  decide",
            ),
            (
                "lc_length_pos",
                "A non-empty list has positive length",
                "By cases on xs.",
                "theorem lc_length_pos (xs : List Nat) (h : xs ≠ []) : 0 < xs.length := by",
                "  cases xs with\n  | nil => exact (h rfl).elim\n  | cons x xs => exact Nat.succ_pos xs.length",
            ),
        ],
    ),
]


# The lessons: per exercise a short Markdown introduction, what it unlocks (tactics and
# lemmas; the inventory is cumulative along a world) and up to three hints, from a nudge to
# nearly the answer. Kept in this file: training loads it by path, without the webapp package.
# name: (intro, unlocks, hints)
LESSONS: dict[str, tuple[str, list[str], list[str]]] = {
    # -- Logic world ---------------------------------------------------------------------
    "lc_id": (
        "Welcome! The goal `p → p` is an implication. The tactic `intro hp` moves its premise "
        "into your hypotheses under the name `hp`; then `exact hp` closes a goal that is "
        "exactly a hypothesis.\n\nWatch the **goal view** change after each line.",
        ["intro", "exact"],
        [
            "Start with `intro hp`: the goal becomes `p`, with `hp : p` available.",
            "A hypothesis whose type is the goal closes it with `exact`.",
            "`intro hp` then `exact hp`.",
        ],
    ),
    "lc_modus_ponens": (
        "A hypothesis `hpq : p → q` is a function: applied to a proof of `p` it gives a proof "
        "of `q`. Application is written with a space: `hpq hp`.",
        ["function application"],
        ["What do you get by applying `hpq` to `hp`?", "`exact hpq hp`."],
    ),
    "lc_imp_trans": (
        "Chain two implications: introduce the premise, then apply the functions one after "
        "the other (innermost first).",
        [],
        [
            "`intro hp` gives you `hp : p`; the goal is `r`.",
            "`hpq hp : q`, and `hqr` turns a `q` into an `r`.",
            "`exact hqr (hpq hp)`.",
        ],
    ),
    "lc_and_swap": (
        "A proof of `p ∧ q` has two parts: `h.1 : p` and `h.2 : q`. The anonymous constructor "
        "`⟨a, b⟩` (type `\\<` and `\\>`) builds a conjunction from its two parts.",
        ["⟨_, _⟩", "h.1 / h.2"],
        [
            "The goal `q ∧ p` needs a proof of `q` and a proof of `p`.",
            "`h.2 : q` and `h.1 : p`.",
            "`exact ⟨h.2, h.1⟩`.",
        ],
    ),
    "lc_and_left": (
        "Taking a conjunction apart: `h.1` is its left part.",
        [],
        ["Which projection of `h` has type `p`?"],
    ),
    "lc_or_swap": (
        "To use `h : p ∨ q` you must handle both cases. `cases h with` opens one branch per "
        "constructor: `| inl hp => ...` and `| inr hq => ...`. To *prove* a disjunction, "
        "`Or.inl` and `Or.inr` pick a side.",
        ["cases", "Or.inl", "Or.inr"],
        [
            "Write `cases h with`, then one line per case: `| inl hp => ...` and `| inr hq => ...`.",
            "In the `inl` case you have `hp : p` and must prove `q ∨ p`: that is its right side.",
            "`| inl hp => exact Or.inr hp` and `| inr hq => exact Or.inl hq`.",
        ],
    ),
    "lc_or_intro_left": (
        "Proving a disjunction only needs one side. `Or.inl` proves `p ∨ q` from `p`.",
        [],
        ["You have `hp : p`: which side of `p ∨ q` can you prove?", "`exact Or.inl hp`."],
    ),
    "lc_and_comm_iff": (
        "An `↔` is two implications. `constructor` splits the goal into both directions, shown "
        "as two goals; the bullet `·` (type `\\.`) focuses on one goal at a time.",
        ["constructor", "· (focusing)"],
        [
            "`constructor` leaves the goals `p ∧ q → q ∧ p` and `q ∧ p → p ∧ q`.",
            "Each direction is the `lc_and_swap` exercise again: `intro h` then build the pair.",
            "`· intro h` then `exact ⟨h.2, h.1⟩`, twice (indent the second line under the bullet).",
        ],
    ),
    "lc_curry": (
        "`intro` can take several names at once: `intro hp hq` for `p → q → r`.",
        [],
        [
            "After `intro hp hq` the goal is `r`.",
            "`h` needs a proof of `p ∧ q`: build it with `⟨hp, hq⟩`.",
        ],
    ),
    "lc_uncurry": (
        "The other direction: a single hypothesis of type `p ∧ q`, and a two-argument "
        "function `h`.",
        [],
        ["`intro hpq` gives `hpq : p ∧ q`.", "`exact h hpq.1 hpq.2`."],
    ),
    "lc_false_elim": (
        "From `False` anything follows: `False.elim h` has any type you need.",
        ["False.elim"],
        ["Which lemma turns a proof of `False` into a proof of anything?"],
    ),
    "lc_not_not_intro": (
        "`¬p` is defined as `p → False`. So `¬¬p` is `(p → False) → False`: `intro` works on it.",
        ["¬ as → False"],
        ["`intro hnp` gives `hnp : ¬p` and the goal `False`.", "`hnp` applied to `hp` is `False`."],
    ),
    "lc_contrapositive": (
        "Proving a negation `¬p`: introduce `hp : p` and derive `False`.",
        [],
        [
            "`intro hp`: now prove `False`.",
            "`hnq : ¬q` turns a proof of `q` into `False`; `hpq hp : q`.",
            "`exact hnq (hpq hp)`.",
        ],
    ),
    "lc_or_false": (
        "Case analysis again; one of the cases is impossible.",
        [],
        [
            "`cases h with` and the two branches `inl` and `inr`.",
            "In the `inr` case you hold `False`: use `False.elim`.",
        ],
    ),
    "lc_and_or_distrib": (
        "You can do cases on a part of a hypothesis: `cases h.2 with`.",
        [],
        [
            "`h.2 : q ∨ r`: split it with `cases`.",
            "In the `inl hq` case the answer is the left side: `Or.inl ⟨h.1, hq⟩`.",
        ],
    ),
    "lc_not_or": (
        "A term-mode proof can build functions with `fun hp => ...` (type `\\fun` or write "
        "`fun`). Each part of the pair is a function into `False`.",
        ["fun x => _"],
        [
            "The goal is a pair: `⟨proof of ¬p, proof of ¬q⟩`.",
            "`¬p` is `p → False`: `fun hp => h (Or.inl hp)`.",
        ],
    ),
    "lc_excluded_middle": (
        "Lean's logic is constructive, but classical reasoning is available: "
        "`Classical.em p : p ∨ ¬p`.",
        ["Classical.em"],
        ["This is a library lemma applied to `p`.", "`exact Classical.em p`."],
    ),
    # -- Quantifier world ----------------------------------------------------------------
    "lc_exists_witness": (
        "To prove `∃ n, P n`, give a witness and a proof: `⟨3, proof⟩`. `rfl` proves an "
        "equation that holds by computation.",
        ["⟨witness, proof⟩", "rfl"],
        ["Which `n` makes `n + 2 = 5` true?", "`exact ⟨3, rfl⟩`."],
    ),
    "lc_exists_of_mem": (
        "The witness can be a variable you already have.",
        [],
        ["You have `a` and `h : P a`.", "`exact ⟨a, h⟩`."],
    ),
    "lc_forall_and_left": (
        "A `∀` goal is introduced like an implication: `intro x`. A `∀` hypothesis is a "
        "function: `h x` is its instance at `x`.",
        ["intro on ∀", "h x (instantiation)"],
        ["`intro x`, then look at `h x : P x ∧ Q x`.", "`exact (h x).1`."],
    ),
    "lc_forall_imp": (
        "Combine two universal statements at the same `x`.",
        [],
        ["After `intro x`, `hp x : P x`.", "`exact hpq x (hp x)`."],
    ),
    "lc_exists_imp": (
        "To use `h : ∃ x, P x`, take it apart with `cases h with | intro x hx => ...`: you get "
        "the witness and its property.",
        ["cases on ∃"],
        [
            "`cases h with` and a single branch `| intro x hx => ...`.",
            "Then build the new witness: `⟨x, hpq x hx⟩`.",
        ],
    ),
    "lc_not_exists": (
        "Goals with `∀ x, ¬P x` unfold to `∀ x, P x → False`: introduce two things.",
        [],
        [
            "`intro x hx`, then the goal is `False`.",
            "`h` expects a proof of `∃ x, P x`: `⟨x, hx⟩`.",
        ],
    ),
    # -- Natural number world ------------------------------------------------------------
    "lc_add_zero": (
        "Natural numbers are built from `0` and successor, and `n + 0` reduces to `n` by the "
        "definition of addition, so `rfl` (reflexivity) proves it.",
        ["rfl on Nat"],
        ["Both sides compute to the same thing.", "`rfl`."],
    ),
    "lc_zero_add": (
        "`0 + n = n` does *not* hold by computation: addition recurses on its second argument. "
        "Use `induction n with` and prove the `zero` and `succ k ih` cases; `rw [ih]` rewrites "
        "with the induction hypothesis.",
        ["induction", "rw", "show"],
        [
            "`induction n with` then `| zero => ...` and `| succ k ih => ...`.",
            "The zero case is `rfl`. In the succ case, `show 0 + k + 1 = k + 1` restates the goal.",
            "Then `rw [ih]` finishes it.",
        ],
    ),
    "lc_add_comm": (
        "Lean's library already knows many facts. `Nat.add_comm a b : a + b = b + a`.",
        ["Nat.add_comm"],
        ["There is a lemma with exactly this statement.", "`exact Nat.add_comm a b`."],
    ),
    "lc_add_assoc": (
        "Associativity is `Nat.add_assoc`.",
        ["Nat.add_assoc"],
        ["`exact Nat.add_assoc a b c`."],
    ),
    "lc_mul_comm": (
        "Commutativity of multiplication: `Nat.mul_comm`.",
        ["Nat.mul_comm"],
        ["`exact Nat.mul_comm a b`."],
    ),
    "lc_left_distrib": (
        "Multiplication distributes over addition: `Nat.left_distrib`.",
        ["Nat.left_distrib"],
        ["Look for a lemma named after distributivity on the left."],
    ),
    "lc_zero_mul": (
        "`rw [l₁, l₂]` rewrites with several equations in turn. `Nat.zero_mul : 0 * n = 0` and "
        "`Nat.mul_zero : n * 0 = 0`.",
        ["Nat.zero_mul", "Nat.mul_zero"],
        ["Rewrite both sides to `0`.", "`rw [Nat.zero_mul, Nat.mul_zero]`."],
    ),
    "lc_succ_ne_zero": (
        "`≠` means *not equal*; a successor is never zero: `Nat.succ_ne_zero`.",
        ["Nat.succ_ne_zero"],
        ["`exact Nat.succ_ne_zero n`."],
    ),
    "lc_le_succ": ("`Nat.le_succ n : n ≤ n + 1`.", ["Nat.le_succ"], ["`exact Nat.le_succ n`."]),
    "lc_succ_le_of_lt": (
        "On naturals, `a < b` is the same as `a + 1 ≤ b`: `Nat.succ_le_of_lt`.",
        ["Nat.succ_le_of_lt"],
        ["Apply the lemma to `h`."],
    ),
    "lc_le_trans": (
        "`≤` is transitive: `Nat.le_trans`. Subscripts like `h₁` are typed `h\\1`.",
        ["Nat.le_trans"],
        ["`exact Nat.le_trans h₁ h₂`."],
    ),
    "lc_solve_linear": (
        "`omega` decides linear arithmetic over `Nat` and `Int`, using your hypotheses.",
        ["omega"],
        ["One tactic does it all here."],
    ),
    "lc_two_mul": ("`omega` also handles multiplication by a constant.", [], ["Try `omega`."]),
    "lc_succ_inj": ("Cancelling `+ 1` on both sides is linear arithmetic too.", [], ["`omega`."]),
    "lc_double_even": ("`omega` understands `%` by a constant.", [], ["`omega`."]),
    "lc_odd_ne_zero": (
        "A goal `n ≠ 0` with a hypothesis about `n % 2`: still `omega`.",
        [],
        ["`omega`."],
    ),
    "lc_pow_two_ten": (
        "`decide` evaluates a decidable closed statement, such as an equation between numerals.",
        ["decide"],
        ["The statement has no variables: let Lean compute it.", "`decide`."],
    ),
    "lc_mod_compute": ("Another closed computation.", [], ["`decide`."]),
    "lc_lt_two_pow": (
        "An induction whose step needs a fact: `have h : 2 ^ (k + 1) = 2 ^ k * 2 := Nat.pow_succ` "
        "adds it to the context so `omega` can use it.",
        ["have", "Nat.pow_succ"],
        [
            "`induction n with`; the zero case is `decide`.",
            "In the succ case `omega` does not know powers: give it `2 ^ (k + 1) = 2 ^ k * 2`.",
            "`have h : 2 ^ (k + 1) = 2 ^ k * 2 := Nat.pow_succ` then `omega`.",
        ],
    ),
    # -- List world ----------------------------------------------------------------------
    "lc_length_literal": (
        "Lists are written `[1, 2, 3]`; `.length` computes on a literal, so `rfl` works.",
        ["List literals"],
        ["`rfl`."],
    ),
    "lc_reverse_literal": ("`.reverse` of a literal also computes.", [], ["`rfl`."]),
    "lc_length_cons": (
        "`x :: xs` puts `x` in front of `xs` (type `::` as two colons). The length of a cons "
        "is the length of its tail plus one, by definition.",
        ["::"],
        ["By definition: `rfl`."],
    ),
    "lc_nil_append": (
        "`++` appends lists; it recurses on its first argument, so `[] ++ xs` computes.",
        ["++"],
        ["`rfl`."],
    ),
    "lc_append_nil": (
        "`xs ++ []` does not compute (the recursion is on `xs`). `simp` rewrites with the "
        "library's simplification lemmas, such as `List.append_nil`.",
        ["simp"],
        ["`rfl` fails here; try the simplifier.", "`simp`."],
    ),
    "lc_length_append": (
        "Induction on a list: cases `nil` and `cons x xs ih`. `simp only [l₁, l₂]` rewrites "
        "with just the lemmas you name.",
        ["induction on List", "simp only", "List.cons_append", "List.length_cons"],
        [
            "`induction xs with` then `| nil => simp` and `| cons x xs ih => ...`.",
            "In the cons case, unfold with `simp only [List.cons_append, List.length_cons]`.",
            "What is left is linear arithmetic using `ih`: `omega`.",
        ],
    ),
    "lc_reverse_reverse": ("Reversing twice is a `simp` lemma.", [], ["`simp`."]),
    "lc_map_id": (
        "`xs.map id` applies the identity to every element; `simp` knows it.",
        [],
        ["`simp`."],
    ),
    "lc_map_append": ("`map` distributes over `++`: `simp` again.", [], ["`simp`."]),
    "lc_map_literal": (
        "`fun x => x * 2` is the doubling function; on a literal list, `map` computes.",
        [],
        ["`rfl`."],
    ),
    "lc_mem_literal": (
        "`∈` (type `\\in`) is list membership; on a literal it is decidable.",
        ["∈"],
        ["`decide`."],
    ),
    "lc_length_pos": (
        "Case analysis on a list: `nil` or `cons x xs`. In the `nil` case the hypothesis "
        "`h : [] ≠ []` is absurd: `h rfl : False`.",
        ["cases on List", "Nat.succ_pos"],
        [
            "`cases xs with` then `| nil => ...` and `| cons x xs => ...`.",
            "`nil`: `exact (h rfl).elim`.",
            "`cons`: the length is `xs.length + 1`, positive by `Nat.succ_pos xs.length`.",
        ],
    ),
}


def problems() -> list[dict[str, object]]:
    """The exercises as import records (the JSONL fields plus world, title, reference_proof
    and the lesson: intro, unlocks, hints)."""
    records: list[dict[str, object]] = []
    for world_slug, world_title, items in WORLDS:
        for name, title, informal, statement, proof in items:
            intro, unlocks, hints = LESSONS[name]
            records.append(
                {
                    "name": name,
                    "split": "starter",
                    "informal_prefix": f"/-- {informal} -/\n",
                    "formal_statement": statement + "\n",
                    "goal": "",
                    "header": "",
                    "world": world_slug,
                    "world_title": world_title,
                    "title": title,
                    "reference_proof": proof,
                    "intro": intro,
                    "unlocks": unlocks,
                    "hints": hints,
                }
            )
    return records
