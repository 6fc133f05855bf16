"""Writes of the LTI app: a validated launch signs its student in, into an assignment; a
solve sends the student's new score back (on commit, through the `lean` queue)."""

from __future__ import annotations

import hashlib
import logging
import re
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


# An assignment id as a link's custom parameter: ASCII digits, short enough for a database
# integer (str.isdigit() accepts other scripts' digits, and int() refuses over 4300 digits).
ASSIGNMENT_ID = re.compile(r"[0-9]{1,18}")
TEXT_CLAIM_MAX = 255  # the longest issuer, subject or client id a row holds (models.py)


def _text(data: dict[str, Any], name: str, *, limit: int = TEXT_CLAIM_MAX) -> str:
    value = data.get(name)
    if isinstance(value, list) and name == "aud" and value:
        value = data.get("azp") or value[0]  # several audiences: the one it was issued for
    if not isinstance(value, str) or not value or len(value) > limit:
        raise LaunchRefused(f"The launch's {name!r} claim is missing or malformed.")
    return value


def _dict_claim(data: dict[str, Any], name: str, what: str) -> dict[str, Any]:
    value = data.get(name) or {}
    if not isinstance(value, dict):
        raise LaunchRefused(f"The launch's {what} claim is malformed (not an object).")
    return value


def _assignment(data: dict[str, Any]) -> Assignment:
    """The link's custom parameters name the assignment and its class's join code: only the
    class's teacher knows both, so a platform cannot launch its users into another class."""
    custom = _dict_claim(data, CUSTOM, "custom parameters")
    pk, code = str(custom.get("assignment", "")), str(custom.get("join_code", ""))
    assignment = (
        Assignment.objects.filter(pk=int(pk), classroom__join_code=code.upper()[:16])
        .select_related("classroom")
        .first()
        if ASSIGNMENT_ID.fullmatch(pk)
        else None
    )
    if assignment is None:
        raise LaunchRefused(
            "This link names no LeanCoach assignment: its custom parameters need "
            "assignment=<id> and join_code=<the class's join code>."
        )
    return assignment


def _optional_text(data: dict[str, Any], name: str, limit: int) -> str:
    value = data.get(name)
    return value[:limit] if isinstance(value, str) else ""


def _user_for(issuer: str, subject: str, data: dict[str, Any]) -> LtiIdentity:
    identity = LtiIdentity.objects.filter(issuer=issuer, subject=subject).first()
    if identity is not None:
        return identity
    digest = hashlib.sha256(f"{issuer}\n{subject}".encode()).hexdigest()[:12]
    user = User.objects.create_user(
        username=f"lti-{digest}",
        email=_optional_text(data, "email", 254),
        first_name=_optional_text(data, "given_name", 150),
        last_name=_optional_text(data, "family_name", 150),
    )  # no password: this account signs in through its platform
    user.groups.add(Group.objects.get_or_create(name=STUDENTS)[0])
    return LtiIdentity.objects.create(issuer=issuer, subject=subject, user=user)


def _grade_service(data: dict[str, Any]) -> tuple[str, list[str]] | None:
    """(line item URL, scopes) when the launch grants score passback, else None."""
    ags = _dict_claim(data, AGS, "grade service endpoint")
    lineitem, scopes = ags.get("lineitem"), ags.get("scope")
    if not isinstance(scopes, list) or not all(isinstance(s, str) for s in scopes):
        return None
    if not isinstance(lineitem, str) or not lineitem or len(lineitem) > 500:
        return None
    return (lineitem, scopes) if SCORE_SCOPE in scopes else None


def do_launch(data: dict[str, Any]) -> tuple[User, Assignment]:
    """A validated resource-link launch of a learner: her account (made on first launch), a
    seat in the assignment's class, and where her score goes back."""
    roles = data.get(ROLES)
    if not isinstance(roles, list) or LEARNER not in roles:
        raise LaunchRefused(
            "LTI launches are for students; teachers sign in to LeanCoach directly."
        )
    assignment = _assignment(data)
    if not assignment.is_open:
        raise LaunchRefused(f"{assignment.title} opens {assignment.opens_text}.")
    issuer, client_id, subject = _text(data, "iss"), _text(data, "aud"), _text(data, "sub")
    grades = _grade_service(data)
    with transaction.atomic():
        identity = _user_for(issuer, subject, data)
        assignment.classroom.students.add(identity.user)
        if grades is not None:
            lineitem, scopes = grades
            LtiGradeLink.objects.update_or_create(
                identity=identity,
                assignment=assignment,
                defaults={"client_id": client_id, "lineitem": lineitem, "scopes": scopes},
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
