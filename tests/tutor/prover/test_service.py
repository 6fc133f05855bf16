"""run_prover, the worker-side entry point the Celery task calls: both modes end to end
on the fake REPL, the per-process policy cache, cancellation, and Lean being absent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.tutor.prover.doubles import ScriptedPolicy, write_call
from tutor.prover import service
from tutor.prover.agent import AgentConfig
from tutor.prover.problem import Problem
from tutor.prover.search import SearchConfig, propose_tactics
from tutor.prover.service import ProverConfig, get_policy, run_prover

PROBLEM = Problem("four", "theorem four : 2 + 2 = 4 := by")
PROOF = "theorem four : 2 + 2 = 4 := by\n  decide"
GOAL = "⊢ 2 + 2 = 4"  # the fake REPL's goal for PROBLEM


def test_agent_mode_streams_and_returns_a_verified_proof(
    tiny_policy: Any, make_checker: Any
) -> None:
    checker = make_checker()
    policy = ScriptedPolicy(tiny_policy.tokenizer, lambda prompt, i: write_call(PROOF))
    events: list[dict[str, Any]] = []
    result = run_prover(
        PROBLEM,
        ProverConfig(mode="agent", n=2, agent=AgentConfig(max_turns=2)),
        on_event=lambda e: events.append(e.to_dict()),
        checker=checker,
        policy=policy,
    )
    assert result.ok and result.verdict == "valid" and result.n_valid == 2
    assert result.proof == PROOF
    assert policy.reloads == 1  # the serving slot is consulted once per run
    assert {e["attempt"] for e in events} == {0, 1}
    assert sum(e["type"] == "finished" for e in events) == 2
    data = result.to_dict()
    assert data["trajectories"][0]["verdict"] == "valid" and data["error"] is None


def test_search_mode_finds_the_proof_the_tiny_model_proposes(
    tiny_policy: Any, make_checker: Any
) -> None:
    """Search mode end to end with a real (tiny) model and no tactic portfolio: the only
    tactics tried are the model's samples, so the proof found is one the model wrote. The
    fake REPL is told that the model's first proposal for the goal closes it (a random tiny
    model writes no real tactic; which text it writes is fixed by the seed)."""
    search = SearchConfig(model_samples=4, model_max_tokens=6, seed=0, portfolio=())
    proposals = propose_tactics(tiny_policy, [GOAL], search)
    assert proposals, "the tiny model proposed no tactic for the goal"
    tactic = proposals[0][0]
    checker = make_checker(tactics=[{"goal": GOAL, "tactic": tactic, "goals": []}])
    events: list[dict[str, Any]] = []
    result = run_prover(
        PROBLEM,
        ProverConfig(mode="search", search=search),
        on_event=lambda e: events.append(e.to_dict()),
        checker=checker,
        policy=tiny_policy,
    )
    assert result.ok and result.verdict == "valid"
    assert result.proof == f"theorem four : 2 + 2 = 4 := by\n  {tactic}\n"
    tree = [e for e in events if e["type"] == "search_tree"][-1]
    tried = [node for node in tree["nodes"] if node.get("tactic")]
    assert tried and {node["source"] for node in tried} == {"model"}


def test_cancelling_before_the_first_turn(tiny_policy: Any, make_checker: Any) -> None:
    checker = make_checker()
    policy = ScriptedPolicy(tiny_policy.tokenizer, lambda prompt, i: write_call(PROOF))
    result = run_prover(PROBLEM, checker=checker, policy=policy, should_cancel=lambda: True)
    assert result.ok and result.cancelled and result.verdict == "no_proof"
    assert policy.prompts == []  # no model call was made


def test_without_lean_the_run_fails_with_the_reason() -> None:
    class Unavailable:
        unavailable_reason = "No Lean REPL: install elan"

    result = run_prover(PROBLEM, checker=Unavailable())
    assert not result.ok and result.error is not None and "install elan" in result.error
    assert result.verdict == "could_not_check" and result.trajectories == []


def test_a_missing_model_fails_the_run_plainly(make_checker: Any, tmp_path: Path) -> None:
    result = run_prover(PROBLEM, ProverConfig(model=str(tmp_path / "none")), checker=make_checker())
    assert not result.ok and result.error is not None and "could not be loaded" in result.error


def test_one_model_load_per_process(tiny_model_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    service.clear_policy_cache()
    loads: list[str] = []
    real = service.load_policy

    def counting(spec: Any, backend: str = "hf", **options: Any) -> Any:
        loads.append(str(spec))
        return real(spec, backend=backend, **options)

    monkeypatch.setattr(service, "load_policy", counting)
    first = get_policy(str(tiny_model_dir), "hf", "cpu")
    second = get_policy(str(tiny_model_dir), "hf", "cpu")
    assert first is second and loads == [str(tiny_model_dir)]
    service.clear_policy_cache()


def test_config_defaults_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert ProverConfig().resolved_model() == "smollm2"
    monkeypatch.setenv("LEANCOACH_SERVING_CHECKPOINT", "/srv/slot")
    assert ProverConfig().resolved_model() is None  # the slot decides
    monkeypatch.setenv("LEANCOACH_PROVER_MODEL", "/models/x")
    assert ProverConfig().resolved_model() == "/models/x"
    with pytest.raises(ValueError, match="mode"):
        ProverConfig(mode="guess")


def test_the_compiler_coach_gives_feedback_on_a_failed_run(
    tiny_policy: Any, make_checker: Any
) -> None:
    checker = make_checker()
    bad = "theorem four : 2 + 2 = 4 := by\n  skip -- fake: error unsolved_goals"
    policy = ScriptedPolicy(tiny_policy.tokenizer, lambda prompt, i: write_call(bad))
    events: list[dict[str, Any]] = []
    result = run_prover(
        PROBLEM,
        ProverConfig(agent=AgentConfig(max_turns=1, coach_on="failed"), coach_source="compiler"),
        on_event=lambda e: events.append(e.to_dict()),
        checker=checker,
        policy=policy,
    )
    assert result.ok and result.verdict == "invalid"
    [trajectory] = result.trajectories
    assert trajectory.feedback is not None and trajectory.feedback["source"] == "compiler"
    assert 1 <= len(trajectory.feedback["suggestions"]) <= 3
    assert [e["type"] for e in events][-2:] == ["coach_suggestion", "finished"]
