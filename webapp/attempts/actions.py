"""Every write of the attempts app. Each runs in a transaction; side effects (the Celery task,
websocket pushes) fire only once the transaction has committed."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from webapp.attempts.models import MAX_PROOF_CHARS, Attempt, CuratedFeedback, Progress, Suggestion
from webapp.celery import enqueue
from webapp.courses.models import Exercise

log = logging.getLogger(__name__)


class InvalidInput(ValueError):
    """Bad user input; the message is shown to the user as is."""


def clean_proof(proof: str) -> str:
    proof = proof.replace("\r\n", "\n").rstrip()
    if not proof.strip():
        raise InvalidInput("Write a proof first: the editor is empty.")
    # Neither can be stored as text (PostgreSQL refuses NUL) nor checked by Lean: say where.
    if "\x00" in proof:
        line = proof[: proof.index("\x00")].count("\n") + 1
        raise InvalidInput(
            f"Line {line} of your proof contains a NUL character (often from a paste). "
            "Delete it and submit again; your text is still in the editor."
        )
    bad = next((i for i, char in enumerate(proof) if "\ud800" <= char <= "\udfff"), None)
    if bad is not None:
        line = proof[:bad].count("\n") + 1
        raise InvalidInput(
            f"Line {line} of your proof contains a broken character (half of an emoji or "
            "symbol). Retype that character and submit again."
        )
    if len(proof) > MAX_PROOF_CHARS:
        raise InvalidInput(
            f"This proof has {len(proof):,} characters; the limit is {MAX_PROOF_CHARS:,}. "
            "Your text is still in the editor: shorten it and submit again."
        )
    return proof


class CheckInProgress(InvalidInput):
    """The student's previous proof of this exercise is being checked right now."""


@dataclass(frozen=True)
class Submitted:
    """What a submit made: the new attempt, and the attempts of hers it superseded (the
    submit's answer redraws their lines in the page's history)."""

    attempt: Attempt
    superseded: list[int]


def do_submit_attempt(student: User, exercise: Exercise, proof: str) -> Submitted:
    """At most one unfinished check per student and exercise: a queued one is superseded by
    the new submission; while one is being checked the new one is refused with a message
    (the worker is busy with it either way, so accepting would let one student hold more
    than one worker). A check whose worker is gone (past the queue's hard time limit) does
    not block: it is superseded too."""
    proof = clean_proof(proof)
    with transaction.atomic():
        # Serialises this student's submits on this exercise (two tabs, a double click):
        # FOR UPDATE where the database has it; SQLite's IMMEDIATE transaction serialises.
        progress, _ = Progress.objects.select_for_update().get_or_create(
            student=student, exercise=exercise
        )
        unfinished = list(
            Attempt.objects.filter(
                student=student, exercise=exercise, status__in=Attempt.UNFINISHED
            ).values_list("pk", "status", "started_at")
        )
        alive_since = timezone.now() - timedelta(seconds=_lean_hard_limit_s())
        busy = next(
            (
                pk
                for pk, status, started_at in unfinished
                if status in (Attempt.Status.CHECKING, Attempt.Status.COACHING)
                and started_at is not None
                and started_at >= alive_since
            ),
            None,
        )
        if busy is not None:
            raise CheckInProgress(
                f"Your previous proof (attempt {busy}) is being checked right now. Wait for "
                "its verdict (usually a few seconds), then submit again; your text is still "
                "in the editor."
            )
        attempt = Attempt.objects.create(student=student, exercise=exercise, proof=proof)
        # Read under the lock above: no other submit of this student on this exercise can
        # have added one since.
        superseded = [pk for pk, _, _ in unfinished]
        if superseded:
            Attempt.objects.filter(pk__in=superseded, status__in=Attempt.UNFINISHED).update(
                status=Attempt.Status.SUPERSEDED,
                status_detail=f"Replaced by a newer submission (attempt {attempt.pk}) before its check finished.",
                finished_at=timezone.now(),
            )
        progress.attempts += 1
        progress.last_attempt = attempt
        progress.save(update_fields=["attempts", "last_attempt"])
        transaction.on_commit(lambda: enqueue_check(attempt))
        if superseded:
            transaction.on_commit(lambda: _push_all(superseded))
    return Submitted(attempt, superseded)


def _lean_hard_limit_s() -> int:
    limits = getattr(settings, "CELERY_QUEUE_TIME_LIMITS", {}).get("lean")
    return int(limits[1]) if limits else 240


def do_requeue_attempt(attempt: Attempt) -> int:
    """Put an attempt that no worker took or finished back on the queue (the sweeper, up to
    ATTEMPT_MAX_REQUEUES times); 0 when it moved on meanwhile."""
    with transaction.atomic():
        moved = Attempt.objects.filter(
            pk=attempt.pk, status=attempt.status, requeues=attempt.requeues
        ).update(
            status=Attempt.Status.QUEUED,
            queued_at=timezone.now(),
            requeues=F("requeues") + 1,
            started_at=None,
            claimed_by="",
            status_detail="Sent to the checkers again: the first request got lost on the way.",
        )
        if moved:
            transaction.on_commit(lambda: enqueue_check(attempt))
    if moved:
        log.warning("re-queued attempt %s (was %s)", attempt.pk, attempt.status)
    return moved


def enqueue_check(attempt: Attempt) -> bool:
    """Send the check to the `lean` queue; if the broker is unreachable, end the attempt now
    with the reason (the proof is stored and stays in the editor, to submit again)."""
    try:
        enqueue("lean.check_attempt", attempt.pk)
    except Exception as exc:  # kombu/redis raise many types; every one means "not queued"
        log.warning("could not queue the check of attempt %s: %s", attempt.pk, exc)
        do_fail_attempt(
            attempt,
            "Could not check: the checking queue is unreachable right now "
            f"({type(exc).__name__}). Your proof is saved and still in the editor: "
            "submit it again in a minute.",
        )
        return False
    return True


def do_fail_attempt(attempt: Attempt, detail: str) -> int:
    """End an unfinished attempt as "could not check" with the reason shown to the student;
    0 when it had ended meanwhile."""
    done = Attempt.objects.filter(pk=attempt.pk, status__in=Attempt.UNFINISHED).update(
        status=Attempt.Status.FAILED, status_detail=detail, finished_at=timezone.now()
    )
    attempt.refresh_from_db()
    if done:
        _safe_push(attempt)
    return done


def _push_all(pks: list[int]) -> None:
    for attempt in Attempt.objects.filter(pk__in=pks).select_related("exercise"):
        _safe_push(attempt)


def _safe_push(attempt: Attempt) -> None:
    """A push needs the channel layer (Redis); the page's poll still shows the state if not."""
    from webapp.attempts import live

    try:
        live.push(attempt)
    except Exception as exc:  # noqa: BLE001 - the database holds the state; the push is a hint
        log.warning("could not push attempt %s: %s", attempt.pk, exc)


def do_record_solved(attempt: Attempt) -> None:
    """Progress follows verdicts: only a valid check marks an exercise solved."""
    if attempt.valid is not True:
        return
    with transaction.atomic():
        progress, _ = Progress.objects.select_for_update().get_or_create(
            student_id=attempt.student_id, exercise_id=attempt.exercise_id
        )
        if not progress.solved:
            progress.solved = True
            progress.solved_at = attempt.finished_at or timezone.now()
            progress.save(update_fields=["solved", "solved_at"])
            # A newly solved exercise may raise a score an LMS is waiting for (LTI).
            transaction.on_commit(lambda: _scores_changed(attempt))


def _scores_changed(attempt: Attempt) -> None:
    from webapp.lti.actions import scores_changed

    scores_changed(attempt.student_id, attempt.exercise_id)


@dataclass(frozen=True)
class ReviewInput:
    verdict: str  # approved | edited | rejected
    text: str = ""
    reason: str = ""

    def cleaned(self, suggestion: Suggestion) -> ReviewInput:
        Review = Suggestion.Review
        text, reason = self.text.strip(), self.reason.strip()
        if self.verdict == Review.APPROVED:
            return ReviewInput(self.verdict, suggestion.text, reason)
        if self.verdict == Review.EDITED:
            if not text:
                raise InvalidInput("An edit needs the corrected text.")
            if text == suggestion.text.strip():
                raise InvalidInput("The edit is the same as the coach's text: approve it instead.")
            return ReviewInput(self.verdict, text, reason)
        if self.verdict == Review.REJECTED:
            if not reason:
                raise InvalidInput("Say why you reject it: the reason is training signal.")
            return ReviewInput(self.verdict, "", reason)
        raise InvalidInput(f"Unknown review verdict {self.verdict!r}.")


def do_review_suggestion(
    teacher: User, suggestion: Suggestion, review: ReviewInput
) -> CuratedFeedback:
    """Approve, edit or reject a suggestion; a later review replaces an earlier one. It
    teaches the coach for the reviewer's own classes; an admin's, for every class."""
    from webapp.accounts.roles import is_admin

    review = review.cleaned(suggestion)
    with transaction.atomic():
        curated, _ = CuratedFeedback.objects.update_or_create(
            suggestion=suggestion,
            defaults={
                "teacher": teacher,
                "verdict": review.verdict,
                "text": review.text,
                "reason": review.reason,
                "for_all": is_admin(teacher),
            },
        )
        suggestion.review = review.verdict
        suggestion.save(update_fields=["review"])
    return curated


def do_share_feedback(curated: CuratedFeedback, for_all: bool) -> CuratedFeedback:
    """An admin lets a teacher's review teach the coach for every class, or takes it back to
    the reviewer's own classes."""
    with transaction.atomic():
        curated.for_all = for_all
        curated.save(update_fields=["for_all", "updated_at"])
    return curated
