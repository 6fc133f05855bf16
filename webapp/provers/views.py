"""Ask the prover: request a run for an exercise, watch it live, cancel it."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect
from django_htmx.middleware import HtmxDetails

from webapp.courses.models import Exercise
from webapp.provers.access import can_see_run, can_use_exercise
from webapp.provers.actions import ProverRunRefused, do_cancel_prover_run, do_request_prover_run
from webapp.provers.models import ProverRun
from webapp.provers.presenters import run_context


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails  # set by django_htmx.middleware.HtmxMiddleware


def _get_exercise_for_user(request: HtmxHttpRequest, exercise_id: int) -> Exercise:
    exercise = get_object_or_404(Exercise.objects.select_related("world__course"), pk=exercise_id)
    if not can_use_exercise(request.user, exercise):
        raise PermissionDenied("This exercise is not in any of your classes.")
    return exercise


def _get_run_for_user(request: HtmxHttpRequest, pk: int) -> ProverRun:
    run = get_object_or_404(ProverRun.objects.select_related("exercise"), pk=pk)
    if not can_see_run(request.user, run):
        raise Http404("No such prover run.")  # another student's run: do not confirm it exists
    return run


@login_required
@require_POST
def ask(request: HtmxHttpRequest, exercise_id: int) -> HttpResponse:
    exercise = _get_exercise_for_user(request, exercise_id)
    mode = request.POST.get("mode", ProverRun.Mode.AGENT)
    try:
        run = do_request_prover_run(request.user, exercise, mode)
    except ProverRunRefused as refusal:
        if request.htmx:
            return render(request, "provers/run.html#refused", {"message": str(refusal)})
        messages.error(request, str(refusal))
        return redirect(request.headers.get("Referer") or "home")
    if request.htmx and request.POST.get("embed"):
        return render(request, "provers/run.html#panel", run_context(run))
    if request.htmx:
        return HttpResponseClientRedirect(run.get_absolute_url())
    return redirect(run.get_absolute_url())


@login_required
@require_GET
def run_page(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    return render(request, "provers/run.html", run_context(_get_run_for_user(request, pk)))


@login_required
@require_GET
def run_panel(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The embeddable panel (live over its own websocket) for the student page."""
    return render(request, "provers/run.html#panel", run_context(_get_run_for_user(request, pk)))


@login_required
@require_POST
def cancel(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    run = do_cancel_prover_run(_get_run_for_user(request, pk))
    if request.htmx:
        return render(request, "provers/run.html#status", run_context(run))
    return redirect(run.get_absolute_url())
