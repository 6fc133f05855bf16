"""Tactic mode through a leased REPL session (what the prover's step-level search uses)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tutor.lean import LeanChecker, ReplTimeout


def _first_sorry_state(session_reply: dict[str, object]) -> int:
    sorries = session_reply["sorries"]
    assert isinstance(sorries, list)
    return int(sorries[0]["proofState"])


def test_built_in_tactics_walk_a_goal_to_completion(checker: LeanChecker) -> None:
    with checker.session("import Mathlib") as session:
        reply = session.command("theorem t (p q : Prop) : p → q → p ∧ True := by\n  sorry")
        state = _first_sorry_state(reply)
        step = session.tactic("intro hp", state)
        assert step.goals == ["p q : Prop\nhp : p\n⊢ q → p ∧ True"] and not step.completed
        step = session.tactic("intro hq", step.proof_state or 0)
        split = session.tactic("constructor", step.proof_state or 0)
        assert [g.rsplit("⊢", 1)[1].strip() for g in split.goals] == ["p", "True"]
        failed = session.tactic("trivial", split.proof_state or 0)
        assert failed.status is not None and failed.status.startswith("Error")
        assert not failed.completed and failed.messages[0].line == 0


def test_a_scripted_table_drives_other_goals(
    make_checker: Callable[..., LeanChecker], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    table = tmp_path / "tactics.json"
    table.write_text(
        json.dumps(
            [
                {
                    "goal": "n : Nat\n⊢ n + 0 = n",
                    "tactic": "induction n",
                    "goals": ["⊢ 0 + 0 = 0", "n : Nat\n⊢ n + 1 + 0 = n + 1"],
                },
                {"goal": "⊢ 0 + 0 = 0", "tactic": "simp", "goals": []},
                {
                    "goal": "n : Nat\n⊢ n + 1 + 0 = n + 1",
                    "tactic": "omega",
                    "error": "omega could not prove the goal",
                },
                {"goal": "n : Nat\n⊢ n + 1 + 0 = n + 1", "tactic": "simp", "goals": []},
            ]
        )
    )
    monkeypatch.setenv("FAKE_REPL_TACTICS", str(table))
    checker = make_checker()
    with checker.session() as session:
        state = _first_sorry_state(session.command("theorem t (n : Nat) : n + 0 = n := by sorry"))
        after = session.tactic("induction n", state)
        after = session.tactic("simp", after.proof_state or 0)
        assert after.goals == ["n : Nat\n⊢ n + 1 + 0 = n + 1"]
        assert not session.tactic("omega", after.proof_state or 0).completed
        done = session.tactic("simp", after.proof_state or 0)
        assert done.completed and done.status == "Completed"
        unknown = session.tactic("simp", 999)
        assert unknown.error == "Unknown proof state." and not unknown.completed


def test_a_session_timeout_raises_and_frees_the_slot(
    make_checker: Callable[..., LeanChecker],
) -> None:
    checker = make_checker(max_processes=1, timeout_s=0.5)
    with pytest.raises(ReplTimeout), checker.session() as session:
        session.command("-- fake: hang")
    assert checker.pool.live_processes == 0
    with checker.session() as session:
        assert "env" in session.command("theorem t : True := trivial")


def test_explore_proof_gives_goals_from_the_exploration_pool_and_never_a_verdict(
    checker: LeanChecker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Goals while typing (webapp/attempts/live_goals.py): check_proof's gate and tactic-mode
    run, in the exploration pool, with no kernel check and nothing pickled for one."""
    asked: list[object] = []
    monkeypatch.setattr(checker.verifier, "verify", lambda *a, **k: asked.append(a))
    statement = "theorem t (n : Nat) : n + 0 = n := by"
    result = checker.explore_proof(statement, "  intro h\n  simp")
    assert [(t.line, t.tactic) for t in result.tactics] == [(2, "intro h"), (3, "simp")]
    assert result.tactics[0].goals_before == "n : Nat\n⊢ n + 0 = n"
    assert checker.explore_pool.live_processes == 1
    assert checker.pool.live_processes == 0  # the verdict pool never saw the text
    assert asked == []
    # The same gate as a graded check: a proof that tries to leave the block never runs.
    refused = checker.explore_proof(statement, "  rfl\ntheorem u : False := sorry")
    assert not refused.valid and refused.errors
    assert checker.explore_pool.live_processes == 1
