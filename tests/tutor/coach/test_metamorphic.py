"""The coach's advice does not hang on how a student spells what does not matter: every case
of the in-sample sets the compiler coach answers right stays right, on the same line, after
each rewrite of tests/tutor/coach/metamorphic.py (capital hypothesis names, `.` bullets, `↦`,
subscripts, indentation, a comment line, `lemma`/`example`, `Nat` for `ℕ`).

The locked split is never read here: it is measured only by bench/bench_coach.py."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.tutor.coach.metamorphic import REWRITES

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bench"))

from bench_coach import coach_for, judge, to_diagnostic  # noqa: E402

SETS = [
    "coach_advice.jsonl",
    *(f"coach_fresh{n}.jsonl" for n in ("", 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)),
]
# Where a rewrite changes what a label names, not what the advice should say: the label spells
# a name the coach makes up itself (`fun h => ⟨h, h⟩`), which a renamed case relabels.
LABEL_NAMES_A_FRESH_BINDER = {
    ("capital hypothesis names", "f3-iff-one-direction"),
    ("capital hypothesis names", "f8-sorry-second-direction"),
}
# Set E's writer put this message's column inside the theorem's name (no Lean was run), which
# the `example` rewrite removes.
POSITION_INSIDE_THE_NAME = {"f4-pair-field-name"}


def _cases() -> list[dict[str, Any]]:
    cases = []
    for name in SETS:
        for raw in (ROOT / "bench/data" / name).read_text(encoding="utf-8").splitlines():
            case = json.loads(raw)
            assert not case.get("locked"), name  # never the locked split
            cases.append(case)
    return cases


CASES = _cases()


def _advice(case: dict[str, Any]) -> tuple[str, bool]:
    diagnostics = [to_diagnostic(m) for m in case["messages"]]
    feedback = coach_for(case).advise(case["problem"], case["attempt"], diagnostics)
    verdict = judge(case, [s.text for s in feedback.suggestions])
    return verdict, case["label_line"] in [s.line for s in feedback.suggestions]


BEFORE = {case["id"]: _advice(case) for case in CASES}


@pytest.mark.parametrize("rewrite", list(REWRITES))
def test_advice_survives_a_rewrite_that_changes_nothing_that_matters(rewrite: str) -> None:
    applied, broken = 0, []
    for case in CASES:
        if (rewrite, case["id"]) in LABEL_NAMES_A_FRESH_BINDER:
            continue
        changed = REWRITES[rewrite](case)
        if changed is None:
            continue
        applied += 1
        verdict, hit = BEFORE[case["id"]]
        after, hit_after = _advice(changed)
        if verdict == "right" and after != "right" or hit and not hit_after:
            broken.append(f"{case['id']}: {verdict}->{after}, line hit {hit}->{hit_after}")
    assert applied >= 3, f"{rewrite} applied to only {applied} cases"
    assert not broken, broken


def test_the_rewrites_keep_positions_on_the_text_they_point_at() -> None:
    """A rewrite that moves text moves Lean's positions with it: the token under each message's
    start is the same before and after."""
    for rewrite, change in REWRITES.items():
        for case in CASES:
            changed = change(case)
            if changed is None or rewrite == "capital hypothesis names":
                continue
            if case["id"] in POSITION_INSIDE_THE_NAME:
                continue
            for old, new in zip(case["messages"], changed["messages"], strict=True):
                before = _token(case["attempt"], old["pos"])
                after = _token(changed["attempt"], new["pos"])
                if before in ("·",) or rewrite.startswith("`h₁`"):
                    continue
                # The token itself is what these rewrites change.
                respelled = {"`Nat` for `ℕ`": "ℕ", "`<-` for `←`": "←", "`λ` for `fun`": "fun"}
                assert after == before or respelled.get(rewrite) == before, (
                    rewrite,
                    case["id"],
                )


def _token(text: str, position: dict[str, int]) -> str:
    lines = text.split("\n")
    line = lines[position["line"] - 1] if position["line"] <= len(lines) else ""
    rest = line[position["column"] :]
    return rest.split(" ", 1)[0] if rest else ""


def test_capital_names_get_the_same_fix_as_lowercase_ones() -> None:
    """`IH` left unnamed by `| succ k =>` is named in the pattern, never swapped for `id`."""
    case = {
        "library": "core",
        "problem": "theorem t (n : Nat) : 0 + n = n := by",
        "attempt": "theorem t (n : Nat) : 0 + n = n := by\n  induction n with\n  | zero => rfl\n"
        "  | succ k => rw [Nat.add_succ, IH]",
        "messages": [
            {
                "severity": "error",
                "pos": {"line": 4, "column": 33},
                "endPos": {"line": 4, "column": 35},
                "data": "Unknown identifier `IH`",
            }
        ],
    }
    diagnostics = [to_diagnostic(m) for m in case["messages"]]
    texts = [
        s.text
        for s in coach_for(case).advise(case["problem"], case["attempt"], diagnostics).suggestions
    ]
    assert any("| succ k IH =>" in t for t in texts), texts
    assert not any("`id`" in t for t in texts), texts
