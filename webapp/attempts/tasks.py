"""The check of one attempt (queue `lean`): Lean, then the coach, pushing after each step."""

from __future__ import annotations

import logging

from celery import Task, shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.db import DatabaseError, InterfaceError, OperationalError, connection, transaction
from django.db.models import Count
from django.utils import timezone

from webapp.attempts import checking, live, sweeper
from webapp.attempts.actions import do_record_solved
from webapp.attempts.models import Attempt, LineDiagnostic, Suggestion
from webapp.core import metrics
from webapp.courses.lessons import do_count_coach_hint
from webapp.courses.models import Exercise

log = logging.getLogger(__name__)

SORRY_GOAL = "sorry_goal"


# A dropped database connection (server restart, failover) is retried this often, a second
# apart, before the attempt is left to the sweeper.
DB_RETRIES = 3


# ignore_result: the attempt row is the result. A stored result cost the worker a Redis SET
# and PUBLISH per check, and the sender a SUBSCRIBE to the result's channel per submit.
@shared_task(name="lean.check_attempt", bind=True, max_retries=DB_RETRIES, ignore_result=True)
def check_attempt(self: Task, attempt_pk: int) -> str:
    """Returns the attempt's final status (handy in tests and the worker log)."""
    try:
        return _check_once(attempt_pk, str(self.request.id or ""))
    except (OperationalError, InterfaceError) as exc:
        # The connection died under us: a fresh one on the retry (same task id, so the claim
        # below still holds). Celery closes connections around each task, not within one.
        log.warning("database connection lost while checking attempt %s: %s", attempt_pk, exc)
        connection.close()
        if self.request.called_directly or self.request.retries >= DB_RETRIES:
            raise  # the sweeper re-queues or ends the attempt past its deadline
        raise self.retry(exc=exc, countdown=1) from exc


def _check_once(attempt_pk: int, message: str) -> str:
    attempt = _fetch(attempt_pk)
    if attempt is None:
        log.warning("attempt %s vanished before it was checked", attempt_pk)
        return "missing"
    if attempt.is_finished:  # a redelivered task (acks_late): just replay the end state
        live.push(attempt)
        return attempt.status
    if not _claim(attempt, message):
        if attempt.is_finished:
            live.push(attempt)
            return attempt.status
        log.info("attempt %s is taken by task %r; copy %r steps aside", attempt_pk,
                 attempt.claimed_by, message)  # fmt: skip
        return "duplicate"
    try:
        return _check_and_coach(attempt)
    except SoftTimeLimitExceeded:
        log.warning("checking attempt %s ran past the lean queue's time limit", attempt_pk)
        return _finish(
            attempt, Attempt.Status.FAILED, "Could not check: the check ran past its time limit."
        )
    except (OperationalError, InterfaceError):
        raise  # retried by the task with a new connection
    except Exception as exc:
        # Never leave the page waiting: end in an honest "could not check" state.
        log.exception("checking attempt %s failed", attempt_pk)
        return _finish(attempt, Attempt.Status.FAILED, f"Could not check: internal error ({exc})")


def _claim(attempt: Attempt, message: str) -> bool:
    """Take a queued attempt for this task message. The same message may take it again (a
    redelivery after its worker was lost, or a retry); another copy of the check (the sweeper
    re-queued it while the first message was still on the queue) steps aside."""
    if attempt.claim(Attempt.Status.CHECKING, message):
        live.push(attempt, step=True)  # the row holds exactly these values
        return True
    # Taken meanwhile: the instance holds what the row holds now.
    attempt.refresh_from_db(fields=["status_detail"])
    return not attempt.is_finished and attempt.claimed_by == message


def _check_and_coach(attempt: Attempt) -> str:
    exercise = attempt.exercise
    outcome = checking.run_check(exercise.formal_statement, attempt.proof, exercise.header)
    if outcome.unavailable or outcome.result is None:
        return _finish(attempt, Attempt.Status.UNAVAILABLE, outcome.unavailable or "")
    # Lean's messages and the next status in one write and one push (the page shows the
    # messages while the coach works): a failed check's end state follows at once instead.
    next_status = None if outcome.failure else Attempt.Status.COACHING
    offset = checking.proof_offset(exercise.formal_statement, exercise.header)
    _store_check(attempt, outcome, offset, next_status)
    if outcome.failure:
        return _finish(attempt, Attempt.Status.FAILED, outcome.failure)
    live.push(attempt, step=True)
    coach = checking.ask_coach(
        exercise.formal_statement,
        attempt.proof,
        exercise.header,
        outcome.result,
        exercise.reference_proof,
        exercise_id=exercise.pk,
        student_id=attempt.student_id,
    )
    return _finish(attempt, Attempt.Status.DONE, "", coach)


def _fetch(attempt_pk: int) -> Attempt | None:
    return Attempt.objects.select_related("exercise").filter(pk=attempt_pk).first()


def _store_check(
    attempt: Attempt, outcome: checking.CheckOutcome, offset: int, status: str | None
) -> None:
    """Store Lean's answer (and `status`, when given); the caller pushes."""
    result = outcome.result
    assert result is not None
    fields = ["check_result", "valid", "tactics"]
    if status is not None:
        attempt.status = status
        fields.append("status")
    # Lean's messages are written with its answer, in one transaction: an attempt with no
    # answer stored has none to replace (only one re-queued after its check was stored has).
    stored_before = attempt.check_result is not None
    with transaction.atomic():
        attempt.check_result = result.to_dict()
        # A verdict only when Lean really checked: could-not-check leaves valid as None.
        attempt.valid = None if outcome.failure else result.valid
        attempt.tactics = [
            {**t.to_dict(), "line": t.line - offset, "end_line": t.end_line - offset}
            for t in result.tactics
        ]
        attempt.save(update_fields=fields)
        if stored_before:
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


def _finish(
    attempt: Attempt, status: str, detail: str, coach: checking.CoachOutcome | None = None
) -> str:
    """The end state, with the coach's suggestions when it answered: one write, so the page
    never shows the verdict without them."""
    attempt.status = status
    attempt.status_detail = detail
    attempt.finished_at = timezone.now()
    fields = ["status", "status_detail", "finished_at"]
    with transaction.atomic():
        if coach is not None:
            # Suggestions are written with the coach's source, in this one write that ends
            # the attempt, and an ended attempt is never checked again (_check_once): only
            # one whose source is already stored can have any to replace.
            if attempt.coach_source:
                attempt.suggestions.all().delete()
            attempt.coach_source = coach.source
            attempt.coach_detail = coach.detail
            fields += ["coach_source", "coach_detail"]
            Suggestion.objects.bulk_create(
                Suggestion(
                    attempt=attempt,
                    line=line,
                    text=text,
                    kind=kind,
                    source=coach.source,
                    extra=extra,
                )
                for line, text, kind, extra in coach.suggestions
            )
            if coach.gives_hint:
                do_count_coach_hint(attempt.student_id, attempt.exercise_id)
        attempt.save(update_fields=fields)
    metrics.record_check(attempt)
    do_record_solved(attempt)
    live.push(attempt)
    return status


# Goals while typing: a check-only run that records nothing (webapp/attempts/live_goals.py).
# No retries: a newer request is on its way whenever she types on.
@shared_task(name="lean.live_goals", ignore_result=True)
def live_goals(student_pk: int, token: int) -> str:
    """Returns "sent", "superseded", "unavailable" or "missing" (tests, the worker log)."""
    from webapp.attempts import live_goals as flow

    return flow.run(student_pk, token)


def prestart_lean() -> bool:
    """Run by each pool process of a worker that takes the `lean` queue, as it starts (in a
    thread of its own: webapp.celery). It starts the checker's REPL with the header most
    exercises use, so the first check after a worker (re)starts does not wait for Lean to
    start and import Mathlib (docs/LEAN.md, "Started before the first check")."""
    try:
        header = _most_used_header()
    except DatabaseError as exc:  # e.g. a worker up before the migrations ran
        log.warning("no Lean REPL started ahead of the first check: exercises unreadable (%s)", exc)
        return False
    finally:
        connection.close()  # this thread's own connection; the tasks' thread keeps its own
    return checking.prestart(header)


def _most_used_header() -> str:
    counted = (
        Exercise.objects.values("header").annotate(uses=Count("pk")).order_by("-uses", "header")
    )
    first = counted.first()
    return str(first["header"]) if first else ""


@shared_task(name="lean.sweep_stale")
def sweep_stale() -> dict[str, int]:
    """Celery beat runs this every SWEEP_EVERY_S: ends what no worker will finish."""
    return sweeper.sweep()
