"""What students read about the prover is in plain words: no command, no file path, no raw
token (`no_proof`); a refused second run links to the one going; a run that is going shows
its elapsed time; a run that found no proof never speaks of "the prover's proof"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from tests.webapp.cast import Cast, make_cast
from webapp.provers import engine
from webapp.provers.models import ProverRun
from webapp.provers.presenters import event_view


@pytest.fixture
def cast(db: None) -> Cast:
    return make_cast()


def test_the_note_without_a_trained_model_names_no_command_or_path(
    settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LEANCOACH_PROVER_MODEL", raising=False)
    settings.CHECKPOINT_ROOT = str(tmp_path)  # nothing serves
    _, notice = engine.prover_model_spec()
    assert notice is not None
    assert "manage.py" not in notice and "`" not in notice and "/" not in notice
    assert "search prover" in notice


def test_events_name_the_model_by_kind_and_verdicts_in_words() -> None:
    started = event_view(0, {"type": "started", "mode": "agent",
                             "model": "/srv/leancoach/var/checkpoints/step-120"})  # fmt: skip
    assert "/" not in started["summary"] and "trained prover model" in started["summary"]
    base = event_view(0, {"type": "started", "mode": "search", "model": "smollm2"})
    assert "small base model" in base["summary"]
    ended = event_view(3, {"type": "finished", "verdict": "no_proof", "stop_reason": "max_turns"})
    assert ended["summary"] == "no proof found (it used all its turns)"
    assert "_" not in ended["summary"]


def test_a_second_run_is_refused_with_a_link_to_the_first(client: Client, cast: Cast) -> None:
    going = ProverRun.objects.create(exercise=cast.exercise, user=cast.student, status="running")
    client.force_login(cast.student)
    response = client.post(
        reverse("provers:ask", args=[cast.exercise.pk]),
        {"mode": "agent", "embed": "1"},
        HTTP_HX_REQUEST="true",
    )
    body = response.content.decode()
    assert "already have a prover run going" in body
    assert f'<a href="{going.get_absolute_url()}">Open your run</a>' in body


def test_a_run_going_shows_its_elapsed_time(client: Client, cast: Cast) -> None:
    run = ProverRun.objects.create(exercise=cast.exercise, user=cast.student, status="running")
    client.force_login(cast.student)
    page = client.get(reverse("provers:run", args=[run.pk])).content.decode()
    assert 'id="prover-elapsed"' in page and "data-elapsed-since=" in page and "running for" in page


def test_a_cancelled_run_without_a_proof_speaks_of_no_proof(client: Client, cast: Cast) -> None:
    run = ProverRun.objects.create(
        exercise=cast.exercise,
        user=cast.student,
        status="cancelled",
        result={"final_proof": "  simp -- its last try", "stopped_after_s": 1.2},
    )
    client.force_login(cast.student)
    page = client.get(reverse("provers:run", args=[run.pk])).content.decode()
    assert "The prover's proof is" not in page and 'id="prover-proof-hidden"' not in page
    assert "its last try" not in page
    assert "Cancelled: the prover stopped 1.2 s after the request" in page
