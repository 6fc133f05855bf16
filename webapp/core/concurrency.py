"""At most LEANCOACH_WEB_THREADS requests run Django code at once in one web process.

Requests run in threads (REQUEST_THREADS per process, webapp/core/asgi_handler.py; Django's own
handler gave each request a thread of its own), so at 50 users a process would run that many
CPU-bound threads, taking turns on the GIL every few milliseconds. A thread that
holds SQLite's write lock then waits for the GIL after each query, the lock stays taken for
tens of milliseconds, and every other writer polls behind it. Requests beyond the limit wait
here, at the door, before any of their work starts, and go in first come, first served: a
freed slot is handed to the longest waiter (a plain semaphore lets a newcomer barge in, and
the p95 of a page grew). 0 turns the limit off.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse


class FifoGate:
    """A counting gate whose waiters go in in arrival order."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.running = 0
        self._lock = threading.Lock()
        self._waiting: deque[threading.Event] = deque()

    def enter(self) -> None:
        with self._lock:
            if self.running < self.limit and not self._waiting:
                self.running += 1
                return
            turn = threading.Event()
            self._waiting.append(turn)
        turn.wait()  # the slot was handed over: `running` already counts this request

    def leave(self) -> None:
        with self._lock:
            if self._waiting:
                self._waiting.popleft().set()  # the slot passes on; running stays the same
            else:
                self.running -= 1


class ConcurrencyLimitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        limit = int(getattr(settings, "WEB_THREADS", 0) or 0)
        self.gate = FifoGate(limit) if limit > 0 else None

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if self.gate is None:
            return self.get_response(request)
        self.gate.enter()
        try:
            return self.get_response(request)
        finally:
            self.gate.leave()
