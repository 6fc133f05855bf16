"""Evaluation sharded over ranks: the merged result is what one process would report."""

from __future__ import annotations

import pytest

from training.evaluate import EvalResult, merge_eval_results
from training.metrics import pass_at_k


def _row(pid: str, correct: int, n: int = 4) -> dict:
    return {"problem": pid, "n": n, "correct": correct, "could_not_check": 0}


def test_two_slices_merge_into_the_whole():
    order = ["a", "b", "c"]
    rank0 = EvalResult(  # problems a, c (order[0::2])
        {"entropy": 1.0, "response_length": 10.0, "could_not_check": 1.0},
        [_row("a", 1), _row("c", 4)],
        lemmas={"Nat.add_comm"},
        trajectories=8,
    )
    rank1 = EvalResult(  # problem b (order[1::2])
        {"entropy": 4.0, "response_length": 40.0, "could_not_check": 0.0},
        [_row("b", 0)],
        lemmas={"Nat.add_comm", "mul_pos"},
        trajectories=4,
    )
    merged = merge_eval_results([rank0, rank1], order, ks=[1, 2])
    assert [r["problem"] for r in merged.per_problem] == order
    expected_p1 = (pass_at_k(4, 1, 1) + pass_at_k(4, 0, 1) + pass_at_k(4, 4, 1)) / 3
    assert merged.metrics["pass@1"] == pytest.approx(expected_p1)  # 5/12, not (5/8 + 0) / 2
    assert merged.metrics["pass@2"] == pytest.approx(
        (pass_at_k(4, 1, 2) + 0.0 + pass_at_k(4, 4, 2)) / 3
    )
    assert merged.metrics["entropy"] == pytest.approx((1.0 * 8 + 4.0 * 4) / 12)
    assert merged.metrics["response_length"] == pytest.approx(20.0)
    assert merged.metrics["could_not_check"] == 1.0
    assert merged.metrics["distinct_lemmas"] == 2.0 and merged.trajectories == 12


def test_a_rank_without_problems_contributes_nothing():
    only = EvalResult({"entropy": 2.0}, [_row("a", 2)], trajectories=4)
    merged = merge_eval_results([only, EvalResult({})], ["a"], ks=[1])
    assert merged.metrics["pass@1"] == pytest.approx(0.5)
    assert merged.metrics["entropy"] == 2.0


def test_statement_hypotheses_are_not_lemmas_and_checked_lemmas_win():
    from training.evaluate import library_lemmas, trajectory_lemmas
    from tutor.prover.trajectory import Trajectory

    proof = "theorem t (a b : Nat) (h_ab : a < b) {hc : 0 < a} : a < b + 1 := by\n  linarith [h_ab, hc, Nat.lt_succ_self b]"
    assert library_lemmas(proof) == {"Nat.lt_succ_self"}
    traj = Trajectory(problem_id="t", statement="", mode="agent", prompt_messages=[], tools=[])
    traj.final_proof = proof
    traj.check = {"lemmas": ["Nat.lt_succ_self", "Nat.lt_of_lt_of_le"]}  # from the environment
    assert trajectory_lemmas(traj) == {"Nat.lt_succ_self", "Nat.lt_of_lt_of_le"}


def test_the_papers_three_hedging_words_are_reported_apart_from_extras():
    from training.metrics import EXTRA_HEDGING_WORDS, hedging_frequency

    texts = ["Wait maybe actually perhaps hmm"]
    assert hedging_frequency(texts) == pytest.approx(600.0)  # wait, perhaps, hmm of 5 words
    assert hedging_frequency(texts, EXTRA_HEDGING_WORDS) == pytest.approx(400.0)
