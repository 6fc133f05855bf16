"""prover.run_prover through the real prover service: with the Lean REPL double (a real
subprocess) and the tiny model it streams events, stores the trajectory and the verdict;
without Lean or a model it fails with the reason; a cancel request ends it."""

from __future__ import annotations

import logging
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

from tests.webapp.cast import Cast, make_cast
from tests.webapp.test_console_tasks import drain, listen
from tutor.lean import reset_checker
from tutor.prover.service import clear_policy_cache
from webapp.courses.models import Exercise
from webapp.provers import tasks
from webapp.provers.models import ProverRun


@pytest.fixture
def cast(db: None) -> Cast:
    return make_cast()


pytestmark = pytest.mark.django_db

FAKE_REPL = Path(__file__).resolve().parents[1] / "fakes" / "fake_repl.py"


@pytest.fixture(autouse=True)
def isolated_prover(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    torch.set_num_threads(1)
    for name in ("LEAN_REPL_CMD", "LEANCOACH_REQUIRE_SANDBOX", "LEANCOACH_SERVING_CHECKPOINT",
                 "LEANCOACH_PROVER_MODEL", "LEANCOACH_PROVER_BACKEND", "FAKE_REPL_TACTICS"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LEANCOACH_LEAN_HOME", str(tmp_path / "lean-home"))  # no installed Lean
    reset_checker()
    clear_policy_cache()
    yield
    reset_checker()
    clear_policy_cache()


@pytest.fixture
def lean_double(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEAN_REPL_CMD", shlex.join([sys.executable, str(FAKE_REPL)]))
    reset_checker()


@pytest.fixture
def tiny_prover(monkeypatch: pytest.MonkeyPatch, tiny_model_dir: Path) -> None:
    monkeypatch.setenv("LEANCOACH_PROVER_MODEL", str(tiny_model_dir))
    monkeypatch.setenv("LEANCOACH_PROVER_DEVICE", "cpu")


def _run(cast: Cast, mode: str, statement: str | None = None) -> ProverRun:
    exercise = cast.exercise
    if statement:
        exercise = Exercise.objects.create(world=cast.exercise.world, name="refl_t", order=5,
                                           formal_statement=statement)  # fmt: skip
    return ProverRun.objects.create(exercise=exercise, user=cast.student, mode=mode)


def test_without_lean_the_run_fails_with_the_reason_and_no_verdict(cast: Cast) -> None:
    run = _run(cast, "agent")
    layer, channel = listen(run.group_name)
    assert tasks.run_prover(run.pk) == "failed"
    run.refresh_from_db()
    assert run.error.startswith("Lean is unavailable") and run.verdict == ""
    assert run.trajectory is None and run.finished_at is not None
    final = drain(layer, channel)[-1]
    assert final["final"] and "Lean is unavailable" in final["html"]


def test_without_a_model_the_run_fails_with_the_reason(
    cast: Cast, lean_double, monkeypatch, tmp_path
) -> None:
    monkeypatch.setenv("LEANCOACH_PROVER_MODEL", str(tmp_path / "no-model"))
    run = _run(cast, "agent")
    tasks.run_prover(run.pk)
    run.refresh_from_db()
    assert run.status == "failed" and "model could not be loaded" in run.error and run.verdict == ""


def test_search_mode_proves_an_easy_goal_streams_expansions_and_stores_the_trajectory(
    cast: Cast,
    lean_double,
    tiny_prover,
) -> None:
    run = _run(cast, "search", "theorem refl_t (n : Nat) : n + 1 = n + 1 := by")
    layer, channel = listen(run.group_name)
    assert tasks.run_prover(run.pk) == "finished"
    run.refresh_from_db()
    assert run.verdict == "valid" and run.error == ""
    kinds = [e["type"] for e in run.events]
    assert kinds[0] == "started" and "search_expansion" in kinds and kinds[-1] == "finished"
    assert run.trajectory is not None
    assert run.trajectory["verdict"] == "valid" and run.trajectory["mode"] == "search"
    assert run.result["expansions"] >= 1 and "rfl" in run.result["final_proof"]
    messages = drain(layer, channel)
    appended = [m for m in messages if 'hx-swap-oob="beforeend"' in m["html"]]
    assert len(appended) == len(run.events)  # one pushed fragment per event, as they happen
    assert (
        messages[-1]["final"]
        and 'data-verdict="valid">a proof, checked by Lean<' in messages[-1]["html"]
    )


def test_agent_mode_records_a_training_ready_trajectory(
    cast: Cast, lean_double, tiny_prover
) -> None:
    run = _run(cast, "agent")
    tasks.run_prover(run.pk)
    run.refresh_from_db()
    assert run.status == "finished", run.error
    assert run.verdict in ("valid", "invalid", "no_proof", "could_not_check")
    trajectory = run.trajectory
    assert trajectory is not None
    assert len(trajectory["token_ids"]) == len(trajectory["mask"]) == len(trajectory["logprobs"])
    assert sum(trajectory["mask"]) > 0  # the model generated tokens, and they are marked
    assert any(e["type"] == "model_turn" for e in run.events)


def test_a_cancel_request_ends_the_run_as_cancelled(cast: Cast, lean_double, tiny_prover) -> None:
    run = _run(cast, "agent")
    ProverRun.objects.filter(pk=run.pk).update(cancel_requested=True)
    assert tasks.run_prover(run.pk) == "cancelled"
    run.refresh_from_db()
    assert run.verdict == "" and run.finished_at is not None


def test_a_run_cancelled_while_queued_is_not_started(cast: Cast) -> None:
    run = _run(cast, "agent")
    ProverRun.objects.filter(pk=run.pk).update(status="cancelled")
    assert tasks.run_prover(run.pk) == "cancelled"
    run.refresh_from_db()
    assert run.started_at is None


def test_the_success_alert_is_logged_when_a_run_ends_under_60_percent(
    cast: Cast,
    caplog: pytest.LogCaptureFixture,
) -> None:
    for i in range(10):
        ProverRun.objects.create(exercise=cast.exercise, user=cast.student, status="finished",
                                 verdict="valid" if i < 5 else "invalid")  # fmt: skip
    run = _run(cast, "agent")
    with caplog.at_level(logging.WARNING, logger="webapp.console.monitoring"):
        tasks.run_prover(run.pk)  # fails (no Lean): not counted, but the check runs
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert any("proof success rate 50%" in r.getMessage() for r in warnings)


def test_a_nul_character_from_the_model_is_stored_not_a_failure(cast: Cast) -> None:
    """A small model may write U+0000, which PostgreSQL's jsonb refuses: the run keeps its
    events, trajectory and result with the character replaced (U+FFFD), and ends normally."""
    from webapp.provers import engine

    run = _run(cast, "agent")
    recorder = tasks._event_recorder(run)
    recorder({"type": "model_turn", "attempt": 0, "text": "exact\x00 rfl"})
    outcome = engine.ProverOutcome(
        verdict="invalid", trajectory={"turns": [{"text": "a\x00b"}], "verdict": "invalid"},
        final_proof="rfl\x00", stop_reason="done",
    )  # fmt: skip
    tasks._finish(run, outcome)
    run.refresh_from_db()
    assert run.status == "finished"
    assert run.events[0]["text"] == "exact\ufffd rfl"
    assert run.trajectory is not None and run.trajectory["turns"][0]["text"] == "a\ufffdb"
    assert run.result is not None and run.result["final_proof"] == "rfl\ufffd"
