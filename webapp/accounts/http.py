"""Request types for views: django-htmx's `request.htmx`, and a logged-in user where a view
is behind login_required (django-stubs cannot see that decorator's guarantee)."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class HtmxRequest(HttpRequest):
    htmx: HtmxDetails
    user: User | AnonymousUser


class AuthedRequest(HttpRequest):
    htmx: HtmxDetails
    user: User
