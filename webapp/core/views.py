from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from webapp.accounts.roles import is_admin
from webapp.core import health
from webapp.core.health import cached_system_status, public_status


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    # A signed-in user came to work: her dashboard (courses, classes, review queue) is home.
    if request.user.is_authenticated:
        return redirect("accounts:dashboard")
    return render(request, "core/home.html")


@never_cache
@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    """Prometheus metrics (webapp.core.metrics): staff, or the metrics bearer token."""
    from webapp.core.metrics import metrics_view

    return metrics_view(request)


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """ok / degraded (200) or down (503) for everyone; every component's detail for admins
    (roles.is_admin: the admins group or a superuser) and Django staff. `?fresh=1` lets an admin skip the
    2 s cache."""
    admin = is_admin(request.user) or bool(getattr(request.user, "is_staff", False))
    fresh = admin and request.GET.get("fresh") == "1"
    status = cached_system_status(max_age_s=0 if fresh else health.CACHE_SECONDS)
    body = status if admin else public_status(status)
    return JsonResponse(body, status=503 if status["status"] == "down" else 200)
