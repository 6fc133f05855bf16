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


def test_a_wrong_password_is_said_once_and_the_favicon_loads(page, live_stack) -> None:
    page.goto("/accounts/login/")
    page.fill("input[name=username]", "student")
    page.fill("input[name=password]", "not-the-password")
    page.click("button[type=submit]")
    page.wait_for_load_state("networkidle")
    assert page.get_by_text("Please enter a correct username and password").count() == 1
    assert page.locator("p.error, .errorlist").count() == 1
    icon = page.request.get("/favicon.ico")  # follows the redirect to the static file
    assert icon.status == 200 and "svg" in icon.headers["content-type"]
