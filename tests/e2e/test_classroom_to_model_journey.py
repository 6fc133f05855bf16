"""Journey: what a teacher approves in class trains the model, visibly.

The teacher turns on "use for training" for her class and edits a coach suggestion on her
student's attempt; the admin starts a continual-distillation run (tiny preset, the tests'
tiny model, the Lean REPL double); the run page shows the lineage count and the gate's
decision; the teacher's review page then says "Used in model <run> (date)".
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.e2e.conftest import LiveStack, login
from tests.e2e.editor_helpers import EDITOR, set_proof
from tests.e2e.test_student_journey import _shot
from tests.e2e.test_teacher_journey import _logout

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# The demo course's exercises outside the held-out split (the gate's problems, never trained).
TRAINED_EXERCISE = (
    "from training.classroom import held_out_ids\n"
    "from tutor.prover.problem import Problem\n"
    "from webapp.attempts.export import problem_id\n"
    "from webapp.courses.models import Exercise\n"
    "ex = list(Exercise.objects.filter(world__course__slug='core-lean'))\n"
    "held = held_out_ids([Problem(id=problem_id(e), statement='x') for e in ex], 0.2)\n"
    "print([e.name for e in ex if problem_id(e) not in held][0])\n"
)


def test_a_teacher_edit_trains_a_model_and_the_teacher_sees_it(
    page: Any, live_stack: LiveStack, tiny_model_dir: Any
) -> None:
    exercise = live_stack.manage("shell", "-c", TRAINED_EXERCISE).strip().splitlines()[-1]

    login(page, live_stack, "teacher")
    page.click("text=Demo class")
    assert "Off:" in page.inner_text("#training-consent")
    page.check("#use-for-training")
    page.click("#training-consent button[type=submit]")
    page.wait_for_load_state("networkidle")
    assert "On:" in page.inner_text("#training-consent")
    _shot(page, "loop-1-consent")
    _logout(page)

    login(page, live_stack, "student")
    page.goto(f"/courses/core-lean/{exercise}/")
    page.wait_for_selector(EDITOR)
    set_proof(page, "  simp -- fake: error simp_no_progress")
    page.click("text=Check my proof")
    page.wait_for_selector("#attempt-status[data-status=done]")
    _logout(page)

    login(page, live_stack, "teacher")
    page.goto("/attempts/review/")
    item = page.locator(".review-item").first
    item_id = item.get_attribute("id")
    page.locator(f"#{item_id} textarea[name=text]").fill("Close the goal with rfl instead.")
    page.locator(f"#{item_id} button[value=edited]").click()
    page.wait_for_selector(f"#{item_id}[data-review=edited]")
    _logout(page)

    login(page, live_stack, "admin")
    page.goto("/console/")
    page.select_option("select[name=algorithm]", "continual")
    page.select_option("select[name=preset]", "tiny")
    page.select_option("select[name=course]", index=1)
    page.fill("input[name=steps]", "1")
    page.fill("input[name=base_model]", str(tiny_model_dir))
    page.click("#launch-form button[type=submit]")
    page.wait_for_url("**/console/runs/*/")
    run_name = page.locator("h1").inner_text().split()[-1]
    started = time.monotonic()
    ended = ", ".join(f'#run-status[data-status="{s}"]' for s in ("finished", "failed", "stopped"))
    page.wait_for_selector(ended, timeout=120_000)
    if page.locator('#run-status[data-status="finished"]').count() == 0:
        raise AssertionError(
            f"the run ended {page.locator('#run-status').inner_text()!r}:\n{live_stack.log_text()}"
        )
    page.wait_for_selector("#run-lineage #lineage-attempts")
    assert page.inner_text("#lineage-attempts") == "1"
    assert int(page.inner_text("#lineage-reviews")) >= 1
    assert "Gate:" in page.inner_text("#lineage-gate")
    _shot(page, "loop-2-run-lineage")
    assert time.monotonic() - started < 120
    _logout(page)

    login(page, live_stack, "teacher")
    page.goto("/attempts/review/?show=all")
    assert f"Used in model {run_name}" in page.inner_text(f"#{item_id}")
    _shot(page, "loop-3-used-in-model")
