"""Writes of the LTI app: a validated launch signs its student in, into an assignment; a
solve sends the student's new score back (on commit, through the `lean` queue)."""

from __future__ import annotations

import hashlib
import logging
from typing import Any

from django.contrib.auth.models import Group, User
from django.db import transaction

from webapp.accounts.roles import STUDENTS
from webapp.assignments.models import Assignment
from webapp.celery import enqueue
from webapp.lti.models import LtiGradeLink, LtiIdentity
from webapp.lti.platform import LaunchRefused

log = logging.getLogger(__name__)

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
CUSTOM = CLAIM + "custom"
ROLES = CLAIM + "roles"
AGS = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"


def _assignment(data: dict[str, Any]) -> Assignment:
    """The link's custom parameters name the assignment and its class's join code: only the
    class's teacher knows both, so a platform cannot launch its users into another class."""
    custom = data.get(CUSTOM) or {}
    pk, code = str(custom.get("assignment", "")), str(custom.get("join_code", ""))
    assignment = (
        Assignment.objects.filter(pk=int(pk), classroom__join_code=code.upper())
        .select_related("classroom")
        .first()
        if pk.isdigit()
        else None
    )
    if assignment is None:
        raise LaunchRefused(
            "This link names no LeanCoach assignment: its custom parameters need "
            "assignment=<id> and join_code=<the class's join code>."
        )
    return assignment


def _user_for(issuer: str, data: dict[str, Any]) -> LtiIdentity:
    identity = LtiIdentity.objects.filter(issuer=issuer, subject=data["sub"]).first()
    if identity is not None:
        return identity
    digest = hashlib.sha256(f"{issuer}\n{data['sub']}".encode()).hexdigest()[:12]
    user = User.objects.create_user(
        username=f"lti-{digest}",
        email=str(data.get("email", ""))[:254],
        first_name=str(data.get("given_name", ""))[:150],
        last_name=str(data.get("family_name", ""))[:150],
    )  # no password: this account signs in through its platform
    user.groups.add(Group.objects.get_or_create(name=STUDENTS)[0])
    return LtiIdentity.objects.create(issuer=issuer, subject=data["sub"], user=user)


def do_launch(data: dict[str, Any]) -> tuple[User, Assignment]:
    """A validated resource-link launch of a learner: her account (made on first launch), a
    seat in the assignment's class, and where her score goes back."""
    if LEARNER not in (data.get(ROLES) or []):
        raise LaunchRefused(
            "LTI launches are for students; teachers sign in to LeanCoach directly."
        )
    assignment = _assignment(data)
    if not assignment.is_open:
        raise LaunchRefused(f"{assignment.title} opens {assignment.opens_text}.")
    issuer, client_id = str(data["iss"]), str(data["aud"])
    with transaction.atomic():
        identity = _user_for(issuer, data)
        assignment.classroom.students.add(identity.user)
        ags = data.get(AGS) or {}
        if ags.get("lineitem") and SCORE_SCOPE in (ags.get("scope") or []):
            LtiGradeLink.objects.update_or_create(
                identity=identity,
                assignment=assignment,
                defaults={
                    "client_id": client_id,
                    "lineitem": ags["lineitem"],
                    "scopes": list(ags["scope"]),
                },
            )
    return identity.user, assignment


def scores_changed(student_id: int, exercise_id: int) -> None:
    """After a solve: queue a passback for each LTI-launched assignment holding the exercise.
    A broker outage is logged; the next solve (or `send_scores` by hand) sends it."""
    links = list(
        LtiGradeLink.objects.filter(
            identity__user_id=student_id, assignment__exercises=exercise_id
        ).values_list("pk", flat=True)
    )
    if not links:
        return
    try:
        enqueue("lean.lti_send_scores", links)
    except Exception as exc:  # noqa: BLE001 - kombu/redis raise many types
        log.warning("could not queue the LTI score passback %s: %s", links, exc)
