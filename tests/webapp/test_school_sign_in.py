"""School sign-in (OpenID Connect through django-allauth) against the local provider
stand-in (tests/fakes/oidc_provider.py): off by default; a first sign-in makes a student;
an existing account opens only by an address the provider says is verified, compared without
case, and only a student's or teacher's who allowed it (or in an allow-listed domain); never
staff, admins or superusers, whatever the address or an earlier link says."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from allauth.socialaccount.models import SocialAccount
from django.contrib.auth.models import Group, User
from django.test import Client, override_settings
from django.urls import reverse
from django.utils import timezone

from tests.fakes.oidc_provider import OidcProvider
from tests.webapp.cast import PASSWORD, Cast
from webapp.accounts.models import SchoolSignIn


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


def _with_domains(idp: OidcProvider, *domains: str) -> Any:
    app = idp.app()
    app["settings"]["email_domains"] = list(domains)
    return override_settings(
        SOCIALACCOUNT_PROVIDERS={"openid_connect": {"OAUTH_PKCE_ENABLED": True, "APPS": [app]}}
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
    SchoolSignIn.objects.create(user=cast.teacher)
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


# --- who an address may open, for every role ---------------------------------------------

ROLES = ("student", "teacher", "admin", "superuser", "staff", "outsider")


def _account(cast: Cast, role: str, email: str) -> User:
    user = {
        "student": cast.student,
        "teacher": cast.teacher,
        "admin": cast.admin,  # in the admins group
        "outsider": cast.outsider,  # in no group
    }.get(role)
    if user is None:  # a superuser, or staff of the Django admin, each also a teacher
        user = User.objects.create_user(
            username=role,
            password=PASSWORD,
            is_superuser=role == "superuser",
            is_staff=role == "staff",
        )
        user.groups.add(Group.objects.get_or_create(name="teachers")[0])
    user.email = email
    user.save()
    return user


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("consent", ["allowed", "domain", "neither"])
def test_a_verified_address_opens_only_students_and_teachers_who_allowed_it(
    school: OidcProvider, cast: Cast, client: Client, role: str, consent: str
) -> None:
    """Stored with capitals, claimed in lower case (or the other way round) by the school."""
    user = _account(cast, role, "Lee.Smith@School.example")
    if consent == "allowed":
        SchoolSignIn.objects.create(user=user)
    accounts = User.objects.count()
    with _with_domains(school, *(["school.example"] if consent == "domain" else [])):
        response = _sign_in(
            client, school, sub=f"s-{role}", email="lee.smith@school.EXAMPLE", email_verified=True
        )
    opens = role in ("student", "teacher") and consent != "neither"
    if opens:
        assert _who(client) == user
        assert SocialAccount.objects.get(uid=f"s-{role}").user == user  # later: by `sub`
        user.refresh_from_db()
        assert user.has_usable_password()  # she keeps her password
    else:
        assert _who(client) is None
        assert response.status_code == 403
        assert "School sign-in" in response.content.decode()
        assert not SocialAccount.objects.exists()
    assert User.objects.count() == accounts  # never a second account with her address


@pytest.mark.parametrize("role", ["admin", "superuser", "staff"])
def test_an_earlier_link_to_a_privileged_account_no_longer_opens_it(
    school: OidcProvider, cast: Cast, client: Client, role: str
) -> None:
    """A link made by the old rule (any verified address), or to a teacher promoted since."""
    user = _account(cast, role, "boss@school.example")
    SocialAccount.objects.create(user=user, provider="school", uid="boss-sub")
    response = _sign_in(client, school, sub="boss-sub", email="x@elsewhere.example")
    assert response.status_code == 403 and _who(client) is None


@pytest.mark.parametrize("role", ["student", "teacher"])
def test_an_earlier_link_made_without_her_consent_no_longer_opens_her_account(
    school: OidcProvider, cast: Cast, client: Client, role: str
) -> None:
    """A link the old rule made (any verified address, any case, no consent) to an account
    that existed before it: anyone whose school identity claimed her address then keeps her
    account until she allows school sign-in herself."""
    user = _account(cast, role, "lee@school.example")
    User.objects.filter(pk=user.pk).update(date_joined=timezone.now() - timedelta(days=30))
    SocialAccount.objects.create(user=user, provider="school", uid="old-link")
    response = _sign_in(client, school, sub="old-link", email="lee@school.example")
    assert response.status_code == 403 and _who(client) is None
    assert "has not allowed school sign-in" in response.content.decode()
    # Allowed on her page (or her school's domain allow-listed): the same link opens it.
    SchoolSignIn.objects.create(user=user)
    _sign_in(client, school, sub="old-link", email="lee@school.example")
    assert _who(client) == user
    client.logout()
    SchoolSignIn.objects.filter(user=user).delete()
    with _with_domains(school, "school.example"):
        _sign_in(client, school, sub="old-link", email="lee@school.example")
    assert _who(client) == user


def test_every_sign_in_of_a_student_opens_the_same_account(
    school: OidcProvider, cast: Cast, client: Client
) -> None:
    _account(cast, "student", "Sam@School.example")
    SchoolSignIn.objects.create(user=cast.student)
    for _ in range(3):
        _sign_in(client, school, sub="sam-sub", email="sam@school.example", email_verified=True)
        assert _who(client) == cast.student
        client.logout()
    assert User.objects.filter(email__iexact="sam@school.example").count() == 1
    assert SocialAccount.objects.filter(user=cast.student).count() == 1


def test_a_new_student_signs_in_again_into_her_own_account(
    school: OidcProvider, client: Client, db: None
) -> None:
    for _ in range(2):
        _sign_in(client, school, sub="new-1", email="New.One@school.example", email_verified=True)
        assert _who(client) is not None
        client.logout()
    assert User.objects.filter(email__iexact="new.one@school.example").count() == 1


def test_an_address_two_accounts_share_opens_neither(
    school: OidcProvider, cast: Cast, client: Client
) -> None:
    for user in (cast.student, cast.other_student):
        user.email = "twin@school.example"
        user.save()
        SchoolSignIn.objects.create(user=user)
    response = _sign_in(client, school, sub="tw", email="TWIN@school.example", email_verified=True)
    assert response.status_code == 403 and _who(client) is None
    assert "Several" in response.content.decode()


def test_an_unverified_address_of_a_consenting_student_is_refused_not_duplicated(
    school: OidcProvider, cast: Cast, client: Client
) -> None:
    _account(cast, "student", "sam@school.example")
    SchoolSignIn.objects.create(user=cast.student)
    accounts = User.objects.count()
    response = _sign_in(client, school, sub="u", email="sam@school.example", email_verified=False)
    assert response.status_code == 403 and _who(client) is None
    assert User.objects.count() == accounts


def test_she_allows_and_takes_back_school_sign_in_from_her_page(
    school: OidcProvider, cast: Cast, client: Client
) -> None:
    _account(cast, "teacher", "tess@school.example")
    client.force_login(cast.teacher)
    assert "Let my school" in client.get(reverse("accounts:dashboard")).content.decode()
    client.post(reverse("accounts:school_sign_in"), {"allowed": "on"})
    client.logout()
    _sign_in(client, school, sub="t-9", email="tess@school.example", email_verified=True)
    assert _who(client) == cast.teacher
    client.post(reverse("accounts:school_sign_in"), {})  # unchecked: taken back
    client.logout()
    response = _sign_in(client, school, sub="t-9", email="tess@school.example", email_verified=True)
    assert response.status_code == 403 and _who(client) is None
    assert not SocialAccount.objects.filter(user=cast.teacher).exists()


def test_admins_are_not_offered_school_sign_in(
    school: OidcProvider, cast: Cast, client: Client
) -> None:
    client.force_login(cast.admin)
    assert "Let my school" not in client.get(reverse("accounts:dashboard")).content.decode()
    assert client.post(reverse("accounts:school_sign_in"), {"allowed": "on"}).status_code == 403
    assert not SchoolSignIn.objects.exists()
