"""School sign-in (OpenID Connect through django-allauth) against the local provider
stand-in (tests/fakes/oidc_provider.py): off by default; a first sign-in makes a student;
an existing account links only by an e-mail address the provider says is verified."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client, override_settings
from django.urls import reverse

from tests.fakes.oidc_provider import OidcProvider
from tests.webapp.cast import Cast


@pytest.fixture(scope="module")
def idp() -> Iterator[OidcProvider]:
    provider = OidcProvider()
    yield provider
    provider.close()


@pytest.fixture
def school(idp: OidcProvider) -> Iterator[OidcProvider]:
    providers = {"openid_connect": {"OAUTH_PKCE_ENABLED": True, "APPS": [idp.app()]}}
    with override_settings(SOCIALACCOUNT_PROVIDERS=providers):
        yield idp


def _sign_in(client: Client, idp: OidcProvider, **claims: Any) -> Any:
    start = client.post(reverse("openid_connect_login", args=["school"]))
    assert start.status_code == 302 and start["Location"].startswith(f"{idp.url}/authorize?")
    code, state = idp.authorize(start["Location"], **claims)
    return client.get(
        reverse("openid_connect_callback", args=["school"]), {"code": code, "state": state}
    )


def _who(client: Client) -> User | None:
    user_id = client.session.get("_auth_user_id")
    return User.objects.get(pk=user_id) if user_id else None


@pytest.mark.django_db
def test_no_provider_by_default(client: Client) -> None:
    assert client.post(reverse("openid_connect_login", args=["school"])).status_code == 404
    assert "school-sign-in" not in client.get(reverse("login")).content.decode()


def test_the_login_page_offers_the_school(school: OidcProvider, client: Client, db: None) -> None:
    body = client.get(reverse("login")).content.decode()
    assert "Sign in with Our School" in body


def test_a_first_sign_in_makes_a_student(school: OidcProvider, client: Client, db: None) -> None:
    response = _sign_in(
        client,
        school,
        sub="u-1",
        email="kim@school.example",
        email_verified=True,
        given_name="Kim",
    )
    assert response.status_code == 302, response.content.decode()[:500]
    user = _who(client)
    assert user is not None and user.email == "kim@school.example"
    assert list(user.groups.values_list("name", flat=True)) == ["students"]
    assert client.get(reverse("accounts:dashboard")).status_code == 200


def test_a_teacher_links_by_verified_email_and_keeps_her_classes(
    school: OidcProvider, cast: Cast, client: Client
) -> None:
    cast.teacher.email = "tess@school.example"
    cast.teacher.save()
    _sign_in(client, school, sub="t-1", email="tess@school.example", email_verified=True)
    assert _who(client) == cast.teacher
    response = client.post(reverse("accounts:create_classroom"), {"name": "Period 4"})
    assert (
        response.status_code == 302
        and cast.teacher.classrooms_taught.filter(name="Period 4").exists()
    )


def test_an_unverified_email_does_not_open_her_account(
    school: OidcProvider, cast: Cast, client: Client
) -> None:
    cast.teacher.email = "tess@school.example"
    cast.teacher.save()
    _sign_in(client, school, sub="x-1", email="tess@school.example", email_verified=False)
    assert _who(client) != cast.teacher


def test_a_forged_callback_state_is_refused(school: OidcProvider, client: Client, db: None) -> None:
    start = client.post(reverse("openid_connect_login", args=["school"]))
    code, _ = school.authorize(start["Location"], sub="u-2", email="a@b.c", email_verified=True)
    client.get(
        reverse("openid_connect_callback", args=["school"]), {"code": code, "state": "forged"}
    )
    assert _who(client) is None
