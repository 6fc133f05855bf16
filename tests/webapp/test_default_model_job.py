"""The first-run prover fine-tune as a `train` job: queued once, shown as "Preparing the model,
N%" on the exercise page, the status check and the prover's refusal, until a checkpoint serves."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from tests.webapp.cast import Cast
from webapp.console.default_model import do_queue_default_model, preparing_message
from webapp.console.models import TrainingRun
from webapp.core.health import check_serving_model
from webapp.provers.actions import ProverRunRefused, do_request_prover_run


@pytest.fixture
def registry(settings: Any, tmp_path: Path) -> Path:
    settings.CHECKPOINT_ROOT = tmp_path / "checkpoints"
    settings.VAR_DIR = tmp_path
    return settings.CHECKPOINT_ROOT


def test_it_is_queued_once_on_the_train_queue(
    registry: Path, django_capture_on_commit_callbacks: Any, monkeypatch: Any, db: None
) -> None:
    sent: list[tuple[str, Any]] = []
    monkeypatch.setattr("webapp.console.default_model.enqueue",
                        lambda name, *args: sent.append((name, args)))  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True):
        run = do_queue_default_model()
    assert run is not None and run.status == TrainingRun.Status.QUEUED
    assert sent == [("train.prepare_default_model", (run.pk,))]
    with django_capture_on_commit_callbacks(execute=True):
        assert do_queue_default_model() is None  # already queued: not twice
    assert len(sent) == 1


def test_progress_shows_until_a_checkpoint_serves(
    registry: Path, cast: Cast, client: Client
) -> None:
    run = do_queue_default_model()
    assert run is not None
    TrainingRun.objects.filter(pk=run.pk).update(status="running", step=30, steps=120)
    assert preparing_message() == "Preparing the model, 25%"
    preparing = check_serving_model()
    # Reported, not counted as degradation: a fresh install preparing its model is healthy.
    assert preparing.ok and "preparing the default prover model, 25%" in preparing.detail
    with pytest.raises(ProverRunRefused, match="Preparing the model, 25%"):
        do_request_prover_run(cast.student, cast.exercise, "agent")
    client.force_login(cast.student)
    url = reverse("courses:exercise", args=[cast.course.slug, cast.exercise.name])
    body = client.get(url).content.decode()
    assert "Preparing the model, 25%" in body and "Ask the search prover" in body
    assert 'value="agent"' not in body  # the agent waits for the model; search works meanwhile
    search = do_request_prover_run(cast.student, cast.exercise, "search", "best_first")
    assert search.mode == "search"
    search.delete()

    registry.mkdir(parents=True)
    (registry / "serving.json").write_text(json.dumps({"path": "default/step-120"}))
    assert preparing_message() is None
    assert "Preparing" not in client.get(url).content.decode()
    assert do_queue_default_model() is None  # something serves: nothing to prepare


def test_a_job_interrupted_by_a_stop_is_queued_again_at_start(
    registry: Path, monkeypatch: Any, db: None
) -> None:
    monkeypatch.setattr("celery.app.task.Task.apply_async", lambda self, *a, **kw: None)
    first = do_queue_default_model()
    assert first is not None
    assert do_queue_default_model() is None  # still going: left alone
    again = do_queue_default_model(interrupted=True)  # what `make run` asks at start-up
    assert again is not None and again.pk != first.pk
    first.refresh_from_db()
    assert first.status == "failed" and "interrupted" in first.error


def test_the_command_queues_in_the_background(
    registry: Path, monkeypatch: Any, capsys: Any, db: None
) -> None:
    monkeypatch.setattr("celery.app.task.Task.apply_async", lambda self, *a, **kw: None)
    call_command("prepare_prover_model", "--if-unserved", "--background")
    assert "Queued the prover model fine-tune" in capsys.readouterr().out
    assert TrainingRun.objects.filter(status="queued", base_model="smollm2").count() == 1
