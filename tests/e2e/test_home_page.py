"""The smallest browser journey: the home page renders with its assets and a user logs in."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import login

pytestmark = pytest.mark.browser


def test_home_page_loads_htmx_and_logs_a_student_in(page, live_stack, tmp_path) -> None:
    page.goto("/")
    assert page.title().startswith("LeanCoach")
    assert page.evaluate("typeof window.htmx") == "object"  # the npm-served asset loaded
    login(page, live_stack, "student")
    assert page.locator(".who").inner_text() == "student"
    page.screenshot(path=str(tmp_path / "home.png"))
