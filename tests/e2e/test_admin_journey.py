"""Browser journey: an admin launches a tiny training run from the console and watches it
finish live (websocket, no reload), promotes its checkpoint, and reads the system status.

The base model is the tests' tiny Qwen3 (tests/support/tiny_model.py) built into a temp
folder; the run is SFT on the starter course with the tiny preset (seconds on 2 cores).
Screenshots go to $E2E_SCREENSHOT_DIR when set, else to the test's temp folder.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.e2e.conftest import login

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("E2E_SCREENSHOT_DIR") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_an_admin_launches_a_tiny_run_and_watches_it_finish(
    page, live_stack, tiny_model_dir, tmp_path
) -> None:
    shots = _shots(tmp_path)
    login(page, live_stack, "admin")
    page.click("#nav-console")
    assert page.url.endswith("/console/")

    page.select_option("select[name=algorithm]", "SFT")
    page.select_option("select[name=preset]", "tiny")
    page.select_option("select[name=course]", index=1)
    page.fill("input[name=steps]", "3")
    # A base model that cannot load is refused on the form, with the values kept.
    page.fill("input[name=base_model]", "/no/such/model")
    page.click("#launch-form button[type=submit]")
    page.wait_for_selector("#error-base_model")
    assert "cannot be loaded" in page.locator("#error-base_model").inner_text()
    assert page.input_value("input[name=steps]") == "3"
    assert page.input_value("select[name=algorithm]") == "SFT"
    assert page.url.endswith("/console/")

    page.fill("input[name=base_model]", str(tiny_model_dir))
    page.screenshot(path=str(shots / "admin-1-launch-form.png"), full_page=True)
    page.click("#launch-form button[type=submit]")

    page.wait_for_url("**/console/runs/*/")
    page.evaluate("window.__notReloaded = true")  # gone if the page reloads
    started = time.monotonic()
    ended = ", ".join(f'#run-status[data-status="{s}"]' for s in ("finished", "failed", "stopped"))
    try:
        page.wait_for_selector(ended, timeout=90_000)
    except Exception:
        page.screenshot(path=str(shots / "admin-run-stuck.png"), full_page=True)
        raise AssertionError(
            f"no end state after 90 s: {page.locator('#run-status').inner_text()!r}\n"
            + live_stack.log_text()
        ) from None
    elapsed = time.monotonic() - started
    if page.locator('#run-status[data-status="finished"]').count() == 0:
        page.screenshot(path=str(shots / "admin-run-failed.png"), full_page=True)
        raise AssertionError(
            f"the run ended {page.locator('#run-status').inner_text()!r}:\n{live_stack.log_text()}"
        )
    assert page.evaluate("window.__notReloaded === true"), (
        "the page reloaded instead of updating live"
    )
    assert elapsed < 60, f"the tiny run took {elapsed:.0f} s"
    page.wait_for_selector("#run-plots img", state="attached")  # folded away, drawn at the end
    assert page.locator("#run-charts polyline").count() >= 1
    assert page.locator("#run-charts .chart-axis").count() >= 2  # charts have axes
    status_text = page.locator("#run-status").inner_text()
    assert "Finished" in status_text and "Checkpoint:" in status_text
    assert page.locator("#run-elapsed").inner_text().endswith(" s")
    assert page.locator("#run-loss").is_visible()
    # Its lineage: the problems it trained on, linked, and its (absent) gate, said plainly.
    assert "not gated" in page.locator("#lineage-gate").inner_text()
    page.click("#lineage-ids summary")
    assert page.locator("#lineage-problem-ids a").count() >= 1
    run_path = page.url.removeprefix(live_stack.url)  # /console/runs/<pk>/
    # A folded section the admin opened stays open when the next live push redraws it.
    page.click("#run-figures summary")
    page.evaluate("document.getElementById('run-charts').dataset.old = '1'")
    run_pk = run_path.rstrip("/").rsplit("/", 1)[-1]
    live_stack.manage(
        "shell", "-c", f"from webapp.console.live import push_run_state; push_run_state({run_pk})"
    )
    page.wait_for_function("!document.getElementById('run-charts').dataset.old")
    assert page.locator("#run-figures").get_attribute("open") is not None
    page.screenshot(path=str(shots / "admin-2-run-finished.png"), full_page=True)
    page.set_viewport_size({"width": 375, "height": 800})  # a phone: nothing wider than it
    wide = page.evaluate(
        """() => [...document.querySelectorAll('body *')]
             .filter(e => e.getBoundingClientRect().right > 376)
             .map(e => e.tagName + '#' + e.id + '.' + e.className + ' ' +
                  Math.round(e.getBoundingClientRect().right)).slice(0, 12)"""
    )
    assert page.evaluate("document.documentElement.scrollWidth") <= 375, wide
    page.screenshot(path=str(shots / "admin-2-run-finished-375.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})

    # Reload: the same end state comes back (page render and websocket replay).
    page.reload()
    page.wait_for_selector('#run-status[data-status="finished"]')

    page.click("text=Checkpoints")
    # Each checkpoint links to the run that made it: this run's rows are found by that link.
    row = page.locator("#checkpoints tr", has=page.locator(f'a.checkpoint-run[href="{run_path}"]'))
    assert row.count() >= 1, page.locator("#checkpoints").inner_html()
    row = row.last
    row.locator("button:has-text('Promote')").click()
    # A confirm step, not a switch: it says what the gate and the evaluation said.
    page.wait_for_selector("#promote-confirm")
    assert "not gated" in page.locator("#confirm-gate").inner_text().lower()
    page.screenshot(path=str(shots / "admin-3-promote-confirm.png"), full_page=True)
    page.click("#confirm-promote")
    page.wait_for_selector("#serving-path")
    assert "now serves" in page.locator(".messages").inner_text()
    assert page.locator("#serving-run").is_visible()  # the serving model's lineage, one click
    page.screenshot(path=str(shots / "admin-3-checkpoints.png"), full_page=True)

    page.click("text=System status")
    page.wait_for_selector("#overall-status")
    workers = page.locator("#component-workers").inner_text()
    assert "train" in workers and "no worker" not in workers.split("train:", 1)[-1]
    page.screenshot(path=str(shots / "admin-4-status.png"), full_page=True)


def test_a_student_cannot_open_the_console(page, live_stack) -> None:
    login(page, live_stack, "student")
    assert page.locator("#nav-console").count() == 0
    response = page.goto("/console/")
    assert response is not None and response.status == 403


def test_asking_the_prover_streams_its_steps_to_the_run_page(page, live_stack, tmp_path) -> None:
    """The prover page end to end (the student page's "Ask the prover" button posts to the
    same URL). Search mode on the first starter exercise; the worker's model is whatever the
    stack serves, so the run may prove it or not: it must reach an honest end state live."""
    shots = _shots(tmp_path)
    login(page, live_stack, "admin")
    out = live_stack.manage(
        "shell", "-c", "from webapp.courses.models import Exercise\n"
        "print('EXERCISE=%d' % Exercise.objects.first().pk)",
    )  # fmt: skip
    exercise_id = out.split("EXERCISE=", 1)[1].split()[0]
    page.goto("/console/")  # any page: base.html puts the CSRF token in hx-headers
    run_url = page.evaluate(
        """async (id) => {
             const token = JSON.parse(document.body.getAttribute('hx-headers'))['X-CSRFToken'];
             const response = await fetch(`/prover/exercise/${id}/ask`, {method: 'POST',
               headers: {'X-CSRFToken': token}, body: new URLSearchParams({mode: 'search'})});
             return response.url; }""",
        exercise_id,
    )
    assert "/prover/runs/" in run_url, run_url
    page.goto(run_url)
    page.wait_for_url("**/prover/runs/*/")
    page.evaluate("window.__notReloaded = true")
    ended = ", ".join(
        f'#prover-status[data-status="{s}"]' for s in ("finished", "failed", "cancelled")
    )
    page.wait_for_selector(ended, timeout=300_000)  # loads the stack's model (SmolLM2) first
    assert page.evaluate("window.__notReloaded === true")
    status = page.locator("#prover-status").get_attribute("data-status")
    if status == "finished":
        assert page.locator("#prover-events li.started").count() == 1
        assert page.locator("#prover-verdict").get_attribute("data-verdict") in (
            "valid",
            "invalid",
            "no_proof",
            "could_not_check",
        )
    else:
        assert page.locator("#prover-error").inner_text().strip()  # failed: the reason is shown
    page.screenshot(path=str(shots / "admin-5-prover-run.png"), full_page=True)
