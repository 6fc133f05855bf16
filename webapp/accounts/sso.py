"""School sign-in through django-allauth: which existing account a school login opens, and
who a new account is.

A school login opens an existing LeanCoach account in two ways only:

- it was linked before (allauth's SocialAccount, matched by the provider's `sub`);
- the school vouches for an e-mail address (`email_verified`) that, compared without case,
  belongs to exactly one active student or teacher who allowed it (SchoolSignIn, from her
  page), or whose address is in a domain the provider's entry allow-lists (`email_domains`
  in LEANCOACH_OIDC_CONFIG). The login is then linked, so later ones go by `sub`.

Staff, admins and superusers are never opened by school sign-in, linked or not: they sign in
with their password. A stored link opens a student or teacher only when the school sign-in
made her account, she allows it, or her address is in an allow-listed domain
(`link_still_allowed`): links allauth's own rule made from an address alone stay shut. Many school identity providers let users edit their address or mark
every address verified, so an address alone must never reach the console.

A login whose address belongs to an account it may not open is refused with the reason
instead of making a second account with the same address (allauth would otherwise sign it
up as a new student, on every sign-in whose case differs from the stored address). A first
sign-in whose address no account has makes a student account; admins make teachers.

allauth 65.22.1 hooks used (socialaccount/adapter.py): `authenticate_by_email(sociallogin)`
returns (user, email) or None, called by SocialLogin._lookup_by_email when no SocialAccount
matched (socialaccount/models.py `lookup`); `pre_social_login(request, sociallogin)` runs
after that lookup and may raise ImmediateHttpResponse (socialaccount/internal/flows/
login.py `pre_social_login`, core/exceptions.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from allauth.account.models import EmailAddress
from allauth.core.exceptions import ImmediateHttpResponse
from allauth.socialaccount.adapter import DefaultSocialAccountAdapter
from django.conf import settings
from django.contrib.auth.models import Group, User
from django.db.models import Q
from django.http import HttpRequest
from django.shortcuts import render

from webapp.accounts.models import SchoolSignIn
from webapp.accounts.roles import STUDENTS, is_admin, is_student, is_teacher


def is_privileged(user: Any) -> bool:
    """Accounts school sign-in never opens: staff (the Django admin), superusers, admins."""
    return bool(user.is_staff or user.is_superuser or is_admin(user))


def accounts_with_address(email: str) -> list[User]:
    """Every account holding `email`, compared without case: on the account itself, or as an
    address allauth recorded for it."""
    recorded = EmailAddress.objects.filter(email__iexact=email).values("user_id")
    matches = User.objects.filter(Q(email__iexact=email) | Q(pk__in=recorded)).distinct()
    return list(matches.order_by("pk"))


def allowed_domains(sociallogin: Any) -> set[str]:
    """The provider's allow-listed school domains (its `email_domains`, sso_settings)."""
    app = getattr(sociallogin.provider, "app", None)
    domains = (getattr(app, "settings", None) or {}).get("email_domains") or []
    return {str(domain).strip().lower() for domain in domains}


@dataclass(frozen=True)
class Match:
    user: User | None  # the account this address may open, if any
    refusal: str = ""  # why an account holding the address may not be opened


def match_address(sociallogin: Any, email: str) -> Match:
    holders = accounts_with_address(email)
    if not holders:
        return Match(None)
    if len(holders) > 1:
        return Match(None, "Several LeanCoach accounts have this address; ask an admin.")
    user = holders[0]
    if is_privileged(user):
        return Match(None, "School sign-in never opens staff or admin accounts.")
    if not user.is_active or not (is_student(user) or is_teacher(user)):
        return Match(None, "School sign-in opens student and teacher accounts only.")
    domain = email.rpartition("@")[2].lower()
    allowed = domain in allowed_domains(sociallogin)
    if not allowed and not SchoolSignIn.objects.filter(user=user).exists():
        return Match(None, NOT_ALLOWED)
    return Match(user)


NOT_ALLOWED = (
    "The LeanCoach account with this address has not allowed school sign-in. Sign in with its "
    "password and allow it on your page, then sign in with your school."
)
# A link stored within this long of its account's creation was made by the school sign-in
# that created the account (allauth saves the user, then the link, in one request).
MADE_TOGETHER = timedelta(minutes=1)


def link_still_allowed(sociallogin: Any) -> bool:
    """Whether a stored link (matched by `sub`) may open its student's or teacher's account:
    the school sign-in made the account, she allows school sign-in, or her address is in an
    allow-listed domain. A link that an address alone made to an account that existed before
    (allauth's own rule, before this module: any verified address, no consent) does not open
    it until she allows it herself."""
    user, account = sociallogin.user, sociallogin.account
    made_by_it = bool(
        account.date_joined
        and user.date_joined
        and account.date_joined - user.date_joined < MADE_TOGETHER
    )
    domain = (user.email or "").rpartition("@")[2].lower()
    return (
        made_by_it
        or SchoolSignIn.objects.filter(user=user).exists()
        or bool(domain and domain in allowed_domains(sociallogin))
    )


def _refuse(request: HttpRequest, why: str) -> ImmediateHttpResponse:
    page = render(request, "accounts/school_sign_in_refused.html", {"why": why}, status=403)
    return ImmediateHttpResponse(page)


class SchoolAccountAdapter(DefaultSocialAccountAdapter):
    def authenticate_by_email(self, sociallogin: Any) -> tuple[User, str] | None:
        """The one account a verified address may open (module docstring), or None. Replaces
        allauth's own match, which compares stored addresses case-sensitively (account/
        internal/userkit.py `filter_users_by_email` lowercases the address, then filters
        the user table by exact equality) and opens any account, superusers included."""
        for address in sociallogin.email_addresses:
            if not address.verified:
                continue
            user = match_address(sociallogin, address.email).user
            if user is not None:
                _record_vouched_address(user, address.email)
                return user, address.email
        return None

    def pre_social_login(self, request: HttpRequest, sociallogin: Any) -> None:
        """After allauth's lookup: refuse a privileged account however it was found (a link
        made before this rule, or promoted since), and a new login whose address belongs to
        an account it may not open (rather than a second account with that address)."""
        if sociallogin.is_existing:
            if is_privileged(sociallogin.user):
                raise _refuse(request, "School sign-in never opens staff or admin accounts.")
            if sociallogin.account.pk is not None and not link_still_allowed(sociallogin):
                raise _refuse(request, NOT_ALLOWED)
            return
        for address in sociallogin.email_addresses:
            match = match_address(sociallogin, address.email)
            if match.refusal:
                raise _refuse(request, match.refusal)
            if match.user is not None:  # an account it could open, had the school vouched
                raise _refuse(
                    request,
                    "Your school did not confirm this e-mail address, so it cannot open the "
                    "LeanCoach account that has it. Sign in with your password.",
                )

    def save_user(self, request: HttpRequest, sociallogin: Any, form: Any = None) -> Any:
        user = super().save_user(request, sociallogin, form)
        user.groups.add(Group.objects.get_or_create(name=STUDENTS)[0])
        return user


def _record_vouched_address(user: User, email: str) -> None:
    """Record the address as verified for her: the school vouched for it, and LeanCoach
    accounts get their addresses from admins (there is no self sign-up and no address
    editing). Without it allauth wipes her password on this first linked sign-in, a guard
    for self-registered accounts claiming someone else's address (socialaccount/internal/
    flows/email_authentication.py `wipe_password`): a teacher would lose her password."""
    EmailAddress.objects.update_or_create(
        user=user, email=email.lower(), defaults={"verified": True}
    )


def forget_school_logins(user: User) -> None:
    """Her consent taken back: the school logins linked to her account no longer open it."""
    from allauth.socialaccount.models import SocialAccount

    SchoolSignIn.objects.filter(user=user).delete()
    SocialAccount.objects.filter(user=user).delete()


def providers() -> list[dict[str, str]]:
    """(id, name) of each configured provider, for the login page's buttons."""
    apps = settings.SOCIALACCOUNT_PROVIDERS.get("openid_connect", {}).get("APPS", [])
    return [{"id": app["provider_id"], "name": app["name"]} for app in apps]
