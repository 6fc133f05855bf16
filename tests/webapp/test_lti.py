"""LTI 1.3 against the local platform stand-in (tests/fakes/lti_platform.py): a launch signs
the student in, into her assignment; her score goes back through Assignment and Grade
Services; a launch for another deployment, a replayed nonce, a wrong audience, a forged
signature or a link to another class are all refused."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any
from unittest import mock
from urllib.parse import parse_qs, urlparse

import pytest
from django.test import Client, override_settings
from django.urls import reverse
from django.utils import timezone

from tests.fakes.http_json import rsa_pems
from tests.fakes.lti_platform import LtiPlatform
from tests.webapp.cast import Cast
from webapp.assignments.models import Assignment
from webapp.attempts.actions import do_record_solved
from webapp.attempts.models import Attempt
from webapp.lti.models import LtiGradeLink, LtiIdentity
from webapp.lti.tasks import send_scores


@pytest.fixture(scope="module")
def lti_platform() -> Iterator[LtiPlatform]:
    platform = LtiPlatform()
    yield platform
    platform.close()


@pytest.fixture
def platform(lti_platform: LtiPlatform) -> Iterator[LtiPlatform]:
    lti_platform.scores.clear()
    with override_settings(LTI_TOOL=lti_platform.tool_settings()):
        yield lti_platform


@pytest.fixture
def assignment(cast: Cast) -> Assignment:
    a = Assignment.objects.create(
        classroom=cast.classroom,
        title="Week 1",
        opens_at=timezone.now() - timedelta(days=1),
        due_at=timezone.now() + timedelta(days=1),
    )
    a.exercises.add(cast.exercise)
    return a


def _custom(a: Assignment) -> dict[str, str]:
    return {"assignment": str(a.pk), "join_code": a.classroom.join_code}


def _oidc_login(client: Client, platform: LtiPlatform) -> tuple[str, str]:
    """Step 1: the platform starts the login; the tool sends the browser back with a state
    and a nonce."""
    response = client.post(
        reverse("lti:login"),
        {
            "iss": platform.issuer,
            "login_hint": "student-42",
            "target_link_uri": "http://testserver/lti/launch/",
        },
    )
    assert response.status_code == 302, response.content
    location = urlparse(response["Location"])
    assert f"{location.scheme}://{location.netloc}{location.path}" == f"{platform.url}/auth"
    query = parse_qs(location.query)
    assert query["client_id"] == [platform.client_id]
    return query["state"][0], query["nonce"][0]


def _launch(client: Client, platform: LtiPlatform, a: Assignment, **changes: Any) -> Any:
    state, nonce = _oidc_login(client, platform)
    token = platform.id_token(nonce, custom=_custom(a), **changes)
    return client.post(reverse("lti:launch"), {"id_token": token, "state": state})


def test_a_launch_signs_the_student_into_her_assignment(
    platform: LtiPlatform, assignment: Assignment, client: Client
) -> None:
    response = _launch(client, platform, assignment)
    assert response.status_code == 302
    assert response["Location"] == reverse("assignments:detail", args=[assignment.pk])
    identity = LtiIdentity.objects.get(issuer=platform.issuer, subject="student-42")
    user = identity.user
    assert user.groups.filter(name="students").exists() and not user.has_usable_password()
    assert assignment.classroom.students.filter(pk=user.pk).exists()
    link = LtiGradeLink.objects.get(identity=identity, assignment=assignment)
    assert link.lineitem == platform.lineitem()
    page = client.get(response["Location"]).content.decode()
    assert "Week 1" in page and "0 of 1 solved" in page  # signed in, her own standing


def test_a_second_launch_reuses_the_account(
    platform: LtiPlatform, assignment: Assignment, client: Client
) -> None:
    _launch(client, platform, assignment)
    _launch(Client(), platform, assignment)
    assert LtiIdentity.objects.count() == 1


def test_the_score_goes_back_when_lean_accepts_a_proof(
    platform: LtiPlatform,
    assignment: Assignment,
    cast: Cast,
    client: Client,
    django_capture_on_commit_callbacks: Any,
) -> None:
    _launch(client, platform, assignment)
    link = LtiGradeLink.objects.get()
    student = link.identity.user
    attempt = Attempt.objects.create(
        student=student, exercise=cast.exercise, proof="  rfl", status="done", valid=True
    )
    with (
        mock.patch("webapp.lti.actions.enqueue", autospec=True) as enqueue,
        django_capture_on_commit_callbacks(execute=True),
    ):
        do_record_solved(attempt)  # on commit: queues the passback
    enqueue.assert_called_once_with(send_scores.name, [link.pk])
    assert send_scores.run([link.pk]) == 1  # what the worker runs
    (score,) = platform.scores
    assert score["scoreGiven"] == 1.0 and score["scoreMaximum"] == 1.0
    assert score["userId"] == "student-42" and score["gradingProgress"] == "FullyGraded"
    assert score["_lineitem"] == "/lineitems/1"
    assert score["_content_type"] == "application/vnd.ims.lis.v1.score+json"
    # The token request was signed with the tool's key, for the token endpoint.
    assert platform.token_requests[-1]["claims"]["aud"] == f"{platform.url}/token"
    link.refresh_from_db()
    assert link.last_score == 1.0 and link.last_error == ""


def test_an_unsolved_assignment_scores_zero_pending(
    platform: LtiPlatform, assignment: Assignment, cast: Cast, client: Client
) -> None:
    _launch(client, platform, assignment)
    link = LtiGradeLink.objects.get()
    assert send_scores.run([link.pk]) == 1
    assert platform.scores[-1]["scoreGiven"] == 0.0
    assert platform.scores[-1]["gradingProgress"] == "Pending"


def test_a_refused_passback_is_recorded(
    platform: LtiPlatform, assignment: Assignment, client: Client
) -> None:
    _launch(client, platform, assignment)
    link = LtiGradeLink.objects.get()
    other_tool_key, _ = rsa_pems()
    settings_with_wrong_key = {**platform.tool_settings(), "private_key": other_tool_key}
    with override_settings(LTI_TOOL=settings_with_wrong_key):
        assert send_scores.run([link.pk]) == 0
    link.refresh_from_db()
    assert "401" in link.last_error or "invalid_client" in link.last_error
    assert platform.scores == []


def _refused(response: Any, why: str) -> None:
    assert response.status_code == 403
    assert why in response.content.decode()


def test_a_launch_for_another_deployment_is_refused(
    platform: LtiPlatform, assignment: Assignment, client: Client
) -> None:
    claim = "https://purl.imsglobal.org/spec/lti/claim/deployment_id"
    _refused(_launch(client, platform, assignment, **{claim: "elsewhere"}), "deployment")
    assert not LtiIdentity.objects.exists()


def test_a_wrong_audience_is_refused(
    platform: LtiPlatform, assignment: Assignment, client: Client
) -> None:
    _refused(_launch(client, platform, assignment, aud="another-tool"), "Client id")
    assert not LtiIdentity.objects.exists()


def test_a_replayed_launch_is_refused(
    platform: LtiPlatform, assignment: Assignment, client: Client
) -> None:
    state, nonce = _oidc_login(client, platform)
    token = platform.id_token(nonce, custom=_custom(assignment))
    first = client.post(reverse("lti:launch"), {"id_token": token, "state": state})
    assert first.status_code == 302
    again = Client()
    again.cookies = client.cookies  # the same browser state, the same token: a replay
    _refused(again.post(reverse("lti:launch"), {"id_token": token, "state": state}), "replayed")


def test_a_nonce_the_tool_never_issued_is_refused(
    platform: LtiPlatform, assignment: Assignment, client: Client
) -> None:
    state, _ = _oidc_login(client, platform)
    token = platform.id_token("made-up-nonce", custom=_custom(assignment))
    _refused(client.post(reverse("lti:launch"), {"id_token": token, "state": state}), "Nonce")


def test_a_forged_signature_is_refused(
    platform: LtiPlatform, assignment: Assignment, client: Client
) -> None:
    forger, _ = rsa_pems()
    _refused(_launch(client, platform, assignment, signing_key=forger), "Signature")


def test_a_link_without_the_class_join_code_is_refused(
    platform: LtiPlatform, assignment: Assignment, cast: Cast, client: Client
) -> None:
    state, nonce = _oidc_login(client, platform)
    custom = {"assignment": str(assignment.pk), "join_code": cast.other_classroom.join_code}
    token = platform.id_token(nonce, custom=custom)
    _refused(client.post(reverse("lti:launch"), {"id_token": token, "state": state}), "join_code")


def test_teachers_are_sent_to_sign_in_directly(
    platform: LtiPlatform, assignment: Assignment, client: Client
) -> None:
    roles = "https://purl.imsglobal.org/spec/lti/claim/roles"
    instructor = ["http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"]
    _refused(_launch(client, platform, assignment, **{roles: instructor}), "for students")


def test_the_tool_publishes_its_key_set(platform: LtiPlatform, client: Client) -> None:
    keys = client.get(reverse("lti:jwks")).json()["keys"]
    assert len(keys) == 1 and keys[0]["kty"] == "RSA" and "d" not in keys[0]


@pytest.mark.django_db
def test_lti_is_off_unless_configured(client: Client) -> None:
    with override_settings(LTI_TOOL=None):
        assert client.get(reverse("lti:jwks")).status_code == 404
        assert client.post(reverse("lti:launch"), {"id_token": "x"}).status_code == 404


def test_a_launch_before_the_assignment_opens_says_when(
    platform: LtiPlatform, assignment: Assignment, client: Client
) -> None:
    assignment.opens_at = timezone.now() + timedelta(hours=2)
    assignment.save()
    _refused(_launch(client, platform, assignment), "Week 1 opens ")
    assert not LtiIdentity.objects.exists()


# Bad input from anyone on the internet gets a page that says what was wrong, never a 500.


@pytest.mark.parametrize(
    "form",
    [
        {"iss": "https://unknown.example", "login_hint": "x", "target_link_uri": "http://t/"},
        {"login_hint": "x", "target_link_uri": "http://testserver/lti/launch/"},  # no issuer
        {"iss": "https://unknown.example", "target_link_uri": "http://t/"},  # no login hint
    ],
)
def test_a_login_from_an_unknown_platform_is_refused_not_a_500(
    platform: LtiPlatform, client: Client, form: dict[str, str]
) -> None:
    response = client.post(reverse("lti:login"), form)
    assert response.status_code == 400, response.content[:300]
    assert "LTI" in response.content.decode()


@pytest.mark.parametrize("assignment_id", ["9" * 5000, "-1", "1e3", "", "0x10", "١٢"])
def test_a_launch_naming_an_impossible_assignment_is_refused_not_a_500(
    platform: LtiPlatform, assignment: Assignment, client: Client, assignment_id: str
) -> None:
    state, nonce = _oidc_login(client, platform)
    custom = {"assignment": assignment_id, "join_code": assignment.classroom.join_code}
    token = platform.id_token(nonce, custom=custom)
    _refused(client.post(reverse("lti:launch"), {"id_token": token, "state": state}), "assignment")
    assert not LtiIdentity.objects.exists()


@pytest.mark.parametrize(
    "changes",
    [
        {"https://purl.imsglobal.org/spec/lti/claim/custom": "not-a-dict"},
        {"https://purl.imsglobal.org/spec/lti/claim/roles": "Learner"},
        {"https://purl.imsglobal.org/spec/lti-ags/claim/endpoint": ["x"]},
        {"sub": ""},
        {"sub": "s" * 5000},
        {"email": ["not", "a", "string"]},
    ],
)
def test_a_launch_with_misshapen_claims_is_refused_or_served_never_a_500(
    platform: LtiPlatform, assignment: Assignment, client: Client, changes: dict[str, Any]
) -> None:
    response = _launch(client, platform, assignment, **changes)
    assert response.status_code in (302, 403), response.content[:500]


def test_a_launch_without_a_token_is_refused_not_a_500(
    platform: LtiPlatform, client: Client
) -> None:
    assert client.post(reverse("lti:launch"), {}).status_code == 403
    assert (
        client.post(reverse("lti:launch"), {"id_token": "x.y.z", "state": "s"}).status_code == 403
    )
