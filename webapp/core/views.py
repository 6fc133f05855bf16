from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from webapp.core.health import system_status


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    # A signed-in user came to work: her dashboard (courses, classes, review queue) is home.
    if request.user.is_authenticated:
        return redirect("accounts:dashboard")
    return render(request, "core/home.html")


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    status = system_status()
    return JsonResponse(status, status=503 if status["status"] == "down" else 200)
