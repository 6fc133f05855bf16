"""Journey: a student writes a proof with Lean's unicode input, submits it, and sees live
per-line feedback (markers, goal states, coach suggestions) arrive over the websocket; the
state survives a reload. Lean is the REPL protocol test double (no real Lean here): its
`-- fake: error KIND` comments make it answer with that Lean error at that line."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import LiveStack, login

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SCREENS = Path(
    os.environ.get("LEANCOACH_SCREENSHOTS", Path(tempfile.gettempdir()) / "leancoach-screens")
)
EXERCISE = "/courses/core-lean/lc_add_zero/"


def _shot(page: Any, name: str) -> None:
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENS / f"{name}.png"), full_page=True)


def test_a_student_submits_and_sees_live_per_line_feedback(
    page: Any, live_stack: LiveStack
) -> None:
    frames: list[str] = []
    page.on(
        "websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(str(payload)))
    )
    login(page, live_stack, "student")
    page.goto("/me/")
    page.click("text=Core Lean: logic, Nat and List")
    page.click("text=Adding zero on the right")
    assert page.url.endswith(EXERCISE)
    assert "theorem lc_add_zero (n : Nat) : n + 0 = n := by" in page.inner_text("#statement")

    editor = page.locator("#id_proof")
    editor.fill("")
    editor.press_sequentially("  \\to \\N ")
    assert editor.input_value() == "  → ℕ "  # @leanprover/unicode-input in the textarea

    editor.fill("  simp -- fake: error simp_no_progress\n  omega -- fake: error omega_failed")
    page.click("text=Check my proof")
    page.wait_for_selector("#attempt-status[data-status=done]")
    assert "Lean found problems" in page.inner_text("#attempt-status")
    # The result came over the websocket (the page's slow poll is only a safety net).
    assert any('data-status="done"' in frame for frame in frames)
    line2 = page.locator('.proof-line[data-line="2"]')
    assert line2.get_attribute("data-marker") == "error"
    assert "omega could not prove the goal" in line2.inner_text()
    assert page.locator('.proof-line[data-line="1"]').get_attribute("data-marker") == "error"
    suggestions = page.locator(".suggestion")
    assert 1 <= suggestions.count() <= 3
    assert page.locator("#history li").count() >= 1
    _shot(page, "student-feedback")

    page.reload()  # the state is on the server: the panel comes back, the editor keeps the text
    page.wait_for_selector("#attempt-status[data-status=done]")
    assert page.locator('.proof-line[data-line="2"]').get_attribute("data-marker") == "error"
    assert "fake: error omega_failed" in editor.input_value()

    editor.fill("  rfl")
    page.click("text=Check my proof")
    page.wait_for_selector("#attempt-status[data-status=done] >> text=Lean accepts this proof")
    assert page.locator('.proof-line[data-marker="error"]').count() == 0
    _shot(page, "student-accepted")

    page.goto("/courses/core-lean/")
    assert "Solved 1 of" in page.inner_text(".progress-summary")


def test_an_empty_proof_gets_a_message_and_keeps_the_editor(
    page: Any, live_stack: LiveStack
) -> None:
    login(page, live_stack, "student")
    page.goto("/courses/core-lean/lc_mod_compute/")
    page.locator("#id_proof").fill("   ")
    page.click("text=Check my proof")
    page.wait_for_selector("#form-errors >> text=the editor is empty")
    assert page.locator("#id_proof").input_value() == "   "
