"""ConcurrencyLimitMiddleware: at most WEB_THREADS requests run Django code at once in one
process (the others wait, none is refused); 0 lets every request through at once."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.http import HttpRequest, HttpResponse
from django.test import override_settings

from webapp.core.concurrency import ConcurrencyLimitMiddleware


def _run_concurrently(limit: int, requests: int = 8) -> tuple[int, list[int]]:
    running, most = 0, 0
    lock = threading.Lock()

    def view(request: HttpRequest) -> HttpResponse:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        time.sleep(0.05)  # a request's work, long enough for the others to pile up
        with lock:
            running -= 1
        return HttpResponse("ok")

    with override_settings(WEB_THREADS=limit):
        middleware = ConcurrencyLimitMiddleware(view)
    with ThreadPoolExecutor(max_workers=requests) as pool:
        codes = list(pool.map(lambda _: middleware(HttpRequest()).status_code, range(requests)))
    return most, codes


@pytest.mark.parametrize("limit", [1, 2])
def test_no_more_than_the_limit_run_at_once_and_every_request_is_answered(limit: int) -> None:
    most, codes = _run_concurrently(limit)
    assert most == limit
    assert codes == [200] * 8


def test_zero_is_no_limit() -> None:
    most, codes = _run_concurrently(0)
    assert most > 2 and codes == [200] * 8


def test_the_served_settings_limit_each_process_to_two() -> None:
    from django.conf import settings

    # Right after WhiteNoise: static files are answered before the door.
    assert settings.MIDDLEWARE[1:3] == [
        "whitenoise.middleware.WhiteNoiseMiddleware",
        "webapp.core.concurrency.ConcurrencyLimitMiddleware",
    ]
    assert settings.WEB_THREADS == 2


def test_waiters_go_in_in_the_order_they_came() -> None:
    from webapp.core.concurrency import FifoGate

    gate = FifoGate(1)
    gate.enter()  # the slot is taken
    order: list[int] = []
    threads = []
    for i in range(5):

        def wait_then_record(i: int = i) -> None:
            gate.enter()
            order.append(i)
            gate.leave()

        thread = threading.Thread(target=wait_then_record)
        thread.start()
        threads.append(thread)
        deadline = time.monotonic() + 5
        while len(gate._waiting) < i + 1 and time.monotonic() < deadline:
            time.sleep(0.001)  # queued in this order
    gate.leave()
    for thread in threads:
        thread.join(timeout=5)
    assert order == [0, 1, 2, 3, 4]
    assert gate.running == 0 and not gate._waiting
