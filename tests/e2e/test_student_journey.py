"""Journey: a student writes a proof with Lean's unicode input, submits it, and sees live
per-line feedback (markers, goal states, coach suggestions) arrive over the websocket; the
state survives a reload. Lean is the REPL protocol test double (no real Lean here): its
`-- fake: error KIND` comments make it answer with that Lean error at that line."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import LiveStack, login
from tests.e2e.editor_helpers import EDITOR, proof_text, set_proof

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
    told: list[str] = []
    sockets: list[str] = []

    def watch(ws: Any) -> None:
        sockets.append(ws.url)
        ws.on("framereceived", lambda payload: frames.append(str(payload)))
        ws.on("framesent", lambda payload: told.append(str(payload)))

    page.on("websocket", watch)
    login(page, live_stack, "student")
    page.goto("/me/")
    page.click("text=Core Lean: logic, Nat and List")
    page.click("text=Adding zero on the right")
    assert page.url.endswith(EXERCISE)
    page.wait_for_selector(EDITOR)
    # The statement is the editor's read-only first line (its <pre> is for pages without JS).
    statement = "theorem lc_add_zero (n : Nat) : n + 0 = n := by"
    assert statement in page.locator(".lean-cm .cm-line").first.inner_text()
    assert statement in (page.text_content("#statement") or "")

    set_proof(page, "")
    page.locator(EDITOR).focus()
    page.keyboard.press("Control+End")
    page.keyboard.type("  \\to \\N ")
    assert proof_text(page) == "  → ℕ "  # @leanprover/unicode-input in the editor

    set_proof(page, "  simp -- fake: error simp_no_progress\n  omega -- fake: error omega_failed")
    page.click("text=Check my proof")
    page.wait_for_selector("#attempt-status[data-status=done]")
    assert "Lean found problems" in page.inner_text("#attempt-status")
    # The result came over the websocket (the page's slow poll is only a safety net): the
    # page's one socket, which the submit's answer told what it draws; none per attempt.
    assert any('data-status="done"' in frame for frame in frames)
    assert len(sockets) == 1 and "/ws/exercises/" in sockets[0], sockets
    assert any('"shown"' in frame for frame in told)
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
    page.wait_for_selector(EDITOR)
    assert "fake: error omega_failed" in proof_text(page)

    rows_before = page.locator("#history li").count()
    set_proof(page, "  rfl")
    page.click("text=Check my proof")
    page.wait_for_selector("#attempt-status[data-status=done] >> text=Lean accepts this proof")
    assert page.locator('.proof-line[data-marker="error"]').count() == 0
    # The answer put the new attempt's row on top of the history; the socket updated its badge.
    assert page.locator("#history li").count() == rows_before + 1
    page.wait_for_selector("#history li:first-child .badge.ok >> text=accepted")
    assert not page.locator("#history .history-none").is_visible()
    assert len(sockets) == 2, sockets  # one per page load, not one per submit
    _shot(page, "student-accepted")

    page.goto("/courses/core-lean/")
    # Other journeys share the live stack and may have solved other levels as this student.
    solved = re.search(r"Solved (\d+) of", page.inner_text(".progress-summary"))
    assert solved and int(solved.group(1)) >= 1
    assert page.locator(".level.solved", has_text="Adding zero on the right").count() == 1


def test_an_empty_proof_gets_a_message_and_keeps_the_editor(
    page: Any, live_stack: LiveStack
) -> None:
    login(page, live_stack, "student")
    page.goto("/courses/core-lean/lc_mod_compute/")
    page.wait_for_selector(EDITOR)
    set_proof(page, "   ")
    page.click("text=Check my proof")
    page.wait_for_selector("#form-errors >> text=the editor is empty")
    assert proof_text(page) == "   "


def test_oversized_and_broken_input_get_messages_in_the_page(
    page: Any, live_stack: LiveStack
) -> None:
    """Under the CSP (the page fixture fails on any violation): the editor stops at its
    limit and says so; a body over Django's limit and a NUL byte are refused with a message
    next to the editor, and the student's text stays."""
    login(page, live_stack, "student")
    page.goto("/courses/core-lean/lc_mod_compute/")
    editor = page.locator("#id_proof")  # the form's field under the CodeMirror editor
    limit = int(editor.get_attribute("maxlength") or 0)
    assert limit == 20_000
    assert page.locator("#id_proof-limit-note").is_hidden()
    set_proof(page, "x" * (limit + 50))  # the editor refuses an edit past the limit
    assert proof_text(page) == ""
    page.wait_for_selector("#id_proof-limit-note:visible")
    set_proof(page, "x" * limit)
    assert len(proof_text(page)) == limit
    # A script (or a broken client) can still send more than Django accepts in one form.
    big = 3_000_000
    page.evaluate("(n) => { document.getElementById('id_proof').value = 'z'.repeat(n); }", big)
    page.click("text=Check my proof")
    page.wait_for_selector("#form-errors >> text=this site takes at most 2.6 MB")
    assert len(editor.input_value()) == big  # the text is kept
    page.evaluate("() => { document.getElementById('id_proof').value = '  rfl\\u0000'; }")
    page.click("text=Check my proof")
    page.wait_for_selector("#form-errors >> text=contains a NUL character")
    assert editor.input_value() == "  rfl\x00"


def test_a_submit_in_one_tab_shows_in_the_others_panel_and_history(
    page: Any, live_stack: LiveStack
) -> None:
    """Two tabs on one exercise (same session): a submit in one brings its verdict to the
    other's panel over the socket, and its row to the other's history, drawn once in each.
    Lean's messages mark the editor that holds the text they are about, not the other's."""
    login(page, live_stack, "student")
    here = "/courses/core-lean/lc_append_nil/"
    page.goto(here)
    page.wait_for_selector(EDITOR)
    other = page.context.new_page()
    other.goto(here)
    other.wait_for_selector(EDITOR)
    set_proof(other, "  omega -- fake: error omega_failed")  # her other tab holds other text
    # Its goals while typing (one keyboard: she types in one tab at a time).
    other.wait_for_function(
        "() => document.querySelector('#goal-view .goal-live')?.dataset.state === 'fresh'"
    )
    rows_before = page.locator("#history li").count()
    assert other.locator("#history li").count() == rows_before

    set_proof(page, "  simp -- fake: error simp_no_progress")
    page.click("text=Check my proof")
    page.wait_for_selector("#attempt-status[data-status=done] >> text=Lean found problems")
    other.wait_for_selector("#attempt-status[data-status=done] >> text=Lean found problems")
    expect(page.locator(".cm-gutter-lint .cm-lint-marker-error")).to_have_count(1)
    # Its panel is now the new attempt's: the right Refresh link, the per-line feedback.
    assert other.get_attribute("#attempt-panel", "data-attempt") == page.get_attribute(
        "#attempt-panel", "data-attempt"
    )
    assert other.locator('.proof-line[data-line="1"]').get_attribute("data-marker") == "error"
    other.wait_for_function(
        "n => document.querySelectorAll('#history li').length === n", arg=rows_before + 1
    )
    # Its editor marks only its own text (goals while typing), never the other tab's messages;
    # its panel says whose attempt it shows.
    other.locator("#attempt-panel [data-other-tab-note]").wait_for(state="visible")
    assert page.locator("#attempt-panel [data-other-tab-note]").is_hidden()
    for underline in other.locator(".cm-lintRange-error").all():
        underline.hover()
        tip = other.locator(".cm-tooltip-lint").inner_text()
        assert "omega" in tip and "simp made no progress" not in tip

    set_proof(page, "  simp")
    page.click("text=Check my proof")
    page.wait_for_selector("#attempt-status[data-status=done] >> text=Lean accepts this proof")
    expect(page.locator(".cm-gutter-lint .cm-lint-marker-error")).to_have_count(0)
    other.wait_for_selector("#attempt-status[data-status=done] >> text=Lean accepts this proof")
    other.wait_for_function(
        "n => document.querySelectorAll('#history li').length === n", arg=rows_before + 2
    )
    other.wait_for_selector("#history li:first-child .badge.ok >> text=accepted")
    # "accepted" beside its own text: the panel says it is the other tab's attempt.
    expect(other.locator("#attempt-panel [data-other-tab-note]")).to_be_visible()
    expect(page.locator("#attempt-panel [data-other-tab-note]")).to_be_hidden()
    page.wait_for_timeout(3000)  # past the wait for an answer: nothing drawn twice
    assert page.locator("#history li").count() == rows_before + 2
    assert other.locator("#history li").count() == rows_before + 2
    # A submit's answer adds its row only where the list lacks it (the socket may have
    # redrawn the list first): its target selector finds no list once the row is there.
    newest = page.locator("#history li:first-child .badge").get_attribute("id") or ""
    pk = newest.removeprefix("history-status-")
    assert pk.isdigit()
    target = "#history ol:not(:has(#history-status-{}))"
    assert page.locator(target.format(pk)).count() == 0
    assert page.locator(target.format(int(pk) + 10**6)).count() == 1
    # Her other tab submits its text: its own result marks its own editor, and not hers.
    other.click("text=Check my proof")
    other.wait_for_selector("#attempt-status[data-status=done] >> text=Lean found problems")
    assert other.get_attribute("#attempt-panel", "data-attempt") != pk
    expect(other.locator(".cm-gutter-lint .cm-lint-marker-error")).to_have_count(1)
    expect(other.locator("#attempt-panel [data-other-tab-note]")).to_be_hidden()
    page.wait_for_selector("#attempt-status[data-status=done] >> text=Lean found problems")
    page.wait_for_timeout(500)
    assert page.locator(".cm-lint-marker-error, .cm-lintRange-error").count() == 0
    other.close()
