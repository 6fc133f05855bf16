"""The boundary with LTI 1.3 platforms (LMSs), over pylti1p3: the OIDC login step, launch
validation, the tool's key set, and score passback through Assignment and Grade Services.

Configured from settings.LTI_TOOL (None: LTI is off and its routes say so):

    {"platforms": {<issuer>: <pylti1p3 ToolConfDict entry: client_id, auth_login_url,
                   auth_token_url, key_set_url, deployment_ids, ...>},
     "private_key": <the tool's RSA private key, PEM>, "public_key": <its public key, PEM>}

Everything else in the app talks to this module only.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from pylti1p3.contrib.django import DjangoMessageLaunch, DjangoOIDCLogin
from pylti1p3.contrib.django.launch_data_storage.cache import DjangoCacheDataStorage
from pylti1p3.exception import LtiException, OIDCException
from pylti1p3.grade import Grade
from pylti1p3.registration import Registration
from pylti1p3.service_connector import ServiceConnector
from pylti1p3.tool_config import ToolConfDict

# A launch's nonce is refused the second time for this long (ids tokens live minutes).
NONCE_TTL_S = 3600


class LaunchRefused(Exception):
    """A launch that failed validation; the message says why (shown to the user)."""


def enabled() -> bool:
    return bool(getattr(settings, "LTI_TOOL", None))


def _conf() -> dict[str, Any]:
    conf: dict[str, Any] | None = settings.LTI_TOOL
    if not conf:
        raise LaunchRefused("LTI is not configured on this server.")
    return conf


def tool_config() -> ToolConfDict:
    conf = _conf()
    tool = ToolConfDict(conf["platforms"])
    for issuer in conf["platforms"]:
        tool.set_private_key(issuer, conf["private_key"])
        tool.set_public_key(issuer, conf["public_key"])
    return tool


def jwks() -> dict[str, Any]:
    """The tool's public key set (platforms verify our signed token requests with it)."""
    return {"keys": [Registration.get_jwk(_conf()["public_key"])]}


def login_redirect(request: HttpRequest, target_link_uri: str) -> HttpResponse:
    """Step 1 of the launch: back to the platform with a fresh state and nonce. Anyone may
    post here, so an issuer we have no registration for is refused before pylti1p3 looks it
    up: its tool config raises a bare Exception for one (pylti1p3 2.0.0,
    tool_config/abstract.py `get_jwks`, tool_config/dict.py), and OIDCException, which
    oidc_login.py `validate_oidc_login` raises for a missing issuer or login hint, is not an
    LtiException (exception.py)."""
    params = request.POST if request.method == "POST" else request.GET
    issuer = params.get("iss", "")
    if issuer not in _conf()["platforms"]:
        raise LaunchRefused(
            "This LTI login names no platform registered with LeanCoach (iss): ask your "
            "administrator to register it."
        )
    login = DjangoOIDCLogin(request, tool_config(), launch_data_storage=DjangoCacheDataStorage())
    try:
        response: HttpResponse = login.redirect(target_link_uri)
    except (LtiException, OIDCException) as exc:
        raise LaunchRefused(f"LTI login refused: {exc}") from exc
    return response


def validate_launch(request: HttpRequest) -> dict[str, Any]:
    """Step 2: the platform's signed id_token. Checks the state, the nonce (known, and never
    seen before: a replayed launch is refused), the issuer and audience (a registered client
    id), the signature against the platform's key set, the deployment and the message."""
    launch = DjangoMessageLaunch(
        request, tool_config(), launch_data_storage=DjangoCacheDataStorage()
    )
    try:
        data = dict(launch.get_launch_data())
    except LtiException as exc:
        raise LaunchRefused(str(exc)) from exc
    except Exception as exc:  # a malformed token or an unreachable key set: no launch
        raise LaunchRefused(f"{type(exc).__name__}: {exc}") from exc
    # pylti1p3 only checks the nonce was issued at login; a second use is a replay.
    if not cache.add(f"lti:nonce:{data['iss']}:{data['nonce']}", 1, NONCE_TTL_S):
        raise LaunchRefused("This launch was already used (replayed nonce).")
    return data


def send_score(
    issuer: str,
    client_id: str,
    lineitem: str,
    scopes: list[str],
    subject: str,
    given: float,
    maximum: float,
    timestamp: str,
) -> None:
    """POST a score to the line item; raises on any refusal (the task records why)."""
    from pylti1p3.assignments_grades import AssignmentsGradesService

    tool = tool_config()
    registration = tool.find_registration_by_params(issuer, client_id)
    if registration is None:
        raise LaunchRefused(f"No registration for {issuer} / {client_id}.")
    service = AssignmentsGradesService(
        ServiceConnector(registration),
        {"scope": scopes, "lineitem": lineitem},  # type: ignore[typeddict-item]
    )
    complete = given >= maximum
    grade = (
        Grade()
        .set_score_given(given)
        .set_score_maximum(maximum)
        .set_timestamp(timestamp)
        .set_activity_progress("Completed" if complete else "InProgress")
        .set_grading_progress("FullyGraded" if complete else "Pending")
        .set_user_id(subject)
    )
    service.put_grade(grade)
