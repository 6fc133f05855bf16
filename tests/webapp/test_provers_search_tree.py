"""Search runs from the page: the panel offers agent and search, a search run stores and
streams its tree (one fragment for the page, the htmx panel and the websocket), the end state
is said in words, and the class rule on found proofs hides the found path's tactics."""

from __future__ import annotations

import json
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.urls import reverse

from tests.webapp.cast import Cast, make_cast
from tests.webapp.test_console_consumers import connect
from tests.webapp.test_console_tasks import drain, listen
from tests.webapp.test_provers_tasks import _run, isolated_prover, lean_double, tiny_prover  # noqa: F401
from webapp.provers import tasks
from webapp.provers.models import ProverRun
from webapp.provers.presenters import tree_view

FOUND_TREE = {
    "type": "search_tree", "attempt": 0, "algorithm": "mcts", "expansions": 2, "depth": 2,
    "elapsed_s": 0.5, "budget": 64, "time_limit_s": 300.0, "workers": 2,
    "nodes": [
        {"id": 0, "parent": None, "tactic": "", "prior": 0.0, "source": "", "depth": 0,
         "goals": ["n : Nat\n⊢ n + 0 = n"], "status": "expanded", "visits": 2, "value": 0.7,
         "failed": 0, "same_as": None, "busy": False},
        {"id": 1, "parent": 0, "tactic": "cases n", "prior": -0.1, "source": "model",
         "depth": 1, "goals": ["⊢ decoy"], "status": "dead", "visits": 1, "value": 0.0,
         "failed": 1, "same_as": None, "busy": False},
        {"id": 2, "parent": 0, "tactic": "simp_secret", "prior": -1.0, "source": "portfolio",
         "depth": 1, "goals": [], "status": "solved", "visits": 0, "value": 1.0, "failed": 0,
         "same_as": None, "busy": False},
    ],
    "outcome": {"reason": "found", "proof": "simp_secret", "path": [0, 2]},
}  # fmt: skip


@pytest.fixture
def cast(db: None) -> Cast:
    return make_cast()


def _tree_data(html: str) -> dict[str, Any]:
    import html as html_lib
    import re

    found = re.search(r'data-prover-tree="([^"]*)"', html)
    assert found, "no tree fragment in the page"
    return json.loads(html_lib.unescape(found.group(1)))


@pytest.mark.django_db
def test_the_panel_offers_agent_and_search_with_a_line_each(client: Client, cast: Cast) -> None:
    client.force_login(cast.student)
    page = client.get(str(cast.exercise.get_absolute_url())).content.decode()
    assert 'name="mode" value="agent"' in page and 'name="mode" value="search"' in page
    assert "writes whole proofs" in page and "one tactic at a time" in page
    assert 'value="mcts"' in page and "js/prover-tree.js" in page


@pytest.mark.django_db
def test_asking_for_a_search_records_its_algorithm(client: Client, cast: Cast) -> None:
    client.force_login(cast.student)
    url = reverse("provers:ask", args=[cast.exercise.pk])
    client.post(url, {"mode": "search", "algorithm": "best_first"})
    run = ProverRun.objects.get()
    assert (run.mode, run.algorithm) == ("search", "best_first")
    run.delete()
    response = client.post(url, {"mode": "search", "algorithm": "dfs"}, HTTP_HX_REQUEST="true")
    assert "Unknown search" in response.content.decode() and not ProverRun.objects.exists()
    client.post(url, {"mode": "agent", "algorithm": "mcts"})
    assert ProverRun.objects.get().algorithm == ""  # an agent run has no search


@pytest.mark.django_db
def test_an_mcts_run_streams_and_stores_its_tree(
    cast: Cast,
    lean_double: None,  # noqa: F811
    tiny_prover: None,  # noqa: F811
) -> None:
    run = _run(cast, "search", "theorem refl_t (n : Nat) : n + 1 = n + 1 := by")
    run.algorithm = "mcts"
    run.save()
    layer, channel = listen(run.group_name)
    assert tasks.run_prover(run.pk) == "finished"
    run.refresh_from_db()
    assert run.verdict == "valid" and run.tree is not None
    assert run.tree["algorithm"] == "mcts" and run.tree["outcome"]["reason"] == "found"
    assert "search_tree" not in [e["type"] for e in run.events]  # the tree is kept apart
    messages = drain(layer, channel)
    trees = [m for m in messages if 'id="prover-tree"' in m["html"]]
    assert len(trees) >= 2  # while it ran, and at the end
    final = messages[-1]["html"]
    assert "Found a proof" in final and 'data-verdict="valid">a proof, checked by Lean<' in final
    data = _tree_data(final)
    assert data["path"][0] == 0 and data["nodes"][data["path"][-1]]["status"] == "solved"
    assert run.trajectory is not None and run.trajectory["search"]["algorithm"] == "mcts"


@pytest.mark.django_db
def test_without_lean_a_search_says_lean_is_unavailable(client: Client, cast: Cast) -> None:
    run = _run(cast, "search")
    run.algorithm = "mcts"
    run.save()
    assert tasks.run_prover(run.pk) == "failed"
    client.force_login(cast.student)
    page = client.get(run.get_absolute_url()).content.decode()
    assert "Lean unavailable" in page and 'id="prover-tree"' in page


@pytest.mark.django_db
def test_the_class_rule_hides_the_found_paths_tactics_from_the_student(
    client: Client, cast: Cast
) -> None:
    run = ProverRun.objects.create(exercise=cast.exercise, user=cast.student, mode="search",
                                   algorithm="mcts", status="finished", verdict="valid",
                                   tree=FOUND_TREE)  # fmt: skip
    client.force_login(cast.student)
    page = client.get(run.get_absolute_url()).content.decode()
    data = _tree_data(page)
    assert data["path"] == [0, 2] and data["nodes"][2]["tactic"] == "(hidden)"
    assert data["nodes"][1]["tactic"] == "cases n"  # the dead end is no proof: shown
    assert "simp_secret" not in page
    assert "2 workers" in page and "2</strong> of 64 expansions" in page
    client.force_login(cast.teacher)  # her teacher sees what the prover found
    assert (
        _tree_data(client.get(run.get_absolute_url()).content.decode())["nodes"][2]["tactic"]
        == "simp_secret"
    )
    cast.classroom.prover_shows_full_proofs = True
    cast.classroom.save()
    client.force_login(cast.student)
    assert "simp_secret" in client.get(run.get_absolute_url()).content.decode()


@pytest.mark.django_db
def test_end_states_are_said_in_words(cast: Cast) -> None:
    run = ProverRun(exercise=cast.exercise, user=cast.student, mode="search", status="finished")
    for reason, words in [("exhausted", "Exhausted"), ("max_iterations", "Out of budget"),
                          ("time_limit", "Out of budget"), ("could_not_check", "Lean unavailable"),
                          ("found", "Found a proof")]:  # fmt: skip
        run.tree = {**FOUND_TREE, "outcome": {"reason": reason, "proof": None, "path": []}}
        view = tree_view(run, reveal=True)
        assert view["end"].startswith(words) and view["end_kind"] == reason
    run.tree, run.status = None, "running"
    assert tree_view(run, reveal=True)["end"] == ""


@pytest.mark.django_db(transaction=True)
async def test_the_websocket_replay_carries_the_tree_for_the_teacher() -> None:
    def setup() -> tuple[Cast, ProverRun]:
        cast = make_cast()
        run = ProverRun.objects.create(exercise=cast.exercise, user=cast.student, mode="search",
                                       algorithm="mcts", status="running", tree=FOUND_TREE)  # fmt: skip
        return cast, run

    cast, run = await sync_to_async(setup)()
    communicator, connected = await connect(f"/ws/prover/runs/{run.pk}/", cast.teacher)
    assert connected
    replay = await communicator.receive_from(timeout=5)
    assert _tree_data(replay)["nodes"][2]["tactic"] == "simp_secret"
    await communicator.disconnect()
    communicator, connected = await connect(f"/ws/prover/runs/{run.pk}/", cast.other_student)
    assert not connected
    await communicator.disconnect()


def test_several_search_workers_share_the_tree_through_redis(settings: Any) -> None:
    from webapp.provers.engine import search_config

    settings.PROVER_SEARCH_WORKERS, settings.PROVER_SEARCH_BUDGET = 3, 40
    config = search_config("mcts")
    assert (config.algorithm, config.workers, config.max_iterations) == ("mcts", 3, 40)
    assert config.tree_store_url == settings.REDIS_URL
    settings.PROVER_SEARCH_WORKERS = 1
    assert search_config("").algorithm == "best_first" and search_config("").tree_store_url is None


@pytest.mark.django_db
def test_her_teacher_finds_the_run_and_its_tree_on_the_attempt_history(
    client: Client, cast: Cast
) -> None:
    from webapp.attempts.models import Attempt

    attempt = Attempt.objects.create(student=cast.student, exercise=cast.exercise, proof="  rfl",
                                     status="unavailable", status_detail="no REPL")  # fmt: skip
    run = ProverRun.objects.create(exercise=cast.exercise, user=cast.student, mode="search",
                                   algorithm="mcts", status="finished", verdict="valid",
                                   tree=FOUND_TREE)  # fmt: skip
    client.force_login(cast.teacher)
    history = client.get(reverse("attempts:detail", args=[attempt.pk])).content.decode()
    assert run.get_absolute_url() in history
    tree = _tree_data(client.get(run.get_absolute_url()).content.decode())
    assert tree["nodes"][2]["tactic"] == "simp_secret"  # the teacher sees the found path
    client.force_login(cast.other_student)  # another class: neither the attempt nor the run
    assert client.get(reverse("attempts:detail", args=[attempt.pk])).status_code == 404
    assert client.get(run.get_absolute_url()).status_code == 404
