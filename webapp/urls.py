from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("", include("webapp.core.urls")),
    path("accounts/", include("django.contrib.auth.urls")),
    path("", include("webapp.accounts.urls")),
    path("courses/", include("webapp.courses.urls")),
    path("attempts/", include("webapp.attempts.urls")),
    path("prover/", include("webapp.provers.urls")),
    path("console/", include("webapp.console.urls")),
    path("django-admin/", admin.site.urls),
]
