"""Fragments rendered for a websocket push (a worker's, or a consumer's replay) have no
request: their Stop / Cancel forms carry no CSRF field there (htmx posts them with the
page's X-CSRFToken header), and Django's "csrf_token ... did not provide the value" warning
(given with DEBUG on: `make dev`) no longer fills the worker's log. The page itself still
has the field."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from tests.webapp.cast import Cast
from webapp.console.live import LIVE_PARTS, render_fragments
from webapp.console.live import RUN_TEMPLATE as TRAINING_TEMPLATE
from webapp.console.models import TrainingRun
from webapp.console.presenters import run_context as training_context
from webapp.provers.live import RUN_TEMPLATE as PROVER_TEMPLATE
from webapp.provers.models import ProverRun
from webapp.provers.presenters import run_context as prover_context


@pytest.fixture(autouse=True)
def debug_on(settings: Any) -> None:
    settings.DEBUG = True  # Django warns only then (make dev)


def _without_csrf_warning(render: object) -> str:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        html = render()  # type: ignore[operator]
    assert not [w for w in caught if "csrf_token" in str(w.message)], caught
    return str(html)


def test_a_pushed_training_run_status_has_its_stop_form_and_no_warning(cast: Cast) -> None:
    run = TrainingRun.objects.create(algorithm="SFT", preset="tiny", steps=3, status="running",
                                     feedback_source="fixed", created_by=cast.admin)  # fmt: skip
    html = _without_csrf_warning(
        lambda: render_fragments(TRAINING_TEMPLATE, LIVE_PARTS, training_context(run))
    )
    assert reverse("console:run_stop", args=[run.pk]) in html
    assert "csrfmiddlewaretoken" not in html


def test_a_pushed_prover_run_status_has_its_cancel_form_and_no_warning(cast: Cast) -> None:
    run = ProverRun.objects.create(exercise=cast.exercise, user=cast.student, status="running")
    html = _without_csrf_warning(
        lambda: render_fragments(PROVER_TEMPLATE, ["status"], prover_context(run, reveal=False))
    )
    assert reverse("provers:cancel", args=[run.pk]) in html


def test_the_pages_themselves_keep_the_csrf_field(cast: Cast, client: Client) -> None:
    run = ProverRun.objects.create(exercise=cast.exercise, user=cast.student, status="running")
    client.force_login(cast.student)
    page = client.get(reverse("provers:run", args=[run.pk]))
    assert page.status_code == 200
    assert b"csrfmiddlewaretoken" in page.content
