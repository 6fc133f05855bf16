"""The check of one attempt (queue `lean`): Lean, then the coach, pushing after each step."""

from __future__ import annotations

import logging

from celery import shared_task
from django.db import transaction
from django.utils import timezone

from webapp.attempts import checking, live
from webapp.attempts.actions import do_record_solved
from webapp.attempts.models import Attempt, LineDiagnostic, Suggestion

log = logging.getLogger(__name__)

SORRY_GOAL = "sorry_goal"


@shared_task(name="lean.check_attempt")
def check_attempt(attempt_pk: int) -> str:
    """Returns the attempt's final status (handy in tests and the worker log)."""
    attempt = _fetch(attempt_pk)
    if attempt is None:
        log.warning("attempt %s vanished before it was checked", attempt_pk)
        return "missing"
    if attempt.is_finished:  # a redelivered task (acks_late): just replay the end state
        live.push(attempt)
        return attempt.status
    try:
        return _check_and_coach(attempt)
    except Exception as exc:
        # Never leave the page waiting: end in an honest "could not check" state.
        log.exception("checking attempt %s failed", attempt_pk)
        return _finish(attempt, Attempt.Status.FAILED, f"Could not check: internal error ({exc})")


def _check_and_coach(attempt: Attempt) -> str:
    exercise = attempt.exercise
    _set_status(attempt, Attempt.Status.CHECKING)
    outcome = checking.run_check(exercise.formal_statement, attempt.proof, exercise.header)
    if outcome.unavailable or outcome.result is None:
        return _finish(attempt, Attempt.Status.UNAVAILABLE, outcome.unavailable or "")
    _store_check(
        attempt, outcome, checking.proof_offset(exercise.formal_statement, exercise.header)
    )
    if outcome.failure:
        return _finish(attempt, Attempt.Status.FAILED, outcome.failure)
    _set_status(attempt, Attempt.Status.COACHING)
    coach = checking.ask_coach(
        exercise.formal_statement,
        attempt.proof,
        exercise.header,
        outcome.result,
        exercise.reference_proof,
    )
    _store_suggestions(attempt, coach)
    return _finish(attempt, Attempt.Status.DONE, "")


def _fetch(attempt_pk: int) -> Attempt | None:
    return Attempt.objects.select_related("exercise", "student").filter(pk=attempt_pk).first()


def _set_status(attempt: Attempt, status: str) -> None:
    attempt.status = status
    attempt.save(update_fields=["status"])
    live.push(attempt)


def _store_check(attempt: Attempt, outcome: checking.CheckOutcome, offset: int) -> None:
    result = outcome.result
    assert result is not None
    with transaction.atomic():
        attempt.check_result = result.to_dict()
        # A verdict only when Lean really checked: could-not-check leaves valid as None.
        attempt.valid = None if outcome.failure else result.valid
        attempt.save(update_fields=["check_result", "valid"])
        attempt.diagnostics.all().delete()
        rows = [
            _diagnostic_row(attempt, checking.to_proof_lines(d, offset)) for d in result.diagnostics
        ]
        # The goal at each `sorry` is the goal state a student most needs to see.
        rows += [
            LineDiagnostic(
                attempt=attempt,
                line=max(s.line - offset, 0),
                column=s.column,
                severity="info",
                kind=SORRY_GOAL,
                message="goal at this sorry",
                goal=s.goal,
            )
            for s in result.sorries
        ]
        LineDiagnostic.objects.bulk_create(rows)
    live.push(attempt)


def _diagnostic_row(attempt: Attempt, d: checking.Diagnostic) -> LineDiagnostic:
    return LineDiagnostic(
        attempt=attempt,
        line=d.line,
        column=d.column,
        end_line=d.end_line,
        end_column=d.end_column,
        severity=d.severity,
        kind=str(d.kind),
        message=d.message,
        goal=d.goal or "",
    )


def _store_suggestions(attempt: Attempt, coach: checking.CoachOutcome) -> None:
    with transaction.atomic():
        attempt.coach_source = coach.source
        attempt.coach_detail = coach.detail
        attempt.save(update_fields=["coach_source", "coach_detail"])
        attempt.suggestions.all().delete()
        Suggestion.objects.bulk_create(
            Suggestion(attempt=attempt, line=line, text=text, kind=kind, source=coach.source)
            for line, text, kind in coach.suggestions
        )


def _finish(attempt: Attempt, status: str, detail: str) -> str:
    attempt.status = status
    attempt.status_detail = detail
    attempt.finished_at = timezone.now()
    attempt.save(update_fields=["status", "status_detail", "finished_at"])
    do_record_solved(attempt)
    live.push(attempt)
    return status
