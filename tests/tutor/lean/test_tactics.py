"""allTactics: the REPL's `tactics` reply as the goal view reads it (recorded transcripts are
the ground truth for the shape), the derived goals after each step, and check_proof asking
for it (the fake REPL answers in the recorded shape)."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.tutor.lean.conftest import FAKE_COMMAND
from tutor.lean import LeanChecker
from tutor.lean.tactics import parse_tactics, with_goals_after
from tutor.lean.types import CheckResult, TacticStep

ROOT = Path(__file__).resolve().parents[3]
TRANSCRIPTS = ROOT / ".." / "shared" / "data" / "lean_transcripts" / "repl"


def _first_reply(name: str) -> dict:
    path = TRANSCRIPTS / name
    if not path.exists():
        pytest.skip(f"recorded transcripts not found at {TRANSCRIPTS} (../shared is missing)")
    text = path.read_text(encoding="utf-8")
    return json.loads(re.split(r"\n\s*\n", text.strip())[0])


def test_it_reads_the_recorded_reply_for_one_line_with_two_tactics() -> None:
    reply = _first_reply("all_tactics.expected.out")
    steps = parse_tactics(reply["tactics"], line_offset=0)
    assert [(s.tactic, s.line, s.column, s.end_column) for s in steps] == [
        ("have t := 37", 1, 18, 30),
        ("exact t", 1, 32, 39),
    ]
    assert steps[1].goals_before == "t : Nat\n⊢ Nat"
    after = with_goals_after(steps, proof_done=True)
    # The state after `have` is the state before `exact`; after the last step, no goals.
    assert after[0].goals_after == "t : Nat\n⊢ Nat"
    assert after[1].goals_after == ""


def test_it_reads_the_recorded_reply_with_a_line_offset() -> None:
    reply = _first_reply("all_tactics-20250622.expected.out")
    (step,) = parse_tactics(reply["tactics"], line_offset=3)
    assert (step.line, step.column, step.end_line, step.end_column) == (5, 2, 5, 10)
    assert step.goals_before == "P : Prop\nhp : P\n⊢ P"


def test_after_an_error_the_last_state_is_unknown_not_solved() -> None:
    steps = [
        TacticStep(2, 2, 2, 10, "intro h", "⊢ p → p"),
        TacticStep(3, 2, 3, 9, "simp", "h : p\n⊢ p"),
    ]
    after = with_goals_after(steps, proof_done=False)
    assert after[0].goals_after == "h : p\n⊢ p"
    assert after[1].goals_after is None


def test_a_nested_step_ends_where_the_next_sibling_starts() -> None:
    # `· exact hp` spans the bullet; its inner `exact hp` starts inside it.
    steps = parse_tactics(
        [
            {"tactic": "constructor", "pos": {"line": 2, "column": 2}, "endPos": {"line": 2, "column": 13}, "goals": "⊢ p ∧ q"},
            {"tactic": "· exact hp", "pos": {"line": 3, "column": 2}, "endPos": {"line": 3, "column": 12}, "goals": "case left\n⊢ p\n\ncase right\n⊢ q"},
            {"tactic": "exact hp", "pos": {"line": 3, "column": 4}, "endPos": {"line": 3, "column": 12}, "goals": "case left\n⊢ p"},
            {"tactic": "· exact hq", "pos": {"line": 4, "column": 2}, "endPos": {"line": 4, "column": 12}, "goals": "case right\n⊢ q"},
        ],
        line_offset=0,
    )  # fmt: skip
    after = {s.tactic: s.goals_after for s in with_goals_after(steps, proof_done=True)}
    assert after["constructor"] == "case left\n⊢ p\n\ncase right\n⊢ q"
    assert after["· exact hp"] == "case right\n⊢ q"
    assert after["· exact hq"] == ""


def test_tactics_survive_the_result_round_trip() -> None:
    step = TacticStep(2, 2, 2, 10, "intro h", "⊢ p → p", "h : p\n⊢ p")
    result = CheckResult(valid=True, tactics=[step])
    assert CheckResult.from_dict(json.loads(json.dumps(result.to_dict()))).tactics == [step]


def test_check_proof_returns_each_tactic_with_goals_before_and_after(
    make_checker: Callable[..., LeanChecker],
) -> None:
    checker = make_checker()
    result = checker.check_proof(
        "theorem t (p q : Prop) (hq : q) : p → q := by", "  intro hp\n  exact hq"
    )
    assert result.valid
    assert [(s.tactic, s.line, s.column, s.end_column) for s in result.tactics] == [
        ("intro hp", 2, 2, 10),
        ("exact hq", 3, 2, 10),
    ]
    assert result.tactics[0].goals_before == "p q : Prop\nhq : q\n⊢ p → q"
    assert result.tactics[0].goals_after == "p q : Prop\nhq : q\nhp : p\n⊢ q"
    assert result.tactics[1].goals_after == ""


def test_columns_are_mapped_back_when_the_checker_indents_the_proof(
    make_checker: Callable[..., LeanChecker],
) -> None:
    # An unindented proof is indented by 2 for Lean; positions come back in the user's text.
    result = make_checker().check_proof("theorem t (p : Prop) : p → p := by", "intro hp\nexact hp")
    assert [(s.line, s.column, s.end_column) for s in result.tactics] == [(2, 0, 8), (3, 0, 8)]


def test_the_fake_repl_answers_in_the_recorded_shape() -> None:
    recorded = _first_reply("all_tactics-20250622.expected.out")
    request = {"cmd": "example (P : Prop) (hp : P) : P := by\n  exact hp\n", "allTactics": True}
    done = subprocess.run(
        FAKE_COMMAND, input=json.dumps(request) + "\n\n", capture_output=True, text=True, timeout=30
    )
    reply = json.loads(done.stdout)
    (entry,) = reply["tactics"]
    (expected,) = recorded["tactics"]
    assert set(entry) == set(expected)
    assert {k: entry[k] for k in ("tactic", "pos", "endPos", "goals")} == {
        k: expected[k] for k in ("tactic", "pos", "endPos", "goals")
    }
