"""Step-level search end to end through the real LeanChecker's tactic mode on the fake
REPL subprocess (its FAKE_REPL_TACTICS table plays Lean's tactic outcomes)."""

from __future__ import annotations

from typing import Any

import pytest

from tutor.prover.lean_adapter import lean_tactic_backend
from tutor.prover.problem import Problem
from tutor.prover.search import (
    ExplorationSchedule,
    SearchConfig,
    clean_tactic,
    search,
)
from tutor.prover.trajectory import Verdict

ADD_ZERO = Problem("add_zero", "theorem add_zero' (n : Nat) : n + 0 = n := by")
FOUR = Problem("four", "theorem four : 2 + 2 = 4 := by")
SPLIT = Problem("split", "theorem split (a b : Nat) (h : a < b) : a ≤ b ∧ 0 < b := by")
EASY_TABLE = [
    {"goal": "n : Nat\n⊢ n + 0 = n", "tactic": "simp", "goals": []},
    {"goal": "⊢ 2 + 2 = 4", "tactic": "decide", "goals": []},
    # Two steps: simp splits the conjunction, then omega closes each half.
    {
        "goal": "a b : Nat\nh : a < b\n⊢ a ≤ b ∧ 0 < b",
        "tactic": "simp",
        "goals": ["a b : Nat\nh : a < b\n⊢ a ≤ b", "a b : Nat\nh : a < b\n⊢ 0 < b"],
    },
    {"goal": "a b : Nat\nh : a < b\n⊢ a ≤ b", "tactic": "omega", "goals": []},
    {"goal": "a b : Nat\nh : a < b\n⊢ 0 < b", "tactic": "omega", "goals": []},
]


def run(problems: list[Problem], checker: Any, policy: Any = None, **options: Any) -> Any:
    events: list[dict[str, Any]] = []
    config = SearchConfig(**{"max_iterations": 8, "seed": 0, **options})
    trajectories = search(
        policy,
        problems,
        config=config,
        checker=checker,
        backend_factory=lean_tactic_backend(checker),
        on_event=lambda e: events.append(e.to_dict()),
    )
    return trajectories, events


def test_a_weak_model_proves_easy_goals_thanks_to_the_portfolio(
    tiny_policy: Any, make_checker: Any
) -> None:
    checker = make_checker(tactics=EASY_TABLE)
    trajectories, events = run(
        [ADD_ZERO, FOUR, SPLIT], checker, tiny_policy, model_samples=2, model_max_tokens=8
    )
    assert [t.verdict for t in trajectories] == [Verdict.VALID] * 3
    assert trajectories[0].final_proof == "theorem add_zero' (n : Nat) : n + 0 = n := by\n  simp\n"
    assert trajectories[2].search is not None
    assert trajectories[2].search["tactics"] == ["simp", "omega", "omega"]
    assert all(t.reward == 1.0 and t.check and t.check["valid"] for t in trajectories)
    expansions = [e for e in events if e["type"] == "search_expansion"]
    # The random model's proposals were tried too, and failed as Lean errors.
    assert any(e["source"] == "model" for e in expansions)
    assert {e["source"] for e in expansions if e["status"] == "solved"} == {"portfolio"}
    assert all(e["exploration_rate"] == pytest.approx(0.3) for e in expansions)


def test_a_step_the_full_verdict_rejects_is_not_a_proof(make_checker: Any) -> None:
    # The table lets native_decide "close" the goal in tactic mode, but the full check
    # sees the axiom Lean declares for it (`…._native.native_decide.ax_1_1`) and refuses it.
    table = [{"goal": "⊢ 2 + 2 = 4", "tactic": "native_decide", "goals": []}]
    checker = make_checker(tactics=table)
    [trajectory], events = run([FOUR], checker, portfolio=("native_decide", "rfl"))
    assert trajectory.verdict is Verdict.NO_PROOF and trajectory.final_proof is None
    assert trajectory.check is not None and trajectory.check["valid"] is False
    assert any(e.get("status") == "solved" for e in events)


def test_an_unprovable_goal_exhausts_the_search(make_checker: Any) -> None:
    checker = make_checker(tactics=[])
    hard = Problem("hard", "theorem hard (p : Prop) : p := by")
    [trajectory], _ = run([hard], checker, model_samples=0)
    assert trajectory.verdict is Verdict.NO_PROOF and trajectory.stop_reason == "exhausted"
    assert trajectory.reward == 0.0


def test_without_lean_the_search_says_it_could_not_check(make_checker: Any) -> None:
    checker = make_checker()
    checker.close()  # a closed pool refuses leases: Lean is unavailable from here on
    [trajectory], events = run([FOUR], checker, model_samples=0)
    assert trajectory.verdict is Verdict.COULD_NOT_CHECK and trajectory.reward is None
    assert events[-1]["type"] == "finished"


def test_exploration_follows_seed_000() -> None:
    schedule = ExplorationSchedule(start=0.4)
    assert schedule.rate(0) == pytest.approx(0.4)
    assert schedule.rate(999) == pytest.approx(0.4)
    assert schedule.rate(1000) == pytest.approx(0.38)
    assert schedule.rate(2000) == pytest.approx(0.4 * 0.95**2)
    assert schedule.rate(10**6) == pytest.approx(0.1)
    with pytest.raises(ValueError, match="floor"):
        ExplorationSchedule(start=0.05)


def test_mathlib_problems_get_the_arithmetic_portfolio() -> None:
    plain = SearchConfig().portfolio_for(FOUR)
    mathlib = SearchConfig().portfolio_for(Problem("m", FOUR.statement, header="import Mathlib\n"))
    assert "linarith" not in plain and {"linarith", "nlinarith", "norm_num"} <= set(mathlib)
    assert {"rfl", "simp", "omega", "decide", "exact?"} <= set(plain)


def test_clean_tactic_takes_one_safe_line() -> None:
    assert clean_tactic("```lean\n  omega  \nmore") == "omega"
    assert clean_tactic("sorry") is None
    assert clean_tactic("   \n") is None


def test_exact_query_is_replaced_by_the_term_lean_found() -> None:
    """ReplTacticBackend reads tactic-mode replies; `exact?` closes the goal with an info
    message whose suggestion is what the written proof must contain."""
    from tutor.lean import Diagnostic, TacticResult
    from tutor.prover.lean_adapter import ReplTacticBackend

    class Session:
        def tactic(
            self, tactic: str, proof_state: int, timeout_s: float | None = None
        ) -> TacticResult:
            info = Diagnostic(0, 0, 0, 0, "info", "Try this: exact Nat.le_refl n")
            return TacticResult(proof_state + 1, [], "Completed", [info])

    step = ReplTacticBackend(Session()).apply(3, "exact?")  # type: ignore[arg-type]
    assert step.completed and step.used_tactic == "exact Nat.le_refl n" and step.proof_state == 4


def test_selection_explores_at_the_given_rate() -> None:
    import random

    from tutor.prover.search import Node, _select

    def frontier() -> list[tuple[float, int, Node]]:
        return [(-float(10 - i), i, Node(i, i, [], [], float(10 - i), 0)) for i in range(10)]

    import heapq

    greedy = [_select(heapq.nsmallest(10, frontier()), 0.0, random.Random(s)).id for s in range(20)]
    assert set(greedy) == {0}
    explored = [
        _select(heapq.nsmallest(10, frontier()), 1.0, random.Random(s)).id for s in range(20)
    ]
    assert len(set(explored)) > 3
