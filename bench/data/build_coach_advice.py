"""Build bench/data/coach_advice.jsonl: realistic beginner mistakes in Lean 4 (core, and Mathlib
from round 6), labelled with the advice that is right and the advice that is known to be wrong.

Run:  .venv/bin/python bench/data/build_coach_advice.py   (rewrites the .jsonl; deterministic)

Each case is a starter-course style statement (logic, ∀/∃, Nat, List, induction, casts, calc,
rewriting), the student's attempt, the messages Lean prints (positions computed here from the
token Lean reports, so they always fit the text), the line to change, `accept` (an accepted
fix: any one named by the advice makes it right) and `wrong` (advice known to fail). Patterns
are plain substrings, or regular expressions when they start with `re:`.

`wording` says where the message text comes from: "corpus" when a message of the same shape
is recorded in ../shared/data/lean_transcripts (same opening words and layout), "lean" when it
follows Lean's source wording but no recording of that shape exists (no Lean runs here).

The split is fixed BEFORE any rule is written: sha256(id) % 3 == 0 is held out (except the
issue's own examples, which were known beforehand), and the compiler rules are never tuned on
held-out cases (bench_coach.py reports both parts).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

OUT = Path(__file__).with_name("coach_advice.jsonl")
CASES: list[dict[str, Any]] = []
# Which batch a case came in: 1 = the first 114, 2 = the 24 shaped on the
# recorded transcripts, written before the coach was changed again. Reported apart by the bench.
ROUND = 1
# Rounds 3 and 4 are wholly held out. Round 3 (34 cases) was written before the coach was
# changed again or run on them; its first measure was the fresh one, after which its misses
# (and those of rounds 1 and 2) were read to find what the rules lacked. Round 4 (27 cases) was
# written after that work and before the coach was run on it; its misses were read in turn.
# Round 5 (20 cases) was written after the last rule changes, before the coach was run on it.
WHOLLY_HELD_OUT = frozenset({3, 4, 5})
# Round 6 is wholly tuning: written from the failure kinds issue 30 lists (confident wrong fixes,
# generic advice where a teacher is specific), core Lean and Mathlib, to write rules against.
# The held-out measure for that work is the locked split (coach_locked.jsonl), which is written
# by people who never read the rules and is never looked at while changing them.
WHOLLY_TUNING = frozenset({6, 7, 8})


# The examples quoted in issue 15 were known (and their advice asked for) before the split, so
# they cannot be held out: they always count as tuning cases.
ISSUE_EXAMPLES = frozenset(
    {
        "exact-hq-for-implication",
        "simp-on-mul-comm",
        "omega-on-mul-comm",
        "cast-zero-le",
        "lean3-nat-succ-le-iff-mpr",
        "lean3-cases-with-and",
        "decide-on-forall-nat",
        "intro-on-conjunction",
        "le-trans-missing-arg",
    }
)


def split_of(case_id: str) -> str:
    if case_id in ISSUE_EXAMPLES:
        return "tuning"
    return "heldout" if hashlib.sha256(case_id.encode()).digest()[0] % 3 == 0 else "tuning"


def _split_for(cid: str) -> str:
    if ROUND in WHOLLY_TUNING:
        return "tuning"
    return "heldout" if ROUND in WHOLLY_HELD_OUT else split_of(cid)


def case(
    cid: str,
    topic: str,
    statement: str,
    body: str,
    messages: list[tuple[int, str, str]],
    label: int,
    accept: list[str],
    wrong: list[str] | None = None,
    wording: str | None = None,
    explain: list[str] | None = None,
    severity: str = "error",
    library: str = "core",
) -> None:
    """messages: (line, token Lean points at, text); token "by" spans the whole proof."""
    attempt = statement + "\n" + body
    lines = attempt.split("\n")
    rendered = []
    for line, token, text in messages:
        source = lines[line - 1]
        column = source.find(token)
        if column < 0:
            raise ValueError(f"{cid}: token {token!r} not on line {line}: {source!r}")
        if token == "by":
            end = {"line": len(lines), "column": len(lines[-1])}
        elif token == "theorem":
            column = source.find(" ") + 1
            name = source[column:].split()[0]
            end = {"line": line, "column": column + len(name)}
        else:
            end = {"line": line, "column": column + len(token)}
        sev = "warning" if "uses `sorry`" in text else severity
        rendered.append(
            {"severity": sev, "pos": {"line": line, "column": column}, "endPos": end, "data": text}
        )
    CASES.append(
        {
            "id": cid,
            "topic": topic,
            "library": library,
            "problem": statement,
            "attempt": attempt,
            "messages": rendered,
            "label_line": label,
            "accept": accept,
            "wrong": wrong or [],
            "explain": explain or [],
            # Rounds 6 on follow Lean 4.2x-4.3x source wording, much of it not in the recordings.
            "wording": wording or ("lean" if ROUND >= 6 else "corpus"),
            "split": _split_for(cid),
            "round": ROUND,
        }
    )


def mismatch(term: str, has: str, want: str) -> str:
    return (
        f"Type mismatch\n  {term}\nhas type\n  {has} : Prop\nbut is expected to have type\n"
        f"  {want} : Prop"
    )


def app_mismatch(app: str, arg: str, has: str, want: str) -> str:
    return (
        f"Application type mismatch: In the application\n  {app}\nthe argument\n  {arg}\n"
        f"has type\n  {has} : Prop\nbut is expected to have type\n  {want} : Prop"
    )


def unsolved(*goals: str) -> str:
    return "unsolved goals\n" + "\n\n".join(goals)


def unknown(name: str) -> str:
    return f"Unknown identifier `{name}`"


INTRO_N = "tactic 'introN' failed, insufficient number of binders"
SORRY = "declaration uses `sorry`"
NO_GOALS = "No goals to be solved"
GENERIC_REWRITE = "rw [...] at h"

# ------------------------------------------------------------------ logic
case(
    "exact-hq-for-implication",
    "logic",
    "theorem t1 (p q : Prop) (hq : q) : p → q := by",
    "  exact hq",
    [(2, "hq", mismatch("hq", "q", "p → q"))],
    2,
    ["intro"],
    [GENERIC_REWRITE, "at h`", ".symm"],
)
case(
    "intro-on-conjunction",
    "logic",
    "theorem t2 (p q : Prop) (hp : p) (hq : q) : p ∧ q := by",
    "  intro h\n  exact hp",
    [(2, "intro h", INTRO_N)],
    2,
    ["constructor", "⟨hp, hq⟩", "And.intro"],
    ["re:intro \\w+ \\w+"],
    wording="lean",
)
case(
    "and-second-half-missing",
    "logic",
    "theorem t3 (p q : Prop) (hp : p) (hq : q) : q ∧ p := by",
    "  constructor\n  · exact hq",
    [(1, "by", unsolved("case right\np q : Prop\nhp : p\nhq : q\n⊢ p"))],
    3,
    ["exact hp"],
    ["Delete"],
    explain=["case"],
)
case(
    "left-instead-of-right-of-and",
    "logic",
    "theorem t4 (p q : Prop) (h : p ∧ q) : q := by",
    "  exact h.1",
    [(2, "h.1", mismatch("h.left", "p", "q"))],
    2,
    ["h.2", "h.right"],
    ["intro", "constructor"],
)
case(
    "or-goal-exact-left-part",
    "logic",
    "theorem t5 (p q : Prop) (hp : p) : p ∨ q := by",
    "  exact hp",
    [(2, "hp", mismatch("hp", "p", "p ∨ q"))],
    2,
    ["Or.inl", "left"],
    ["constructor", GENERIC_REWRITE],
)
case(
    "or-wrong-side",
    "logic",
    "theorem t6 (p q : Prop) (hq : q) : p ∨ q := by",
    "  left\n  exact hq",
    [(3, "hq", mismatch("hq", "q", "p"))],
    2,
    ["right", "Or.inr"],
    [GENERIC_REWRITE],
)
case(
    "anon-constructor-for-or",
    "logic",
    "theorem t7 (p q : Prop) (hp : p) (hq : q) : p ∨ q := by",
    "  exact ⟨hp, hq⟩",
    [
        (
            2,
            "⟨hp, hq⟩",
            "Invalid constructor ⟨...⟩: The expected type must be an inductive type "
            "with only one constructor\n  p ∨ q",
        )
    ],
    2,
    ["Or.inl", "Or.inr", "left", "right"],
    ["constructor"],
    wording="lean",
)
case(
    "lean3-cases-with-and",
    "logic",
    "theorem t8 (p q : Prop) (h : p ∧ q) : q ∧ p := by",
    "  cases h with hp hq\n  exact ⟨hq, hp⟩",
    [(2, "hp", "unexpected identifier; expected '|'")],
    2,
    ["obtain ⟨hp, hq⟩ := h", "rcases h with ⟨hp, hq⟩", "⟨hp, hq⟩"],
    ["begin"],
)
case(
    "lean3-cases-with-or",
    "logic",
    "theorem t9 (p q : Prop) (h : p ∨ q) : q ∨ p := by",
    "  cases h with hp hq\n  · exact Or.inr hp\n  · exact Or.inl hq",
    [(2, "hp", "unexpected identifier; expected '|'")],
    2,
    ["| inl", "rcases h with hp | hq", "obtain hp | hq := h"],
    ["⟨hp, hq⟩"],
)
case(
    "or-left-field",
    "logic",
    "theorem t10 (p q : Prop) (h : p ∨ q) (hp' : p → q) : q := by",
    "  exact hp' h.left",
    [
        (
            2,
            "h.left",
            "Invalid field `left`: The environment does not contain `Or.left`\n  h\n"
            "has type\n  p ∨ q",
        )
    ],
    2,
    ["cases h", "rcases h", "obtain", "Or.elim", "| inl"],
    [".1`", "h.2"],
    wording="lean",
)
case(
    "iff-used-as-implication",
    "logic",
    "theorem t11 (p q : Prop) (h : p ↔ q) : p → q := by",
    "  exact h",
    [(2, "h", mismatch("h", "p ↔ q", "p → q"))],
    2,
    ["h.mp", "h.1", ".mp"],
    [".mpr", GENERIC_REWRITE],
)
case(
    "iff-wrong-direction",
    "logic",
    "theorem t12 (p q : Prop) (h : p ↔ q) (hq : q) : p := by",
    "  exact h.mp hq",
    [(2, "hq", app_mismatch("h.mp hq", "hq", "q", "p"))],
    2,
    [".mpr", "h.2"],
    [GENERIC_REWRITE],
)
case(
    "neg-elim-needs-absurd",
    "logic",
    "theorem t13 (p q : Prop) (hp : p) (hnp : ¬p) : q := by",
    "  exact hnp hp",
    [(2, "hnp hp", mismatch("hnp hp", "False", "q"))],
    2,
    ["absurd", "exfalso", "False.elim", ".elim", "contradiction"],
    ["intro", GENERIC_REWRITE],
)
case(
    "intro-forgotten-second",
    "logic",
    "theorem t14 (p q : Prop) : p → q → p := by",
    "  intro hp",
    [(1, "by", unsolved("p q : Prop\nhp : p\n⊢ q → p"))],
    2,
    ["intro", "fun _ => hp"],
    ["constructor"],
)
case(
    "wrong-hypothesis-name",
    "logic",
    "theorem t15 (p q : Prop) (hp : p) (hq : q) : p := by",
    "  exact h",
    [(2, "h", unknown("h"))],
    2,
    ["`hp`"],
    ["intro h"],
)
case(
    "lean3-assume",
    "logic",
    "theorem t16 (p : Prop) : p → p := by",
    "  assume hp\n  exact hp",
    [(2, "assume", "unknown tactic")],
    2,
    ["intro hp", "`intro`"],
    [],
    wording="corpus",
)
case(
    "lean3-begin-end",
    "logic",
    "theorem t17 (p : Prop) (hp : p) : p :=",
    "begin\n  exact hp\nend",
    [(2, "begin", unknown("begin"))],
    2,
    [":= by"],
    [],
    wording="corpus",
)
case(
    "double-negation-intro-missing",
    "logic",
    "theorem t18 (p : Prop) : p → ¬¬p := by",
    "  intro hp\n  exact hp",
    [(3, "hp", mismatch("hp", "p", "¬¬p"))],
    3,
    ["intro hnp", "hnp hp", "fun hnp"],
    [GENERIC_REWRITE, ".symm"],
)
case(
    "modus-ponens-forgot-argument",
    "logic",
    "theorem t19 (p q : Prop) (hp : p) (hpq : p → q) : q := by",
    "  exact hpq",
    [(2, "hpq", mismatch("hpq", "p → q", "q"))],
    2,
    ["hpq hp", "apply hpq"],
    ["intro", GENERIC_REWRITE],
)
case(
    "apply-then-stop",
    "logic",
    "theorem t20 (p q : Prop) (hp : p) (hpq : p → q) : q := by",
    "  apply hpq",
    [(1, "by", unsolved("p q : Prop\nhp : p\nhpq : p → q\n⊢ p"))],
    2,
    ["exact hp"],
    ["intro"],
)
case(
    "intro-too-many-names",
    "logic",
    "theorem t21 (p q : Prop) (hq : q) : p → q := by",
    "  intro hp hq'\n  exact hq",
    [(2, "intro hp hq'", INTRO_N)],
    2,
    ["intro hp`", "one name", "only one"],
    ["constructor"],
    wording="lean",
)
case(
    "constructor-on-implication",
    "logic",
    "theorem t22 (p q : Prop) (hq : q) : p → q ∧ q := by",
    "  constructor",
    [
        (
            2,
            "constructor",
            "Tactic `constructor` failed: target is not an inductive datatype\n\n"
            "p q : Prop\nhq : q\n⊢ p → q ∧ q",
        )
    ],
    2,
    ["intro"],
    ["Or.inl"],
)
case(
    "and-comm-missing-bullet",
    "logic",
    "theorem t23 (p q : Prop) (h : p ∧ q) : q ∧ p := by",
    "  constructor\n  exact h.2",
    [(1, "by", unsolved("case right\np q : Prop\nh : p ∧ q\n⊢ p"))],
    3,
    ["h.1", "h.left"],
    ["Delete"],
    explain=["case"],
)
case(
    "iff-constructor-one-side",
    "logic",
    "theorem t24 (p : Prop) : p ↔ p := by",
    "  constructor\n  · intro h\n    exact h",
    [(1, "by", unsolved("case mpr\np : Prop\n⊢ p → p"))],
    4,
    ["intro"],
    ["Delete"],
    explain=["case"],
)
case(
    "exact-and-intro-wrong-order",
    "logic",
    "theorem t25 (p q : Prop) (hp : p) (hq : q) : p ∧ q := by",
    "  exact ⟨hq, hp⟩",
    [(2, "hq", mismatch("hq", "q", "p"))],
    2,
    ["⟨hp, hq⟩", "swap", "order"],
    [GENERIC_REWRITE],
)
case(
    "sorry-left-in-bullet",
    "logic",
    "theorem t26 (p q : Prop) : p ∧ q → q ∧ p := by",
    "  intro h\n  constructor\n  · exact h.2\n  · sorry",
    [(1, "theorem", SORRY)],
    5,
    ["h.1", "h.left", "replace the `sorry`"],
    [],
)
case(
    "lean3-comma-separated",
    "logic",
    "theorem t27 (p q : Prop) (hp : p) (hq : q) : p ∧ q := by",
    "  constructor,\n  exact hp,\n  exact hq",
    [(2, ",", "unexpected token ','; expected command")],
    2,
    ["new line", "newline", "`;`"],
    [],
    wording="corpus",
)
case(
    "lean3-curly-blocks",
    "logic",
    "theorem t28 (p q : Prop) (hp : p) (hq : q) : p ∧ q := by",
    "  constructor\n  { exact hp },\n  { exact hq }",
    [(3, ",", "unexpected token ','; expected command")],
    3,
    ["·"],
    [],
    wording="corpus",
)
case(
    "exfalso-false-hyp",
    "logic",
    "theorem t29 (p : Prop) (h : False) : p := by",
    "  exact h",
    [(2, "h", mismatch("h", "False", "p"))],
    2,
    ["h.elim", "False.elim", "contradiction", "exfalso", "nomatch", "cases h"],
    [GENERIC_REWRITE],
)
case(
    "lean3-or-inl-lowercase",
    "logic",
    "theorem t30 (p q : Prop) (hp : p) : p ∨ q := by",
    "  exact or.inl hp",
    [(2, "or.inl", unknown("or.inl"))],
    2,
    ["Or.inl"],
    [],
)
# ------------------------------------------------------------------ ∀ / ∃
case(
    "forall-bound-var-unknown",
    "quantifiers",
    "theorem q1 : ∀ n : Nat, n + 0 = n := by",
    "  exact Nat.add_zero n",
    [(2, "n", unknown("n"))],
    2,
    ["intro n"],
    [],
)
case(
    "forall-hyp-not-instantiated",
    "quantifiers",
    "theorem q2 (f : Nat → Nat) (h : ∀ n, f n = n) : f 5 = 5 := by",
    "  exact h",
    [(2, "h", mismatch("h", "∀ (n : Nat), f n = n", "f 5 = 5"))],
    2,
    ["h 5"],
    ["intro", GENERIC_REWRITE],
)
case(
    "exists-wrong-witness",
    "quantifiers",
    "theorem q3 : ∃ n : Nat, n + 2 = 5 := by",
    "  exact ⟨2, rfl⟩",
    [
        (
            2,
            "rfl",
            "Type mismatch\n  rfl\nhas type\n  2 + 2 = 2 + 2 : Prop\nbut is expected to "
            "have type\n  2 + 2 = 5 : Prop",
        )
    ],
    2,
    ["witness", "`3`"],
    [".symm", GENERIC_REWRITE],
)
case(
    "exists-intro-on-exists",
    "quantifiers",
    "theorem q4 : ∃ n : Nat, n > 3 := by",
    "  intro n\n  omega",
    [(2, "intro n", INTRO_N)],
    2,
    ["exists", "⟨4", "refine ⟨", "Exists.intro", "⟨_, _⟩"],
    ["re:intro \\w+ \\w+"],
    wording="lean",
)
case(
    "lean3-cases-exists",
    "quantifiers",
    "theorem q5 (h : ∃ n : Nat, n > 3) : ∃ m : Nat, m > 2 := by",
    "  cases h with n hn\n  exact ⟨n, by omega⟩",
    [(2, "n", "unexpected identifier; expected '|'")],
    2,
    ["obtain ⟨n, hn⟩ := h", "rcases h with ⟨n, hn⟩"],
    ["begin"],
)
case(
    "use-without-mathlib",
    "quantifiers",
    "theorem q6 : ∃ n : Nat, n * 2 = 8 := by",
    "  use 4",
    [(2, "use", "unknown tactic")],
    2,
    ["exists 4", "⟨4", "refine ⟨4", "Exists.intro 4"],
    [],
    wording="corpus",
)
case(
    "forall-intro-missing",
    "quantifiers",
    "theorem q7 : ∀ n : Nat, 0 ≤ n := by",
    "  exact Nat.zero_le",
    [
        (
            2,
            "Nat.zero_le",
            "Type mismatch\n  Nat.zero_le\nhas type\n  ∀ (n : Nat), 0 ≤ n : Prop\n"
            "but is expected to have type\n  ∀ (n : Nat), 0 ≤ n : Prop",
        )
    ],
    2,
    ["intro n", "fun n"],
    [GENERIC_REWRITE],
    wording="lean",
)
case(
    "exists-hyp-as-value",
    "quantifiers",
    "theorem q8 (h : ∃ n : Nat, n > 3) : ∃ m : Nat, m > 2 := by",
    "  exact ⟨h, by omega⟩",
    [(2, "h", app_mismatch("Exists.intro h", "h", "∃ n, n > 3", "Nat"))],
    2,
    ["obtain ⟨n, hn⟩ := h", "rcases h", "⟨n, hn⟩"],
    [GENERIC_REWRITE, ".symm"],
)
case(
    "decide-on-forall-nat",
    "quantifiers",
    "theorem q9 : ∀ n : Nat, n + 0 = n := by",
    "  decide",
    [
        (
            2,
            "decide",
            "failed to synthesize\n  Decidable (∀ (n : Nat), n + 0 = n)\n\nHint: "
            "Additional diagnostic information may be available using the `set_option diagnostics "
            "true` command.",
        )
    ],
    2,
    ["intro n", "intro", "induction"],
    ["(2 : ℝ)", "explicit type"],
)
case(
    "exists-goal-exact-number",
    "quantifiers",
    "theorem q10 : ∃ n : Nat, n + n = 6 := by",
    "  exact 3",
    [
        (
            2,
            "3",
            "failed to synthesize\n  OfNat (∃ n, n + n = 6) 3\nnumerals are polymorphic in "
            "Lean, but the numeral `3` cannot be used in a context where the expected type is\n"
            "  ∃ n, n + n = 6\ndue to the absence of the instance above",
        )
    ],
    2,
    ["⟨3", "exists 3", "Exists.intro 3"],
    ["(2 : ℝ)", "explicit type"],
)
case(
    "forall-apply-wrong-arg",
    "quantifiers",
    "theorem q11 (h : ∀ n : Nat, n ≤ n * n) : 3 ≤ 9 := by",
    "  exact h 9",
    [(2, "h 9", mismatch("h 9", "9 ≤ 9 * 9", "3 ≤ 9"))],
    2,
    ["h 3", "decide", "omega"],
    [GENERIC_REWRITE, ".symm"],
)
case(
    "forall-intro-name-clash",
    "quantifiers",
    "theorem q12 (p : Nat → Prop) (h : ∀ n, p n) : ∀ m, p m := by",
    "  exact h m",
    [(2, "m", unknown("m"))],
    2,
    ["intro m", "fun m"],
    [],
)
# ------------------------------------------------------------------ Nat
case(
    "simp-on-mul-comm",
    "nat",
    "theorem n1 (a b : Nat) : a * b = b * a := by",
    "  simp",
    [(2, "simp", "simp made no progress")],
    2,
    ["Nat.mul_comm"],
    ["use `omega`", "`rfl`", "rw [h]"],
    wording="lean",
)
case(
    "omega-on-mul-comm",
    "nat",
    "theorem n2 (a b : Nat) : a * b = b * a := by",
    "  omega",
    [
        (
            2,
            "omega",
            "omega could not prove the goal:\na possible counterexample may satisfy the "
            "constraints\n  c - d ≤ -1\n  d ≥ 0\n  c ≥ 0\nwhere\n c := a * b\n d := b * a",
        )
    ],
    2,
    ["Nat.mul_comm"],
    ["Nat.mul_le_mul", "nlinarith"],
    wording="lean",
)
case(
    "rfl-zero-add",
    "nat",
    "theorem n3 (n : Nat) : 0 + n = n := by",
    "  rfl",
    [
        (
            2,
            "rfl",
            "tactic 'rfl' failed, the left-hand side\n  0 + n\nis not definitionally equal "
            "to the right-hand side\n  n\nn : Nat\n⊢ 0 + n = n",
        )
    ],
    2,
    ["omega", "simp", "Nat.zero_add"],
    ["decide"],
)
case(
    "decide-false-statement",
    "nat",
    "theorem n4 : 2 + 2 = 5 := by",
    "  decide",
    [(2, "decide", "tactic 'decide' proved that the proposition\n  2 + 2 = 5\nis false")],
    2,
    ["false"],
    ["omega", "simp"],
)
case(
    "decide-free-variable",
    "nat",
    "theorem n5 (n : Nat) : n + 1 > n := by",
    "  decide",
    [
        (
            2,
            "decide",
            "tactic 'decide' failed for proposition\n  n + 1 > n\nsince its 'Decidable' "
            "instance reduced to\n  Nat.decLt n (n + 1)\nrather than to the 'isTrue' constructor.",
        )
    ],
    2,
    ["omega", "Nat.lt_succ_self", "Nat.lt_add_one"],
    ["(2 : ℝ)"],
)
case(
    "lean3-nat-succ-le-iff-mpr",
    "nat",
    "theorem n6 (a b : Nat) (h : a < b) : a + 1 ≤ b := by",
    "  exact nat.succ_le_iff.mpr h",
    [(2, "nat.succ_le_iff.mpr", unknown("nat.succ_le_iff.mpr"))],
    2,
    ["Nat.succ_le_iff.mpr"],
    ["re:`Nat\\.succ_le_iff`"],
)
case(
    "lean3-nat-add-comm",
    "nat",
    "theorem n7 (a b : Nat) : a + b = b + a := by",
    "  exact nat.add_comm a b",
    [(2, "nat.add_comm", unknown("nat.add_comm"))],
    2,
    ["Nat.add_comm"],
    [],
)
case(
    "lemma-name-typo",
    "nat",
    "theorem n8 (a b : Nat) : a * b = b * a := by",
    "  exact Nat.mul_com a b",
    [(2, "Nat.mul_com", unknown("Nat.mul_com"))],
    2,
    ["Nat.mul_comm"],
    [],
)
case(
    "le-of-lt-needed",
    "nat",
    "theorem n9 (a b : Nat) (h : a < b) : a ≤ b := by",
    "  exact h",
    [(2, "h", mismatch("h", "a < b", "a ≤ b"))],
    2,
    ["Nat.le_of_lt", "omega", "h.le"],
    [GENERIC_REWRITE, ".symm"],
)
case(
    "eq-symm-needed",
    "nat",
    "theorem n10 (a b : Nat) (h : b = a) : a = b := by",
    "  exact h",
    [(2, "h", mismatch("h", "b = a", "a = b"))],
    2,
    ["h.symm", "Eq.symm", "omega"],
    [GENERIC_REWRITE],
)
case(
    "le-succ-vs-lt",
    "nat",
    "theorem n11 (n : Nat) : n < n + 1 := by",
    "  exact Nat.le_succ n",
    [(2, "Nat.le_succ n", mismatch("Nat.le_succ n", "n ≤ n + 1", "n < n + 1"))],
    2,
    ["Nat.lt_succ_self", "omega", "Nat.lt_add_one"],
    [GENERIC_REWRITE, ".symm"],
)
case(
    "add-comm-for-assoc",
    "nat",
    "theorem n12 (a b c : Nat) : a + b + c = a + (b + c) := by",
    "  exact Nat.add_comm a b",
    [
        (
            2,
            "Nat.add_comm a b",
            mismatch("Nat.add_comm a b", "a + b = b + a", "a + b + c = a + (b + c)"),
        )
    ],
    2,
    ["Nat.add_assoc", "omega"],
    [".symm"],
)
case(
    "apply-le-refl-on-le-succ",
    "nat",
    "theorem n13 (n : Nat) : n ≤ n + 1 := by",
    "  apply Nat.le_refl",
    [
        (
            2,
            "apply Nat.le_refl",
            "Tactic `apply` failed: could not unify the conclusion of "
            "`Nat.le_refl`\n  ?n ≤ ?n\nwith the goal\n  n ≤ n + 1\n\nn : Nat\n⊢ n ≤ n + 1",
        )
    ],
    2,
    ["Nat.le_succ", "omega", "Nat.le_add_right"],
    ["rfl"],
    explain=["?n"],
)
case(
    "linarith-without-mathlib",
    "nat",
    "theorem n14 (a b : Nat) (h : a < b) : a + 1 ≤ b := by",
    "  linarith",
    [(2, "linarith", "unknown tactic")],
    2,
    ["omega"],
    [],
    wording="corpus",
)
case(
    "norm-num-without-mathlib",
    "nat",
    "theorem n15 : 2 ^ 10 = 1024 := by",
    "  norm_num",
    [(2, "norm_num", "unknown tactic")],
    2,
    ["decide", "rfl", "simp"],
    [],
    wording="corpus",
)
case(
    "ring-without-mathlib",
    "nat",
    "theorem n16 (a b c : Nat) : (a + b) * c = a * c + b * c := by",
    "  ring",
    [(2, "ring", "unknown tactic")],
    2,
    ["Nat.add_mul", "Nat.right_distrib"],
    ["omega"],
    wording="corpus",
)
case(
    "nat-sub-simp-unsolved",
    "nat",
    "theorem n17 (n : Nat) (h : 0 < n) : n - 1 + 1 = n := by",
    "  simp",
    [(2, "simp", "simp made no progress")],
    2,
    ["omega", "Nat.sub_add_cancel"],
    ["rfl", "decide"],
    wording="lean",
)
case(
    "le-trans-missing-arg",
    "nat",
    "theorem n18 (a b c : Nat) (h₁ : a ≤ b) (h₂ : b ≤ c) : a ≤ c := by",
    "  exact Nat.le_trans h₁",
    [(2, "Nat.le_trans h₁", mismatch("Nat.le_trans h₁", "b ≤ ?m.217 → a ≤ ?m.217", "a ≤ c"))],
    2,
    ["h₂", "omega"],
    [GENERIC_REWRITE],
    explain=["?m"],
)
case(
    "lt-of-lt-of-le-wrong-hyp",
    "nat",
    "theorem n19 (a b c : Nat) (h₁ : a < b) (h₂ : b < c) : a < c := by",
    "  exact Nat.lt_of_lt_of_le h₁ h₂",
    [(2, "h₂", app_mismatch("Nat.lt_of_lt_of_le h₁ h₂", "h₂", "b < c", "b ≤ c"))],
    2,
    ["Nat.lt_trans", "Nat.le_of_lt", "omega", "h₂.le"],
    [GENERIC_REWRITE, ".symm"],
)
case(
    "succ-le-of-lt-args",
    "nat",
    "theorem n20 (a b : Nat) (h : a < b) : a + 1 ≤ b := by",
    "  exact Nat.succ_le_of_lt b",
    [
        (
            2,
            "b",
            app_mismatch("Nat.succ_le_of_lt b", "b", "Nat", "?n < ?m").replace(
                " : Prop\nbut", " : Type\nbut"
            ),
        )
    ],
    2,
    ["Nat.succ_le_of_lt h", "omega"],
    [".symm"],
    explain=["?n"],
)
case(
    "omega-needs-unfold",
    "nat",
    "def double (n : Nat) : Nat := 2 * n\n\ntheorem n21 (n : Nat) : double n = n + n := by",
    "  omega",
    [
        (
            4,
            "omega",
            "omega could not prove the goal:\na possible counterexample may satisfy the "
            "constraints\n  c - 2*a ≥ 1\n  a ≥ 0\n  c ≥ 0\nwhere\n a := n\n c := double n",
        )
    ],
    4,
    ["unfold double", "simp only [double]", "simp [double]", "rw [double]"],
    ["Nat.mul_le_mul"],
    wording="lean",
)
case(
    "rfl-on-add-succ",
    "nat",
    "theorem n22 (a b : Nat) : a + (b + 1) = (a + b) + 1 := by",
    "  exact rfl.symm.symm\n  rfl",
    [(3, "rfl", NO_GOALS)],
    3,
    ["Delete", "remove"],
    ["omega"],
)
case(
    "nat-pow-two-rfl",
    "nat",
    "theorem n23 (n : Nat) : n ^ 2 = n * n := by",
    "  rfl",
    [
        (
            2,
            "rfl",
            "The rfl tactic failed. Possible reasons:\n- The goal is not a reflexive relation "
            "(neither `=` nor a relation with a @[refl] lemma).\n- The arguments of the relation are not "
            "equal.\nTry using the reflexivity lemma for your relation explicitly, e.g. `exact Eq.refl _` "
            "or\n`exact HEq.rfl` etc.\n\nn : Nat\n⊢ n ^ 2 = n * n",
        )
    ],
    2,
    ["Nat.pow_two", "Nat.pow_succ", "simp [Nat.pow_succ]"],
    ["decide", "omega"],
    wording="lean",
)
case(
    "mul-comm-arguments",
    "nat",
    "theorem n24 (a b : Nat) : a * b = b * a := by",
    "  exact Nat.mul_comm b a",
    [(2, "Nat.mul_comm b a", mismatch("Nat.mul_comm b a", "b * a = a * b", "a * b = b * a"))],
    2,
    ["Nat.mul_comm a b", ".symm"],
    [GENERIC_REWRITE],
)
case(
    "zero-lt-succ-name",
    "nat",
    "theorem n25 (n : Nat) : 0 < n + 1 := by",
    "  exact Nat.succ_pos' n",
    [(2, "Nat.succ_pos'", unknown("Nat.succ_pos'"))],
    2,
    ["Nat.succ_pos", "omega", "Nat.zero_lt_succ"],
    [],
)
case(
    "le-refl-core-name",
    "nat",
    "theorem n26 (n : Nat) : n ≤ n := by",
    "  exact le_refl n",
    [(2, "le_refl", unknown("le_refl"))],
    2,
    ["Nat.le_refl"],
    [],
)
case(
    "simp-at-missing-hyp",
    "nat",
    "theorem n27 (x : Nat) (h : x + 0 = 3) : x = 3 := by",
    "  simp at hx\n  exact h",
    [(2, "hx", unknown("hx"))],
    2,
    ["simp at h", "`h`"],
    [],
)
case(
    "even-def-exists",
    "nat",
    "theorem n28 : ∃ k : Nat, 10 = 2 * k := by",
    "  exact ⟨4, rfl⟩",
    [
        (
            2,
            "rfl",
            "Type mismatch\n  rfl\nhas type\n  10 = 10 : Prop\nbut is expected to "
            "have type\n  10 = 2 * 4 : Prop",
        )
    ],
    2,
    ["witness", "`5`"],
    [".symm", GENERIC_REWRITE],
)
# ------------------------------------------------------------------ casts
case(
    "cast-zero-le",
    "casts",
    "theorem c1 (n : Nat) : (0 : Int) ≤ n := by",
    "  exact Nat.zero_le n",
    [(2, "Nat.zero_le n", mismatch("Nat.zero_le n", "0 ≤ n", "0 ≤ ↑n"))],
    2,
    ["Int.natCast_nonneg", "exact_mod_cast", "omega", "Int.ofNat_nonneg"],
    [GENERIC_REWRITE],
    explain=["↑"],
)
case(
    "cast-succ-pos",
    "casts",
    "theorem c2 (n : Nat) : (n : Int) + 1 > 0 := by",
    "  exact Nat.succ_pos n",
    [(2, "Nat.succ_pos n", mismatch("Nat.succ_pos n", "0 < Nat.succ n", "↑n + 1 > 0"))],
    2,
    ["omega", "exact_mod_cast", "push_cast"],
    [GENERIC_REWRITE],
    explain=["↑"],
)
case(
    "cast-eq-inj",
    "casts",
    "theorem c3 (a b : Nat) (h : (a : Int) = b) : a = b := by",
    "  exact h",
    [(2, "h", mismatch("h", "↑a = ↑b", "a = b"))],
    2,
    ["Int.ofNat_inj", "exact_mod_cast", "omega", "Int.natCast_inj"],
    [".symm", GENERIC_REWRITE],
    explain=["↑"],
)
case(
    "cast-le-lift",
    "casts",
    "theorem c4 (a b : Nat) (h : a ≤ b) : (a : Int) ≤ b := by",
    "  exact h",
    [(2, "h", mismatch("h", "a ≤ b", "↑a ≤ ↑b"))],
    2,
    ["Int.ofNat_le", "exact_mod_cast", "omega", "Int.natCast_le"],
    [".symm", GENERIC_REWRITE],
    explain=["↑"],
)
case(
    "cast-sub-int",
    "casts",
    "theorem c5 (a : Nat) : ((a - 1 : Nat) : Int) ≤ a := by",
    "  simp",
    [(2, "simp", "unsolved goals\na : Nat\n⊢ ↑(a - 1) ≤ ↑a")],
    2,
    ["omega", "exact_mod_cast", "Nat.sub_le"],
    ["decide"],
    explain=["↑"],
)
case(
    "int-neg-nat-literal",
    "casts",
    "theorem c6 : (-3 : Int) < 0 := by",
    "  exact Nat.zero_lt_succ 2",
    [(2, "Nat.zero_lt_succ 2", mismatch("Nat.zero_lt_succ 2", "0 < Nat.succ 2", "-3 < 0"))],
    2,
    ["decide", "omega"],
    [GENERIC_REWRITE],
)
case(
    "cast-add-hyp",
    "casts",
    "theorem c7 (a b : Nat) (h : a + b = 10) : (a : Int) + b = 10 := by",
    "  exact h",
    [(2, "h", mismatch("h", "a + b = 10", "↑a + ↑b = 10"))],
    2,
    ["exact_mod_cast", "omega", "push_cast"],
    [".symm", GENERIC_REWRITE],
    explain=["↑"],
)
case(
    "int-to-nat-goal-type",
    "casts",
    "theorem c8 (n : Int) (h : 0 ≤ n) : (n.toNat : Int) = n := by",
    "  rfl",
    [
        (
            2,
            "rfl",
            "The rfl tactic failed. Possible reasons:\n- The goal is not a reflexive relation "
            "(neither `=` nor a relation with a @[refl] lemma).\n- The arguments of the relation are not "
            "equal.\nTry using the reflexivity lemma for your relation explicitly, e.g. `exact Eq.refl _` "
            "or\n`exact HEq.rfl` etc.\n\nn : Int\nh : 0 ≤ n\n⊢ ↑n.toNat = n",
        )
    ],
    2,
    ["Int.toNat_of_nonneg", "omega"],
    ["decide"],
    wording="lean",
    explain=["↑"],
)
# ------------------------------------------------------------------ List
case(
    "list-lemma-lean3-name",
    "list",
    "theorem l1 (xs ys : List Nat) : (xs ++ ys).length = xs.length + ys.length := by",
    "  exact list.length_append xs ys",
    [(2, "list.length_append", unknown("list.length_append"))],
    2,
    ["List.length_append"],
    [],
)
case(
    "list-lemma-wrong-name",
    "list",
    "theorem l2 (xs ys : List Nat) : (xs ++ ys).length = xs.length + ys.length := by",
    "  rw [List.append_length]",
    [(2, "List.append_length", "Unknown constant `List.append_length`")],
    2,
    ["List.length_append"],
    [],
)
case(
    "list-induction-missing-cons",
    "list",
    "theorem l3 (xs : List Nat) : (xs ++ []).length = xs.length := by",
    "  induction xs with\n  | nil => rfl",
    [(2, "induction xs with", "Alternative `cons` has not been provided")],
    3,
    ["| cons"],
    [],
)
case(
    "list-rfl-reverse",
    "list",
    "theorem l4 (xs : List Nat) : xs.reverse.reverse = xs := by",
    "  rfl",
    [
        (
            2,
            "rfl",
            "The rfl tactic failed. Possible reasons:\n- The goal is not a reflexive relation "
            "(neither `=` nor a relation with a @[refl] lemma).\n- The arguments of the relation are not "
            "equal.\nTry using the reflexivity lemma for your relation explicitly, e.g. `exact Eq.refl _` "
            "or\n`exact HEq.rfl` etc.\n\nxs : List Nat\n⊢ xs.reverse.reverse = xs",
        )
    ],
    2,
    ["List.reverse_reverse", "simp"],
    ["decide", "omega"],
    wording="lean",
)
case(
    "list-lean3-induction",
    "list",
    "theorem l5 (xs : List Nat) : xs ++ [] = xs := by",
    "  induction xs with x xs ih\n  · rfl\n  · simp",
    [(2, "x", "unexpected identifier; expected '|'")],
    2,
    ["| nil", "| cons"],
    ["begin"],
)
case(
    "list-omega-length",
    "list",
    "theorem l6 (xs : List Nat) : (0 :: xs).length = xs.length + 1 := by",
    "  omega",
    [
        (
            2,
            "omega",
            "omega could not prove the goal:\na possible counterexample may satisfy the "
            "constraints\n  b - c ≥ 1\n  c ≥ 0\n  b ≥ 0\nwhere\n b := (0 :: xs).length\n c := xs.length",
        )
    ],
    2,
    ["List.length_cons", "simp", "rfl"],
    ["Nat.mul_le_mul"],
    wording="lean",
)
case(
    "list-cons-case-unsolved",
    "list",
    "theorem l7 (xs : List Nat) : (xs ++ []).length = xs.length := by",
    "  induction xs with\n  | nil => rfl\n  | cons x xs ih => skip",
    [
        (
            4,
            "=>",
            unsolved(
                "case cons\nx : Nat\nxs : List Nat\nih : (xs ++ []).length = xs.length\n"
                "⊢ (x :: xs ++ []).length = (x :: xs).length"
            ),
        )
    ],
    4,
    ["simp", "List.append_nil"],
    ["decide"],
    explain=["case"],
)
case(
    "list-length-nil-name",
    "list",
    "theorem l8 : ([] : List Nat).length = 0 := by",
    "  exact List.length_nil'",
    [(2, "List.length_nil'", unknown("List.length_nil'"))],
    2,
    ["List.length_nil", "rfl"],
    [],
)
case(
    "list-mem-cons",
    "list",
    "theorem l9 (x : Nat) (xs : List Nat) : x ∈ x :: xs := by",
    "  exact List.mem_cons_self",
    [(2, "List.mem_cons_self", mismatch("List.mem_cons_self", "?a ∈ ?a :: ?l", "x ∈ x :: xs"))],
    2,
    ["List.mem_cons_self x xs", "simp"],
    [GENERIC_REWRITE],
    wording="lean",
    explain=["?a"],
)
# ------------------------------------------------------------------ induction
case(
    "lean3-induction-nat",
    "induction",
    "theorem i1 (n : Nat) : 0 + n = n := by",
    "  induction n with n ih\n  · rfl\n  · omega",
    [(2, "n", "unexpected identifier; expected '|'")],
    2,
    ["| zero", "| succ"],
    ["begin"],
)
case(
    "induction-missing-succ",
    "induction",
    "theorem i2 (n : Nat) : 0 + n = n := by",
    "  induction n with\n  | zero => rfl",
    [(2, "induction n with", "Alternative `succ` has not been provided")],
    3,
    ["| succ"],
    [],
)
case(
    "induction-succ-rfl-fails",
    "induction",
    "theorem i3 (n : Nat) : 0 + n = n := by",
    "  induction n with\n  | zero => rfl\n  | succ k ih => rfl",
    [
        (
            4,
            "rfl",
            "The rfl tactic failed. Possible reasons:\n- The goal is not a reflexive relation "
            "(neither `=` nor a relation with a @[refl] lemma).\n- The arguments of the relation are not "
            "equal.\nTry using the reflexivity lemma for your relation explicitly, e.g. `exact Eq.refl _` "
            "or\n`exact HEq.rfl` etc.\n\ncase succ\nk : Nat\nih : 0 + k = k\n⊢ 0 + (k + 1) = k + 1",
        )
    ],
    4,
    ["ih", "omega", "Nat.add_succ"],
    ["decide"],
    wording="lean",
)
case(
    "induction-inaccessible-names",
    "induction",
    "theorem i4 (n : Nat) : 0 + n = n := by",
    "  induction n\n  · rfl\n  · simp",
    [(4, "simp", "unsolved goals\ncase succ\nn✝ : Nat\na✝ : 0 + n✝ = n✝\n⊢ 0 + (n✝ + 1) = n✝ + 1")],
    2,
    ["induction n with", "rename_i", "| succ"],
    ["decide"],
    explain=["✝"],
)
case(
    "induction-ih-not-used",
    "induction",
    "theorem i5 (n : Nat) : n * 1 = n := by",
    "  induction n with\n  | zero => rfl\n  | succ k ih => simp",
    [(4, "simp", "simp made no progress")],
    4,
    ["Nat.mul_one", "Nat.mul_succ", "omega", "ih"],
    ["decide"],
    wording="lean",
)
case(
    "induction-wrong-alt-name",
    "induction",
    "theorem i6 (n : Nat) : n + 0 = n := by",
    "  induction n with\n  | zero => rfl\n  | cons k ih => rfl",
    [(4, "cons", "Invalid alternative name `cons`: Expected `succ`")],
    4,
    ["| succ"],
    [],
)
case(
    "induction-case-tag-unsolved",
    "induction",
    "theorem i7 (n : Nat) : 0 + n = n := by",
    "  induction n with\n  | zero => rfl\n  | succ k ih => rw [Nat.add_succ]",
    [(4, "=>", unsolved("case succ\nk : Nat\nih : 0 + k = k\n⊢ (0 + k).succ = k + 1"))],
    4,
    ["ih", "rw [ih]", "omega"],
    ["decide"],
    explain=["case"],
)
case(
    "cases-nat-zero-unsolved",
    "induction",
    "theorem i8 (n : Nat) (h : n ≠ 0) : 0 < n := by",
    "  cases n with\n  | zero => rfl\n  | succ m => omega",
    [
        (
            3,
            "rfl",
            "The rfl tactic failed. Possible reasons:\n- The goal is not a reflexive relation "
            "(neither `=` nor a relation with a @[refl] lemma).\n- The arguments of the relation are not "
            "equal.\nTry using the reflexivity lemma for your relation explicitly, e.g. `exact Eq.refl _` "
            "or\n`exact HEq.rfl` etc.\n\ncase zero\nh : 0 ≠ 0\n⊢ 0 < 0",
        )
    ],
    3,
    ["absurd", "contradiction", "h rfl", "exact absurd rfl h", "omega", "simp at h"],
    ["decide"],
    wording="lean",
)
# ------------------------------------------------------------------ calc
case(
    "calc-step-chain-broken",
    "calc",
    "theorem k1 (a b c : Nat) (h₁ : a = b) (h₂ : b = c) : a = c := by",
    "  calc a = b := h₁\n    _ = c := h₂\n    c = c := rfl",
    [
        (
            4,
            "c = c",
            "invalid 'calc' step, left-hand side is\n  c : Nat\nprevious right-hand side is\n"
            "  c : Nat",
        )
    ],
    4,
    ["Delete", "remove"],
    [],
    wording="lean",
)
case(
    "calc-step-lhs-mismatch",
    "calc",
    "theorem k2 (a b c : Nat) (h₁ : a = b) (h₂ : b = c) : a = c := by",
    "  calc a = b := h₁\n    c = b := h₂.symm",
    [
        (
            3,
            "c = b",
            "invalid 'calc' step, left-hand side is\n  c : Nat\nbut previous right-hand "
            "side is\n  b : Nat",
        )
    ],
    3,
    ["_ = c", "`_`"],
    [],
    wording="corpus",
)
case(
    "calc-step-wrong-proof",
    "calc",
    "theorem k3 (a b : Nat) : a + b = b + a := by",
    "  calc a + b = b + a := by rfl",
    [
        (
            2,
            "rfl",
            "The rfl tactic failed. Possible reasons:\n- The goal is not a reflexive relation "
            "(neither `=` nor a relation with a @[refl] lemma).\n- The arguments of the relation are not "
            "equal.\nTry using the reflexivity lemma for your relation explicitly, e.g. `exact Eq.refl _` "
            "or\n`exact HEq.rfl` etc.\n\na b : Nat\n⊢ a + b = b + a",
        )
    ],
    2,
    ["Nat.add_comm", "omega"],
    ["decide"],
    wording="lean",
)
case(
    "calc-ends-wrong-term",
    "calc",
    "theorem k4 (a b c : Nat) (h₁ : a = b) (h₂ : b = c) : a = c := by",
    "  calc a = b := h₁\n    _ = b := rfl",
    [
        (
            2,
            "calc",
            "Type mismatch\n  calc a = b := h₁\n  _ = b := rfl\nhas type\n  a = b : Prop\n"
            "but is expected to have type\n  a = c : Prop",
        )
    ],
    3,
    ["h₂", "_ = c"],
    [".symm"],
    wording="lean",
)
case(
    "calc-lean3-dots",
    "calc",
    "theorem k5 (a b c : Nat) (h₁ : a = b) (h₂ : b = c) : a = c := by",
    "  calc a = b : h₁\n  ... = c : h₂",
    [(2, ":", "unexpected token ':'; expected ':='")],
    2,
    [":= h₁", ":="],
    [],
    wording="lean",
)
case(
    "calc-le-step-missing",
    "calc",
    "theorem k6 (a b c : Nat) (h₁ : a ≤ b) (h₂ : b ≤ c) : a ≤ c := by",
    "  calc a ≤ b := h₁\n    _ ≤ c := h₁",
    [(3, "h₁", mismatch("h₁", "a ≤ b", "b ≤ c"))],
    3,
    ["h₂"],
    [".symm", GENERIC_REWRITE],
)
# ------------------------------------------------------------------ rewriting
case(
    "rw-without-brackets",
    "rewriting",
    "theorem r1 (x : Nat) (h : x = 2) : x + x = 4 := by",
    "  rw h",
    [(2, "h", "unexpected identifier; expected '['")],
    2,
    ["rw [h]"],
    [],
    wording="corpus",
)
case(
    "rw-wrong-direction",
    "rewriting",
    "theorem r2 (a b c : Nat) (h : a = b) (h' : b + 1 = c) : a + 1 = c := by",
    "  rw [h']\n  rw [h]",
    [
        (
            2,
            "h'",
            "Tactic `rewrite` failed: Did not find an occurrence of the pattern\n  b + 1\nin "
            "the target expression\n  a + 1 = c\n\na b c : Nat\nh : a = b\nh' : b + 1 = c\n⊢ a + 1 = c",
        )
    ],
    2,
    ["rw [h]", "← h'"],  # label fixed: `rw [← h']` first also works
    [],
)
case(
    "rw-needs-reverse",
    "rewriting",
    "theorem r3 (a b : Nat) (h : a = b) : b + 0 = a := by",
    "  rw [h]\n  simp",
    [
        (
            2,
            "h",
            "Tactic `rewrite` failed: Did not find an occurrence of the pattern\n  a\nin the "
            "target expression\n  b + 0 = a\n\na b : Nat\nh : a = b\n⊢ b + 0 = a",
        )
    ],
    2,
    ["← h", "h.symm", "omega", "simp [h]"],
    [],
)
case(
    "lean3-rw-at-h-goal",
    "rewriting",
    "theorem r4 (a b : Nat) (h : a = b) (h2 : a + 1 = 3) : b + 1 = 3 := by",
    "  rw h at h2 ⊢\n  exact h2",
    [(2, "h", "unexpected identifier; expected '['")],
    2,
    ["rw [h] at h2", "rw [h] at"],
    [],
    wording="corpus",
)
case(
    "rw-lemma-instantiated-wrong",
    "rewriting",
    "theorem r5 (a b c : Nat) : a + b + c = a + c + b := by",
    "  rw [Nat.add_comm a c]",
    [
        (
            2,
            "Nat.add_comm a c",
            "Tactic `rewrite` failed: Did not find an occurrence of the pattern\n"
            "  a + c\nin the target expression\n  a + b + c = a + c + b\n\na b c : Nat\n"
            "⊢ a + b + c = a + c + b",
        )
    ],
    2,
    ["Nat.add_right_comm", "omega", "ac_rfl"],
    [],
)
case(
    "rw-hyp-not-equation",
    "rewriting",
    "theorem r6 (a b : Nat) (h : a ≤ b) : a ≤ b + 1 := by",
    "  rw [h]",
    [
        (
            2,
            "h",
            "Tactic `rewrite` failed: Equality or iff proof expected\n  a ≤ b\n\na b : Nat\n"
            "h : a ≤ b\n⊢ a ≤ b + 1",
        )
    ],
    2,
    ["omega", "Nat.le_succ_of_le", "Nat.le_trans"],
    ["← h"],
    wording="lean",
)
case(
    "rw-closes-then-rfl",
    "rewriting",
    "theorem r7 (a b : Nat) (h : a = b) : a + 1 = b + 1 := by",
    "  rw [h]\n  rfl",
    [(3, "rfl", NO_GOALS)],
    3,
    ["Delete", "remove"],
    [],
)
case(
    "rw-at-unknown-hyp",
    "rewriting",
    "theorem r8 (a b : Nat) (h : a = b) (h2 : a > 0) : b > 0 := by",
    "  rw [h] at h3\n  exact h2",
    [(2, "h3", unknown("h3"))],
    2,
    ["h2"],
    [],
)
case(
    "simp-only-no-progress",
    "rewriting",
    "theorem r9 (a b : Nat) (h : a = b) : a + 0 = b := by",
    "  simp only [h]\n  rfl",
    [(3, "rfl", NO_GOALS)],
    3,
    ["Delete", "remove"],
    [],
)
case(
    "rw-add-zero-name",
    "rewriting",
    "theorem r10 (a : Nat) : a + 0 = a := by",
    "  rw [add_zero]",
    [(2, "add_zero", unknown("add_zero"))],
    2,
    ["Nat.add_zero"],
    [],
)
case(
    "rw-comm-loops-direction",
    "rewriting",
    "theorem r11 (a b : Nat) (h : b = a) : a + 1 = b + 1 := by",
    "  rw [h]\n  exact h",
    [(3, "h", NO_GOALS)],
    3,
    ["Delete", "remove"],
    [],
)
case(
    "sorry-whole-proof",
    "rewriting",
    "theorem r12 (n : Nat) : n ≤ n + 1 := by",
    "  sorry",
    [(1, "theorem", SORRY)],
    2,
    ["omega", "Nat.le_succ", "replace the `sorry`"],
    [],
    explain=[],
)
case(
    "exact-sorryax-shown",
    "rewriting",
    "theorem r13 (a b : Nat) (h : a = b) : b = a := by",
    "  exact (sorry : b = a)",
    [(1, "theorem", SORRY)],
    2,
    ["h.symm", "replace the `sorry`"],
    [],
)


# ------------------------------------------------------------------ round 2 (issue 15 follow-up)
# Written and split (same fixed hash) BEFORE the coach was changed again; each message follows
# the shape of one recorded in ../shared/data/lean_transcripts (test named in the comment).
ROUND = 2
RFL_TACTIC = (
    "The rfl tactic failed. Possible reasons:\n- The goal is not a reflexive relation "
    "(neither `=` nor a relation with a @[refl] lemma).\n- The arguments of the relation are not "
    "equal.\nTry using the reflexivity lemma for your relation explicitly, e.g. `exact Eq.refl _` "
    "or\n`exact HEq.rfl` etc.\n\n"
)

# lean4 tests/lean/361: an `Or` case split leaves `case inr` with an inaccessible `h✝`.
case(
    "t-or-cases-inr-left-open",
    "logic",
    "theorem x1 (p q : Prop) (h : p ∨ q) (hpq : p → q) : q := by",
    "  cases h\n  · apply hpq\n    assumption",
    [(1, "by", unsolved("case inr\np q : Prop\nhpq : p → q\nh✝ : q\n⊢ q"))],
    4,
    ["assumption", "rename_i", "next", "case inr"],
    ["exact h✝", "Delete"],
    explain=["case", "✝"],
)
# lean4 tests/lean/1081: `rfl` against a value only a hypothesis knows.
case(
    "t-rfl-needs-the-hypothesis",
    "rewriting",
    "theorem x2 (f : Nat → Nat) (hf : ∀ x, f x = x + 1) : f 2 = 3 := by",
    "  exact rfl",
    [(2, "rfl", mismatch("rfl", "f 2 = f 2", "f 2 = 3"))],
    2,
    ["hf 2", "rw [hf]", "simp [hf]"],
    ["decide", "omega", "Nat.add_comm"],
)
# lean4 tests/lean/run/calcErrors: a calc step that does not start at the previous right side.
case(
    "t-calc-step-restarts",
    "calc",
    "theorem x3 (a b c : Nat) (h1 : a = b) (h2 : c = b) : a = c := by",
    "  calc a = b := h1\n    c = b := h2",
    [
        (
            3,
            "c = b",
            "invalid 'calc' step, left-hand side is\n  c : Nat\nprevious right-hand side is\n"
            "  b : Nat",
        )
    ],
    3,
    ["h2.symm", "_ = c", "Eq.symm h2"],
    ["Delete"],
)
# lean4 tests/lean/run/decideTactic: decide proves the proposition false.
case(
    "t-decide-false-truncated-sub",
    "nat",
    "theorem x4 : 10 - 3 ≤ 6 := by",
    "  decide",
    [(2, "decide", "tactic 'decide' proved that the proposition\n  10 - 3 ≤ 6\nis false")],
    2,
    ["false"],
    ["omega", "simp"],
)
# lean4 tests/lean/inductionErrors: the succ case of an induction left open.
case(
    "t-induction-succ-needs-ih",
    "induction",
    "theorem x5 (y : Nat) : 0 + y = y := by",
    "  induction y with\n  | zero => rfl\n  | succ y ih => rw [Nat.add_succ]",
    [(4, "| succ", unsolved("case succ\ny : Nat\nih : 0 + y = y\n⊢ (0 + y).succ = y + 1"))],
    4,
    ["rw [ih]", "rw [Nat.add_succ, ih]", "omega"],
    ["decide", "Delete"],
    explain=["case"],
)
# lean4 tests/lean/exactErrorPos: a ∀-hypothesis applied to too few arguments.
case(
    "t-forall-hyp-missing-proof-arg",
    "quantifiers",
    "theorem x6 (f : Nat → Nat) (x : Nat) (h1 : ∀ x, x > 0 → f x = x) (h2 : x > 0) : f x = x := by",
    "  exact h1 x",
    [(2, "h1 x", mismatch("h1 x", "x > 0 → f x = x", "f x = x"))],
    2,
    ["h1 x h2", "apply h1"],
    ["intro", GENERIC_REWRITE],
)
# lean4 tests/lean/hygienicIntro: a hypothesis introduced without a name cannot be used.
case(
    "t-intro-without-name",
    "logic",
    "theorem x7 (p : Prop) : p → p := by",
    "  intro\n  exact h",
    [(3, "h", unknown("h"))],
    2,
    ["intro h"],
    ["import Mathlib"],
)
# lean4 tests/lean/1062: a tactic after the proof is complete.
case(
    "t-extra-tactic-after-exact",
    "logic",
    "theorem x8 (p : Prop) (hp : p) : p ∧ True := by",
    "  exact ⟨hp, trivial⟩\n  trivial",
    [(3, "trivial", NO_GOALS)],
    3,
    ["Delete", "remove"],
    ["constructor"],
)
# lean4 tests/lean/run/rewrite: the hypothesis' left side is not in the goal.
case(
    "t-rw-hyp-lhs-not-in-goal",
    "rewriting",
    "theorem x9 (x y z : Nat) (h₁ : 0 + x = y) (h₂ : 0 + y = z) : x = z := by",
    "  rw [h₁]",
    [
        (
            2,
            "h₁",
            "Tactic `rewrite` failed: Did not find an occurrence of the pattern\n  0 + x\nin the "
            "target expression\n  x = z\n\nx y z : Nat\nh₁ : 0 + x = y\nh₂ : 0 + y = z\n⊢ x = z",
        )
    ],
    2,
    ["Nat.zero_add", "omega", "simp at"],
    ["rw [← h₁]"],
)
# lean4 tests/lean/inductionErrors: an alternative named after no constructor.
case(
    "t-induction-alt-wrong-name",
    "induction",
    "theorem x10 (n : Nat) : 0 + n = n := by",
    "  induction n with\n  | zero => rfl\n  | step n ih => rw [Nat.add_succ, ih]",
    [(4, "step", "invalid alternative name 'step'")],
    4,
    ["succ"],
    [],
)
# lean4 tests/lean/1079: an `Or` case split with one alternative missing.
case(
    "t-or-cases-missing-inr",
    "logic",
    "theorem x11 (p q : Prop) (h : p ∨ q) : q ∨ p := by",
    "  cases h with\n  | inl hp => exact Or.inr hp",
    [(2, "cases h with", "Alternative `inr` has not been provided")],
    3,
    ["| inr"],
    [],
)
# lean4 tests/lean/elseifDoErrorPos: a value passed where a proof is expected.
case(
    "t-value-passed-for-proof",
    "nat",
    "theorem x12 (n : Nat) (h : 0 < n) : n ≠ 0 := by",
    "  exact Nat.pos_iff_ne_zero.mp n",
    [
        (
            2,
            "Nat.pos_iff_ne_zero.mp n",
            "Application type mismatch: In the application\n  Nat.pos_iff_ne_zero.mp n\nthe "
            "argument\n  n\nhas type\n  Nat : Type\nbut is expected to have type\n  0 < n : Prop",
        )
    ],
    2,
    ["mp h", "Nat.ne_of_gt h", "omega"],
    ["intro", GENERIC_REWRITE],
)
# lean4 tests/lean/run/dsimpViaConst: a simplifier with nothing to do.
case(
    "t-dsimp-nothing-to-do",
    "rewriting",
    "theorem x13 (a b : Nat) (h : a = b) : b = a := by",
    "  dsimp\n  exact h.symm",
    [(2, "dsimp", "`dsimp` made no progress")],
    2,
    ["Delete", "remove"],
    ["simp only"],
)
# the application-mismatch shape of tests/lean/nameArgErrorIssue: hypotheses chained backwards.
case(
    "t-implication-chain-backwards",
    "logic",
    "theorem x14 (p q r : Prop) (hpq : p → q) (hqr : q → r) (hp : p) : r := by",
    "  exact hpq (hqr hp)",
    [(2, "hqr hp", app_mismatch("hqr hp", "hp", "p", "q"))],
    2,
    ["hqr (hpq hp)"],
    ["intro"],
)
# the type-mismatch shape of tests/lean/exactErrorPos: a ∀ used without its instance.
case(
    "t-forall-exact-without-instance",
    "quantifiers",
    "theorem x15 (P : Nat → Prop) (h : ∀ n, P n) : P 5 := by",
    "  exact h",
    [(2, "h", mismatch("h", "∀ (n : Nat), P n", "P 5"))],
    2,
    ["h 5"],
    ["intro"],
)
# tests/lean/1081 shape: the witness of an ∃ does not satisfy the property.
case(
    "t-exists-witness-off-by-one",
    "quantifiers",
    "theorem x16 : ∃ n : Nat, n + 2 = 5 := by",
    "  exact ⟨2, rfl⟩",
    [(2, "rfl", mismatch("rfl", "2 + 2 = 2 + 2", "2 + 2 = 5"))],
    2,
    ["⟨3", "3"],
    ["decide"],
)
# the 2025+ rfl wording: `xs ++ []` does not reduce (append recurses on its first list).
case(
    "t-list-append-nil-rfl",
    "list",
    "theorem x17 (xs : List Nat) : xs ++ [] = xs := by",
    "  rfl",
    [(2, "rfl", RFL_TACTIC + "xs : List Nat\n⊢ xs ++ [] = xs")],
    2,
    ["List.append_nil", "simp"],
    ["decide", "omega"],
    wording="lean",
)
# tests/lean/run/rewrite shape: `nil_append` and `append_nil` swapped.
case(
    "t-list-nil-append-swapped",
    "list",
    "theorem x18 (as bs : List Nat) : as ++ [] ++ bs = as ++ bs := by",
    "  rw [List.nil_append]",
    [
        (
            2,
            "List.nil_append",
            "Tactic `rewrite` failed: Did not find an occurrence of the pattern\n  [] ++ ?as\nin "
            "the target expression\n  as ++ [] ++ bs = as ++ bs\n\nas bs : List Nat\n"
            "⊢ as ++ [] ++ bs = as ++ bs",
        )
    ],
    2,
    ["List.append_nil", "simp"],
    [],
)
# the cast shape of the issue's `cast-zero-le`: a Nat fact for an Int goal.
case(
    "t-cast-pos-from-nat",
    "casts",
    "theorem x19 (n : Nat) (h : n > 0) : (n : Int) > 0 := by",
    "  exact h",
    [(2, "h", mismatch("h", "n > 0", "↑n > 0"))],
    2,
    ["Int.ofNat_pos", "exact_mod_cast", "omega", "Int.natCast_pos"],
    [GENERIC_REWRITE],
    explain=["↑"],
)
# Lean 3 `begin ... end` blocks: Lean 4 reads `begin` as an unknown name.
case(
    "t-lean3-begin-end",
    "logic",
    "theorem x20 (p : Prop) (hp : p) : p :=",
    "begin\n  exact hp\nend",
    [(2, "begin", unknown("begin")), (3, "exact", "unexpected token 'exact'; expected command")],
    2,
    ["re:`(:= )?by`"],
    ["Nat."],
    wording="lean",
)
# tests/lean/run/introN shape: more names than the goal has binders.
case(
    "t-intro-too-many-names",
    "logic",
    "theorem x21 (p q : Prop) (hq : q) : p → q := by",
    "  intro hp hq2\n  exact hq",
    [(2, "intro hp hq2", INTRO_N)],
    2,
    ["re:`intro hp`", "one name", "only one"],
    ["constructor"],
    wording="lean",
)
# omega's counterexample shows the statement is false without a hypothesis.
case(
    "t-omega-truncated-sub-false",
    "nat",
    "theorem x22 (a b : Nat) : a - b + b = a := by",
    "  omega",
    [
        (
            2,
            "omega",
            "omega could not prove the goal:\na possible counterexample may satisfy the "
            "constraints\n  b - a ≥ 1\n  a ≥ 0\n  b ≥ 0\nwhere\n a := a\n b := b",
        )
    ],
    2,
    ["b ≤ a", "false"],
    ["simp", "rfl"],
    wording="lean",
)
# tests/lean/run/apply shape: the lemma's conclusion does not unify with the goal.
case(
    "t-apply-le-refl-on-lt-hyp",
    "nat",
    "theorem x23 (a b : Nat) (h : a < b) : a ≤ b := by",
    "  apply Nat.le_refl",
    [
        (
            2,
            "Nat.le_refl",
            "Tactic `apply` failed: could not unify the conclusion of `Nat.le_refl`\n  ?n ≤ ?n\n"
            "with the goal\n  a ≤ b\n\na b : Nat\nh : a < b\n⊢ a ≤ b",
        )
    ],
    2,
    ["Nat.le_of_lt", "omega"],
    [],
    explain=["?n"],
)
# tests/lean/inductionErrors shape: the zero case left open after `induction`.
case(
    "t-induction-zero-left-open",
    "induction",
    "theorem x24 (n : Nat) : n * 0 = 0 := by",
    "  induction n with\n  | zero => skip\n  | succ n ih => rfl",
    [(3, "| zero", unsolved("case zero\n⊢ 0 * 0 = 0"))],
    3,
    ["rfl", "decide", "Nat.zero_mul"],
    ["Delete"],
    explain=["case"],
)

# ------------------------------------------------------------------ round 3 (all held out)
ROUND = 3


def function_expected(head: str, typ: str, arg: str) -> str:
    return (
        f"Function expected at\n  {head}\nbut this term has type\n  {typ}\n\nNote: Expected a "
        f"function because this term is being applied to the argument\n  {arg}"
    )


case(
    "u-and-nested-right",
    "logic",
    "theorem y1 (p q r : Prop) (h : p ∧ q ∧ r) : r := by",
    "  exact h.2",
    [(2, "h.2", mismatch("h.right", "q ∧ r", "r"))],
    2,
    ["h.2.2", "h.right.right"],
    ["intro", "constructor"],
)
case(
    "u-apply-or-inl-wrong-side",
    "logic",
    "theorem y2 (p q : Prop) (hq : q) : p ∨ q := by",
    "  apply Or.inl\n  exact hq",
    [(3, "hq", mismatch("hq", "q", "p"))],
    2,
    ["Or.inr", "`right`", "apply Or.inr"],
    ["intro", "constructor"],
)
case(
    "u-iff-anonymous-order",
    "logic",
    "theorem y3 (p q : Prop) (hpq : p → q) (hqp : q → p) : p ↔ q := by",
    "  exact ⟨hqp, hpq⟩",
    [(2, "hqp", mismatch("hqp", "q → p", "p → q"))],
    2,
    ["⟨hpq, hqp⟩"],
    [".symm", "intro"],
)
case(
    "u-not-goal-false-needs-apply",
    "logic",
    "theorem y4 (p q : Prop) (hnq : ¬q) (hpq : p → q) : ¬p := by",
    "  intro hp\n  exact hnq",
    [(3, "hnq", mismatch("hnq", "¬q", "False"))],
    3,
    ["hnq (hpq hp)", "apply hnq"],
    ["`contradiction`", GENERIC_REWRITE],
)
case(
    "u-exists-witness-mul",
    "exists",
    "theorem y5 : ∃ n : Nat, n * 3 = 12 := by",
    "  exact ⟨3, rfl⟩",
    [(2, "rfl", mismatch("rfl", "3 * 3 = 3 * 3", "3 * 3 = 12"))],
    2,
    ["⟨4", "re:witness `?4"],
    ["decide", "omega"],
)
case(
    "u-forall-hyp-wrong-value",
    "forall",
    "theorem y6 (f : Nat → Nat) (h : ∀ n, f n = 2 * n) : f 5 = 10 := by",
    "  exact h 10",
    [(2, "h 10", mismatch("h 10", "f 10 = 2 * 10", "f 5 = 10"))],
    2,
    ["h 5"],
    ["omega", "`rfl`"],
)
case(
    "u-modus-ponens-reversed",
    "logic",
    "theorem y7 (p q : Prop) (hp : p) (hpq : p → q) : q := by",
    "  exact hp hpq",
    [(2, "hp hpq", function_expected("hp", "p", "hpq"))],
    2,
    ["hpq hp"],
    ["intro", ".symm"],
)
case(
    "u-add-comm-args-swapped",
    "nat",
    "theorem y8 (a b : Nat) : a + b = b + a := by",
    "  exact Nat.add_comm b a",
    [(2, "Nat.add_comm b a", mismatch("Nat.add_comm b a", "b + a = a + b", "a + b = b + a"))],
    2,
    ["Nat.add_comm a b", ".symm", "omega"],
    ["Nat.mul_comm"],
)
case(
    "u-succ-ne-zero-name",
    "nat",
    "theorem y9 (n : Nat) : n + 1 ≠ 0 := by",
    "  exact Nat.succ_neq_zero n",
    [(2, "Nat.succ_neq_zero", unknown("Nat.succ_neq_zero"))],
    2,
    ["Nat.succ_ne_zero", "omega"],
    ["decide"],
)
case(
    "u-omega-nonlinear-le",
    "nat",
    "theorem y10 (n : Nat) : n ≤ n * n := by",
    "  omega",
    [
        (
            2,
            "omega",
            "omega could not prove the goal:\na possible counterexample may satisfy the "
            "constraints\n  b - c ≥ 1\n  c ≥ 0\n  b ≥ 0\nwhere\n b := n\n c := n * n",
        )
    ],
    2,
    ["Nat.le_mul_self", "induction", "cases n", "rcases n", "match n"],
    ["linarith", "decide", "nlinarith"],
    wording="lean",
)
case(
    "u-rfl-sub-add-cancel",
    "nat",
    "theorem y11 (a b : Nat) (h : b ≤ a) : a - b + b = a := by",
    "  rfl",
    [(2, "rfl", RFL_TACTIC + "a b : Nat\nh : b ≤ a\n⊢ a - b + b = a")],
    2,
    ["Nat.sub_add_cancel h", "omega"],
    ["decide", "Nat.add_sub_cancel"],
)
case(
    "u-rw-mul-zero-wrong-side",
    "rewriting",
    "theorem y12 (n : Nat) : 0 * n = 0 := by",
    "  rw [Nat.mul_zero]",
    [
        (
            2,
            "Nat.mul_zero",
            "Tactic `rewrite` failed: Did not find an occurrence of the pattern\n  ?n * 0\nin the "
            "target expression\n  0 * n = 0\n\nn : Nat\n⊢ 0 * n = 0",
        )
    ],
    2,
    ["Nat.zero_mul", "simp", "omega"],
    ["← Nat.mul_zero"],
    explain=["?n"],
)
case(
    "u-le-antisymm-args-swapped",
    "nat",
    "theorem y13 (a b : Nat) (h1 : a ≤ b) (h2 : b ≤ a) : a = b := by",
    "  exact Nat.le_antisymm h2 h1",
    [(2, "h2", app_mismatch("Nat.le_antisymm h2", "h2", "b ≤ a", "a ≤ b"))],
    2,
    ["Nat.le_antisymm h1 h2", "omega", ".symm"],
    ["intro"],
)
case(
    "u-induction-succ-rfl-needs-ih",
    "induction",
    "theorem y14 (n : Nat) : 0 + n = n := by",
    "  induction n with\n  | zero => rfl\n  | succ k ih => rfl",
    [(4, "rfl", RFL_TACTIC + "case succ\nk : Nat\nih : 0 + k = k\n⊢ 0 + (k + 1) = k + 1")],
    4,
    ["ih", "omega", "Nat.zero_add", "simp"],
    ["decide"],
    explain=["case"],
)
case(
    "u-list-length-append-rfl",
    "list",
    "theorem y15 (xs ys : List Nat) : (xs ++ ys).length = xs.length + ys.length := by",
    "  rfl",
    [
        (
            2,
            "rfl",
            RFL_TACTIC + "xs ys : List Nat\n⊢ (xs ++ ys).length = xs.length + ys.length",
        )
    ],
    2,
    ["List.length_append", "simp", "induction xs"],
    ["omega", "decide"],
)
case(
    "u-list-reverse-reverse-name",
    "list",
    "theorem y16 (xs : List Nat) : xs.reverse.reverse = xs := by",
    "  rw [List.reverse_reverse_eq]",
    [(2, "List.reverse_reverse_eq", unknown("List.reverse_reverse_eq"))],
    2,
    ["List.reverse_reverse", "simp"],
    [],
)
case(
    "u-cast-lt-exact",
    "casts",
    "theorem y17 (n : Nat) (h : 0 < n) : (0 : Int) < n := by",
    "  exact h",
    [(2, "h", mismatch("h", "0 < n", "0 < ↑n"))],
    2,
    ["exact_mod_cast", "Int.ofNat_lt", "omega", "Int.natCast_pos", "norm_cast"],
    ["Nat.pos_of_ne_zero"],
    explain=["↑"],
)
case(
    "u-calc-step-reuses-first-proof",
    "calc",
    "theorem y18 (a b c : Nat) (h1 : a < b) (h2 : b < c) : a < c := by",
    "  calc a < b := h1\n    _ < c := h1",
    [(3, "h1", mismatch("h1", "a < b", "b < c"))],
    3,
    ["h2"],
    [".symm"],
)
case(
    "u-calc-eq-step-as-le",
    "calc",
    "theorem y19 (a b c : Nat) (h1 : a ≤ b) (h2 : b = c) : a ≤ c := by",
    "  calc a ≤ b := h1\n    _ ≤ c := h2",
    [(3, "h2", mismatch("h2", "b = c", "b ≤ c"))],
    3,
    ["_ = c", "Nat.le_of_eq h2", "h2 ▸", "omega", "rw [h2]"],
    [".symm"],
)
case(
    "u-rw-hyp-not-in-goal",
    "rewriting",
    "theorem y20 (a b : Nat) (h : a = b) (hb : b = 3) : a = 3 := by",
    "  rw [hb]",
    [
        (
            2,
            "hb",
            "Tactic `rewrite` failed: Did not find an occurrence of the pattern\n  b\nin the "
            "target expression\n  a = 3\n\na b : Nat\nh : a = b\nhb : b = 3\n⊢ a = 3",
        )
    ],
    2,
    ["rw [h", "h ▸", "omega", "h.trans hb", "← hb", "subst"],
    [],
)
case(
    "u-rw-add-comm-wrong-occurrence",
    "rewriting",
    "theorem y21 (a b c : Nat) : a + b + c = a + c + b := by",
    "  rw [Nat.add_comm]",
    [(1, "by", unsolved("a b c : Nat\n⊢ c + (a + b) = a + c + b"))],
    2,
    ["Nat.add_right_comm", "omega", "ac_rfl", "Nat.add_comm b c", "Nat.add_comm c b"],
    ["decide", "`rfl`"],
)
case(
    "u-rw-goal-instead-of-hyp",
    "rewriting",
    "theorem y22 (a b : Nat) (h : a + 0 = b) : a = b := by",
    "  rw [Nat.add_zero]\n  exact h",
    [
        (
            2,
            "Nat.add_zero",
            "Tactic `rewrite` failed: Did not find an occurrence of the pattern\n  ?n + 0\nin the "
            "target expression\n  a = b\n\na b : Nat\nh : a + 0 = b\n⊢ a = b",
        )
    ],
    2,
    ["at h", "simpa using h", "omega"],
    [],
    explain=["?n"],
)
case(
    "u-simp-truncated-sub-needs-omega",
    "nat",
    "theorem y23 (a b : Nat) (h : a = 2 * b) : a - b = b := by",
    "  simp",
    [(2, "simp", "simp made no progress")],
    2,
    ["omega", "subst"],
    ["decide", "ring", "linarith"],
)
case(
    "u-false-from-contradiction",
    "logic",
    "theorem y24 (p q : Prop) (hp : p) (hnp : ¬p) : q := by",
    "  exact hnp hp",
    [(2, "hnp hp", mismatch("hnp hp", "False", "q"))],
    2,
    ["absurd hp hnp", "(hnp hp).elim", "False.elim", "contradiction", "exfalso"],
    ["intro"],
)
case(
    "u-forall-given-for-exists",
    "exists",
    "theorem y25 (f : Nat → Nat) (h : ∀ n, f n > 0) : ∃ n, f n > 0 := by",
    "  exact h",
    [(2, "h", mismatch("h", "∀ (n : Nat), f n > 0", "∃ n, f n > 0"))],
    2,
    ["re:⟨[^,⟩]+, h [^⟩]+⟩", "re:exists \\w+", "re:refine ⟨"],
    ["intro"],
)
case(
    "u-lt-trans-args-swapped",
    "nat",
    "theorem y26 (a b c : Nat) (h1 : a < b) (h2 : b < c) : a < c := by",
    "  exact Nat.lt_trans h2 h1",
    [(2, "h2", app_mismatch("Nat.lt_trans h2", "h2", "b < c", "a < ?m.12"))],
    2,
    ["Nat.lt_trans h1 h2", "omega"],
    [".symm"],
    explain=["?m"],
    wording="lean",
)
case(
    "u-le-succ-needs-argument",
    "nat",
    "theorem y27 (n : Nat) : n ≤ n + 1 := by",
    "  exact Nat.le_succ",
    [(2, "Nat.le_succ", mismatch("Nat.le_succ", "∀ (n : Nat), n ≤ n + 1", "n ≤ n + 1"))],
    2,
    ["Nat.le_succ n", "omega"],
    ["intro"],
)
case(
    "u-exists-hyp-as-exists-goal",
    "exists",
    "theorem y28 (h : ∃ n : Nat, n > 5) : ∃ m : Nat, m > 3 := by",
    "  exact h",
    [(2, "h", mismatch("h", "∃ n, n > 5", "∃ m, m > 3"))],
    2,
    ["re:obtain ⟨\\w+, \\w+⟩ := h", "re:cases h with", "re:rcases h with"],
    ["intro"],
)
case(
    "u-constructor-second-goal-open",
    "logic",
    "theorem y29 (p q : Prop) (hp : p) (hq : q) : p ∧ q := by",
    "  constructor\n  exact hp",
    [(1, "by", unsolved("case right\np q : Prop\nhp : p\nhq : q\n⊢ q"))],
    3,
    ["exact hq", "`hq`"],
    ["Delete"],
    explain=["case"],
)
case(
    "u-obtain-then-wrong-order",
    "logic",
    "theorem y30 (p q : Prop) (h : p ∧ q) : q ∧ p := by",
    "  obtain ⟨hp, hq⟩ := h\n  exact ⟨hp, hq⟩",
    [(3, "hp", mismatch("hp", "p", "q"))],
    3,
    ["⟨hq, hp⟩"],
    [".symm"],
)
case(
    "u-apply-le-trans-one-goal-left",
    "nat",
    "theorem y31 (a b c : Nat) (h1 : a ≤ b) (h2 : b ≤ c) : a ≤ c := by",
    "  apply Nat.le_trans h1",
    [(1, "by", unsolved("a b c : Nat\nh1 : a ≤ b\nh2 : b ≤ c\n⊢ b ≤ c"))],
    2,
    ["h2", "omega"],
    ["Delete"],
)
case(
    "u-mul-assoc-then-comm-missing",
    "rewriting",
    "theorem y32 (a b c : Nat) : a * b * c = a * (c * b) := by",
    "  rw [Nat.mul_assoc]",
    [(1, "by", unsolved("a b c : Nat\n⊢ a * (b * c) = a * (c * b)"))],
    2,
    ["Nat.mul_comm b c", "Nat.mul_comm c b", "ac_rfl"],
    ["omega", "decide"],
)
case(
    "u-lean3-lambda-comma",
    "lean3",
    "theorem y33 (p q : Prop) : p ∧ q → q ∧ p := by",
    "  exact λ ⟨hp, hq⟩, ⟨hq, hp⟩",
    [(2, ",", "unexpected token ','; expected '↦', '=>'")],
    2,
    ["=>", "↦"],
    [],
)
case(
    "u-iff-intro-missing-direction",
    "logic",
    "theorem y34 (p q : Prop) (hpq : p → q) (hqp : q → p) : p ↔ q := by",
    "  constructor\n  · exact hpq",
    [(1, "by", unsolved("case mpr\np q : Prop\nhpq : p → q\nhqp : q → p\n⊢ q → p"))],
    3,
    ["exact hqp", "`hqp`"],
    ["Delete"],
    explain=["case"],
)

# ------------------------------------------------------------------ round 4 (all held out)
# Written after the context search (tutor/coach/context.py) and the ac rule were built, before
# the coach was run on them: the fresh measure of those changes.
ROUND = 4

case(
    "v-and-nested-left-right",
    "logic",
    "theorem z1 (p q r : Prop) (h : (p ∧ q) ∧ r) : q := by",
    "  exact h.2",
    [(2, "h.2", mismatch("h.right", "r", "q"))],
    2,
    ["h.1.2", "h.left.right"],
    ["constructor", "intro"],
)
case(
    "v-iff-backwards",
    "logic",
    "theorem z2 (p q : Prop) (h : p ↔ q) : q ↔ p := by",
    "  exact h",
    [(2, "h", mismatch("h", "p ↔ q", "q ↔ p"))],
    2,
    ["h.symm", "Iff.symm", "⟨h.mpr, h.mp⟩", "⟨h.2, h.1⟩"],
    ["intro"],
)
case(
    "v-or-hyp-applied-directly",
    "logic",
    "theorem z3 (p q r : Prop) (h : p ∨ q) (hpr : p → r) (hqr : q → r) : r := by",
    "  exact hpr h",
    [(2, "h", app_mismatch("hpr h", "h", "p ∨ q", "p"))],
    2,
    ["Or.elim h hpr hqr", "h.elim hpr hqr", "cases h", "rcases h", "obtain"],
    ["Or.inl", "`left`"],
)
case(
    "v-exists-witness-weaker-bound",
    "exists",
    "theorem z4 (n : Nat) (h : n > 2) : ∃ m : Nat, m > 1 := by",
    "  exact ⟨n, h⟩",
    [(2, "h", mismatch("h", "n > 2", "n > 1"))],
    2,
    ["by omega", "omega", "Nat.lt_trans", "Nat.lt_of_lt_of_le"],
    ["`decide`"],
)
case(
    "v-forall-two-values-swapped",
    "forall",
    "theorem z5 (f : Nat → Nat → Nat) (h : ∀ a b, f a b = f b a) : f 1 2 = f 2 1 := by",
    "  exact h 2 1",
    [(2, "h 2 1", mismatch("h 2 1", "f 2 1 = f 1 2", "f 1 2 = f 2 1"))],
    2,
    ["h 1 2", ".symm"],
    ["`decide`", "`rfl`"],
)
case(
    "v-not-and-from-not-left",
    "logic",
    "theorem z6 (p q : Prop) (hnp : ¬p) : ¬(p ∧ q) := by",
    "  exact hnp",
    [(2, "hnp", mismatch("hnp", "¬p", "¬(p ∧ q)"))],
    2,
    ["hnp h.1", "hnp h.left", "intro h", "fun h => hnp"],
    [".symm"],
)
case(
    "v-implication-chain-skipped",
    "logic",
    "theorem z7 (p q r : Prop) (hpq : p → q) (hqr : q → r) : p → r := by",
    "  intro hp\n  exact hqr hp",
    [(3, "hp", app_mismatch("hqr hp", "hp", "p", "q"))],
    3,
    ["hqr (hpq hp)"],
    ["intro h"],
)
case(
    "v-zero-lt-succ-unapplied",
    "nat",
    "theorem z8 (n : Nat) : 0 < n + 1 := by",
    "  exact Nat.zero_lt_succ",
    [(2, "Nat.zero_lt_succ", mismatch("Nat.zero_lt_succ", "∀ (n : Nat), 0 < n + 1", "0 < n + 1"))],
    2,
    ["Nat.zero_lt_succ n", "Nat.succ_pos n", "omega"],
    ["intro"],
)
case(
    "v-lt-self-to-false",
    "nat",
    "theorem z9 (n : Nat) (h : n < n) : False := by",
    "  exact h",
    [(2, "h", mismatch("h", "n < n", "False"))],
    2,
    ["Nat.lt_irrefl", "omega", "absurd"],
    ["`decide`"],
)
case(
    "v-le-trans-skips-middle",
    "nat",
    "theorem z10 (a b c d : Nat) (h1 : a ≤ b) (h2 : b ≤ c) (h3 : c ≤ d) : a ≤ d := by",
    "  exact Nat.le_trans h1 h3",
    [(2, "h3", app_mismatch("Nat.le_trans h1 h3", "h3", "c ≤ d", "b ≤ d"))],
    2,
    ["Nat.le_trans h2 h3", "omega"],
    [".symm"],
)
case(
    "v-omega-product-reordered",
    "nat",
    "theorem z11 (a b c : Nat) : a * b * c = c * b * a := by",
    "  omega",
    [
        (
            2,
            "omega",
            "omega could not prove the goal:\na possible counterexample may satisfy the "
            "constraints\n  d - e ≤ -1\n  e ≥ 0\n  d ≥ 0\nwhere\n d := a * b * c\n e := c * b * a",
        )
    ],
    2,
    ["ac_rfl", "Nat.mul_comm", "Nat.mul_assoc", "simp [Nat.mul_comm"],
    ["nlinarith", "linarith", "`decide`"],
    wording="lean",
)
case(
    "v-simp-leaves-add-comm",
    "nat",
    "theorem z12 (a b : Nat) : a + b + 0 = b + a := by",
    "  simp",
    [(1, "by", unsolved("a b : Nat\n⊢ a + b = b + a"))],
    2,
    ["Nat.add_comm", "omega", "ac_rfl"],
    ["`decide`"],
)
case(
    "v-eq-backwards-hyp",
    "rewriting",
    "theorem z13 (a b : Nat) (h : a + 1 = b) : b = a + 1 := by",
    "  exact h",
    [(2, "h", mismatch("h", "a + 1 = b", "b = a + 1"))],
    2,
    ["h.symm", "Eq.symm", "omega"],
    [],
)
case(
    "v-induction-add-comm-rfl",
    "induction",
    "theorem z14 (n m : Nat) : n + m = m + n := by",
    "  induction n with\n  | zero => simp\n  | succ k ih => rfl",
    [
        (
            4,
            "rfl",
            RFL_TACTIC + "case succ\nm k : Nat\nih : k + m = m + k\n⊢ k + 1 + m = m + (k + 1)",
        )
    ],
    4,
    ["omega", "Nat.succ_add", "ih", "Nat.add_comm"],
    ["`decide`"],
    explain=["case"],
)
case(
    "v-list-append-nil-rfl",
    "list",
    "theorem z15 (xs : List Nat) : xs ++ [] = xs := by",
    "  rfl",
    [(2, "rfl", RFL_TACTIC + "xs : List Nat\n⊢ xs ++ [] = xs")],
    2,
    ["List.append_nil", "simp"],
    ["omega", "`decide`"],
)
case(
    "v-list-length-cons-omega",
    "list",
    "theorem z16 (x : Nat) (xs : List Nat) : (x :: xs).length = xs.length + 1 := by",
    "  omega",
    [
        (
            2,
            "omega",
            "omega could not prove the goal:\na possible counterexample may satisfy the "
            "constraints\n  c - b ≤ 0\n  c - b ≥ 2\n  c ≥ 0\n  b ≥ 0\nwhere\n b := xs.length\n"
            " c := (x :: xs).length",
        )
    ],
    2,
    ["List.length_cons", "simp", "rfl"],
    ["linarith", "`decide`"],
    wording="lean",
)
case(
    "v-cast-ge-zero",
    "casts",
    "theorem z17 (n : Nat) : (n : Int) ≥ 0 := by",
    "  exact Nat.zero_le n",
    [(2, "Nat.zero_le n", mismatch("Nat.zero_le n", "0 ≤ n", "↑n ≥ 0"))],
    2,
    ["Int.natCast_nonneg", "exact_mod_cast", "omega", "Int.ofNat_nonneg", "norm_cast"],
    [],
    explain=["↑"],
)
case(
    "v-calc-lt-then-le",
    "calc",
    "theorem z18 (a b c : Nat) (h1 : a < b) (h2 : b ≤ c) : a < c := by",
    "  calc a < b := h1\n    _ < c := h2",
    [(3, "h2", mismatch("h2", "b ≤ c", "b < c"))],
    3,
    ["_ ≤ c", "Nat.lt_of_lt_of_le", "omega"],
    [".symm"],
)
case(
    "v-calc-chain-stops-early",
    "calc",
    "theorem z19 (a b c d : Nat) (h1 : a = b) (h2 : b = c) (h3 : c = d) : a = d := by",
    "  calc a = b := h1\n    _ = c := h2",
    [(2, "calc", mismatch("calc a = b := h1\n  _ = c := h2", "a = c", "a = d"))],
    2,
    ["_ = d", "h3"],
    [".symm"],
)
case(
    "v-hyp-name-letters-swapped",
    "logic",
    "theorem z20 (p q : Prop) (hpq : p → q) (hp : p) : q := by",
    "  exact hqp hp",
    [(2, "hqp", unknown("hqp"))],
    2,
    ["hpq hp", "`hpq`"],
    [],
)
case(
    "v-lean3-and-intro-lowercase",
    "lean3",
    "theorem z21 (p q : Prop) (hp : p) (hq : q) : p ∧ q := by",
    "  exact and.intro hp hq",
    [(2, "and.intro", unknown("and.intro"))],
    2,
    ["And.intro", "⟨hp, hq⟩"],
    [],
)
case(
    "v-exists-two-witnesses",
    "exists",
    "theorem z22 : ∃ a b : Nat, a + b = 3 ∧ a * b = 2 := by",
    "  exact ⟨1, 1, rfl, rfl⟩",
    [(2, "rfl", mismatch("rfl", "1 + 1 = 1 + 1", "1 + 1 = 3"))],
    2,
    ["⟨1, 2", "⟨2, 1"],
    ["`decide`"],
)
case(
    "v-and-intro-args-swapped",
    "logic",
    "theorem z23 (p q : Prop) (hp : p) (hq : q) : p ∧ q := by",
    "  exact And.intro hq hp",
    [(2, "hq", app_mismatch("And.intro hq", "hq", "q", "p"))],
    2,
    ["And.intro hp hq", "⟨hp, hq⟩"],
    [".symm"],
)
case(
    "v-impossible-succ-eq-zero",
    "nat",
    "theorem z24 (n : Nat) (h : n + 1 = 0) : n = 5 := by",
    "  rfl",
    [(2, "rfl", RFL_TACTIC + "n : Nat\nh : n + 1 = 0\n⊢ n = 5")],
    2,
    ["omega", "Nat.succ_ne_zero", "contradiction", "absurd", "cases h", "simp at h", "nomatch"],
    ["`decide`"],
)
case(
    "v-lt-for-le-plus-one",
    "nat",
    "theorem z25 (a b : Nat) (h : a < b) : a ≤ b + 1 := by",
    "  exact h",
    [(2, "h", mismatch("h", "a < b", "a ≤ b + 1"))],
    2,
    ["omega", "Nat.le_of_lt", "Nat.le_succ_of_le"],
    ["`decide`"],
)
case(
    "v-ne-backwards",
    "nat",
    "theorem z26 (a b : Nat) (h : a ≠ b) : b ≠ a := by",
    "  exact h",
    [(2, "h", mismatch("h", "a ≠ b", "b ≠ a"))],
    2,
    ["h.symm", "Ne.symm", "omega", "e.symm"],
    [],
)
case(
    "v-rfl-for-forall",
    "forall",
    "theorem z27 : ∀ n : Nat, n + 0 = n := by",
    "  exact rfl",
    [(2, "rfl", mismatch("rfl", "?a = ?a", "∀ (n : Nat), n + 0 = n"))],
    2,
    ["intro n", "fun n => rfl", "fun _ => rfl"],
    ["`decide`"],
    wording="lean",
)

# ------------------------------------------------------------------ round 5 (all held out)
# Written after the round 4 misses were read and the rules changed, before the coach was run
# on them: the clean measure of the changes made after round 4.
ROUND = 5

case(
    "w-and-three-parts-middle",
    "logic",
    "theorem w1 (p q r : Prop) (h : p ∧ q ∧ r) : q := by",
    "  exact h.2",
    [(2, "h.2", mismatch("h.right", "q ∧ r", "q"))],
    2,
    ["h.2.1", "h.right.left"],
    ["constructor", "intro"],
)
case(
    "w-or-swap-needs-cases",
    "logic",
    "theorem w2 (p q : Prop) (h : p ∨ q) : q ∨ p := by",
    "  exact h",
    [(2, "h", mismatch("h", "p ∨ q", "q ∨ p"))],
    2,
    ["Or.symm", "h.symm", "cases h", "rcases h", "obtain", "h.elim", "Or.elim"],
    ["`left`", "Or.inl h"],
)
case(
    "w-iff-mp-applied-to-wrong",
    "logic",
    "theorem w3 (p q : Prop) (h : p ↔ q) (hq : q) : p := by",
    "  exact h.mp hq",
    [(2, "hq", app_mismatch("h.mp hq", "hq", "q", "p"))],
    2,
    ["h.mpr hq", "h.2 hq"],
    ["intro"],
)
case(
    "w-forall-implication-needs-proof",
    "forall",
    "theorem w4 (P Q : Nat → Prop) (h : ∀ n, P n → Q n) (h3 : P 3) : Q 3 := by",
    "  exact h 3",
    [(2, "h 3", mismatch("h 3", "P 3 → Q 3", "Q 3"))],
    2,
    ["h 3 h3", "h _ h3"],
    ["intro"],
)
case(
    "w-exists-witness-square",
    "exists",
    "theorem w5 : ∃ n : Nat, n * n = 49 := by",
    "  exact ⟨8, rfl⟩",
    [(2, "rfl", mismatch("rfl", "8 * 8 = 8 * 8", "8 * 8 = 49"))],
    2,
    ["⟨7"],
    ["`decide`", "omega"],
)
case(
    "w-mul-comm-args-swapped",
    "nat",
    "theorem w6 (a b : Nat) : a * b = b * a := by",
    "  exact Nat.mul_comm b a",
    [(2, "Nat.mul_comm b a", mismatch("Nat.mul_comm b a", "b * a = a * b", "a * b = b * a"))],
    2,
    ["Nat.mul_comm a b", ".symm"],
    ["omega", "Nat.add_comm"],
)
case(
    "w-add-assoc-unsolved",
    "nat",
    "theorem w7 (a b c : Nat) : a + (b + c) = c + (a + b) := by",
    "  rw [Nat.add_assoc]",
    [
        (
            2,
            "Nat.add_assoc",
            "Tactic `rewrite` failed: Did not find an occurrence of the pattern\n  ?n + ?m + ?k\n"
            "in the target expression\n  a + (b + c) = c + (a + b)\n\na b c : Nat\n"
            "⊢ a + (b + c) = c + (a + b)",
        )
    ],
    2,
    ["omega", "ac_rfl", "Nat.add_comm"],
    ["`decide`"],
    explain=["?n"],
)
case(
    "w-lt-of-le-wrong-lemma",
    "nat",
    "theorem w8 (a b : Nat) (h : a < b) : a ≤ b := by",
    "  exact h",
    [(2, "h", mismatch("h", "a < b", "a ≤ b"))],
    2,
    ["Nat.le_of_lt h", "omega"],
    ["`decide`"],
)
case(
    "w-false-from-ne-self",
    "logic",
    "theorem w9 (n : Nat) (h : n ≠ n) : n = 7 := by",
    "  rfl",
    [(2, "rfl", RFL_TACTIC + "n : Nat\nh : n ≠ n\n⊢ n = 7")],
    2,
    ["absurd rfl h", "h rfl", "contradiction", "omega"],
    ["`decide`"],
)
case(
    "w-intro-then-wrong-hyp",
    "logic",
    "theorem w10 (p q : Prop) (hq : q) : p → q ∧ p := by",
    "  intro hp\n  exact ⟨hp, hq⟩",
    [(3, "hp", mismatch("hp", "p", "q"))],
    3,
    ["⟨hq, hp⟩"],
    [".symm"],
)
case(
    "w-not-intro-wrong-fact",
    "logic",
    "theorem w11 (p : Prop) (hp : p) : ¬¬p := by",
    "  exact hp",
    [(2, "hp", mismatch("hp", "p", "¬¬p"))],
    2,
    ["fun hnp => hnp hp", "intro hnp", "hnp hp", "not_not_intro"],
    [".symm"],
)
case(
    "w-calc-eq-step-wrong-hyp",
    "calc",
    "theorem w12 (a b c : Nat) (hab : a = b) (hbc : b = c) : a = c := by",
    "  calc a = b := hbc\n    _ = c := hbc",
    [(2, "hbc", mismatch("hbc", "b = c", "a = b"))],
    2,
    ["hab"],
    [".symm"],
)
case(
    "w-forall-instantiate-wrong-var",
    "forall",
    "theorem w13 (g : Nat → Nat) (hg : ∀ k, g k ≥ k) (m : Nat) : g m ≥ m := by",
    "  exact hg",
    [(2, "hg", mismatch("hg", "∀ (k : Nat), g k ≥ k", "g m ≥ m"))],
    2,
    ["hg m"],
    ["intro"],
)
case(
    "w-le-antisymm-missing-arg",
    "nat",
    "theorem w14 (a b : Nat) (h1 : a ≤ b) (h2 : b ≤ a) : a = b := by",
    "  exact Nat.le_antisymm h1",
    [(2, "Nat.le_antisymm h1", mismatch("Nat.le_antisymm h1", "b ≤ a → a = b", "a = b"))],
    2,
    ["Nat.le_antisymm h1 h2", "omega"],
    ["intro"],
)
case(
    "w-cast-lt-hyp",
    "casts",
    "theorem w15 (a b : Nat) (h : a < b) : (a : Int) < b := by",
    "  exact h",
    [(2, "h", mismatch("h", "a < b", "↑a < ↑b"))],
    2,
    ["exact_mod_cast", "Int.ofNat_lt", "omega", "norm_cast"],
    [],
    explain=["↑"],
)
case(
    "w-list-reverse-rfl",
    "list",
    "theorem w16 (xs ys : List Nat) : (xs ++ ys).reverse = ys.reverse ++ xs.reverse := by",
    "  rfl",
    [
        (
            2,
            "rfl",
            RFL_TACTIC + "xs ys : List Nat\n⊢ (xs ++ ys).reverse = ys.reverse ++ xs.reverse",
        )
    ],
    2,
    ["List.reverse_append", "simp"],
    ["omega", "`decide`"],
)
case(
    "w-unknown-lemma-lean3-name",
    "nat",
    "theorem w17 (a b : Nat) : a + b = b + a := by",
    "  exact nat.add_comm a b",
    [(2, "nat.add_comm", unknown("nat.add_comm"))],
    2,
    ["Nat.add_comm"],
    [],
)
case(
    "w-induction-mul-zero-succ",
    "induction",
    "theorem w18 (n : Nat) : 0 * n = 0 := by",
    "  induction n with\n  | zero => rfl\n  | succ k ih => rfl",
    [(4, "rfl", RFL_TACTIC + "case succ\nk : Nat\nih : 0 * k = 0\n⊢ 0 * (k + 1) = 0")],
    4,
    ["Nat.mul_succ", "ih", "omega", "simp", "Nat.zero_mul"],
    ["`decide`"],
    explain=["case"],
)
case(
    "w-exact-pair-for-exists",
    "exists",
    "theorem w19 (n : Nat) (h : n > 0) : ∃ m : Nat, m > 0 := by",
    "  exact h",
    [(2, "h", mismatch("h", "n > 0", "∃ m, m > 0"))],
    2,
    ["⟨n, h⟩", "exists n"],
    ["intro"],
)
case(
    "w-implication-wrong-nesting",
    "logic",
    "theorem w20 (p q r : Prop) (hp : p) (hpq : p → q) (hqr : q → r) : r := by",
    "  exact hpq (hqr hp)",
    [(2, "hp", app_mismatch("hqr hp", "hp", "p", "q"))],
    2,
    ["hqr (hpq hp)"],
    ["intro"],
)


# ------------------------------------------------------------------ round 6 (all tuning)
# Issue 30's failure kinds, in the wording Lean 4.2x-4.3x prints (backticked names, "Tactic `x`
# failed: ..."), core Lean and Mathlib. Tuning cases: the rules are written against them.
ROUND = 6


def apply_unify(fn: str, conclusion: str, goal: str, context: str) -> str:
    return (
        f"Tactic `apply` failed: could not unify the conclusion of `{fn}`\n  {conclusion}\n"
        f"with the goal\n  {goal}\n\n{context}\n⊢ {goal}"
    )


def decide_false(prop: str) -> str:
    return f"Tactic `decide` proved that the proposition\n  {prop}\nis false"


INTRO_NONE = (
    "Tactic `introN` failed: There are no additional binders or `let` bindings in the goal "
    "to introduce"
)
CLOSERS = ["`decide`", "`rfl`", "`omega`", "`norm_num`", "`simp`", "`linarith`", "`trivial`"]

# -- a wrong witness: the goal left is false, so no tactic closes it
case(
    "s6-exists-wrong-witness-unsolved",
    "quantifiers",
    "theorem s1 : ∃ n : Nat, n + 3 = 10 := by",
    "  exists 6",
    [(1, "by", unsolved("⊢ 6 + 3 = 10"))],
    2,
    ["exists 7", "⟨7,"],
    CLOSERS,
)
case(
    "s6-refine-wrong-witness-decide",
    "quantifiers",
    "theorem s2 : ∃ n : Nat, 2 * n = 12 := by",
    "  refine ⟨5, ?_⟩\n  decide",
    [(3, "decide", decide_false("2 * 5 = 12"))],
    2,
    ["⟨6, ?_⟩", "⟨6,", "exists 6"],
    ["`rfl`", "`omega`", "`simp`"],
)
case(
    "s6-use-wrong-witness-real",
    "quantifiers",
    "theorem s3 : ∃ x : ℝ, 3 * x = 12 := by",
    "  use 3\n  norm_num",
    [(1, "by", unsolved("⊢ False"))],
    2,
    ["use 4"],
    ["`linarith`", "`nlinarith`", "`ring`", "`simp`", "`positivity`"],
    library="mathlib",
)
case(
    "s6-exists-conjunction-wrong-witness",
    "quantifiers",
    "theorem s4 : ∃ n : Nat, n > 5 ∧ n < 7 := by",
    "  exists 5",
    [(1, "by", unsolved("⊢ 5 > 5 ∧ 5 < 7"))],
    2,
    ["exists 6", "⟨6,"],
    CLOSERS + ["`constructor`"],
)
case(
    "s6-false-statement-rfl",
    "nat",
    "theorem s5 : 2 + 3 = 5 ∧ 3 * 3 = 6 := by",
    "  constructor\n  · rfl\n  · rfl",
    [(4, "rfl", RFL_TACTIC + "⊢ 3 * 3 = 6")],
    4,
    ["false"],
    ["`decide`", "`omega`", "`simp`", "`norm_num`"],
)
case(
    "s6-use-wrong-witness-mathlib-nat",
    "quantifiers",
    "theorem s6 : ∃ n : ℕ, n * n = 36 := by",
    "  use 7",
    [(1, "by", unsolved("⊢ 7 * 7 = 36"))],
    2,
    ["use 6"],
    CLOSERS,
    library="mathlib",
)

# -- an unknown name that was never bound: bind it, don't swap in the closest spelling
case(
    "s6-induction-ih-not-named",
    "induction",
    "theorem s7 (n : Nat) : 0 + n = n := by",
    "  induction n with\n  | zero => rfl\n  | succ k => rw [← Nat.add_assoc, ih]",
    [(4, "ih", unknown("ih"))],
    4,
    ["succ k ih", "re:\\| succ \\w+ ih"],
    ["`id`", "`in`"],
)
case(
    "s6-obtain-underscore-then-used",
    "logic",
    "theorem s8 (p q : Prop) (h : p ∧ q) : q := by",
    "  obtain ⟨hp, _⟩ := h\n  exact hq",
    [(3, "hq", unknown("hq"))],
    2,
    ["⟨hp, hq⟩"],
    ["with `hp`", "`exact hp`"],
)
case(
    "s6-cases-inr-unnamed",
    "logic",
    "theorem s9 (p q : Prop) (h : p ∨ q) : q ∨ p := by",
    "  cases h with\n  | inl hp => exact Or.inr hp\n  | inr => exact Or.inl hq",
    [(4, "hq", unknown("hq"))],
    4,
    ["inr hq"],
    ["with `hp`", "`exact Or.inl hp`"],
)
case(
    "s6-intro-one-of-two",
    "quantifiers",
    "theorem s10 : ∀ x y : Nat, x + y = y + x := by",
    "  intro x\n  exact Nat.add_comm x y",
    [(3, "y", unknown("y"))],
    2,
    ["intro x y", "intro y"],
    ["with `x`"],
)
case(
    "s6-rcases-exists-unnamed-proof",
    "quantifiers",
    "theorem s11 (h : ∃ n : Nat, n > 3) : ∃ m : Nat, m > 2 := by",
    "  obtain ⟨n, _⟩ := h\n  exact ⟨n, by omega⟩",
    [
        (
            3,
            "omega",
            "omega could not prove the goal:\na possible counterexample may satisfy the "
            "constraints\n  n ≤ 2\nwhere\n n := n",
        )
    ],
    2,
    ["⟨n, hn⟩", "re:⟨n, h\\w*⟩"],
    ["`decide`"],
)
case(
    "s6-typo-hypothesis-in-scope",
    "nat",
    "theorem s12 (x : Nat) (h : 2 < x) : 1 < x := by",
    "  exact Nat.lt_trans (by decide) hx",
    [(2, "hx", unknown("hx"))],
    2,
    ["`h`", "omega"],
    ["intro hx"],
)

# -- simp named a definition where the missing piece is a hypothesis
case(
    "s6-simp-needs-the-hypothesis",
    "rewriting",
    "theorem s13 (f : Nat → Nat) (hf : ∀ x, f x = x + 1) : f 3 = 4 := by",
    "  simp",
    [(2, "simp", "simp made no progress")],
    2,
    ["simp [hf]", "rw [hf]", "hf 3"],
    ["simp [f]", "unfold f"],
)
case(
    "s6-simp-needs-the-equation",
    "rewriting",
    "theorem s14 (g : Nat → Nat) (h : g 1 = 4) : g 1 * 2 = 8 := by",
    "  simp",
    [(2, "simp", "simp made no progress")],
    2,
    ["simp [h]", "rw [h]", "omega"],
    ["simp [g]", "unfold g"],
)
case(
    "s6-norm-num-needs-the-equation",
    "rewriting",
    "theorem s15 (x : ℝ) (h : x = 2) : x ^ 2 = 4 := by",
    "  norm_num",
    [(1, "by", unsolved("x : ℝ\nh : x = 2\n⊢ x ^ 2 = 4"))],
    2,
    ["rw [h]", "subst", "norm_num [h]", "simp [h]"],
    ["`linarith`", "field_simp"],
    library="mathlib",
)
case(
    "s6-decide-needs-the-equation",
    "nat",
    "theorem s16 (n : Nat) (h : n = 3) : n * n = 9 := by",
    "  decide",
    [
        (
            2,
            "decide",
            "Tactic `decide` failed for proposition\n  n * n = 9\nsince its `Decidable` instance\n"
            "  instDecidableEqNat (n * n) 9\ndid not reduce to `isTrue` or `isFalse`.",
        )
    ],
    2,
    ["subst", "rw [h]", "simp [h]"],
    ["`omega`"],
)

# -- a tactic's precondition, not syntax and not a lemma that fails to match
case(
    "s6-left-on-conjunction",
    "logic",
    "theorem s17 (p q : Prop) (hp : p) (hq : q) : p ∧ q := by",
    "  left\n  exact hp",
    [
        (
            2,
            "left",
            "Tactic `left` failed: left tactic works for inductive types with exactly 2 "
            "constructors\n\np q : Prop\nhp : p\nhq : q\n⊢ p ∧ q",
        )
    ],
    2,
    ["constructor", "⟨hp, hq⟩", "And.intro"],
    ["syntax", "lemma"],
)
case(
    "s6-positivity-not-its-form",
    "inequalities",
    "theorem s18 (x : ℝ) (h : 2 < x) : 1 < x := by",
    "  positivity",
    [(2, "positivity", "not a positivity goal")],
    2,
    ["linarith"],
    ["syntax"],
    library="mathlib",
)
case(
    "s6-induction-on-implication",
    "logic",
    "theorem s19 (p q : Prop) (h : p → q) (hp : p) : q := by",
    "  induction h",
    [
        (
            2,
            "induction",
            "Tactic `induction` failed: major premise type is not an inductive type\n  p → q\n\n"
            "p q : Prop\nh : p → q\nhp : p\n⊢ q",
        )
    ],
    2,
    ["h hp", "apply h"],
    ["alternative", "syntax"],
)
case(
    "s6-positivity-strict-but-false-at-zero",
    "inequalities",
    "theorem s20 (x : ℝ) : 0 < x ^ 2 := by",
    "  positivity",
    [
        (
            2,
            "positivity",
            "failed to prove strict positivity, but it would be possible to prove "
            "nonnegativity if desired",
        )
    ],
    2,
    ["x ≠ 0", "0 ≤ x ^ 2"],
    ["syntax", "`linarith`", "`nlinarith`"],
    library="mathlib",
)

# -- apply: another hypothesis's conclusion matches the goal
case(
    "s6-apply-wrong-hypothesis",
    "logic",
    "theorem s21 (p q r : Prop) (hpq : p → q) (hqr : q → r) (hp : p) : r := by",
    "  apply hpq\n  exact hp",
    [
        (
            2,
            "hpq",
            apply_unify("hpq", "q", "r", "p q r : Prop\nhpq : p → q\nhqr : q → r\nhp : p"),
        )
    ],
    2,
    ["apply hqr", "hqr (hpq hp)"],
    ["rw"],
)
case(
    "s6-apply-chose-the-wrong-premise",
    "logic",
    "theorem s22 (p q r : Prop) (h1 : p → r) (h2 : q → r) (hq : q) : r := by",
    "  apply h1\n  exact hq",
    [(3, "hq", mismatch("hq", "q", "p"))],
    2,
    ["apply h2", "h2 hq"],
    ["re:Do (use|add|write) `intro"],
)
case(
    "s6-apply-lemma-family-lt-le",
    "nat",
    "theorem s23 (a b c : Nat) (h1 : a ≤ b) (h2 : b < c) : a < c := by",
    "  exact Nat.lt_of_lt_of_le h1 h2",
    [
        (
            2,
            "h1",
            "Application type mismatch: The argument\n  h1\nhas type\n  a ≤ b : Prop\nbut is "
            "expected to have type\n  a < ?m.7 : Prop\nin the application\n"
            "  Nat.lt_of_lt_of_le h1",
        )
    ],
    2,
    ["Nat.lt_of_le_of_lt h1 h2", "omega"],
    ["Nat.le_of_lt"],
)
case(
    "s6-apply-lemma-family-real",
    "inequalities",
    "theorem s24 (a b c : ℝ) (h1 : a < b) (h2 : b ≤ c) : a < c := by",
    "  exact lt_of_le_of_lt h1 h2",
    [
        (
            2,
            "h1",
            "Application type mismatch: The argument\n  h1\nhas type\n  a < b : Prop\nbut is "
            "expected to have type\n  a ≤ ?b : Prop\nin the application\n  lt_of_le_of_lt h1",
        )
    ],
    2,
    ["lt_of_lt_of_le h1 h2", "linarith"],
    ["Nat."],
    library="mathlib",
)
case(
    "s6-abs-lt-gives-a-conjunction",
    "inequalities",
    "theorem s25 (x : ℝ) (h : |x| < 1) : x < 1 := by",
    "  exact abs_lt.mp h",
    [(2, "abs_lt.mp h", mismatch("abs_lt.mp h", "-1 < x ∧ x < 1", "x < 1"))],
    2,
    ["(abs_lt.mp h).2", "(abs_lt.mp h).right"],
    ["Nat."],
    library="mathlib",
)
case(
    "s6-abs-le-not-abs-lt",
    "inequalities",
    "theorem s26 (x : ℝ) (h : |x| ≤ 2) : x ≤ 2 := by",
    "  exact (abs_lt.mp h).2",
    [
        (
            2,
            "h",
            "Application type mismatch: The argument\n  h\nhas type\n  |x| ≤ 2 : Prop\nbut is "
            "expected to have type\n  |?a| < ?b : Prop\nin the application\n  abs_lt.mp h",
        )
    ],
    2,
    ["abs_le", "le_abs_self"],
    ["Nat."],
    library="mathlib",
)

# -- intro on an existential goal: give the witness
case(
    "s6-intro-on-exists",
    "quantifiers",
    "theorem s27 : ∃ n : Nat, n + n = 8 := by",
    "  intro n",
    [(2, "intro", INTRO_NONE)],
    2,
    ["exists 4", "⟨4,", "refine ⟨4"],
    ["re:Do (use|add|write) `intro"],
)
case(
    "s6-intro-on-exists-real",
    "quantifiers",
    "theorem s28 : ∃ x : ℝ, x + 1 = 3 := by",
    "  intro x\n  linarith",
    [(2, "intro", INTRO_NONE)],
    2,
    ["use 2"],
    ["re:Do (use|add|write) `intro"],
    library="mathlib",
)

# -- ≤ / < / ≠ mismatches: the lemma family one name away
case(
    "s6-lt-for-le-real",
    "inequalities",
    "theorem s29 (x y : ℝ) (h : x < y) : x ≤ y := by",
    "  exact h",
    [(2, "h", mismatch("h", "x < y", "x ≤ y"))],
    2,
    ["le_of_lt h", "h.le", "linarith"],
    ["Nat.le_of_lt"],
    library="mathlib",
)
case(
    "s6-lt-for-ne-real",
    "inequalities",
    "theorem s30 (x : ℝ) (h : 0 < x) : x ≠ 0 := by",
    "  exact h",
    [(2, "h", mismatch("h", "0 < x", "x ≠ 0"))],
    2,
    ["ne_of_gt h", "h.ne'", "positivity"],
    ["Nat."],
    library="mathlib",
)
case(
    "s6-le-of-lt-on-a-le",
    "inequalities",
    "theorem s31 (x y : ℝ) (h : x ≤ y) : y ≥ x := by",
    "  exact le_of_lt h",
    [
        (
            2,
            "h",
            "Application type mismatch: The argument\n  h\nhas type\n  x ≤ y : Prop\nbut is "
            "expected to have type\n  ?a < ?b : Prop\nin the application\n  le_of_lt h",
        )
    ],
    2,
    ["exact h"],
    ["lt_of_le"],
    library="mathlib",
)
case(
    "s6-le-for-lt-succ",
    "nat",
    "theorem s32 (a b : Nat) (h : a ≤ b) : a < b + 1 := by",
    "  exact h",
    [(2, "h", mismatch("h", "a ≤ b", "a < b + 1"))],
    2,
    ["Nat.lt_succ_of_le h", "Nat.lt_succ_iff.mpr h", "omega"],
    ["Nat.le_of_lt"],
)

# -- products: the fact linarith lacks
case(
    "s6-linarith-on-a-product",
    "inequalities",
    "theorem s33 (a b : ℝ) (ha : 0 ≤ a) (hb : 0 ≤ b) : 0 ≤ a * b := by",
    "  linarith",
    [
        (
            2,
            "linarith",
            "linarith failed to find a contradiction\ncase a\na b : ℝ\nha : 0 ≤ a\nhb : 0 ≤ b\n"
            "a✝ : 0 > a * b\n⊢ False failed",
        )
    ],
    2,
    ["mul_nonneg ha hb", "positivity", "nlinarith"],
    ["omega"],
    library="mathlib",
)
case(
    "s6-linarith-on-a-square",
    "inequalities",
    "theorem s34 (x : ℝ) : 0 ≤ x ^ 2 + 1 := by",
    "  linarith",
    [
        (
            2,
            "linarith",
            "linarith failed to find a contradiction\ncase a\nx : ℝ\na✝ : 0 > x ^ 2 + 1\n"
            "⊢ False failed",
        )
    ],
    2,
    ["positivity", "sq_nonneg", "nlinarith"],
    ["omega"],
    library="mathlib",
)

# -- sorry: the step, not the answer
case(
    "s6-sorry-first-step",
    "logic",
    "theorem s35 (p q : Prop) (h : p ∧ q) : q ∧ p := by",
    "  sorry",
    [(1, "theorem", SORRY)],
    2,
    ["constructor", "⟨h.2, h.1⟩", "obtain"],
    ["Don't leave"],
)
case(
    "s6-rfl-needs-symm",
    "rewriting",
    "theorem s36 (a b : Nat) (h : a = b) : b = a := by",
    "  rfl",
    [(2, "rfl", RFL_TACTIC + "a b : Nat\nh : a = b\n⊢ b = a")],
    2,
    ["h.symm", "Eq.symm h", "omega", "rw [h]", "subst"],
    ["`decide`"],
)


# ------------------------------------------------------------------ round 7 (all tuning)
# More of issue 30's kinds in other forms (written to check that the round 6 rules are general
# mechanisms, then used to tune them in turn).
ROUND = 7

case(
    "s7-exists-two-witness-one-wrong",
    "quantifiers",
    "theorem t1 : ∃ a b : Nat, a + b = 5 ∧ a * b = 6 := by",
    "  exists 1, 4",
    [(1, "by", unsolved("⊢ 1 + 4 = 5 ∧ 1 * 4 = 6"))],
    2,
    ["exists 2, 3", "exists 3, 2", "⟨2, 3", "⟨3, 2"],
    CLOSERS + ["`constructor`"],
)
case(
    "s7-exact-anonymous-wrong-witness",
    "quantifiers",
    "theorem t2 : ∃ n : Nat, 3 * n + 1 = 13 := by",
    "  exact ⟨3, rfl⟩",
    [(2, "rfl", mismatch("rfl", "3 * 3 + 1 = 3 * 3 + 1", "3 * 3 + 1 = 13"))],
    2,
    ["⟨4,"],
    ["`decide`", "`omega`"],
)
case(
    "s7-use-negative-witness-int",
    "quantifiers",
    "theorem t3 : ∃ z : ℤ, z + 5 = 2 := by",
    "  use 3",
    [(1, "by", unsolved("⊢ 3 + 5 = 2"))],
    2,
    ["use -3"],
    CLOSERS,
    library="mathlib",
)
case(
    "s7-induction-cons-ih-missing",
    "induction",
    "theorem t4 (xs : List Nat) : (xs ++ []).length = xs.length := by",
    "  induction xs with\n  | nil => rfl\n  | cons x xs => simp [ih]",
    [(4, "ih", unknown("ih"))],
    4,
    ["cons x xs ih"],
    ["`id`", "`in`"],
)
case(
    "s7-rintro-underscore-then-used",
    "logic",
    "theorem t5 (p q r : Prop) : p ∧ q → q := by",
    "  rintro ⟨hp, _⟩\n  exact hq",
    [(3, "hq", unknown("hq"))],
    2,
    ["⟨hp, hq⟩"],
    ["with `hp`"],
)
case(
    "s7-match-alternative-unnamed",
    "logic",
    "theorem t6 (p q : Prop) (h : p ∨ q) (hpq : p → q) : q := by",
    "  cases h with\n  | inl hp => exact hpq hp\n  | inr => exact h2",
    [(4, "h2", unknown("h2"))],
    4,
    ["inr h2"],
    ["with `hp`", "with `h`"],
)
case(
    "s7-exact-or-projection",
    "logic",
    "theorem t7 (p q : Prop) (h : p ∨ q) (hq : q) : q := by",
    "  exact h.2",
    [
        (
            2,
            "h.2",
            "Invalid projection: Expected a value whose type is a structure\n  h\nhas type\n"
            "  p ∨ q",
        )
    ],
    2,
    ["exact hq"],
    ["h.right", "h.1"],
)
case(
    "s7-anonymous-constructor-on-or",
    "logic",
    "theorem t8 (p q : Prop) (hp : p) : p ∨ q := by",
    "  exact ⟨hp, _⟩",
    [
        (
            2,
            "⟨hp, _⟩",
            "invalid constructor ⟨...⟩, expected type must be an inductive type with only one "
            "constructor \n  p ∨ q",
        )
    ],
    2,
    ["Or.inl hp", "left"],
    ["Or.inr"],
)
case(
    "s7-constructor-on-or-then-wrong-side",
    "logic",
    "theorem t9 (p q : Prop) (hq : q) : p ∨ q := by",
    "  constructor\n  exact hq",
    [(3, "hq", mismatch("hq", "q", "p"))],
    2,
    ["right", "Or.inr hq"],
    ["`left`"],
)
case(
    "s7-forall-missing-proof-argument",
    "quantifiers",
    "theorem t10 (P Q : Nat → Prop) (h : ∀ n, P n → Q n) (h2 : P 2) : Q 2 := by",
    "  exact h 2",
    [(2, "h 2", mismatch("h 2", "P 2 → Q 2", "Q 2"))],
    2,
    ["h 2 h2", "h _ h2"],
    ["intro"],
)
case(
    "s7-rw-wrong-direction",
    "rewriting",
    "theorem t11 (a b : Nat) (h : a = b) (hb : b = 3) : a + 1 = 4 := by",
    "  rw [hb]",
    [
        (
            2,
            "hb",
            "Tactic `rewrite` failed: Did not find an occurrence of the pattern\n  b\n"
            "in the target expression\n  a + 1 = 4\n\na b : Nat\nh : a = b\nhb : b = 3\n"
            "⊢ a + 1 = 4",
        )
    ],
    2,
    ["rw [h, hb]", "rw [h]", "omega", "subst"],
    ["rw [← hb]"],
)
case(
    "s7-omega-nonlinear-square",
    "nat",
    "theorem t12 (n : Nat) (h : n = 4) : n * n = 16 := by",
    "  omega",
    [
        (
            2,
            "omega",
            "omega could not prove the goal:\na possible counterexample may satisfy the "
            "constraints\n  c ≥ 17\n  b = 4\nwhere\n b := n\n c := n * n",
        )
    ],
    2,
    ["subst", "rw [h]", "simp [h]"],
    ["nlinarith", "linarith"],
)
case(
    "s7-decide-on-a-forall",
    "nat",
    "theorem t13 : ∀ n : Nat, n * 0 = 0 := by",
    "  decide",
    [
        (
            2,
            "decide",
            "failed to synthesize\n  Decidable (∀ (n : Nat), n * 0 = 0)\n\nAdditional "
            "diagnostic information may be available using the `set_option diagnostics true` "
            "command.",
        )
    ],
    2,
    ["intro n", "Nat.mul_zero"],
    ["`omega`"],
)
case(
    "s7-mul-pos-needs-nonneg",
    "inequalities",
    "theorem t14 (a b : ℝ) (ha : 0 ≤ a) (hb : 0 ≤ b) : 0 ≤ a * b := by",
    "  exact mul_pos ha hb",
    [
        (
            2,
            "ha",
            "Application type mismatch: The argument\n  ha\nhas type\n  0 ≤ a : Prop\nbut is "
            "expected to have type\n  0 < ?a : Prop\nin the application\n  mul_pos ha",
        )
    ],
    2,
    ["mul_nonneg ha hb", "positivity"],
    ["le_of_lt"],
    library="mathlib",
)
case(
    "s7-sq-nonneg-for-strict",
    "inequalities",
    "theorem t15 (x : ℝ) (hx : 0 < x) : 0 < x ^ 2 := by",
    "  exact sq_nonneg x",
    [(2, "sq_nonneg x", mismatch("sq_nonneg x", "0 ≤ x ^ 2", "0 < x ^ 2"))],
    2,
    ["pow_pos hx", "positivity"],
    ["le_of_lt", "omega"],
    library="mathlib",
)
case(
    "s7-ring-needs-the-hypothesis",
    "rewriting",
    "theorem t16 (x y : ℝ) (h : y = 2 * x) : y - x = x := by",
    "  ring",
    [(2, "ring", "ring failed, ring expressions not equal\nx y : ℝ\nh : y = 2 * x\n⊢ y - x = x")],
    2,
    ["rw [h]", "subst", "linarith"],
    ["`nlinarith`", "field_simp"],
    library="mathlib",
)
case(
    "s7-linarith-needs-square-fact",
    "inequalities",
    "theorem t17 (a b : ℝ) : 2 * a * b ≤ a ^ 2 + b ^ 2 := by",
    "  linarith",
    [
        (
            2,
            "linarith",
            "linarith failed to find a contradiction\ncase a\na b : ℝ\na✝ : 2 * a * b > a ^ 2 + "
            "b ^ 2\n⊢ False failed",
        )
    ],
    2,
    ["sq_nonneg (a - b)", "nlinarith"],
    ["omega", "positivity"],
    library="mathlib",
)
case(
    "s7-norm-num-false-after-use",
    "quantifiers",
    "theorem t18 : ∃ x : ℝ, x ^ 2 = 9 ∧ x < 0 := by",
    "  use 3\n  norm_num",
    [(1, "by", unsolved("⊢ False"))],
    2,
    ["use -3"],
    ["`linarith`", "`nlinarith`", "`positivity`"],
    library="mathlib",
)
case(
    "s7-positivity-needs-hypothesis-form",
    "inequalities",
    "theorem t19 (x y : ℝ) (h : x < y) : 0 < y - x := by",
    "  positivity",
    [(2, "positivity", "failed to prove positivity/nonnegativity/nonzeroness")],
    2,
    ["sub_pos.mpr h", "linarith", "sub_pos"],
    ["syntax", "`nlinarith`"],
    library="mathlib",
)
case(
    "s7-abs-le-gives-a-conjunction",
    "inequalities",
    "theorem t20 (x : ℝ) (h : |x| ≤ 3) : -3 ≤ x := by",
    "  exact abs_le.mp h",
    [(2, "abs_le.mp h", mismatch("abs_le.mp h", "-3 ≤ x ∧ x ≤ 3", "-3 ≤ x"))],
    2,
    ["(abs_le.mp h).1", "(abs_le.mp h).left"],
    ["Nat."],
    library="mathlib",
)
case(
    "s7-le-antisymm-core",
    "nat",
    "theorem t21 (a b : Nat) (h1 : a ≤ b) (h2 : b ≤ a) : a = b := by",
    "  exact Nat.le_antisymm h2 h1",
    [
        (
            2,
            "h2",
            "Application type mismatch: The argument\n  h2\nhas type\n  b ≤ a : Prop\nbut is "
            "expected to have type\n  a ≤ b : Prop\nin the application\n  Nat.le_antisymm h2",
        )
    ],
    2,
    ["Nat.le_antisymm h1 h2", "omega"],
    ["Nat.le_of_lt"],
)
case(
    "s7-lt-irrefl-core",
    "nat",
    "theorem t22 (n : Nat) (h : n < n) : False := by",
    "  exact h",
    [(2, "h", mismatch("h", "n < n", "False"))],
    2,
    ["Nat.lt_irrefl n h", "absurd h (Nat.lt_irrefl n)", "omega"],
    ["`decide`"],
)
case(
    "s7-unknown-lemma-lean3-spelling",
    "nat",
    "theorem t23 (a b c : Nat) : a + b + c = a + (b + c) := by",
    "  rw [nat.add_assoc]",
    [(2, "nat.add_assoc", unknown("nat.add_assoc"))],
    2,
    ["Nat.add_assoc"],
    ["intro"],
)
case(
    "s7-exact-wrong-hypothesis-among-three",
    "logic",
    "theorem t24 (p q r : Prop) (hp : p) (hq : q) (hr : r) : q := by",
    "  exact hp",
    [(2, "hp", mismatch("hp", "p", "q"))],
    2,
    ["exact hq"],
    ["`intro`", "constructor"],
)


# ------------------------------------------------------------------ round 8 (all tuning)
# Beginner mistakes in other spellings (`example`, `ℕ`, Mathlib's general lemmas), to check
# that the mechanisms of rounds 6 and 7 are not bound to one wording.
ROUND = 8

case(
    "s8-rfl-on-commutativity",
    "nat",
    "example (a b : ℕ) : a + b = b + a := by",
    "  rfl",
    [(2, "rfl", RFL_TACTIC + "a b : ℕ\n⊢ a + b = b + a")],
    2,
    ["Nat.add_comm a b", "omega", "Nat.add_comm"],
    ["`decide`"],
)
case(
    "s8-and-intro-swapped",
    "logic",
    "example (p q : Prop) (hp : p) (hq : q) : p ∧ q := by",
    "  exact And.intro hq hp",
    [(2, "hq", app_mismatch("And.intro hq", "hq", "q", "p"))],
    2,
    ["And.intro hp hq", "⟨hp, hq⟩"],
    ["`intro`"],
)
case(
    "s8-pos-for-ne-zero-nat",
    "nat",
    "example (n : ℕ) (h : n > 0) : n ≠ 0 := by",
    "  exact h",
    [(2, "h", mismatch("h", "n > 0", "n ≠ 0"))],
    2,
    ["Nat.ne_of_gt h", "Nat.pos_iff_ne_zero", "omega", "Nat.not_eq_zero_of_lt"],
    ["Nat.le_of_lt"],
)
case(
    "s8-apply-mul-pos-on-nonneg-goal",
    "inequalities",
    "example (a b : ℝ) (ha : 0 ≤ a) (hb : 0 ≤ b) : 0 ≤ a * b := by",
    "  apply mul_pos",
    [
        (
            2,
            "mul_pos",
            apply_unify("@mul_pos", "0 < ?a * ?b", "0 ≤ a * b", "a b : ℝ\nha : 0 ≤ a\nhb : 0 ≤ b"),
        )
    ],
    2,
    ["mul_nonneg", "positivity"],
    ["le_of_lt"],
    library="mathlib",
)
case(
    "s8-le-of-lt-on-a-le",
    "inequalities",
    "example (a b : ℝ) (h : a ≤ b) : a ≤ b := by",
    "  exact le_of_lt h",
    [
        (
            2,
            "h",
            "Application type mismatch: The argument\n  h\nhas type\n  a ≤ b : Prop\nbut is "
            "expected to have type\n  a < b : Prop\nin the application\n  le_of_lt h",
        )
    ],
    2,
    ["exact h"],
    ["lt_of_le"],
    library="mathlib",
)
case(
    "s8-abs-nonneg-for-strict",
    "inequalities",
    "example (x : ℝ) (hx : x ≠ 0) : 0 < |x| := by",
    "  exact abs_nonneg x",
    [(2, "abs_nonneg x", mismatch("abs_nonneg x", "0 ≤ |x|", "0 < |x|"))],
    2,
    ["abs_pos.mpr hx", "positivity", "abs_pos"],
    ["le_of_lt", "omega"],
    library="mathlib",
)
case(
    "s8-nlinarith-without-hint",
    "inequalities",
    "example (a b : ℝ) : a * b ≤ (a ^ 2 + b ^ 2) / 2 := by",
    "  nlinarith",
    [
        (
            2,
            "nlinarith",
            "linarith failed to find a contradiction\ncase a\na b : ℝ\na✝ : a * b > (a ^ 2 + "
            "b ^ 2) / 2\n⊢ False failed",
        )
    ],
    2,
    ["sq_nonneg (a - b)"],
    ["omega", "positivity"],
    library="mathlib",
)
case(
    "s8-exists-real-witness-wrong-use",
    "quantifiers",
    "example : ∃ x : ℝ, 2 * x + 1 = 6 := by",
    "  use 2\n  norm_num",
    [(1, "by", unsolved("⊢ False"))],
    2,
    ["use 5 / 2", "use 2.5"],
    ["`linarith`", "`nlinarith`"],
    library="mathlib",
)
case(
    "s8-exists-core-wrong-witness-exact",
    "quantifiers",
    "example : ∃ n : ℕ, n * n = 81 := by",
    "  exact ⟨8, by decide⟩",
    [(2, "decide", decide_false("8 * 8 = 81"))],
    2,
    ["⟨9,"],
    ["`omega`", "`rfl`"],
)
case(
    "s8-intro-on-exists-with-hypothesis",
    "quantifiers",
    "example (k : ℕ) (h : k = 3) : ∃ m : ℕ, m = k + 1 := by",
    "  intro m",
    [(2, "intro", INTRO_N)],
    2,
    ["k + 1", "exists 4", "⟨4"],
    ["re:Do (use|add|write) `intro"],
)
case(
    "s8-simp-needs-definition",
    "rewriting",
    "def double (n : ℕ) : ℕ := 2 * n\n\ntheorem s8d (n : ℕ) : double n = n + n := by",
    "  simp",
    [(4, "simp", "simp made no progress")],
    4,
    ["simp [double]", "unfold double", "rw [double]"],
    ["simp [h]"],
)
case(
    "s8-unknown-hypothesis-never-introduced",
    "logic",
    "example (p q : Prop) : p → q → p := by",
    "  intro hp\n  exact hp",
    [(1, "by", unsolved("p q : Prop\nhp : p\n⊢ q → p"))],
    3,
    ["intro", "fun _ => hp"],
    ["`exact hq`"],
)


def main() -> None:
    ids = [c["id"] for c in CASES]
    assert len(ids) == len(set(ids)), "duplicate ids"
    OUT.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in CASES))
    held = sum(c["split"] == "heldout" for c in CASES)
    print(f"wrote {len(CASES)} cases ({held} held out) to {OUT}")


if __name__ == "__main__":
    main()
