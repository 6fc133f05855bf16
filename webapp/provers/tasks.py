"""Celery task of the `prover` queue: one "Ask the prover" run.

`prover.run_prover(run_pk)` re-fetches the ProverRun, runs the prover through
webapp.provers.engine, appends each event to the run and pushes it to the group
`prover_run.<pk>` as a rendered fragment, stores the trajectory for training, always sends a
final message, and ends failed with the reason when Lean, the model or the service is
unavailable.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from celery import Task, shared_task
from django.utils import timezone

from webapp.console.live import push, render_fragments
from webapp.console.monitoring import log_success_alert
from webapp.provers import engine
from webapp.provers.access import owner_may_see_final_proof
from webapp.provers.actions import do_end_stale_prover_run
from webapp.provers.live import RUN_TEMPLATE, push_prover_state
from webapp.provers.models import ProverRun
from webapp.provers.presenters import event_view, tree_view

logger = logging.getLogger(__name__)

MAX_STORED_EVENTS = 500  # the page shows the first 500; the trajectory keeps everything
CANCEL_POLL_S = 0.5
TREE_PUSH_S = 0.3  # a search's tree is stored and pushed at most this often


def storable(value: Any) -> Any:
    """`value` with every NUL character in its strings replaced by U+FFFD: a model may write
    one (a small or untrained one often does), and PostgreSQL's text and jsonb cannot hold
    it (DataError "\\u0000 cannot be converted to text"), which failed the run's save."""
    if isinstance(value, str):
        return value.replace("\x00", "\ufffd")
    if isinstance(value, dict):
        return {storable(k): storable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [storable(v) for v in value]
    return value


def _push_event(run: ProverRun, index: int, event: dict[str, Any], *, reveal: bool) -> None:
    context = {"run": run, "event": event_view(index, event, reveal=reveal)}
    push(run.group_name, render_fragments(RUN_TEMPLATE, ["event_append"], context))


class _Recorder:
    """Appends each event to the run and pushes it; a search's tree (a `search_tree`
    event, the whole tree each time) replaces `run.tree` instead, stored and pushed at most
    every TREE_PUSH_S seconds (the page redraws it whole) and always when it ends."""

    def __init__(self, run: ProverRun) -> None:
        self.run = run
        self.reveal = owner_may_see_final_proof(run)  # once per run: not a query per token
        self.pushed_at = 0.0
        self.pending = False

    def __call__(self, event: dict[str, Any]) -> None:
        event = storable(event)
        if event.get("type") == "search_tree":
            self.run.tree, self.pending = event, True
            if event.get("outcome") or time.monotonic() - self.pushed_at >= TREE_PUSH_S:
                self.flush()
            return
        if len(self.run.events) >= MAX_STORED_EVENTS:
            return
        self.run.events.append(event)
        self.run.save(update_fields=["events"])
        _push_event(self.run, len(self.run.events) - 1, event, reveal=self.reveal)

    def flush(self) -> None:
        if not self.pending:
            return
        self.pending, self.pushed_at = False, time.monotonic()
        self.run.save(update_fields=["tree"])
        context = {"run": self.run, "tree": tree_view(self.run, reveal=self.reveal)}
        push(self.run.group_name, render_fragments(RUN_TEMPLATE, ["tree"], context))


def _event_recorder(run: ProverRun) -> _Recorder:
    return _Recorder(run)


def _cancel_checker(pk: int) -> Callable[[], bool]:
    """Asks the database at most every CANCEL_POLL_S; the prover may call it per token."""
    last = {"at": 0.0, "value": False}

    def should_cancel() -> bool:
        now = time.monotonic()
        if not last["value"] and now - float(last["at"]) >= CANCEL_POLL_S:
            last["at"] = now
            last["value"] = ProverRun.objects.filter(pk=pk, cancel_requested=True).exists()
        return bool(last["value"])

    return should_cancel


def problem_for(run: ProverRun) -> dict[str, Any]:
    exercise = run.exercise
    return {
        "id": exercise.name,
        "statement": exercise.formal_statement,
        "header": exercise.header,
        "informal": exercise.informal_prefix,
        # The prover never gets the reference proof: it would be told the answer.
        "reference_proof": None,
    }


def _finish(run: ProverRun, outcome: engine.ProverOutcome) -> None:
    run.refresh_from_db(fields=["cancel_requested", "status"])
    if not run.is_active:  # ended meanwhile (force-stopped, or by the sweeper): keep that
        return
    if outcome.cancelled or (run.cancel_requested and not outcome.verdict):
        status = ProverRun.Status.CANCELLED
    elif outcome.ok:
        status = ProverRun.Status.FINISHED
    else:
        status = ProverRun.Status.FAILED
    run.status = status
    run.verdict = outcome.verdict if status == ProverRun.Status.FINISHED else ""
    run.trajectory = storable(outcome.trajectory)
    run.result = storable(outcome.summary())
    run.error = storable(outcome.error or "")
    run.finished_at = timezone.now()
    run.save(update_fields=["status", "verdict", "trajectory", "result", "error", "finished_at"])


@shared_task(name="prover.run_prover", bind=True)
def run_prover(self: Task, run_pk: int) -> str:
    message = str(self.request.id or "")
    run = ProverRun.objects.select_related("exercise__world", "user").filter(pk=run_pk).first()
    if run is None:
        return "missing"
    # Take a queued run for this message; the same message finding it running is a
    # redelivery (its worker died), another message is a copy the sweeper re-queued.
    took = run.claim(ProverRun.Status.RUNNING, message)
    run.refresh_from_db(fields=["cancel_requested"])
    if not took and run.status == ProverRun.Status.RUNNING:
        if run.claimed_by != message:
            return "duplicate"
        do_end_stale_prover_run(run, "The prover's worker stopped during this run; ask again.")
        return ProverRun.Status.FAILED
    if not took:  # cancelled while queued, or ended by the sweeper
        push_prover_state(run.pk, final=not run.is_active)
        return run.status
    push_prover_state(run.pk)
    recorder = _event_recorder(run)
    try:
        outcome = engine.run(
            problem_for(run), run.mode, recorder, _cancel_checker(run.pk), run.algorithm
        )
        recorder.flush()
    except Exception as exc:  # noqa: BLE001 - engine.run should not raise; if it does, say so
        logger.exception("prover run %s crashed", run.pk)
        outcome = engine.ProverOutcome(error=f"{type(exc).__name__}: {exc}")
    try:
        _finish(run, outcome)
    except Exception as exc:  # noqa: BLE001 - e.g. an unstorable trajectory: end visibly anyway
        logger.exception("prover run %s could not be stored", run.pk)
        ProverRun.objects.filter(pk=run.pk).update(
            status=ProverRun.Status.FAILED, error=f"could not store the result: {exc}",
            finished_at=timezone.now(),
        )  # fmt: skip
    push_prover_state(run.pk, final=True)
    log_success_alert()
    run.refresh_from_db(fields=["status"])
    return run.status
