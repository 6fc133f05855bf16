"""Journey: the student's editor (CodeMirror): unicode input, inline diagnostics at Lean's
exact columns (UTF-16 aware), hover tooltips, the goal view at the cursor, hints opened one
by one, keyboard submission, no horizontal overflow at 375 px, and axe-core with no serious
violations. Screenshots go to LEANCOACH_SCREENSHOTS (default: <tmp>/leancoach-screens).
Lean is the REPL protocol double: `-- fake: reply JSON` makes it answer exactly that."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import ROOT, LiveStack, login
from tests.e2e.editor_helpers import EDITOR, cursor_to, proof_text, set_proof

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SCREENS = Path(
    os.environ.get("LEANCOACH_SCREENSHOTS", Path(tempfile.gettempdir()) / "leancoach-screens")
)
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
EXERCISE = "/courses/core-lean/lc_id/"  # theorem lc_id (p : Prop) : p → p := by


@pytest.fixture
def wide_page(browser: Any, live_stack: LiveStack) -> Any:
    # bypass_csp: axe-core is injected as a script by the test, not served by the app.
    context = browser.new_context(
        base_url=live_stack.url, viewport={"width": 1280, "height": 900}, bypass_csp=True
    )
    context.set_default_timeout(20_000)
    yield context.new_page()
    context.close()


def _shot(page: Any, name: str) -> None:
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENS / f"{name}.png"), full_page=True)


def _serious_axe_violations(page: Any) -> list[str]:
    if not AXE.exists():
        pytest.skip(f"axe-core is not installed at {AXE} (npm ci)")
    page.add_script_tag(path=str(AXE))
    return list(
        page.evaluate(
            """async () => (await axe.run(document, { resultTypes: ['violations'] })).violations
                 .filter((v) => v.impact === 'serious' || v.impact === 'critical')
                 .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)"""
        )
    )


def _submit_and_wait(page: Any) -> None:
    before = page.evaluate("() => document.querySelector('#attempt-panel')?.dataset.attempt || ''")
    page.locator(EDITOR).focus()
    page.keyboard.press("Control+Enter")  # the editor's keyboard shortcut submits the form
    page.wait_for_function(
        "(before) => { const p = document.querySelector('#attempt-panel');"
        " return p && p.dataset.attempt && p.dataset.attempt !== before"
        " && document.querySelector('#attempt-status[data-status=done]'); }",
        arg=before,
    )


def test_the_editor_underlines_hovers_and_shows_goals(
    wide_page: Any, live_stack: LiveStack
) -> None:
    page = wide_page
    login(page, live_stack, "student")
    page.goto(EXERCISE)
    page.wait_for_selector(EDITOR)
    assert page.locator("#id_proof").is_hidden()  # enhanced: the textarea stays for the form
    # Line numbers: the statement is line 1, the proof starts at line 2 (as in the panel).
    gutter = page.locator(".cm-lineNumbers .cm-gutterElement").all_inner_texts()
    assert [g for g in gutter if g.strip()][:2] == ["1", "2"]
    assert "theorem lc_id" in page.locator(".cm-line").first.inner_text()

    set_proof(page, "  ")
    page.locator(EDITOR).focus()
    page.keyboard.press("Control+End")
    page.keyboard.type("exact \\and ")
    assert proof_text(page) == "  exact ∧ "
    # The statement line is read-only: typing there changes nothing.
    cursor_to(page, 1, 3)
    page.keyboard.type("zz")
    assert "zz" not in page.locator(".cm-line").first.inner_text()

    # An error after a character outside the BMP: Lean's codepoint column 9 is UTF-16 offset 10.
    reply = {"env": 0, "messages": [{"severity": "error", "pos": {"line": 2, "column": 9},
             "endPos": {"line": 2, "column": 11}, "data": "type mismatch: boom `h`"}]}  # fmt: skip
    set_proof(page, f"  have 𝔽 := 1 -- fake: reply {json.dumps(reply)}")
    _submit_and_wait(page)
    underline = page.locator(".cm-lintRange-error").first
    underline.wait_for()
    assert underline.inner_text() == ":="
    left = underline.evaluate("(el) => el.getBoundingClientRect().left")
    expected = page.evaluate(
        """() => { const v = document.querySelector('#id_proof').leanView;
                   return v.coordsAtPos(v.state.doc.line(2).from + 10).left; }"""
    )
    assert abs(left - expected) < 1.5
    assert page.locator(".cm-gutter-lint .cm-lint-marker-error").count() == 1
    underline.hover()
    tooltip = page.locator(".cm-tooltip-lint")
    tooltip.wait_for()
    assert "type mismatch: boom" in tooltip.inner_text()
    # Backquoted code shows as code (static/js/editor/codespans.js), not as raw backticks.
    assert tooltip.locator("code", has_text="h").count() >= 1 and "`" not in tooltip.inner_text()
    _shot(page, "editor-hover-1280")
    # Keyboard: the cursor inside the range shows the same message.
    cursor_to(page, 2, 11)
    assert "type mismatch: boom" in page.locator(".cm-cursor-diagnostic").inner_text()
    assert page.locator(".cm-cursor-diagnostic code").count() >= 1
    # The panel list stays (screen readers); it numbers the line as the editor does.
    assert page.locator('.proof-line[data-line="1"] .gutter').inner_text() == "2"

    # Goals: a real two-step proof; the goal view follows the cursor.
    set_proof(page, "  intro hp\n  exact hp")
    _submit_and_wait(page)
    assert "Lean accepts this proof" in page.inner_text("#attempt-status")
    cursor_to(page, 2, 4)
    goals = page.locator("#goal-view")
    goals.locator(".goal-where", has_text="Line 2: intro hp").wait_for()
    assert "⊢ p → p" in goals.locator(".goal-before").inner_text()
    changed = goals.locator(".goal-after .goal-changed").all_inner_texts()
    assert any(t.startswith("hp : p") for t in changed) and any(
        t.startswith("⊢ p") for t in changed
    )
    cursor_to(page, 3, 4)
    goals.locator(".goal-where", has_text="Line 3: exact hp").wait_for()
    assert "No goals" in goals.locator(".goal-after").inner_text()
    _shot(page, "editor-1280")

    # A failed check shows the first unsolved goal: the goals at the first error's line.
    set_proof(page, "  intro hp\n  simp -- fake: error simp_no_progress")
    _submit_and_wait(page)
    goals.locator(".goal-where", has_text="Line 3: simp").wait_for()
    assert "hp : p" in goals.locator(".goal-before").inner_text()
    after = goals.locator(".goal-after").inner_text()
    # The error is on this very line: not "an error before this point".
    assert "Unknown" in after and "the error on this line" in after
    assert "before this point" not in after

    # Unsolved goals at the end: the goals Lean lists, case names included.
    set_proof(page, "  intro hp\n  skip -- fake: error unsolved_goals")
    _submit_and_wait(page)
    goals.locator(".goal-where", has_text="Line 3: skip").wait_for()
    after = goals.locator(".goal-after")
    assert "unsolved goals" in after.inner_text().lower()
    assert after.locator(".goal-case").inner_text() == "case h"
    assert after.locator(".goal-target").inner_text().startswith("⊢ 0 < x * x")
    _shot(page, "editor-unsolved-1280")

    assert _serious_axe_violations(page) == []

    # Keyboard only: Escape then Tab leaves the editor (Tab alone indents or completes).
    page.locator(EDITOR).focus()
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.textContent.trim()") == "Check my proof"

    # The draft survives a reload.
    set_proof(page, "  intro hq")
    page.wait_for_timeout(500)
    page.reload()
    page.wait_for_selector(EDITOR)
    assert proof_text(page) == "  intro hq"
    assert page.locator("#id_proof-draft-note").is_visible()


def test_hints_open_one_by_one_and_narrow_screens_do_not_overflow(
    wide_page: Any, live_stack: LiveStack
) -> None:
    page = wide_page
    login(page, live_stack, "student")
    page.goto("/courses/core-lean/lc_zero_add/")
    assert "New here:" in page.inner_text(".lesson")
    assert page.locator(".hint").count() == 0
    for number in (1, 2, 3):
        button = page.get_by_role("button", name=f"Show hint {number} of 3")
        button.focus()
        page.keyboard.press("Enter")  # keyboard only
        page.locator(f'.hint[data-hint="{number - 1}"]').wait_for()
        assert page.locator(".hint").count() == number
    assert "All 3 hints shown" in page.inner_text("#hints")

    page.set_viewport_size({"width": 375, "height": 800})
    page.goto(EXERCISE)
    page.wait_for_selector(EDITOR)
    overflow = page.evaluate("() => document.documentElement.scrollWidth")
    assert overflow <= 375, f"the page is {overflow}px wide at 375px"
    _shot(page, "editor-375")
    assert _serious_axe_violations(page) == []
    page.goto("/courses/core-lean/")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 375
    _shot(page, "world-map-375")
    page.set_viewport_size({"width": 1280, "height": 900})
    _shot(page, "world-map-1280")
    assert _serious_axe_violations(page) == []


def _panel_attempt(page: Any) -> str:
    return str(
        page.evaluate("() => document.querySelector('#attempt-panel')?.dataset.attempt || ''")
    )


def _type_and_time_goals(page: Any, text: str) -> float:
    """Type `text` at the end, then the seconds from the last key to fresh goals drawn."""
    import time

    page.locator(EDITOR).focus()
    page.keyboard.press("Control+End")
    page.keyboard.type(text)
    typed = time.monotonic()
    page.wait_for_function(
        "() => document.querySelector('#goal-view .goal-live')?.dataset.state === 'fresh'"
    )
    return time.monotonic() - typed


def test_goals_follow_typing_without_a_check(wide_page: Any, live_stack: LiveStack) -> None:
    """After a pause in typing the goal view and the underlines follow the text, with no
    submission (no attempt, no history row); they say when the text changed since."""
    page = wide_page
    login(page, live_stack, "student")
    page.goto(EXERCISE)
    page.wait_for_selector(EDITOR)
    page.wait_for_function("() => document.querySelector('#exercise-live')?.['htmx-internal-data']")
    before = _panel_attempt(page)
    history = page.locator("#history li").count()
    set_proof(page, "  intro hp\n  ")
    # The first answer may start the worker's REPL; the next ones find it warm.
    _type_and_time_goals(page, "skip")
    live = page.locator("#goal-view .goal-live")
    assert "not a check" in live.inner_text()
    set_proof(page, "  intro hp\n  ")
    elapsed = _type_and_time_goals(page, "exact hp")
    print(f"goals while typing: {elapsed:.2f} s from the last key (pause 0.4 s included)")
    assert elapsed < 0.4 + 1.0 + 0.5, f"goals took {elapsed:.2f} s after the last key"
    goals = page.locator("#goal-view")
    cursor_to(page, 2, 4)
    goals.locator(".goal-where", has_text="Line 2: intro hp").wait_for()
    assert "⊢ p → p" in goals.locator(".goal-before").inner_text()
    cursor_to(page, 3, 4)
    goals.locator(".goal-where", has_text="Line 3: exact hp").wait_for()
    assert "No goals" in goals.locator(".goal-after").inner_text()
    # Messages too: an error typed is underlined without a check.
    set_proof(page, "  intro hp\n  ")
    _type_and_time_goals(page, "simp -- fake: error unsolved_goals")
    page.locator(".cm-lintRange-error").first.wait_for()
    # Typing on: the drawn goals say they are stale until the next answer.
    page.keyboard.type(" ")
    assert live.get_attribute("data-state") == "stale"
    assert "changed the text since" in live.inner_text()
    # Nothing was submitted or recorded.
    assert _panel_attempt(page) == before
    assert page.locator("#history li").count() == history
    _shot(page, "editor-goals-while-typing-1280")
    # "Check my proof" within the pause: the graded check answers, and no goals request is
    # left to draw over it.
    set_proof(page, "  intro hp\n  ")
    page.locator(EDITOR).focus()
    page.keyboard.press("Control+End")
    page.keyboard.type("exact hp")
    _submit_and_wait(page)
    page.wait_for_timeout(1000)
    assert live.get_attribute("data-state") == ""
    assert _panel_attempt(page) != before


def test_select_all_edits_the_proof_and_one_tooltip_shows(
    wide_page: Any, live_stack: LiveStack
) -> None:
    page = wide_page
    login(page, live_stack, "student")
    page.goto(EXERCISE)
    page.wait_for_selector(EDITOR)
    set_proof(page, "  intro hp\n  exact hp")
    page.locator(EDITOR).focus()
    # Ctrl+A takes in the read-only statement too: Delete empties the proof, keeps the statement.
    page.keyboard.press("Control+a")
    page.keyboard.press("Delete")
    assert proof_text(page) == ""
    assert "theorem lc_id" in page.locator(".cm-line").first.inner_text()
    page.keyboard.press("Control+a")
    page.keyboard.type("  rfl")
    assert proof_text(page) == "  rfl"
    # \forall then Tab: the symbol and one space.
    set_proof(page, "  ")
    page.locator(EDITOR).focus()
    page.keyboard.press("Control+End")
    page.keyboard.type("\\forall")
    page.keyboard.press("Tab")
    page.wait_for_timeout(100)
    assert proof_text(page) == "  ∀ "
    set_proof(page, "  ")
    page.keyboard.press("Control+End")
    page.keyboard.type("\\to")
    page.keyboard.press("Tab")
    page.wait_for_timeout(100)
    assert proof_text(page) == "  → "
    # Clicking an underline shows one tooltip, not the hover's and the cursor's.
    reply = {"env": 0, "messages": [{"severity": "error", "pos": {"line": 2, "column": 2},
             "endPos": {"line": 2, "column": 6}, "data": "type mismatch: boom"}]}  # fmt: skip
    set_proof(page, f"  boom -- fake: reply {json.dumps(reply)}")
    _submit_and_wait(page)
    underline = page.locator(".cm-lintRange-error").first
    underline.wait_for()
    underline.click()
    page.locator(".cm-tooltip-lint").wait_for()
    page.wait_for_timeout(300)
    assert page.locator(".cm-tooltip-lint, .cm-cursor-diagnostic").count() == 1
    # At 375 px the tooltip stays below the page's header.
    page.set_viewport_size({"width": 375, "height": 800})
    underline.click()
    page.locator(".cm-tooltip-lint").wait_for()
    header = page.locator("header").first.bounding_box()
    tip = page.locator(".cm-tooltip-lint").first.bounding_box()
    assert header is not None and tip is not None
    assert tip["y"] >= header["y"] + header["height"] - 1
