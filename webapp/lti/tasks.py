"""Score passback to LTI platforms (Assignment and Grade Services), on the `lean` queue."""

from __future__ import annotations

import logging

from celery import shared_task
from django.utils import timezone

from webapp.assignments.standing import standings
from webapp.lti import platform
from webapp.lti.models import LtiGradeLink

log = logging.getLogger(__name__)


def do_send_score(link: LtiGradeLink) -> bool:
    """Send the student's current score on the assignment; record the outcome on the link."""
    user = link.identity.user
    standing = standings([link.assignment], [user])[user.pk, link.assignment_id]
    now = timezone.now()
    try:
        platform.send_score(
            issuer=link.identity.issuer,
            client_id=link.client_id,
            lineitem=link.lineitem,
            scopes=list(link.scopes),
            subject=link.identity.subject,
            given=float(standing.solved),
            maximum=float(standing.total),
            timestamp=now.isoformat(),
        )
    except Exception as exc:  # noqa: BLE001 - the platform's refusal, kept for the teacher
        link.last_error = f"{type(exc).__name__}: {exc}"[:2000]
        link.save(update_fields=["last_error"])
        log.warning("LTI score passback %s failed: %s", link.pk, exc)
        return False
    link.last_score, link.last_sent_at, link.last_error = standing.score, now, ""
    link.save(update_fields=["last_score", "last_sent_at", "last_error"])
    return True


@shared_task(name="lean.lti_send_scores")
def send_scores(link_ids: list[int]) -> int:
    links = LtiGradeLink.objects.filter(pk__in=link_ids).select_related(
        "identity__user", "assignment"
    )
    return sum(do_send_score(link) for link in links)
