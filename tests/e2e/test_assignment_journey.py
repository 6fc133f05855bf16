"""Journey: a teacher sets an assignment for her class; the student sees it due on her
dashboard and works on it; the teacher reads what the class got wrong (charts included) and
drills down to the attempt."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
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


def test_a_teacher_sets_work_and_reads_what_the_class_gets_wrong(
    page: Any, live_stack: LiveStack
) -> None:
    login(page, live_stack, "teacher")
    page.locator("a", has_text="Demo class").first.click()
    page.locator("#class-assignments a", has_text="Set an assignment").click()
    now = datetime.now(UTC)
    page.fill("input[name=title]", "Journey week")
    page.fill("input[name=opens]", (now - timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M"))
    page.fill("input[name=due]", (now + timedelta(days=3)).strftime("%Y-%m-%dT%H:%M"))
    page.fill("input[name=time_zone]", "UTC")
    page.locator("label", has_text="Swapping a conjunction").locator("input").check()
    page.click("text=Set assignment")
    page.wait_for_selector("#assignment-results")
    results_url = page.url
    _logout(page)

    login(page, live_stack, "student")
    due = page.locator("#due li", has_text="Journey week")
    assert "0 / 1 solved" in due.inner_text()
    due.locator("a").click()
    page.locator("#my-assignment a", has_text="Swapping a conjunction").click()
    page.wait_for_selector(EDITOR)
    set_proof(page, "  exact h -- fake: error type_mismatch")
    page.click("text=Check my proof")
    page.wait_for_selector("#attempt-status[data-status=done]")
    _shot(page, "assignment-student")
    _logout(page)

    login(page, live_stack, "teacher")
    page.goto(results_url)
    page.locator("#assignment-exercises a", has_text="Swapping a conjunction").click()
    page.wait_for_selector("#exercise-analytics")
    errors = page.inner_text("#error-kinds")
    assert "type mismatch" in errors and "type_mismatch" not in errors
    assert page.locator("#exercise-analytics svg").count() >= 1
    _shot(page, "assignment-analytics")
    page.locator("#error-kinds a", has_text="type mismatch").click()
    page.wait_for_selector("#attempt-list")
    assert "student" in page.inner_text("#attempt-list")


def test_a_new_assignment_starts_in_the_teachers_own_time_zone(
    browser: Any, live_stack: LiveStack
) -> None:
    """A teacher in Tokyo opens the form: its time zone says Asia/Tokyo, not UTC."""
    context = browser.new_context(
        base_url=live_stack.url, viewport={"width": 1280, "height": 900}, timezone_id="Asia/Tokyo"
    )
    context.set_default_timeout(20_000)
    page = context.new_page()
    blocked: list[str] = []
    page.on(
        "console",
        lambda m: blocked.append(m.text) if "Content Security Policy" in m.text else None,
    )
    try:
        login(page, live_stack, "teacher")
        page.locator("a", has_text="Demo class").first.click()
        page.locator("#class-assignments a", has_text="Set an assignment").click()
        expect(page.locator("input[name=time_zone]")).to_have_value("Asia/Tokyo")
        assert "browser's time zone" in page.inner_text("#zone-note")
    finally:
        context.close()
    assert blocked == [], "blocked by the CSP:\n" + "\n".join(blocked)
