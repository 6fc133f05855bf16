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

from celery import shared_task
from django.utils import timezone

from webapp.console.live import push, render_fragments
from webapp.console.monitoring import log_success_alert
from webapp.provers import engine
from webapp.provers.models import ProverRun
from webapp.provers.presenters import event_view, run_context

logger = logging.getLogger(__name__)

RUN_TEMPLATE = "provers/run.html"
MAX_STORED_EVENTS = 500  # the page shows the first 500; the trajectory keeps everything
CANCEL_POLL_S = 0.5


def push_prover_state(pk: int, *, final: bool = False) -> None:
    run = ProverRun.objects.select_related("exercise").get(pk=pk)
    push(run.group_name, render_fragments(RUN_TEMPLATE, ["status", "events"], run_context(run)),
         final=final)  # fmt: skip


def _push_event(run: ProverRun, index: int, event: dict[str, Any]) -> None:
    context = {"run": run, "event": event_view(index, event)}
    push(run.group_name, render_fragments(RUN_TEMPLATE, ["event_append"], context))


def _event_recorder(run: ProverRun) -> Callable[[dict[str, Any]], None]:
    def on_event(event: dict[str, Any]) -> None:
        if len(run.events) >= MAX_STORED_EVENTS:
            return
        run.events.append(event)
        run.save(update_fields=["events"])
        _push_event(run, len(run.events) - 1, event)

    return on_event


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
    run.refresh_from_db(fields=["cancel_requested"])
    if outcome.cancelled or (run.cancel_requested and not outcome.verdict):
        status = ProverRun.Status.CANCELLED
    elif outcome.ok:
        status = ProverRun.Status.FINISHED
    else:
        status = ProverRun.Status.FAILED
    run.status = status
    run.verdict = outcome.verdict if status == ProverRun.Status.FINISHED else ""
    run.trajectory = outcome.trajectory
    run.result = outcome.summary()
    run.error = outcome.error or ""
    run.finished_at = timezone.now()
    run.save(update_fields=["status", "verdict", "trajectory", "result", "error", "finished_at"])


@shared_task(name="prover.run_prover")
def run_prover(run_pk: int) -> str:
    run = ProverRun.objects.select_related("exercise").filter(pk=run_pk).first()
    if run is None:
        return "missing"
    if run.status != ProverRun.Status.QUEUED:  # cancelled while queued, or a redelivery
        push_prover_state(run.pk, final=not run.is_active)
        return run.status
    run.status, run.started_at = ProverRun.Status.RUNNING, timezone.now()
    run.save(update_fields=["status", "started_at"])
    push_prover_state(run.pk)
    try:
        outcome = engine.run(
            problem_for(run), run.mode, _event_recorder(run), _cancel_checker(run.pk)
        )
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
