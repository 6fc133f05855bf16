"""A student's attempt at an exercise, what Lean said about it, what the coach suggested,
and what teachers made of those suggestions (curated feedback, exported for training)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone

from webapp.core.models import QueuedWork

MAX_PROOF_CHARS = 20_000  # a proof longer than this is almost surely a paste accident


class Attempt(QueuedWork):
    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        CHECKING = "checking", "Lean is checking"
        COACHING = "coaching", "The coach is reading"
        DONE = "done", "Done"
        UNAVAILABLE = "unavailable", "Lean unavailable"
        FAILED = "failed", "Could not check"
        # Replaced by a newer submission of the same student and exercise before it was checked.
        SUPERSEDED = "superseded", "Superseded"

    FINISHED = (Status.DONE, Status.UNAVAILABLE, Status.FAILED, Status.SUPERSEDED)
    UNFINISHED = (Status.QUEUED, Status.CHECKING, Status.COACHING)

    student = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="attempts"
    )
    exercise = models.ForeignKey(
        "courses.Exercise", on_delete=models.CASCADE, related_name="attempts"
    )
    proof = models.TextField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    # None until Lean gave a verdict; stays None when Lean could not check (never invented).
    valid = models.BooleanField(null=True, default=None)
    status_detail = models.TextField(blank=True)  # e.g. "Lean unavailable: <reason>"
    check_result = models.JSONField(null=True, blank=True)  # CheckResult.to_dict()
    # The goal view: TacticStep dicts, lines shifted to proof lines like LineDiagnostic.
    tactics = models.JSONField(default=list, blank=True)
    coach_source = models.CharField(max_length=60, blank=True)
    coach_detail = models.TextField(blank=True)  # why the coach said nothing, if it did not

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [
            models.Index(fields=["student", "exercise", "-created_at"]),
            models.Index(fields=["status", "queued_at"]),
        ]

    def __str__(self) -> str:
        return f"attempt {self.pk} by {self.student_id} on {self.exercise_id}"

    @property
    def is_finished(self) -> bool:
        return self.status in self.FINISHED

    @property
    def group_name(self) -> str:
        return self.group_for(self.pk)

    @staticmethod
    def group_for(pk: int) -> str:
        """The Channels group of an attempt's live notices (webapp/attempts/live.py)."""
        return f"attempt.{pk}"

    @staticmethod
    def watch_group_for(student_pk: int, exercise_pk: int) -> str:
        """The group of a student's exercise page: notices about each of her attempts there."""
        return f"exercise-live.{student_pk}.{exercise_pk}"

    @property
    def page_marker(self) -> str:
        """The exercise page's `shown` value: which attempt its panel draws, and how far."""
        return f"{self.pk}:{self.live_marker}"

    @property
    def live_marker(self) -> str:
        """What a page's rendering of this attempt depends on while it is unfinished: the
        status and how often the sweeper re-queued it (Lean's messages are stored once per
        check). The panel's websocket URL carries it, so a page that already shows the
        current state (the submit's own answer) is not sent it again on connect."""
        return f"{self.status}-{self.requeues}"

    @property
    def poll_expired(self) -> bool:
        """Unfinished past the page's deadline: the page stops polling and says so."""
        if self.is_finished or self.created_at is None:
            return False
        age = (timezone.now() - self.created_at).total_seconds()
        return age > settings.ATTEMPT_POLL_DEADLINE_S

    def proof_lines(self) -> list[str]:
        return self.proof.split("\n")

    @property
    def statement_line_count(self) -> int:
        return len(self.exercise.statement_text.split("\n"))

    @property
    def source_text(self) -> str:
        """Statement + proof: the text Lean and the coach number lines in (no header)."""
        return self.exercise.statement_text + "\n" + self.proof

    def source_line(self, proof_line: int) -> int:
        """A proof line (0: the statement as a whole) as a line of `source_text`."""
        return self.exercise.source_line(proof_line)


class LineDiagnostic(models.Model):
    """One Lean message, positioned in the student's proof text (line 1 = first proof line)."""

    attempt = models.ForeignKey(Attempt, on_delete=models.CASCADE, related_name="diagnostics")
    line = models.IntegerField()
    column = models.IntegerField(default=0)
    end_line = models.IntegerField(null=True, blank=True)
    end_column = models.IntegerField(null=True, blank=True)
    severity = models.CharField(max_length=16)
    kind = models.CharField(max_length=32, blank=True)
    message = models.TextField()
    goal = models.TextField(blank=True)

    class Meta:
        ordering = ["line", "column", "pk"]

    def __str__(self) -> str:
        return f"{self.severity} at line {self.line}: {self.message[:40]}"

    @property
    def source_line(self) -> int:
        """The line in statement + proof (what the review queue numbers lines by)."""
        return self.attempt.source_line(self.line)


class Suggestion(models.Model):
    """One of the coach's 1-3 line-anchored suggestions, and its teacher review."""

    class Review(models.TextChoices):
        PENDING = "pending", "Pending review"
        APPROVED = "approved", "Approved"
        EDITED = "edited", "Edited"
        REJECTED = "rejected", "Rejected"

    attempt = models.ForeignKey(Attempt, on_delete=models.CASCADE, related_name="suggestions")
    line = models.IntegerField()
    text = models.TextField()
    kind = models.CharField(max_length=40, blank=True)
    source = models.CharField(max_length=60, blank=True)
    extra = models.JSONField(default=dict, blank=True)  # anything else the coach returned
    review = models.CharField(max_length=16, choices=Review.choices, default=Review.PENDING)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["line", "pk"]

    def __str__(self) -> str:
        return f"suggestion {self.pk} at line {self.line}"

    @property
    def source_line(self) -> int:
        return self.attempt.source_line(self.line)

    @property
    def reveals(self) -> bool:
        """The coach's answer to a step the student had not attempted: a hint, not advice."""
        return bool((self.extra or {}).get("reveals"))

    def lean_messages(self) -> list[LineDiagnostic]:
        """Lean's errors and warnings on the attempt (what a reviewer judges the suggestion
        against), those on the suggestion's own line first. Reads `attempt.diagnostics`, so a
        list of suggestions should prefetch it."""
        shown = [d for d in self.attempt.diagnostics.all() if d.severity in ("error", "warning")]
        return sorted(shown, key=lambda d: (d.line != self.line, d.line, d.column))

    def lean_messages_here(self) -> list[LineDiagnostic]:
        """Lean's messages on the suggestion's own line, else the first of the attempt's: the
        attempt page shows every message in its panel already."""
        messages = self.lean_messages()
        here = [d for d in messages if d.line == self.line]
        return here or messages[:1]


class CuratedFeedback(models.Model):
    """A teacher's verdict on a suggestion: the training signal. For `edited` the text is the
    teacher's; for `approved` it is the coach's, endorsed; for `rejected` the reason says why."""

    suggestion = models.OneToOneField(Suggestion, on_delete=models.CASCADE, related_name="curated")
    teacher = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="curated"
    )
    verdict = models.CharField(max_length=16, choices=Suggestion.Review.choices)
    text = models.TextField(blank=True)
    reason = models.TextField(blank=True)
    # Whom it teaches the coach (webapp/attempts/teaching.py): the students of the reviewer's
    # own classes, or, set by an admin (an admin's own reviews start so), every class.
    for_all = models.BooleanField(default=False, verbose_name="teaches the coach for every class")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.verdict} feedback on suggestion {self.suggestion_id}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "text": self.text,
            "reason": self.reason,
            "teacher": self.teacher.get_username() if self.teacher else None,
        }


class Progress(models.Model):
    """A student's standing on one exercise, kept on the server (updated when a check ends)."""

    student = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="progress"
    )
    exercise = models.ForeignKey(
        "courses.Exercise", on_delete=models.CASCADE, related_name="progress"
    )
    attempts = models.PositiveIntegerField(default=0)
    solved = models.BooleanField(default=False)
    solved_at = models.DateTimeField(null=True, blank=True)
    last_attempt = models.ForeignKey(Attempt, on_delete=models.SET_NULL, null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["student", "exercise"], name="progress_once")
        ]

    def __str__(self) -> str:
        return f"progress of {self.student_id} on {self.exercise_id}"


class CoachSwitch(models.Model):
    """A teacher's per-exercise override of the coach for one kind of Lean message, for the
    students of her own classes; an admin's (for_all) holds for every class.

    Suggestions rejected twice for the same exercise and message kind stop being shown there
    (tutor.coach.teaching); a row with enabled=True switches them back on, enabled=False
    keeps them off. Reversible: the review page toggles `enabled`.
    """

    exercise = models.ForeignKey(
        "courses.Exercise", on_delete=models.CASCADE, related_name="coach_switches"
    )
    kind = models.CharField(max_length=32)  # DiagnosticKind value
    enabled = models.BooleanField(default=True)
    teacher = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    for_all = models.BooleanField(default=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["exercise", "kind", "teacher"], name="one_coach_switch_per_teacher"
            )
        ]

    def __str__(self) -> str:
        state = "on" if self.enabled else "off"
        return f"coach {state} for {self.kind} on exercise {self.exercise_id}"
