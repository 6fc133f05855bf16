"""Goals while typing (webapp/attempts/live_goals.py): the `lean.live_goals` task runs the
editor's text in the checker's exploration pool, records nothing, answers on the student's
exercise-page group, and only her latest request counts; the view rate-limits per student."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.test import Client, override_settings
from django.urls import reverse

from tests.webapp.cast import Cast
from webapp.attempts import checking
from webapp.attempts import live_goals as flow
from webapp.attempts.models import Attempt, LineDiagnostic, Progress, Suggestion
from webapp.attempts.routing import websocket_urlpatterns
from webapp.attempts.tasks import live_goals
from webapp.courses.models import HintOpening

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def queued(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """The tasks the flow queues, by name and arguments (no broker in unit tests)."""
    sent: list[tuple[Any, ...]] = []
    monkeypatch.setattr(flow, "enqueue", lambda name, *args: sent.append((name, *args)))
    return sent


def _listen(cast: Cast) -> tuple[Any, str]:
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    group = Attempt.watch_group_for(cast.student.pk, cast.exercise.pk)
    async_to_sync(layer.group_add)(group, channel)
    return layer, channel


def _messages(layer: Any, channel: str, wait_s: float = 0.3) -> list[dict[str, Any]]:
    async def receive() -> dict[str, Any]:
        return await asyncio.wait_for(layer.receive(channel), wait_s)

    received = []
    while True:
        try:
            received.append(async_to_sync(receive)())
        except TimeoutError:
            return received


def _counts() -> tuple[int, ...]:
    return (
        Attempt.objects.count(),
        LineDiagnostic.objects.count(),
        Suggestion.objects.count(),
        Progress.objects.count(),
        HintOpening.objects.count(),
    )


def test_the_task_sends_goals_and_records_nothing(
    cast: Cast, fake_lean: Any, queued: list[tuple[Any, ...]]
) -> None:
    layer, channel = _listen(cast)
    before = _counts()
    token = flow.request_goals(cast.student.pk, cast.exercise.pk, "page-a", 7, "  intro h\n  simp")
    assert queued == [("lean.live_goals", cast.student.pk, token)]
    assert live_goals(cast.student.pk, token) == "sent"
    [message] = _messages(layer, channel)
    assert message["type"] == "live.goals"
    data = message["data"]
    assert (data["client"], data["seq"], data["live"]) == ("page-a", 7, True)
    assert "valid" not in data  # never a verdict
    # The editor's lines: the statement is line 1, the proof's first line is line 2.
    assert [(t["line"], t["tactic"]) for t in data["tactics"]] == [(2, "intro h"), (3, "simp")]
    assert "⊢ n + 0 = n" in data["tactics"][0]["before"]
    assert _counts() == before  # no attempt, no message row, no progress, no hint
    # The exploration pool ran it; the verdict pool was never touched.
    assert fake_lean.explore_pool.live_processes == 1
    assert fake_lean.pool.live_processes == 0


def test_messages_come_in_the_editors_lines(
    cast: Cast, fake_lean: Any, queued: list[tuple[Any, ...]]
) -> None:
    layer, channel = _listen(cast)
    proof = "  intro h\n  skip -- fake: error unsolved_goals"
    token = flow.request_goals(cast.student.pk, cast.exercise.pk, "page-a", 1, proof)
    live_goals(cast.student.pk, token)
    [message] = _messages(layer, channel)
    errors = [d for d in message["data"]["diagnostics"] if d["severity"] == "error"]
    assert [(d["line"], d["kind"]) for d in errors] == [(3, "unsolved_goals")]


def test_a_newer_request_supersedes_an_older_one(
    cast: Cast, fake_lean: Any, queued: list[tuple[Any, ...]]
) -> None:
    layer, channel = _listen(cast)
    old = flow.request_goals(cast.student.pk, cast.exercise.pk, "page-a", 1, "  intro h")
    new = flow.request_goals(cast.student.pk, cast.exercise.pk, "page-a", 2, "  intro h\n  rfl")
    assert live_goals(cast.student.pk, old) == "superseded"  # Lean never ran for it
    assert fake_lean.explore_pool.live_processes == 0
    assert _messages(layer, channel) == []
    assert live_goals(cast.student.pk, new) == "sent"
    assert [m["data"]["seq"] for m in _messages(layer, channel)] == [2]


def test_an_answer_overtaken_while_lean_ran_is_dropped(
    cast: Cast, fake_lean: Any, queued: list[tuple[Any, ...]], monkeypatch: pytest.MonkeyPatch
) -> None:
    layer, channel = _listen(cast)
    real = checking.explore

    def typed_on_meanwhile(*args: Any, **kwargs: Any) -> Any:
        result = real(*args, **kwargs)
        flow.request_goals(cast.student.pk, cast.exercise.pk, "page-a", 2, "  rfl")
        return result

    monkeypatch.setattr(checking, "explore", typed_on_meanwhile)
    token = flow.request_goals(cast.student.pk, cast.exercise.pk, "page-a", 1, "  intro h")
    assert live_goals(cast.student.pk, token) == "superseded"
    assert _messages(layer, channel) == []


def test_without_lean_it_says_so_and_invents_no_goals(
    cast: Cast, no_lean: None, queued: list[tuple[Any, ...]]
) -> None:
    layer, channel = _listen(cast)
    token = flow.request_goals(cast.student.pk, cast.exercise.pk, "page-a", 1, "  rfl")
    assert live_goals(cast.student.pk, token) == "unavailable"
    [message] = _messages(layer, channel)
    data = message["data"]
    assert data["unavailable"].startswith("Lean is not available on this server right now")
    assert "tactics" not in data and "diagnostics" not in data


def _post(client: Client, cast: Cast, seq: int = 1, proof: str = "  rfl") -> Any:
    url = reverse("attempts:live_goals", args=[cast.exercise.pk])
    return client.post(url, {"proof": proof, "seq": seq, "client": "page-a"})


def test_the_view_queues_the_request(cast: Cast, queued: list[tuple[Any, ...]]) -> None:
    client = Client()
    client.force_login(cast.student)
    response = _post(client, cast, seq=3)
    assert response.status_code == 202
    assert response.json() == {"queued": True, "seq": 3}
    [(name, student, token)] = queued
    assert (name, student) == ("lean.live_goals", cast.student.pk)
    request = flow.current_request(cast.student.pk)
    assert request is not None
    assert (request.token, request.seq, request.proof) == (token, 3, "  rfl")
    assert Attempt.objects.count() == 0


def test_the_view_refuses_what_is_not_hers(cast: Cast, queued: list[tuple[Any, ...]]) -> None:
    assert _post(Client(), cast).status_code == 401
    client = Client()
    client.force_login(cast.outsider)
    assert _post(client, cast).status_code == 404
    assert queued == []


@override_settings(RATE_LIMITS={"live_goals": "3/m"})
def test_the_view_rate_limits_each_student(cast: Cast, queued: list[tuple[Any, ...]]) -> None:
    client = Client()
    client.force_login(cast.student)
    assert [_post(client, cast, seq=n).status_code for n in range(1, 4)] == [202, 202, 202]
    refused = _post(client, cast, seq=4)
    assert refused.status_code == 429
    assert "Too many goal requests while typing" in refused.json()["error"]
    assert len(queued) == 3
    other = Client()
    other.force_login(cast.other_student)
    assert _post(other, cast).status_code == 202  # her limit is her own


async def test_the_page_socket_sends_the_answer_as_its_fragment(cast: Cast) -> None:
    page = WebsocketCommunicator(
        URLRouter(websocket_urlpatterns), f"/ws/exercises/{cast.exercise.pk}/live/"
    )
    page.scope["user"] = cast.student
    assert (await page.connect())[0]
    data = {"client": "page-a", "seq": 4, "live": True, "tactics": [], "diagnostics": []}
    group = Attempt.watch_group_for(cast.student.pk, cast.exercise.pk)
    await get_channel_layer().group_send(group, {"type": "live.goals", "data": data})
    html = await page.receive_from(timeout=2)
    assert 'id="live-goals"' in html and 'hx-swap-oob="true"' in html
    raw = html.split('data-live-goals="', 1)[1].split('"', 1)[0]
    from html import unescape

    assert json.loads(unescape(raw)) == data
    await page.disconnect()
