"""QueuedWork (webapp/core/models.py): the queue bookkeeping that attempts, prover runs and
training runs share, `claim` as the one way a task takes its row, and the migration that
gave training runs the same bookkeeping without losing what their rows held."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tests.webapp.cast import Cast
from webapp.attempts.models import Attempt
from webapp.console.models import TrainingRun
from webapp.provers.models import ProverRun


def _rows(cast: Cast) -> list[tuple[Any, str]]:
    return [
        (Attempt.objects.create(student=cast.student, exercise=cast.exercise, proof="  rfl"),
         Attempt.Status.CHECKING),
        (ProverRun.objects.create(user=cast.student, exercise=cast.exercise),
         ProverRun.Status.RUNNING),
        (TrainingRun.objects.create(created_by=cast.admin), TrainingRun.Status.RUNNING),
    ]  # fmt: skip


@pytest.mark.django_db
def test_one_task_message_takes_a_queued_row(cast: Cast) -> None:
    for row, running in _rows(cast):
        copy = type(row).objects.get(pk=row.pk)  # what a second copy of the task read
        assert row.claim(running, "first-message") is True
        assert (row.status, row.claimed_by) == (running, "first-message")
        assert row.started_at is not None
        # The other copy finds it taken, and its instance now says by whom.
        assert copy.claim(running, "second-message") is False
        assert (copy.status, copy.claimed_by) == (running, "first-message")
        stored = type(row).objects.get(pk=row.pk)
        assert (stored.status, stored.claimed_by, stored.started_at) == (
            running,
            "first-message",
            row.started_at,
        )


@pytest.mark.django_db
def test_a_row_no_longer_queued_is_not_taken(cast: Cast) -> None:
    for row, running in _rows(cast):
        type(row).objects.filter(pk=row.pk).update(status="cancelled")
        assert row.claim(running, "late-message") is False
        assert row.status == "cancelled" and row.claimed_by == ""


@pytest.mark.django_db(transaction=True)
def test_training_runs_keep_their_rows_and_count_as_queued_when_made() -> None:
    before, after = (
        [("console", "0002_continual_lineage")],
        [("console", "0003_trainingrun_queued_work")],
    )
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    old_apps = executor.loader.project_state(before).apps
    OldRun = old_apps.get_model("console", "TrainingRun")
    made = OldRun.objects.create(algorithm="SFT", steps=7, status="finished", error="kept")
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(after)
    NewRun = executor.loader.project_state(after).apps.get_model("console", "TrainingRun")
    run = NewRun.objects.get(pk=made.pk)
    assert (run.algorithm, run.steps, run.status, run.error) == ("SFT", 7, "finished", "kept")
    assert run.queued_at == run.created_at and run.requeues == 0 and run.claimed_by == ""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())  # leave the schema as the suite has it
