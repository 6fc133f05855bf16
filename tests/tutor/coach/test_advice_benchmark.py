"""The advice benchmark (bench/data/coach_advice.jsonl): well formed, split by a fixed hash,
holding the issue's examples, and the compiler coach's figures on it.

The tuning part is in-sample (rules were written against it), so it is held to 100% right and
no wrong advice; the held-out part is only measured (bench/bench_coach.py prints it)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tutor.coach import make_coach
from tutor.coach.fixes import explanations

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "bench" / "data"))

from bench_coach import coach_for, explained, judge, to_diagnostic  # noqa: E402
from build_coach_advice import WHOLLY_HELD_OUT, WHOLLY_TUNING, split_of  # noqa: E402

DATA = ROOT / "bench/data/coach_advice.jsonl"
ISSUE_EXAMPLES = {
    "exact-hq-for-implication",
    "simp-on-mul-comm",
    "omega-on-mul-comm",
    "cast-zero-le",
    "lean3-nat-succ-le-iff-mpr",
    "lean3-cases-with-and",
    "decide-on-forall-nat",
    "intro-on-conjunction",
    "le-trans-missing-arg",  # the raw ?m.217
}


def entries() -> list[dict]:
    return [json.loads(line) for line in DATA.read_text().splitlines() if line]


def test_eighty_or_more_mistakes_split_by_the_fixed_hash() -> None:
    data = entries()
    assert len(data) >= 80 and len({e["id"] for e in data}) == len(data)
    assert {e["library"] for e in data} == {"core", "mathlib"}
    assert {e["topic"] for e in data} >= {
        "logic",
        "quantifiers",
        "nat",
        "list",
        "induction",
        "casts",
        "calc",
        "rewriting",
    }
    for e in data:
        expected = "heldout" if e["round"] in WHOLLY_HELD_OUT else split_of(e["id"])
        assert e["split"] == ("tuning" if e["round"] in WHOLLY_TUNING else expected), e["id"]
        assert e["accept"], e["id"]
    hashed = [e for e in data if e["round"] not in WHOLLY_HELD_OUT | WHOLLY_TUNING]
    held = sum(e["split"] == "heldout" for e in hashed)
    assert len(hashed) / 4 < held < len(hashed) / 2
    # Later rounds are written apart and wholly held out: at least a third overall.
    assert sum(e["split"] == "heldout" for e in data) >= len(data) / 3
    assert {e["id"] for e in data} >= ISSUE_EXAMPLES


def test_positions_fit_the_attempt_and_the_label_is_a_real_line() -> None:
    for e in entries():
        lines = e["attempt"].split("\n")
        assert 1 <= e["label_line"] <= len(lines) and lines[e["label_line"] - 1].strip()
        for m in e["messages"]:
            assert 0 <= m["pos"]["column"] < len(lines[m["pos"]["line"] - 1]), e["id"]


def test_every_message_is_classified() -> None:
    for e in entries():
        for m in e["messages"]:
            assert str(to_diagnostic(m).kind) != "other", (e["id"], m["data"][:40])


def test_the_compiler_gets_the_issues_examples_and_the_tuning_part_right() -> None:
    for e in entries():
        if e["split"] != "tuning" and e["id"] not in ISSUE_EXAMPLES:
            continue
        feedback = coach_for(e).advise(
            e["problem"], e["attempt"], [to_diagnostic(m) for m in e["messages"]]
        )
        texts = [s.text for s in feedback.suggestions]
        assert judge(e, texts) == "right", (e["id"], texts)
        assert not e["explain"] or explained(e, texts), (e["id"], texts)
        assert e["label_line"] in [s.line for s in feedback.suggestions], e["id"]
        for s in feedback.suggestions:
            assert s.text.startswith(("Do", "Don't")) and 10 <= len(s.text.split()) <= 50


FRESH = ROOT / "bench/data/coach_fresh.jsonl"


def test_set_b_is_tuning_data_now_and_held_to_the_tuning_bar() -> None:
    """Set B was measured once unseen (62/84 right, 4 wrong); its cases were then read to find
    what the rules lacked, so, like the tuning part, it is held to right with no wrong advice
    (a regression test, not a measure of generalisation: that is the locked split)."""
    cases = [json.loads(line) for line in FRESH.read_text().splitlines() if line.strip()]
    assert len(cases) == 84 and {c["split"] for c in cases} == {"fresh"}
    for e in cases:
        feedback = coach_for(e).advise(
            e["problem"], e["attempt"], [to_diagnostic(m) for m in e["messages"]]
        )
        texts = [s.text for s in feedback.suggestions]
        assert judge(e, texts) == "right", (e["id"], texts)
        for s in feedback.suggestions:
            assert s.text.startswith(("Do", "Don't")) and 10 <= len(s.text.split()) <= 50


FRESH2 = ROOT / "bench/data/coach_fresh2.jsonl"


def test_set_c_is_tuning_data_now_and_held_to_the_tuning_bar() -> None:
    """Set C was measured once unseen (68/90 right, 5 wrong, 17 I don't know); its misses were
    then read to find the general rules they lacked (tests/tutor/coach/test_round_three.py),
    so it is held, like set B, to right with no wrong advice: a regression test, in-sample."""
    cases = [json.loads(line) for line in FRESH2.read_text().splitlines() if line.strip()]
    assert len(cases) == 90
    for e in cases:
        feedback = coach_for(e).advise(
            e["problem"], e["attempt"], [to_diagnostic(m) for m in e["messages"]]
        )
        texts = [s.text for s in feedback.suggestions]
        assert judge(e, texts) == "right", (e["id"], texts)
        for s in feedback.suggestions:
            assert s.text.startswith(("Do", "Don't")) and 10 <= len(s.text.split()) <= 50


def test_the_bench_reports_set_c_as_its_own_in_sample_part(capsys) -> None:
    from bench_coach import FRESH2_PROVENANCE, load_fresh, print_fresh

    cases = load_fresh(FRESH2, "fresh2")
    assert {c["split"] for c in cases} == {"fresh2"}
    print_fresh(cases[:2], "fresh2", "set C", FRESH2_PROVENANCE, FRESH2)
    out = capsys.readouterr().out
    assert "fresh2 (set C, round 10: first measured blind at 68/90 right" in out
    assert "in-sample" in out and "compiler fresh2, all: n 2" in out


FRESH3 = ROOT / "bench/data/coach_fresh3.jsonl"


def test_set_d_is_tuning_data_now_and_held_to_the_bar_it_reached() -> None:
    """Set D was measured once unseen (58/80 right, 0 wrong, 22 I don't know); its misses were
    then read to find the general rules they lacked (each tested on a mistake written for it,
    tests/tutor/coach/test_round_four.py), and the coach reached 80/80 right with no wrong
    advice on it, the bar it is now held to: a regression test, in-sample."""
    cases = [json.loads(line) for line in FRESH3.read_text().splitlines() if line.strip()]
    assert len(cases) == 80
    for e in cases:
        feedback = coach_for(e).advise(
            e["problem"], e["attempt"], [to_diagnostic(m) for m in e["messages"]]
        )
        texts = [s.text for s in feedback.suggestions]
        assert judge(e, texts) == "right", (e["id"], texts)
        for s in feedback.suggestions:
            assert s.text.startswith(("Do", "Don't")) and 10 <= len(s.text.split()) <= 50


def test_the_bench_reports_set_d_as_its_own_in_sample_part(capsys) -> None:
    from bench_coach import FRESH3_PROVENANCE, load_fresh, print_fresh

    cases = load_fresh(FRESH3, "fresh3")
    assert len(cases) == 80 and {c["split"] for c in cases} == {"fresh3"}
    print_fresh(cases[:2], "fresh3", "set D", FRESH3_PROVENANCE, FRESH3)
    out = capsys.readouterr().out
    assert "fresh3 (set D, round 11: first measured blind at 58/80 right, 0 wrong" in out
    assert "in-sample" in out and "compiler fresh3, all: n 2" in out


def test_the_bench_reports_set_b_as_its_own_part(tmp_path: Path, capsys) -> None:
    from bench_coach import load_fresh, print_fresh

    statement = "theorem t (p q : Prop) (hq : q) : p ∨ q := by"
    case = {
        "id": "synthetic-b",
        "library": "core",
        "problem": statement,
        "attempt": statement + "\n  exact Or.inl hq",
        "messages": [
            {
                "severity": "error",
                "pos": {"line": 2, "column": 15},
                "endPos": None,
                "data": "Application type mismatch: The argument\n  hq\nhas type\n  q\nbut is "
                "expected to have type\n  p\nin the application\n  Or.inl hq",
            }
        ],
        "label_line": 2,
        "accept": ["Or.inr hq"],
        "wrong": [],
        "explain": [],
        "split": "heldout",
    }
    path = tmp_path / "fresh.jsonl"
    path.write_text(json.dumps(case) + "\n")
    fresh = load_fresh(path)
    assert [c["split"] for c in fresh] == ["fresh"]
    print_fresh(fresh)
    out = capsys.readouterr().out
    assert "first measured blind at 62/84 right, 4 wrong; tuning data since" in out
    assert "compiler fresh, core: n 1, right 1, wrong 0" in out
    assert load_fresh(tmp_path / "absent.jsonl") == []


def test_each_unreadable_symbol_gets_one_short_clause() -> None:
    clauses = explanations(
        "Type mismatch\n  f ?m.217 (sorryAx Nat true)\nhas type\n  ↑n = 0",
        "case succ\nn✝ : Nat\n⊢ n✝ + 1 = 0",
    )
    joined = " ".join(clauses)
    assert len(clauses) == 5
    for symbol, word in (
        ("?m.217", "placeholder"),
        ("↑", "cast"),
        ("case succ", "goal"),
        ("n✝", "inaccessible"),
        ("sorryAx", "sorry"),
    ):
        assert symbol in joined and word in joined
    assert all(len(c.split()) <= 20 for c in clauses)


def test_the_unverified_path_stays_under_fifty_ms_p95() -> None:
    import time

    coach = make_coach("compiler")
    timings = []
    for e in entries():
        diagnostics = [to_diagnostic(m) for m in e["messages"]]
        started = time.perf_counter()
        coach.advise(e["problem"], e["attempt"], diagnostics)
        timings.append((time.perf_counter() - started) * 1000)
    timings.sort()
    assert timings[int(0.95 * (len(timings) - 1))] < 50


def test_a_core_course_hears_of_no_agent_tool_and_no_mathlib_name() -> None:
    """A student in a course without Mathlib is never sent to an agent-only tool
    (`rg_in_mathlib`), told about Mathlib, or given a Mathlib tactic or lemma name that her
    own attempt does not already use."""
    import re

    from tutor.coach.names import CORE_LEMMAS, MATHLIB_LEMMAS, MATHLIB_TACTICS

    mathlib_only = (set(MATHLIB_LEMMAS) | set(MATHLIB_TACTICS)) - set(CORE_LEMMAS)
    blind = [
        json.loads(line)
        for path in (FRESH, FRESH2)
        for line in path.read_text().splitlines()
        if line.strip()
    ]
    core = [e for e in entries() + blind if e["library"] == "core"]
    assert len(core) > 300
    for e in core:
        feedback = coach_for(e).advise(
            e["problem"], e["attempt"], [to_diagnostic(m) for m in e["messages"]]
        )
        for s in feedback.suggestions:
            assert "rg_in_mathlib" not in s.text and "Mathlib" not in s.text, (e["id"], s.text)
            code = " ".join(re.findall(r"`([^`]+)`", s.text))
            named = set(re.findall(r"[\w.']+", code)) & mathlib_only
            assert all(n in e["attempt"] for n in named), (e["id"], s.text)


FRESH4 = ROOT / "bench/data/coach_fresh4.jsonl"
FRESH5 = ROOT / "bench/data/coach_fresh5.jsonl"


def _held_to_all_right(path: Path, n: int) -> None:
    cases = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    assert len(cases) == n
    for e in cases:
        feedback = coach_for(e).advise(
            e["problem"], e["attempt"], [to_diagnostic(m) for m in e["messages"]]
        )
        texts = [s.text for s in feedback.suggestions]
        assert judge(e, texts) == "right", (e["id"], texts)
        for s in feedback.suggestions:
            assert s.text.startswith(("Do", "Don't")) and 10 <= len(s.text.split()) <= 50


def _held_with_open(path: Path, open_ids: set[str]) -> None:
    """Every case of the set right, except `open_ids`, which are "I don't know" (never wrong)."""
    cases = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    assert len(cases) == 60
    for e in cases:
        feedback = coach_for(e).advise(
            e["problem"], e["attempt"], [to_diagnostic(m) for m in e["messages"]]
        )
        verdict = judge(e, [s.text for s in feedback.suggestions])
        assert verdict == ("idk" if e["id"] in open_ids else "right"), (e["id"], verdict)


def test_set_e_is_tuning_data_now_and_held_to_the_bar_it_reached() -> None:
    """Set E was measured once unseen (43/60 right, 0 wrong, 17 I don't know); its misses were
    then read to find the general rules they lacked (each tested on a mistake written for it,
    tests/tutor/coach/test_round_five.py), and the coach reached 60/60 right with no wrong
    advice on it, the bar it is now held to: a regression test, in-sample."""
    _held_to_all_right(FRESH4, 60)


def test_set_f_is_tuning_data_now_and_held_to_the_bar_it_reached() -> None:
    """Set F (mostly Mathlib) was measured once unseen (42/60 right, 0 wrong, 18 I don't
    know); read the same way (tests/tutor/coach/test_round_five.py), the coach reached 60/60
    right with no wrong advice on it, the bar it is now held to: in-sample."""
    _held_to_all_right(FRESH5, 60)


def test_the_bench_reports_sets_e_and_f_as_their_own_in_sample_parts(capsys) -> None:
    from bench_coach import (
        ADVICE_PARTS,
        FRESH4_PROVENANCE,
        FRESH5_PROVENANCE,
        load_fresh,
        print_fresh,
    )

    assert {"fresh4", "fresh5"} <= set(ADVICE_PARTS)
    for path, part, label, provenance, first in (
        (FRESH4, "fresh4", "set E", FRESH4_PROVENANCE, "43/60 right, 0 wrong"),
        (FRESH5, "fresh5", "set F", FRESH5_PROVENANCE, "42/60 right, 0 wrong"),
    ):
        cases = load_fresh(path, part)
        assert len(cases) == 60 and {c["split"] for c in cases} == {part}
        print_fresh(cases[:2], part, label, provenance, path)
        out = capsys.readouterr().out
        assert f"{part} ({label}, round " in out and first in out
        assert "in-sample" in out and f"compiler {part}, all: n 2" in out


FRESH7 = ROOT / "bench/data/coach_fresh7.jsonl"


def test_set_h_is_tuning_data_now_and_held_to_the_bar_it_reached() -> None:
    """Set H (30 core, 30 Mathlib) was measured once unseen (48/60 right, 0 wrong, 12 I don't
    know); read the same way (tests/tutor/coach/test_round_six.py), the coach reached 60/60
    right with no wrong advice on it, the bar it is now held to: in-sample."""
    _held_to_all_right(FRESH7, 60)


FRESH6 = ROOT / "bench/data/coach_fresh6.jsonl"
# The one case of set G not scored right: the coach answers `rw [Nat.add_comm b a, h]` (which
# closes `c = b + a` from `h : a + b = c`); its label accepts `rw [← h]` or `rw [Nat.add_comm,
# h]` only. Counted as "I don't know", never as wrong.
SET_G_OPEN = {"f6-rw-wrong-direction"}


def test_set_g_is_tuning_data_now_and_held_to_the_bar_it_reached() -> None:
    """Set G (40 core, 20 Mathlib) was measured once unseen (47/60 right, 0 wrong, 13 I don't
    know); read the same way (tests/tutor/coach/test_round_six.py), the coach reached 59/60
    right with no wrong advice on it, the bar it is now held to: in-sample."""
    _held_with_open(FRESH6, SET_G_OPEN)


FRESH8 = ROOT / "bench/data/coach_fresh8.jsonl"
FRESH9 = ROOT / "bench/data/coach_fresh9.jsonl"
# Set J's cases not scored right, none wrong: `f9-simp-without-hyp` gets `exact h` (right: `h`
# states the goal left open) which its label does not list; the other two need what the coach
# does not have: List.reverse's injectivity, and `√16 = 4` from `16 = 4 ^ 2`.
SET_J_OPEN = {"f9-simp-without-hyp", "f9-simp-no-progress-reverse", "f9-sorry-sqrt-sixteen"}


def test_set_i_is_tuning_data_now_and_held_to_the_bar_it_reached() -> None:
    """Set I (40 core, 20 Mathlib) was measured once unseen (48/60 right, 0 wrong, 12 I don't
    know); read the same way (tests/tutor/coach/test_round_six.py), the coach reached 60/60
    right with no wrong advice on it, the bar it is now held to: in-sample."""
    _held_to_all_right(FRESH8, 60)


def test_set_j_is_tuning_data_now_and_held_to_the_bar_it_reached() -> None:
    """Set J (20 core, 40 Mathlib) was measured once unseen (37/60 right, 0 wrong, 23 I don't
    know); read the same way, the coach reached 57/60 right with no wrong advice: in-sample."""
    _held_with_open(FRESH9, SET_J_OPEN)


FRESH10 = ROOT / "bench/data/coach_fresh10.jsonl"
FRESH11 = ROOT / "bench/data/coach_fresh11.jsonl"
# Not scored right, none wrong: `f10-linarith-nonlinear` gets `linarith [sq_nonneg x]`, a
# working fix its label does not list; set L's two need what the coach does not have:
# injectivity and monotonicity of a composition unfolded.
SETS_K_L_OPEN = {
    "f10-linarith-nonlinear",
    "f11-nothing-after-intro-injective",
    "f11-sorry-monotone-comp",
}


def test_sets_k_and_l_are_tuning_data_now_and_held_to_the_bar_they_reached() -> None:
    """Sets K and L were measured once unseen (51/60 and 52/60 right, 0 wrong); read the same
    way, the coach reached 59/60 and 58/60 right with no wrong advice: in-sample."""
    for path in (FRESH10, FRESH11):
        _held_with_open(path, SETS_K_L_OPEN)


FRESH12 = ROOT / "bench/data/coach_fresh12.jsonl"
FRESH13 = ROOT / "bench/data/coach_fresh13.jsonl"
# Not yet answered (none wrong): a false `have` linarith cannot refute without solving two
# equations.
SETS_M_N_OPEN = {
    "f12-linarith-false-have",
}


def test_sets_m_and_n_are_tuning_data_now_and_held_to_the_bar_they_reached() -> None:
    """Sets M and N were measured once unseen (52/60 right each; M 2 wrong, N 0); read the
    same way, the coach reached 59/60 and 60/60 right with no wrong advice: in-sample."""
    for path in (FRESH12, FRESH13):
        _held_with_open(path, SETS_M_N_OPEN)
