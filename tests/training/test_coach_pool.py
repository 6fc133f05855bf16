"""Coach calls in a bounded pool: order kept, concurrency bounded, failures and fallbacks
counted and surfaced, fallbacks droppable. The coach is a test double (FakeCoach)."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import pytest

from tests.training.scripted_rollouts import scripted_trajectory
from training.rollouts import attach_feedback
from tutor.coach.types import Feedback, Suggestion
from tutor.prover.problem import Problem


class FakeCoach:
    """Sleeps `delay` per call; raises for statements containing 'boom'; answers as the
    compiler with a fallback_reason for statements containing 'fallback'."""

    def __init__(self, delay: float = 0.05) -> None:
        self.delay = delay
        self.in_flight = 0
        self.most_in_flight = 0
        self.calls = 0
        self._lock = threading.Lock()

    def advise(self, statement: str, attempt: str, diagnostics: Any, **_: Any) -> Feedback:
        with self._lock:
            self.calls += 1
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            time.sleep(self.delay)
            if "boom" in statement:
                raise TimeoutError("the API did not answer")
            fallback = "fallback" in statement
            return Feedback(
                suggestions=[Suggestion(line=None, text=f"Do look at {statement.split()[1]}.")],
                source="compiler" if fallback else "llm",
                requested_source="llm",
                fallback_reason="rate limited" if fallback else None,
            )
        finally:
            with self._lock:
                self.in_flight -= 1


@pytest.fixture(scope="module")
def tokenizer(tiny_model_dir):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(tiny_model_dir)


def _trajectories(tokenizer: Any, names: list[str]) -> list[Any]:
    return [
        scripted_trajectory(tokenizer, Problem(id=n, statement=f"theorem {n} : 1 = 1 := by"), 1.0)
        for n in names
    ]


def test_calls_run_concurrently_within_the_bound_and_keep_order(tokenizer):
    names = [f"t{i}" for i in range(12)]
    coach = FakeCoach(delay=0.05)
    outcome = attach_feedback(coach, _trajectories(tokenizer, names), max_workers=4)
    # 12 calls of 50 ms on 4 workers: 4 in flight at once, never more (serial would be 1).
    assert coach.calls == 12 and coach.most_in_flight == 4
    assert [t.problem_id for t in outcome.with_feedback] == names
    assert [f"Do look at {n}." in text for n, text in zip(names, outcome.texts, strict=True)] == [
        True
    ] * 12
    metrics = outcome.metrics()
    assert metrics["coach_calls"] == 12 and metrics["coach_source/llm"] == 12
    assert metrics["coach_latency_s"] >= 0.05


def test_failures_and_fallbacks_are_counted_and_surfaced(tokenizer, caplog):
    # Its own level: a test that ran an in-process Celery worker may leave the root logger
    # above WARNING.
    caplog.set_level(logging.WARNING, logger="training.rollouts")
    names = ["ok1", "boom1", "fallback1", "ok2", "boom2"]
    outcome = attach_feedback(FakeCoach(0.0), _trajectories(tokenizer, names), max_workers=3)
    assert [t.problem_id for t in outcome.with_feedback] == ["ok1", "fallback1", "ok2"]
    assert len(outcome.failures) == 2 and "TimeoutError" in outcome.failures[0]
    metrics = outcome.metrics()
    assert metrics["coach_failures"] == 2
    assert metrics["coach_fallbacks"] == 1
    assert metrics["coach_fallback_rate"] == pytest.approx(1 / 3)
    assert metrics["coach_source/compiler"] == 1 and metrics["coach_source/llm"] == 2
    assert "coach failed on 2 of 5" in caplog.text


def test_drop_fallback_keeps_an_llm_run_an_llm_run(tokenizer):
    names = ["ok1", "fallback1", "fallback2"]
    outcome = attach_feedback(
        FakeCoach(0.0), _trajectories(tokenizer, names), max_workers=2, drop_fallback=True
    )
    assert [t.problem_id for t in outcome.with_feedback] == ["ok1"]
    assert outcome.metrics()["coach_dropped_fallbacks"] == 2


def test_trajectories_with_feedback_are_not_asked_again(tokenizer):
    trajs = _trajectories(tokenizer, ["a", "b"])
    trajs[0].feedback = Feedback(
        suggestions=[Suggestion(line=None, text="Do stop.")], source="fixed"
    ).to_dict()
    coach = FakeCoach(0.0)
    outcome = attach_feedback(coach, trajs, max_workers=8)
    assert coach.calls == 1 and outcome.texts[0] == "Do stop."
