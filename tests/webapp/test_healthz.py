from __future__ import annotations

import json
import shlex
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from celery.contrib.testing.worker import start_worker
from django.test import Client, override_settings

from tests.webapp.cast import Cast
from webapp.celery import QUEUES
from webapp.celery import app as celery_app
from webapp.core import health

pytestmark = pytest.mark.django_db

FAKE_REPL = Path(__file__).resolve().parents[1] / "fakes" / "fake_repl.py"

COMPONENTS = {"database", "redis", "workers", "lean", "lean_selftest", "gpu", "serving_model"}


@pytest.fixture(autouse=True)
def fresh_cache() -> Iterator[None]:
    health.clear_cache()
    yield
    health.clear_cache()


@pytest.fixture
def client(cast: Cast) -> Client:
    """An admin's client: the details are for admins (the public answer is tested below)."""
    client = Client()
    client.force_login(cast.admin)
    return client


@pytest.mark.parametrize("who", [None, "student", "teacher", "outsider"])
def test_others_get_the_status_only(cast: Cast, who: str | None) -> None:
    client = Client()
    if who:
        client.force_login(getattr(cast, who))
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "degraded"}  # no worker runs in this test
    text = response.content.decode()
    for secret in ("redis://", "127.0.0.1", "repl_command", "sandboxed", "checkpoint", "celery@"):
        assert secret not in text


def test_the_public_answer_is_503_when_down(cast: Cast) -> None:
    with override_settings(REDIS_URL="redis://127.0.0.1:1/0"):
        response = Client().get("/healthz")
    assert response.status_code == 503 and response.json() == {"status": "down"}


def test_answers_are_cached_so_requests_do_not_ask_every_worker(
    cast: Cast, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[float] = []
    real = health.check_workers

    def counting(timeout_s: float = 1.0) -> health.Component:
        calls.append(timeout_s)
        return real(timeout_s=0.2)

    monkeypatch.setitem(health.CHECKS, "workers", counting)
    anonymous = Client()
    for _ in range(5):
        assert anonymous.get("/healthz").status_code == 200
        assert "components" in client.get("/healthz").json()
    assert len(calls) == 1
    # An admin may ask for a fresh answer; an anonymous `?fresh=1` still gets the cache.
    anonymous.get("/healthz?fresh=1")
    assert len(calls) == 1
    client.get("/healthz?fresh=1")
    assert len(calls) == 2
    # After the cache's lifetime, the next request checks again.
    health.cached_system_status(max_age_s=0)
    assert len(calls) == 3


def test_it_reports_every_component(client: Client) -> None:
    response = client.get("/healthz")
    body = response.json()
    assert set(body["components"]) == COMPONENTS
    assert body["components"]["database"]["ok"] is True
    assert body["components"]["redis"]["ok"] is True
    assert response.status_code == 200


def test_it_says_why_lean_is_unavailable(client: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LEAN_REPL_CMD", raising=False)
    lean = client.get("/healthz").json()["components"]["lean"]
    if lean["ok"]:
        pytest.skip("a Lean REPL is installed on this machine")
    assert "make lean" in lean["detail"] or "LEAN_REPL_CMD" in lean["detail"]
    # Which process limits would hold, and why a per-REPL cgroup would not, is shown too.
    assert "rlimits" in lean["data"]["limits"] and "cgroup" in lean["data"]["limits"]


def test_admins_see_the_last_lean_self_test(
    client: Client, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("LEANCOACH_LEAN_HOME", str(tmp_path))
    never = client.get("/healthz?fresh=1").json()["components"]["lean_selftest"]
    # Not run: reported, not a fault of the stack.
    assert never["ok"] is True and never["data"] == {"ran": False}
    assert "make lean-check" in never["detail"]
    result = {"ran_at": "2026-01-01T00:00:00+00:00", "ok": False, "summary": "7/8 golden cases "
              "as expected", "cases": [{"name": "a false statement", "ok": False}]}  # fmt: skip
    (tmp_path / "selftest.json").write_text(json.dumps(result))
    shown = client.get("/healthz?fresh=1").json()["components"]["lean_selftest"]
    assert shown["ok"] is False and shown["detail"].startswith("7/8 golden cases")
    assert shown["data"]["cases"] == result["cases"]
    assert "lean_selftest" not in Client().get("/healthz").content.decode()


def test_it_is_down_with_503_when_redis_is_unreachable(client: Client) -> None:
    with override_settings(REDIS_URL="redis://127.0.0.1:1/0"):
        response = client.get("/healthz?fresh=1")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "down"
    assert body["components"]["redis"]["ok"] is False


def test_it_reports_no_serving_checkpoint_on_a_fresh_install(client: Client, tmp_path) -> None:
    with override_settings(CHECKPOINT_ROOT=tmp_path):
        serving = client.get("/healthz?fresh=1").json()["components"]["serving_model"]
    assert serving["ok"] is True  # optional: the prover serves its base model meanwhile
    assert serving["data"]["checkpoint"] is None


@pytest.fixture
def live_worker() -> Iterator[None]:
    # A real worker thread consuming every queue through the real broker.
    celery_app.loader.import_module("celery.contrib.testing.tasks")
    with start_worker(
        celery_app,
        queues=list(QUEUES),
        pool="solo",
        perform_ping_check=False,
        shutdown_timeout=10,
    ):
        yield


def test_it_lists_the_workers_of_each_queue(live_worker: None) -> None:
    # The worker thread answers broadcasts only once its remote-control consumer is up, which
    # can lag its start on a loaded machine: ask again for a while, as an operator would.
    deadline = time.monotonic() + 20
    workers = health.check_workers(timeout_s=2.0)
    while not workers.ok and time.monotonic() < deadline:
        workers = health.check_workers(timeout_s=2.0)
    assert workers.ok, workers.detail
    assert all(workers.data["queues"][queue] for queue in QUEUES)


def test_it_names_the_queues_without_a_worker() -> None:
    workers = health.check_workers(timeout_s=0.5)
    # No worker runs in this test (the live_worker fixture is not used).
    assert workers.ok is False
    assert "no worker for: lean, prover, train" in workers.detail


def test_it_names_the_promoted_checkpoint(client: Client, tmp_path, tiny_model_dir) -> None:
    from transformers import AutoModelForCausalLM

    from training.checkpoints import CheckpointRegistry

    registry = CheckpointRegistry(tmp_path)
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir)
    info = registry.save("demo", 4, model, stage="sft", config={}, metrics={"loss": 1.0})
    assert registry.promote(info.path).ok
    with override_settings(CHECKPOINT_ROOT=tmp_path):
        serving = client.get("/healthz?fresh=1").json()["components"]["serving_model"]
    assert serving["ok"] is True
    assert serving["data"]["checkpoint"] == "runs/demo/step-000004"
    assert "version 1" in serving["detail"]


@pytest.mark.django_db(transaction=True)  # the embedded worker closes the test's connection
def test_a_healthy_stack_is_ok_whatever_its_hardware(
    live_worker: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lean, the database, Redis and a worker on every queue, on a host without a GPU and
    with no promoted checkpoint (a CPU setup, by design): `ok`, with both absences reported."""
    monkeypatch.setenv("LEAN_REPL_CMD", shlex.join([sys.executable, str(FAKE_REPL)]))
    monkeypatch.setattr(health, "_gpu_probe", lambda: (False, "no GPU on the web host"))
    deadline = time.monotonic() + 20  # the worker thread answers broadcasts once it is up
    with override_settings(CHECKPOINT_ROOT=tmp_path):
        status = health.system_status()
        while not status["components"]["workers"]["ok"] and time.monotonic() < deadline:
            status = health.system_status()
        health.clear_cache()
        public = Client().get("/healthz")
    components = status["components"]
    assert components["lean"]["ok"], components["lean"]
    assert status["status"] == "ok", status
    assert public.status_code == 200 and public.json() == {"status": "ok"}
    gpu, serving = components["gpu"], components["serving_model"]
    assert gpu["data"]["present"] is False and "no GPU" in gpu["detail"]
    assert serving["data"]["checkpoint"] is None and "base model" in serving["detail"]


def test_redis_down_is_reported_without_asking_the_workers(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Workers are asked over the broker, which is this Redis: with it down the answer does
    not wait out the broker's retries (a stall must read `down` within 5 s)."""
    asked: list[float] = []
    monkeypatch.setitem(health.CHECKS, "workers", lambda **_: asked.append(1))
    with override_settings(REDIS_URL="redis://127.0.0.1:1/0"):
        body = client.get("/healthz?fresh=1").json()
    assert body["status"] == "down" and asked == []
    assert "broker (Redis) does not answer" in body["components"]["workers"]["detail"]
