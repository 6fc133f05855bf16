"""Cancel ends a prover run's computing within 5 s, even when the model is in the middle of a
generation that polls nothing: the run goes in a child process (tutor.prover.host), which is
asked to stop and killed if it has not within the grace period; the page says so. Against a
stand-in child that ignores cancels (tests/fakes/stubborn_prover_host.py), and against the
real child with the tiny model (a cooperative stop)."""

from __future__ import annotations

import os
import shlex
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from django.test import Client
from django.urls import reverse

from tests.webapp.cast import Cast
from tutor.prover.host import ProverHost
from webapp.provers import engine, tasks
from webapp.provers.models import ProverRun

STUBBORN = Path(__file__).resolve().parents[1] / "fakes" / "stubborn_prover_host.py"
FAKE_REPL = Path(__file__).resolve().parents[1] / "fakes" / "fake_repl.py"


@pytest.fixture
def stubborn(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    pid_file = tmp_path / "host.pid"
    monkeypatch.setenv("LEANCOACH_PROVER_HOST_CMD", shlex.join([sys.executable, str(STUBBORN)]))
    monkeypatch.setenv("STUBBORN_HOST_PID_FILE", str(pid_file))
    engine.stop_prover_host()
    engine._host = None  # a host built with this command
    yield pid_file
    engine.stop_prover_host()
    engine._host = None


def _alive(pid: int, settle_s: float = 1.0) -> bool:
    """Whether `pid` still runs `settle_s` after a kill was sent (a killed process takes a
    moment to leave the process table)."""
    deadline = time.monotonic() + settle_s
    while True:
        try:
            running = psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            running = False
        if not running or time.monotonic() > deadline:
            return running
        time.sleep(0.05)


def _problem() -> dict[str, object]:
    return {"id": "t", "statement": "theorem t : True := by", "header": "", "informal": ""}


def test_the_host_kills_a_child_that_ignores_the_cancel(stubborn: Path) -> None:
    host = ProverHost()
    events: list[dict[str, object]] = []
    asked = {"at": 0.0}

    def should_cancel() -> bool:
        if events and not asked["at"]:
            asked["at"] = time.monotonic()
        return bool(asked["at"])

    request = {"problem": _problem(), "mode": "agent", "n": 1, "model": None, "search": {}}
    result = host.run(request, events.append, should_cancel, grace_s=1.0)
    took = time.monotonic() - asked["at"]
    pid = int(stubborn.read_text())
    assert events and events[0]["type"] == "started"
    assert result["cancelled"] and result["killed"] and took < 1.0 + 1.5  # grace, then the kill
    assert not _alive(pid) and host.pid is None
    assert not _alive(int(Path(f"{stubborn}.child").read_text()))  # what it started, too
    # The next run starts a fresh child (asked to stop once it shows life).
    again: list[dict[str, object]] = []
    host.run(request, again.append, lambda: bool(again), grace_s=0.2)
    assert again and int(stubborn.read_text()) != pid
    host.close()


@pytest.mark.django_db(transaction=True)
def test_cancel_ends_a_running_run_within_5_seconds_and_the_page_says_so(
    stubborn: Path, cast: Cast, client: Client
) -> None:
    run = ProverRun.objects.create(exercise=cast.exercise, user=cast.student, mode="agent")
    ended: dict[str, object] = {}

    def work() -> None:
        ended["status"] = tasks.run_prover(run.pk)
        ended["at"] = time.monotonic()

    worker = threading.Thread(target=work)
    worker.start()
    deadline = time.monotonic() + 60
    while not stubborn.exists() or ProverRun.objects.get(pk=run.pk).status != "running":
        assert time.monotonic() < deadline, "the run did not start"
        time.sleep(0.1)
    pid = int(stubborn.read_text())
    assert _alive(pid, settle_s=0)  # computing, and deaf to cancels
    client.force_login(cast.student)
    asked = time.monotonic()
    page = client.post(reverse("provers:cancel", args=[run.pk]), HTTP_HX_REQUEST="true")
    assert "process ends within 5 seconds" in page.content.decode()
    worker.join(timeout=30)
    assert ended["status"] == "cancelled"
    assert float(ended["at"]) - asked < 5.0  # type: ignore[arg-type]
    assert not _alive(pid)
    run.refresh_from_db()
    assert run.status == "cancelled" and run.result["process_ended"]
    shown = client.get(reverse("provers:run", args=[run.pk])).content.decode()
    assert "Cancelled: the prover stopped" in shown and "its process was ended" in shown


@pytest.mark.django_db(transaction=True)
def test_the_real_child_stops_by_itself_when_asked(
    cast: Cast, monkeypatch: pytest.MonkeyPatch, tiny_model_dir: Path, tmp_path: Path
) -> None:
    """The real child with the tiny model, asked to stop as soon as the run is sent: it stops
    at its first poll (before the first model turn) and answers its result, not killed."""
    for name in ("LEANCOACH_PROVER_HOST_CMD", "LEANCOACH_SERVING_CHECKPOINT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LEAN_REPL_CMD", shlex.join([sys.executable, str(FAKE_REPL)]))
    monkeypatch.setenv("LEANCOACH_PROVER_MODEL", str(tiny_model_dir))
    monkeypatch.setenv("LEANCOACH_PROVER_DEVICE", "cpu")
    monkeypatch.setenv("LEANCOACH_LEAN_HOME", str(tmp_path / "lean-home"))
    engine.stop_prover_host()
    run = ProverRun.objects.create(exercise=cast.exercise, user=cast.student, mode="agent")
    seen: list[dict[str, object]] = []
    request = {"problem": tasks.problem_for(run), "mode": "agent", "n": 1,
               "model": str(tiny_model_dir), "search": {}}  # fmt: skip
    # A grace long enough for the child to load its model on a loaded machine: this measures
    # the child's own stop, not the kill.
    result = engine.prover_host().run(request, seen.append, lambda: True, grace_s=120)
    outcome = engine.outcome_from_result(result)
    assert result["ok"] and result["cancelled"] and not result.get("killed")
    assert outcome.cancelled and "stopped_after_s" in outcome.extra
    assert [e["type"] for e in seen][:1] == ["started"]
    assert engine.prover_host().pid is not None  # and stays up for the next run
    engine.stop_prover_host()
    os.environ.pop("LEANCOACH_PROVER_MODEL", None)
