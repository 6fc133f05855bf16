"""The rate limiter's counter (webapp/core/limits.py: django-ratelimit over the django-redis
cache, settings CACHES) counts each request once however many arrive together, and its
window ends on time: a class's burst of submits must neither slip past a limit nor lock a
student out past it. Against the real Redis of the test run."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import RequestFactory

from webapp.core.limits import over_limit

pytestmark = pytest.mark.django_db(transaction=True)

LIMIT = 10
REQUESTS = 40
THREADS = 8


def _request(user: User) -> Any:
    request = RequestFactory().post("/attempts/submit/1/")
    request.user = user
    return request


def test_requests_arriving_together_are_each_counted_once(settings: Any) -> None:
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "submit": f"{LIMIT}/m"}
    user = User.objects.create_user("burst-student")
    start = threading.Barrier(THREADS)
    refused: list[bool] = []
    lock = threading.Lock()

    def submit_some() -> None:
        start.wait()  # every thread asks at once, through the process's one pool
        for _ in range(REQUESTS // THREADS):
            limited = over_limit(_request(user), "submit")
            with lock:
                refused.append(limited)

    threads = [threading.Thread(target=submit_some) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(refused) == REQUESTS
    assert refused.count(False) == LIMIT  # exactly the limit got through, no more, no less


def test_the_count_starts_again_when_its_window_ends(settings: Any) -> None:
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "submit": "2/s"}
    user = User.objects.create_user("patient-student")
    # A one-second window is the second itself (django_ratelimit/core.py _get_window):
    # start just after one begins.
    time.sleep(1 - time.time() % 1 + 0.05)
    assert [over_limit(_request(user), "submit") for _ in range(3)] == [False, False, True]
    time.sleep(1.2)
    assert over_limit(_request(user), "submit") is False
