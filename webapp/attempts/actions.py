"""Every write of the attempts app. Each runs in a transaction; side effects (the Celery task,
websocket pushes) fire only once the transaction has committed."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from webapp.attempts.models import MAX_PROOF_CHARS, Attempt, CuratedFeedback, Progress, Suggestion
from webapp.courses.models import Exercise


class InvalidInput(ValueError):
    """Bad user input; the message is shown to the user as is."""


def clean_proof(proof: str) -> str:
    proof = proof.replace("\r\n", "\n").rstrip()
    if not proof.strip():
        raise InvalidInput("Write a proof first: the editor is empty.")
    if len(proof) > MAX_PROOF_CHARS:
        raise InvalidInput(
            f"This proof has {len(proof):,} characters; the limit is {MAX_PROOF_CHARS:,}. "
            "Your text is still in the editor: shorten it and submit again."
        )
    return proof


def do_submit_attempt(student: User, exercise: Exercise, proof: str) -> Attempt:
    from webapp.attempts.tasks import check_attempt

    proof = clean_proof(proof)
    with transaction.atomic():
        attempt = Attempt.objects.create(student=student, exercise=exercise, proof=proof)
        progress, _ = Progress.objects.get_or_create(student=student, exercise=exercise)
        progress.attempts += 1
        progress.last_attempt = attempt
        progress.save(update_fields=["attempts", "last_attempt"])
        check_attempt.delay_on_commit(attempt.pk)  # type: ignore[attr-defined]  # Celery 5.4+, not in celery-types
    return attempt


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
    """Approve, edit or reject a suggestion; a later review replaces an earlier one."""
    review = review.cleaned(suggestion)
    with transaction.atomic():
        curated, _ = CuratedFeedback.objects.update_or_create(
            suggestion=suggestion,
            defaults={
                "teacher": teacher,
                "verdict": review.verdict,
                "text": review.text,
                "reason": review.reason,
            },
        )
        suggestion.review = review.verdict
        suggestion.save(update_fields=["review"])
    return curated
