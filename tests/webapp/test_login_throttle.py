"""Failed-login throttling (webapp.accounts.views.ThrottledLoginView) that cannot lock a person
out from afar: failures count per username and client address, and per client address across
usernames, never per username alone. `make run` serves with uvicorn's proxy headers off, so a
forged X-Forwarded-For cannot pick the address."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.test import Client
from django.urls import reverse

from tests.webapp.cast import PASSWORD, Cast
from tests.webapp.uvicorn_lines import uvicorn_options
from webapp.launch import _serving_settings

ROOT = Path(__file__).resolve().parents[2]
HER_LAPTOP = "198.51.100.7"


def _address() -> str:
    """A client address of its own for each test: the buckets live in the shared test cache
    for their whole window."""
    return f"203.0.113.{next(_ADDRESSES)}"


_ADDRESSES = iter(range(1, 255))


def _try(client: Client, username: str, password: str, address: str) -> Any:
    return client.post(
        reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address
    )


def test_wrong_passwords_typed_elsewhere_do_not_lock_her_out(cast: Cast, settings: Any) -> None:
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "login": "3/m", "login_client": "50/m"}
    attacker, far = Client(), _address()
    for _ in range(5):
        _try(attacker, cast.teacher.username, "wrong", far)
    # The attacker's client is refused on her name, even with the right password...
    refused = _try(attacker, cast.teacher.username, PASSWORD, far)
    assert refused.status_code == 429 and "Too many failed logins" in refused.content.decode()
    assert "_auth_user_id" not in attacker.session
    # ...and she signs in from her own laptop at once.
    her = Client()
    response = _try(her, cast.teacher.username, PASSWORD, HER_LAPTOP)
    assert response.status_code == 302 and her.session["_auth_user_id"] == str(cast.teacher.pk)


def test_the_name_is_compared_without_case_or_spaces(cast: Cast, settings: Any) -> None:
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "login": "3/m", "login_client": "50/m"}
    attacker, far = Client(), _address()
    for name in ("Tess", " tess", "TESS "):
        assert _try(attacker, name, "wrong", far).status_code == 200
    assert _try(attacker, cast.teacher.username, PASSWORD, far).status_code == 429


def test_one_client_trying_many_names_is_throttled(cast: Cast, settings: Any) -> None:
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "login": "3/m", "login_client": "4/m"}
    sprayer, far = Client(), _address()
    for name in ("a1", "a2", "a3", "a4"):
        assert _try(sprayer, name, "Winter2024!", far).status_code == 200
    refused = _try(sprayer, cast.student.username, PASSWORD, far)
    assert refused.status_code == 429
    # Another address is not affected.
    assert _try(Client(), cast.student.username, PASSWORD, HER_LAPTOP).status_code == 302


def test_make_run_ignores_forwarded_addresses() -> None:
    """uvicorn trusts X-Forwarded-For from 127.0.0.1 by default (--forwarded-allow-ips), so a
    client on the same machine could pick any address for every bucket: `make run`'s web line
    turns proxy headers off, whatever LEANCOACH_WEB_ARGS adds."""
    procfile = (ROOT / "Procfile").read_text(encoding="utf-8").splitlines()
    line = next(row for row in procfile if row.startswith("web:")).removeprefix("web:").strip()
    for given in ({}, {"LEANCOACH_DEV": "1"}, {"LEANCOACH_WEB_ARGS": "--log-level debug"}):
        env = {"LEANCOACH_HOST": "127.0.0.1", "LEANCOACH_PORT": "8000", **given}
        _serving_settings(env)
        assert uvicorn_options(line, env)["proxy_headers"] is False, given


def test_a_failed_login_says_so_once(cast: Cast, client: Client) -> None:
    response = client.post(reverse("login"), {"username": "sam", "password": "wrong"})
    body = response.content.decode()
    assert body.count("Please enter a correct username and password") == 1
    assert "didn't match" not in body
