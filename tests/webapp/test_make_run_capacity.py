"""Separate capacity under `make run` (issue 26, item 2): proof checks have a Celery worker of
their own, the sweeper a queue and a process of its own, and prover and training runs share a
pool that neither kind may fill (a site-wide cap one below it, refused with the reason).
The Procfile's lines are read as honcho runs them (expanded by `sh` with the launcher's
environment)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any
from unittest import mock

from django.test import Client
from django.urls import reverse

from tests.webapp.cast import Cast
from tests.webapp.test_console_views import _launch_data
from webapp.console.models import TrainingRun
from webapp.launch import _serving_settings, _worker_settings
from webapp.provers.models import ProverRun

ROOT = Path(__file__).resolve().parents[2]


def _launch_env(**given: str) -> dict[str, str]:
    env = {"LEANCOACH_HOST": "127.0.0.1", "LEANCOACH_PORT": "8000",
           "LEANCOACH_VAR_DIR": "/tmp/var", **given}  # fmt: skip
    _serving_settings(env)
    _worker_settings(env)
    return env


def _procfile_args(name: str, env: dict[str, str]) -> list[str]:
    """The argv of Procfile line `name`, as `sh` expands it for honcho (after `python`), and
    of the command it keeps running when it is a `keep-running` line."""
    lines = (ROOT / "Procfile").read_text(encoding="utf-8").splitlines()
    line = next(row for row in lines if row.startswith(f"{name}:")).split(":", 1)[1].strip()
    show = f"{sys.executable} -c 'import json, sys; print(json.dumps(sys.argv[1:]))' "
    out = subprocess.run(["sh", "-c", show + line.removeprefix("python ")], check=True,
                         env={"PATH": os.environ["PATH"], **env}, capture_output=True, text=True)  # fmt: skip
    args = list(json.loads(out.stdout))
    if args[:3] == ["-m", "webapp.embedded", "keep-running"]:
        args = args[args.index("--") + 2 :]  # after "-- python"
    return args


def _option(args: list[str], *names: str) -> str | None:
    for i, arg in enumerate(args):
        if arg in names:
            return args[i + 1]
    return None


def test_checks_have_a_worker_of_their_own_and_the_sweeper_a_queue_of_its_own() -> None:
    env = _launch_env()
    processes = {row.split(":", 1)[0] for row in (ROOT / "Procfile").read_text().splitlines()}
    assert {"checks", "work", "sweeper", "beat", "web", "redis"} <= processes
    consumed = {}
    for name in ("checks", "work", "sweeper"):
        args = _procfile_args(name, env)
        assert args[:4] == ["-m", "celery", "-A", "webapp"] and "worker" in args
        consumed[name] = set((_option(args, "-Q") or "").split(","))
        assert _option(args, "-n"), "workers of one host need names of their own"
    assert consumed == {"checks": {"lean"}, "work": {"prover", "train"}, "sweeper": {"sweep"}}
    checks = _procfile_args("checks", env)
    assert int(_option(checks, "--concurrency") or 0) >= 2
    assert _option(_procfile_args("sweeper", env), "--pool", "-P") == "solo"


def test_every_worker_is_started_again_if_it_exits() -> None:
    """A Celery worker whose broker dies in the middle of a task can end ("Unrecoverable
    error"); under honcho that would end every process (webapp.embedded.keep_running)."""
    lines = (ROOT / "Procfile").read_text(encoding="utf-8").splitlines()
    for name in ("checks", "work", "sweeper"):
        line = next(row for row in lines if row.startswith(f"{name}:"))
        assert f"webapp.embedded keep-running --name {name} -- python -m celery" in line


def test_prover_and_training_runs_are_each_capped_below_their_shared_pool() -> None:
    env = _launch_env()
    pool = int(_option(_procfile_args("work", env), "--concurrency") or 0)
    assert pool >= 2
    assert int(env["LEANCOACH_PROVER_MAX_ACTIVE"]) == pool - 1
    assert int(env["LEANCOACH_TRAIN_MAX_ACTIVE"]) == pool - 1
    bigger = _launch_env(LEANCOACH_WORK_POOL="4")
    assert bigger["LEANCOACH_PROVER_MAX_ACTIVE"] == bigger["LEANCOACH_TRAIN_MAX_ACTIVE"] == "3"


def test_beat_sends_the_sweep_to_the_sweepers_queue_under_make_run() -> None:
    # Where the message goes: the beat entry's options through Celery's router (an explicit
    # queue must win over task_routes, which sends every "lean.*" task to `lean`).
    code = (
        "import django; django.setup(); from webapp.celery import app; "
        "e = app.conf.beat_schedule['sweep-stale']; "
        "q = app.amqp.router.route(dict(e['options']), e['task'])['queue']; "
        "print(e['task'], q.name)"
    )
    clean = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL"}}

    def scheduled(**env: str) -> str:
        out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                             text=True, timeout=60, env={**clean, **env})  # fmt: skip
        assert out.returncode == 0, out.stderr
        return out.stdout.strip()

    made = _launch_env()
    assert scheduled(DJANGO_SETTINGS_MODULE=made["DJANGO_SETTINGS_MODULE"],
                     LEANCOACH_SWEEP_QUEUE=made["LEANCOACH_SWEEP_QUEUE"]) == "lean.sweep_stale sweep"  # fmt: skip
    # Elsewhere (no sweeper of its own) it stays on `lean`, where a worker consumes it.
    assert scheduled(DJANGO_SETTINGS_MODULE="webapp.settings.dev") == "lean.sweep_stale lean"


def test_the_sweep_queue_has_its_own_exchange_and_key() -> None:
    from webapp.celery import app

    declared = {q.name: q for q in app.conf.task_queues}
    assert declared["sweep"].exchange.name == "sweep" and declared["sweep"].routing_key == "sweep"


# --- the caps, as a student and an admin meet them --------------------------------------


def test_past_the_cap_the_prover_says_it_is_busy(cast: Cast, client: Client, settings: Any) -> None:
    settings.PROVER_MAX_ACTIVE = 1
    ProverRun.objects.create(exercise=cast.exercise, user=cast.other_student, status="running")
    client.force_login(cast.student)
    with mock.patch("webapp.provers.tasks.run_prover.delay") as delay:
        response = client.post(
            reverse("provers:ask", args=[cast.exercise.pk]), {"mode": "agent"}, follow=True
        )
    assert "The prover is busy" in response.content.decode()
    assert ProverRun.objects.count() == 1 and not delay.called
    ProverRun.objects.update(status="finished")
    with mock.patch("webapp.provers.tasks.run_prover.delay"):
        client.post(reverse("provers:ask", args=[cast.exercise.pk]), {"mode": "agent"})
    assert ProverRun.objects.filter(user=cast.student).exists()


def test_past_the_cap_a_training_run_is_refused_with_the_reason(
    cast: Cast, client: Client, settings: Any
) -> None:
    settings.TRAIN_MAX_ACTIVE = 1
    TrainingRun.objects.create(course=cast.course, created_by=cast.admin, status="running")
    client.force_login(cast.admin)
    with mock.patch("webapp.console.tasks.run_training.delay"):
        response = client.post(reverse("console:launch"), _launch_data(cast))
    assert response.status_code == 409
    assert "the most this server runs at once" in response.content.decode()
    assert TrainingRun.objects.count() == 1


def test_continual_distillation_waits_for_a_free_training_slot(cast: Cast, settings: Any) -> None:
    from webapp.console.continual import run_continual_distillation

    settings.TRAIN_MAX_ACTIVE = 1
    TrainingRun.objects.create(course=cast.course, created_by=cast.admin, status="running")
    summary = run_continual_distillation(None)
    assert not summary["ok"] and summary["error"].startswith("skipped:")
    assert TrainingRun.objects.count() == 1
