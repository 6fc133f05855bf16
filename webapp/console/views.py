"""The admin console: training runs, checkpoints, system status, monitoring. Admins only."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect
from django_htmx.middleware import HtmxDetails

from webapp.accounts.roles import is_admin
from webapp.console import actions, monitoring, training_bridge
from webapp.console.forms import LaunchForm, PromoteForm
from webapp.console.models import TrainingRun
from webapp.console.presenters import (
    checkpoint_views,
    plot_names,
    run_context,
    serving_context,
)
from webapp.core.health import cached_system_status


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails  # set by django_htmx.middleware.HtmxMiddleware


def _admin_only(view: Callable[..., HttpResponseBase]) -> Callable[..., HttpResponseBase]:
    """Anonymous users go to the login page; logged-in non-admins get 403."""

    @wraps(view)
    def wrapper(request: HtmxHttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not is_admin(request.user):
            raise PermissionDenied("The console is for admins.")
        return view(request, *args, **kwargs)

    return wrapper


def _get_run(pk: int) -> TrainingRun:
    return get_object_or_404(TrainingRun, pk=pk)


def _index_context(form: LaunchForm | None = None) -> dict[str, Any]:
    return {
        "form": form
        or LaunchForm(initial={"steps": 4, "alpha": 0.9, "top_k": 25, "switch_step": 2}),
        "runs": TrainingRun.objects.select_related("course")[:20],
        "monitor": monitoring.snapshot(),
    }


@_admin_only
@require_GET
def index(request: HtmxHttpRequest) -> HttpResponse:
    return render(request, "console/index.html", _index_context())


@_admin_only
@require_POST
def launch(request: HtmxHttpRequest) -> HttpResponse:
    form = LaunchForm(request.POST)
    if not form.is_valid():
        # The form comes back with the admin's values and a message per bad field.
        template = "console/index.html#launch_form" if request.htmx else "console/index.html"
        return render(request, template, _index_context(form), status=200 if request.htmx else 400)
    try:
        run = actions.do_launch_training_run(request.user, form.cleaned_data)
    except actions.TrainingRefused as refusal:
        form.add_error(None, str(refusal))
        template = "console/index.html#launch_form" if request.htmx else "console/index.html"
        return render(request, template, _index_context(form), status=200 if request.htmx else 409)
    if request.htmx:
        return HttpResponseClientRedirect(run_url(run))
    return redirect(run_url(run))


def run_url(run: TrainingRun) -> str:
    return reverse("console:run", args=[run.pk])


@_admin_only
@require_GET
def run_detail(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    return render(request, "console/run.html", run_context(_get_run(pk)))


@_admin_only
@require_GET
def run_status(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The status fragment alone (htmx refresh, and the fallback when websockets are blocked)."""
    return render(request, "console/run.html#status", run_context(_get_run(pk)))


@_admin_only
@require_POST
def run_stop(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    run = actions.do_request_stop(_get_run(pk))
    if request.htmx:
        return render(request, "console/run.html#status", run_context(run))
    return redirect(run_url(run))


@_admin_only
@require_GET
def run_plot(request: HtmxHttpRequest, pk: int, name: str) -> FileResponse:
    run = _get_run(pk)
    if name not in plot_names(run):  # only files training wrote; no path from the URL
        raise Http404("no such plot")
    return FileResponse(
        (Path(run.output_dir) / "plots" / name).open("rb"), content_type="image/png"
    )


@_admin_only
@require_GET
def checkpoints(request: HtmxHttpRequest) -> HttpResponse:
    context = {"rows": checkpoint_views(), "serving": serving_context()}
    return render(request, "console/checkpoints.html", context)


def _confirm_context(rel_path: str) -> dict[str, Any] | None:
    """What the admin must read before a checkpoint serves (None: not in the registry)."""
    chosen = next((v for v in checkpoint_views() if v.row.rel_path == rel_path), None)
    if chosen is None:
        return None
    serving = serving_context()
    serving_eval = training_bridge.checkpoint_evaluation(serving["path"]) if serving else {}
    return {"chosen": chosen, "serving": serving, "serving_eval": serving_eval}


@_admin_only
@require_GET
def promote_confirm(request: HtmxHttpRequest) -> HttpResponse:
    """The confirm step before promote: the checkpoint, its evaluation (or that it has none),
    its run's gate decision, and what serves now. Nothing changes until the admin confirms."""
    context = _confirm_context(request.GET.get("checkpoint", ""))
    if context is None:
        messages.error(request, "Choose a checkpoint of the registry to promote.")
        return redirect("console:checkpoints")
    return render(request, "console/promote_confirm.html", context)


@_admin_only
@require_POST
def promote(request: HtmxHttpRequest) -> HttpResponse:
    form = PromoteForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose a checkpoint to promote.")
        return redirect("console:checkpoints")
    rel_path = form.cleaned_data["checkpoint"]
    if not form.cleaned_data["confirmed"]:  # the confirm step first, always
        return redirect(
            f"{reverse('console:promote_confirm')}?{urlencode({'checkpoint': rel_path})}"
        )
    change = actions.do_promote_checkpoint(request.user, rel_path)
    (messages.success if change.ok else messages.error)(request, change.message)
    return redirect("console:checkpoints")


@_admin_only
@require_POST
def rollback(request: HtmxHttpRequest) -> HttpResponse:
    change = actions.do_rollback_serving(request.user)
    (messages.success if change.ok else messages.error)(request, change.message)
    return redirect("console:checkpoints")


@_admin_only
@require_GET
def status(request: HtmxHttpRequest) -> HttpResponse:
    """The page loads at once; the status fragment (which asks the workers, ~1 s) follows."""
    return render(request, "console/status.html")


@_admin_only
@require_GET
def status_fragment(request: HtmxHttpRequest) -> HttpResponse:
    return render(request, "console/status.html#components", {"health": cached_system_status()})


@_admin_only
@require_GET
def monitoring_fragment(request: HtmxHttpRequest) -> HttpResponse:
    return render(request, "console/index.html#monitoring", {"monitor": monitoring.snapshot()})
