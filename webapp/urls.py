from __future__ import annotations

from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.utils.functional import lazy
from django.views.generic.base import RedirectView

from webapp.accounts.views import ThrottledLoginView

urlpatterns = [
    path("", include("webapp.core.urls")),
    # Browsers and crawlers ask /favicon.ico whatever the page's <link rel="icon"> says.
    path(
        "favicon.ico",
        # Resolved per request: the hashed name exists only once collectstatic has run.
        RedirectView.as_view(url=lazy(static, str)("img/favicon.svg"), permanent=True),
        name="favicon",
    ),
    # Login with failed-try throttling; the rest of Django's auth views as they are.
    path("accounts/login/", ThrottledLoginView.as_view(), name="login"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("", include("webapp.accounts.urls")),
    path("", include("webapp.assignments.urls")),
    path("courses/", include("webapp.courses.urls")),
    path("attempts/", include("webapp.attempts.urls")),
    path("prover/", include("webapp.provers.urls")),
    path("console/", include("webapp.console.urls")),
    path("lti/", include("webapp.lti.urls")),
    path("sso/", include("webapp.accounts.sso_urls")),
    path("django-admin/", admin.site.urls),
]
