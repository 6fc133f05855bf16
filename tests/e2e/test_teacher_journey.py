"""Journey: a teacher reviews the coach's suggestions on her student's attempt: approves one
in the review queue and edits another on the attempt page she reads (the same buttons); the
student then sees the teacher's text."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import LiveStack, login
from tests.e2e.editor_helpers import EDITOR, set_proof
from tests.e2e.test_student_journey import _shot

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _logout(page: Any) -> None:
    page.click("text=Log out")
    page.wait_for_load_state("networkidle")


def test_a_teacher_approves_and_edits_suggestions(page: Any, live_stack: LiveStack) -> None:
    login(page, live_stack, "student")
    page.goto("/courses/core-lean/lc_and_swap/")
    page.wait_for_selector(EDITOR)
    set_proof(
        page, "  exact h -- fake: error type_mismatch\n  simp -- fake: error simp_no_progress"
    )
    # The page may already show an earlier finished attempt on this exercise (the assignment
    # journey submits here too): wait for the panel of the new one, then for its verdict.
    panel = page.locator("#attempt-panel")
    before = panel.get_attribute("data-attempt") if panel.count() else None
    page.click("text=Check my proof")
    if before:
        expect(page.locator("#attempt-panel")).not_to_have_attribute("data-attempt", before)
    page.wait_for_selector("#attempt-status[data-status=done]")
    attempt_url = page.locator("#history li a").first.get_attribute("href")
    _logout(page)

    login(page, live_stack, "teacher")
    page.goto("/attempts/review/")
    items = page.locator(".review-item", has_text="Swapping a conjunction")
    assert items.count() >= 2, "the coach should have left at least two suggestions"
    first_id = items.nth(0).get_attribute("id")
    second_id = items.nth(1).get_attribute("id")
    _shot(page, "teacher-queue")

    page.locator(f"#{first_id} button[value=approved]").click()
    page.wait_for_selector(f"#{first_id}[data-review=approved]")

    # The student's attempt in the same read-only editor: underlines, tooltips, goal view.
    page.goto(attempt_url)
    page.wait_for_selector(".lean-cm.readonly .cm-lintRange-error")
    # The gutter's markers are drawn in a later layout pass than the underlines: `expect` polls
    # for them from Playwright's own script world (a string predicate would be eval'd in the
    # page, which the app's CSP rightly forbids) and fails with the count it saw.
    expect(page.locator(".cm-gutter-lint .cm-lint-marker-error")).to_have_count(2, timeout=10_000)
    assert page.locator("#goal-view").is_visible()

    # The review buttons are on this page too: the approved one says so, the other is edited
    # here, in place.
    review = page.locator("#attempt-review")
    expect(review.locator(f"#{first_id}")).to_have_attribute("data-review", "approved")
    second = review.locator(f"#{second_id}")
    assert "Lean said, line" in second.inner_text()
    second.locator("textarea[name=text]").fill("Swap the parts: exact ⟨h.2, h.1⟩.")
    second.locator("input[name=reason]").fill("give the exact term")
    second.locator("button[value=edited]").click()
    page.wait_for_selector(f"#attempt-review #{second_id}[data-review=edited]")
    assert "Swap the parts: exact ⟨h.2, h.1⟩." in page.inner_text(f"#{second_id}")
    assert page.url.startswith(f"{live_stack.url}{attempt_url}")  # still on the attempt page
    _shot(page, "teacher-attempt-view")

    page.goto("/attempts/review/")  # reviewed items leave the pending queue
    assert page.locator(f"#{first_id}").count() == 0 and page.locator(f"#{second_id}").count() == 0
    _logout(page)

    login(page, live_stack, "student")
    page.goto(attempt_url)
    assert "Swap the parts: exact ⟨h.2, h.1⟩." in page.inner_text("#attempt-feedback")
    assert "edited by your teacher" in page.inner_text("#attempt-feedback")
