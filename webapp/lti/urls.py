from __future__ import annotations

from django.urls import path

from webapp.lti import views

app_name = "lti"
urlpatterns = [
    path("login/", views.oidc_login, name="login"),
    path("launch/", views.launch, name="launch"),
    path("jwks/", views.jwks, name="jwks"),
]
