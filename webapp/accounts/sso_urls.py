"""The part of django-allauth LeanCoach serves: OpenID Connect sign-in and its error pages.
allauth's own username/password pages are not served (Django's login stays the one); names
allauth redirects to are pointed at it."""

from __future__ import annotations

from allauth.socialaccount import views as social
from django.urls import include, path
from django.views.generic.base import RedirectView

urlpatterns = [
    path("", include("allauth.socialaccount.providers.openid_connect.urls")),
    path("cancelled/", social.login_cancelled, name="socialaccount_login_cancelled"),
    path("error/", social.login_error, name="socialaccount_login_error"),
    path("signup/", social.signup, name="socialaccount_signup"),
    path("login/", RedirectView.as_view(pattern_name="login"), name="account_login"),
]
