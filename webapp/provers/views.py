"""Ask the prover: request a run for an exercise, watch it live, cancel it."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect
from django_htmx.middleware import HtmxDetails

from webapp.core.limits import limit_message, over_limit
from webapp.courses.models import Exercise
from webapp.provers.access import (
    can_cancel_run,
    can_see_run,
    can_use_exercise,
    may_see_final_proof,
)
from webapp.provers.actions import ProverRunRefused, do_cancel_prover_run, do_request_prover_run
from webapp.provers.models import ProverRun
from webapp.provers.presenters import run_context


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails  # set by django_htmx.middleware.HtmxMiddleware


def _get_exercise_for_user(request: HtmxHttpRequest, exercise_id: int) -> Exercise:
    """The exercise if she may ask about it; otherwise the same 404 as for an id that does
    not exist, so the answer never tells which exercise ids exist."""
    exercise = Exercise.objects.select_related("world__course").filter(pk=exercise_id).first()
    if exercise is None or not can_use_exercise(request.user, exercise):
        raise Http404("No such exercise in your classes.")
    return exercise


def _get_run_for_user(request: HtmxHttpRequest, pk: int) -> ProverRun:
    run = get_object_or_404(ProverRun.objects.select_related("exercise__world", "user"), pk=pk)
    if not can_see_run(request.user, run):
        raise Http404("No such prover run.")  # another student's run: do not confirm it exists
    return run


def _context(request: HtmxHttpRequest, run: ProverRun) -> dict[str, Any]:
    return run_context(run, reveal=may_see_final_proof(request.user, run))


@login_required
@require_POST
def ask(request: HtmxHttpRequest, exercise_id: int) -> HttpResponse:
    exercise = _get_exercise_for_user(request, exercise_id)
    mode = request.POST.get("mode", ProverRun.Mode.AGENT)
    algorithm = request.POST.get("algorithm", ProverRun.Algorithm.MCTS)
    try:
        if over_limit(request, "prover"):
            raise ProverRunRefused(limit_message("prover"))
        run = do_request_prover_run(request.user, exercise, mode, algorithm)
    except ProverRunRefused as refusal:
        if request.htmx:
            context = {"message": str(refusal), "link": refusal.link}
            return render(request, "provers/run.html#refused", context)
        messages.error(request, str(refusal))
        # Back to the exercise, never to the request's Referer (an open redirect).
        return redirect(
            exercise.get_absolute_url() or reverse("courses:course", args=[exercise.course.slug])
        )
    if request.htmx and request.POST.get("embed"):
        return render(request, "provers/run.html#panel", _context(request, run))
    if request.htmx:
        return HttpResponseClientRedirect(run.get_absolute_url())
    return redirect(run.get_absolute_url())


@login_required
@require_GET
def run_page(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    return render(request, "provers/run.html", _context(request, _get_run_for_user(request, pk)))


@login_required
@require_GET
def run_panel(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The embeddable panel (live over its own websocket) for the student page."""
    run = _get_run_for_user(request, pk)
    return render(request, "provers/run.html#panel", _context(request, run))


@login_required
@require_POST
def cancel(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    run = _get_run_for_user(request, pk)
    if not can_cancel_run(request.user, run):
        raise PermissionDenied("Only the student who asked can cancel this run.")
    run = do_cancel_prover_run(run)
    if request.htmx:
        return render(request, "provers/run.html#status", _context(request, run))
    return redirect(run.get_absolute_url())
