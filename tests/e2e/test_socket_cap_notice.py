"""Journey: a student with every live-socket slot taken (webapp/core/sockets.py, WS_PER_USER)
opens an exercise page; its socket is closed with code 4429 and the page says why
(static/js/live-notices.js) instead of silently never updating. The slots are taken the way
the cap takes them, in the shared cache, so the test does not have to open 20 pages."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import LiveStack, login

pytestmark = [pytest.mark.browser, pytest.mark.slow]

EXERCISE = "/courses/core-lean/lc_add_zero/"
SLOTS = (
    "from django.conf import settings\n"
    "from django.contrib.auth.models import User\n"
    "from django.core.cache import cache\n"
    "from webapp.core.sockets import SLOT_TTL_S, _slot_key\n"
    "uid = User.objects.get(username='student').pk\n"
    "keys = [_slot_key(uid, n) for n in range(settings.WS_PER_USER)]\n"
    "{action}\n"
)
TAKE = "for key in keys: cache.set(key, 'held-by-the-test', timeout=SLOT_TTL_S)"
FREE = "cache.delete_many(keys)"


def test_a_socket_past_the_cap_says_so_on_the_page(page: Any, live_stack: LiveStack) -> None:
    closes: list[Any] = []
    page.on("websocket", lambda ws: ws.on("close", lambda socket: closes.append(socket)))
    login(page, live_stack, "student")
    live_stack.manage("shell", "-c", SLOTS.format(action=TAKE))
    try:
        page.goto(EXERCISE)
        expect(page.locator("#page-errors")).to_contain_text(
            "Too many live LeanCoach pages open", timeout=15_000
        )
        assert closes, "the page's live socket was not closed"
    finally:
        live_stack.manage("shell", "-c", SLOTS.format(action=FREE))
    # With a slot free again, a reload is live and says nothing.
    page.reload()
    page.wait_for_load_state("networkidle")
    assert "Too many live" not in (page.text_content("#page-errors") or "")
