"""Held-out evaluation through the real agent loop and the checker double."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from transformers import AutoModelForCausalLM, AutoTokenizer

from tests.support.shared_data import shared_data_file
from training.config import tiny_cpu_config
from training.data import load_problems
from training.evaluate import evaluate, library_lemmas


def test_library_lemmas_heuristic():
    proof = "theorem t (a : Nat) : 2 * a = a + a := by\n  have h_two : 2 = 1 + 1 := rfl\n  rw [Nat.two_mul, add_comm] -- not_this\n  nlinarith [sq_nonneg (a - 1), h_two]"
    assert library_lemmas(proof) == {"Nat.two_mul", "add_comm", "sq_nonneg"}


def test_evaluate_reports_pass_at_k_by_hand(
    tiny_model_dir: Path, problems_file: Path, rollout_factory: Any
):
    config = tiny_cpu_config(str(tiny_model_dir), str(problems_file))
    config.evaluation.n_samples = 2
    config.evaluation.ks = [1, 2]
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir)
    tok = AutoTokenizer.from_pretrained(tiny_model_dir)
    problems = load_problems(problems_file).problems
    seen: set[str] = set()
    result = evaluate(
        model,
        tok,
        rollout_factory(model, tok, config.model),
        problems,
        config,
        pad_id=tok.pad_token_id,
        lemmas_seen=seen,
    )
    # Per problem: 1 live sample (the random tiny model never proves anything) and 1 scripted
    # one that proves add_zero_t and two_mul_t and writes `sorry` for and_t.
    assert [p["correct"] for p in result.per_problem] == [1, 1, 0]
    assert result.metrics["pass@1"] == pytest.approx((0.5 + 0.5 + 0) / 3)
    assert result.metrics["pass@2"] == pytest.approx((1 + 1 + 0) / 3)
    assert result.metrics["entropy"] > 0 and result.metrics["response_length"] > 0
    assert result.metrics["could_not_check"] == 0
    assert result.metrics["distinct_lemmas"] == 1 and seen == {"Nat.two_mul"}


def test_mathlib_problems_are_skipped_and_counted_without_mathlib():
    minif2f = shared_data_file("minif2f.jsonl")
    loaded = load_problems(minif2f, mathlib=False)
    assert loaded.problems == [] and loaded.skipped_needs_mathlib == 488
    with_mathlib = load_problems(minif2f, mathlib=True, split="test", max_problems=5)
    assert len(with_mathlib.problems) == 5
