from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

pytestmark = pytest.mark.django_db


def test_it_welcomes_visitors_with_a_login_link(client: Client) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert b"/accounts/login/" in response.content


def test_it_sends_signed_in_users_to_their_dashboard(client: Client) -> None:
    client.force_login(User.objects.create_user("sam"))
    response = client.get("/")
    assert response.status_code == 302
    assert response["Location"] == "/me/"


def test_the_favicon_is_served(client: Client) -> None:
    from django.contrib.staticfiles import finders
    from django.templatetags.static import static

    icon = static("img/favicon.svg")
    response = client.get("/favicon.ico")
    assert response.status_code == 301 and response["Location"] == icon
    assert finders.find("img/favicon.svg")  # the file the redirect and the link point at
    assert f'<link rel="icon" href="{icon}"'.encode() in client.get("/").content
