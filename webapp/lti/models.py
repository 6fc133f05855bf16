"""LTI 1.3: who a platform's user is here, and where an assignment's score goes back.

Both rows are written by a validated launch (webapp.lti.actions.do_launch) and read by the
score passback (webapp.lti.tasks).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class LtiIdentity(models.Model):
    """A platform user (issuer + subject) signed in here as `user`."""

    issuer = models.CharField(max_length=255)
    subject = models.CharField(max_length=255)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="lti_identities"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["issuer", "subject"], name="lti_identity_once")
        ]

    def __str__(self) -> str:
        return f"{self.subject} at {self.issuer}"


class LtiGradeLink(models.Model):
    """Where the student's score on an assignment goes: the platform's line item (Assignment
    and Grade Services), with the scopes the launch granted."""

    identity = models.ForeignKey(LtiIdentity, on_delete=models.CASCADE, related_name="grade_links")
    assignment = models.ForeignKey(
        "assignments.Assignment", on_delete=models.CASCADE, related_name="lti_grade_links"
    )
    client_id = models.CharField(max_length=255)
    lineitem = models.URLField(max_length=500)
    scopes = models.JSONField(default=list)
    last_score = models.FloatField(null=True, blank=True)
    last_sent_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["identity", "assignment"], name="lti_grade_link_once")
        ]

    def __str__(self) -> str:
        return f"scores of {self.identity} on {self.assignment_id} to {self.lineitem}"
