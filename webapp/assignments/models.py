"""Work a teacher sets a class: which exercises, opening when, due when.

Times are stored in UTC (USE_TZ); `time_zone` is the zone the teacher set them in, so pages
and the grade book say "due Friday 17:00 Europe/Paris" rather than a UTC time nobody wrote.
A submission after `due_at` is accepted and marked late. Whether an exercise is solved comes
from Lean's verdict alone (an attempt with valid=True); hints opened and prover runs asked are
shown beside it, never counted as solving (webapp.assignments.standing).
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import models
from django.utils import timezone


class Assignment(models.Model):
    classroom = models.ForeignKey(
        "accounts.Classroom", on_delete=models.CASCADE, related_name="assignments"
    )
    title = models.CharField(max_length=200)
    exercises = models.ManyToManyField("courses.Exercise", related_name="assignments")
    opens_at = models.DateTimeField()
    due_at = models.DateTimeField()
    time_zone = models.CharField(max_length=64, default="UTC")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["due_at", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(due_at__gt=models.F("opens_at")), name="due_after_opening"
            )
        ]

    def __str__(self) -> str:
        return self.title

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.time_zone)

    @property
    def opens_local(self) -> datetime:
        return timezone.localtime(self.opens_at, self.zone)

    @property
    def due_local(self) -> datetime:
        return timezone.localtime(self.due_at, self.zone)

    # Templates show these strings: Django's `date` filter would turn an aware time back into
    # the server's zone (settings.TIME_ZONE), not the one the teacher set it in.
    @property
    def opens_text(self) -> str:
        return f"{self.opens_local:%a %d %b %Y, %H:%M} {self.time_zone}"

    @property
    def due_text(self) -> str:
        return f"{self.due_local:%a %d %b %Y, %H:%M} {self.time_zone}"

    @property
    def is_open(self) -> bool:
        return self.opens_at <= timezone.now()

    @property
    def is_past_due(self) -> bool:
        return timezone.now() > self.due_at
