"""LTI 1.3 endpoints: the OIDC login step, the launch, and the tool's public key set.
Cross-site by nature (the platform posts here), so CSRF does not apply: the signed id_token,
its state and its single-use nonce are the check."""

from __future__ import annotations

from django.contrib.auth import login
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from webapp.lti import platform
from webapp.lti.actions import do_launch


def _refused(request: HttpRequest, why: str, status: int = 403) -> HttpResponse:
    return render(request, "lti/refused.html", {"why": why}, status=status)


def _off(request: HttpRequest) -> HttpResponse:
    return _refused(request, "LTI is not configured on this server (settings.LTI_TOOL).", 404)


@csrf_exempt
@require_http_methods(["GET", "POST"])
def oidc_login(request: HttpRequest) -> HttpResponse:
    if not platform.enabled():
        return _off(request)
    target = request.POST.get("target_link_uri") or request.GET.get("target_link_uri", "")
    if not target:
        return _refused(request, "The platform sent no target_link_uri.", 400)
    try:
        return platform.login_redirect(request, target)
    except platform.LaunchRefused as exc:
        return _refused(request, str(exc), 400)


@csrf_exempt
@xframe_options_exempt  # LMSs often open tools in an iframe
@require_POST
def launch(request: HttpRequest) -> HttpResponse:
    if not platform.enabled():
        return _off(request)
    try:
        data = platform.validate_launch(request)
        user, assignment = do_launch(data)
    except platform.LaunchRefused as exc:
        return _refused(request, str(exc))
    login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    return redirect("assignments:detail", pk=assignment.pk)


@require_GET
def jwks(request: HttpRequest) -> HttpResponse:
    if not platform.enabled():
        return _off(request)
    return JsonResponse(platform.jwks())
