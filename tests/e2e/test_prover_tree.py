"""The search tree in a real browser: static/js/prover-tree.js draws the stored tree as SVG
under the page's CSP (the `page` fixture fails on any blocked script), marks the found path,
greys dead ends, and shows a state's goals on click."""

from __future__ import annotations

import json

from tests.e2e.conftest import login
from tests.webapp.test_provers_search_tree import FOUND_TREE


def test_the_run_page_draws_the_search_tree_and_shows_goals_on_click(
    page, live_stack, tmp_path
) -> None:
    out = live_stack.manage(
        "shell", "-c",
        "import json\n"
        "from django.contrib.auth.models import User\n"
        "from webapp.courses.models import Exercise\n"
        "from webapp.provers.models import ProverRun\n"
        "run = ProverRun.objects.create(exercise=Exercise.objects.first(),\n"
        "    user=User.objects.get(username='admin'), mode='search', algorithm='mcts',\n"
        f"    status='finished', verdict='valid', tree=json.loads({json.dumps(json.dumps(FOUND_TREE))}))\n"
        "print('RUN=%d' % run.pk)",
    )  # fmt: skip
    run_id = out.split("RUN=", 1)[1].split()[0]
    login(page, live_stack, "admin")
    page.goto(f"/prover/runs/{run_id}/")
    page.wait_for_selector("#prover-tree svg circle")
    assert page.locator("#prover-tree svg circle").count() == 3
    assert page.locator("#prover-tree svg circle.dead").count() == 1
    assert page.locator("#prover-tree svg circle.solved.on-path").count() == 1
    assert page.locator("#prover-tree svg .edge.on-path text").text_content() == "simp_secret"
    assert "Found a proof" in page.locator("#prover-tree-end").inner_text()
    page.locator('#prover-tree circle[data-node-id="1"]').click()
    goals = page.locator("#prover-tree [data-tree-goals]")
    assert goals.is_visible() and "⊢ decoy" in goals.inner_text()
    assert "cases n" in goals.inner_text() and "dead" in goals.inner_text()
    page.locator("#prover-tree").screenshot(path=str(tmp_path / "prover-tree.png"))
