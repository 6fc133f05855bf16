"""Django's HTTP handler for ASGI, with the middleware chain run synchronously in a pool of
long-lived threads: one trip into a thread per request instead of one per middleware hook,
and no new thread (nor database connection) per request.

Django's ASGIHandler builds the chain for the event loop. Every view here is synchronous, and
a MiddlewareMixin middleware in an asynchronous chain runs each of its hooks (process_request,
process_response) through sync_to_async: measured on the submit view, the request crossed
between the loop and a thread about ten times (Security, Session, Common, CSRF, auth,
messages, clickjacking, CSP; a synchronous-only middleware such as WhiteNoise adds two more).
Here the chain is built for synchronous code, as under WSGI, and the whole of it is entered
once. Reading the body, streaming the response, and the websockets (Channels) stay in the
event loop.

Django also gives every request a ThreadSensitiveContext, that is a thread of its own, and
database connections are per thread: each request started a thread and opened a database
connection, whatever CONN_MAX_AGE said (profiled in the submit burst: about a tenth of the
web's CPU). Here the chain runs in REQUEST_THREADS threads that live as long as the process,
each keeping its connection the way a WSGI worker thread does: checked before the request
(close_old_connections, as Django's request_started does: age, errors, health check) and
after it (as request_finished does; with PostgreSQL's pool that hands the connection back).
What Django still runs thread-sensitively (the two signals, closing the response) goes to
asgiref's one shared thread, with no per-request thread to start.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIHandler
from django.db import close_old_connections
from django.http import HttpRequest
from django.http.response import HttpResponseBase

# Threads that run requests in one web process. Only LEANCOACH_WEB_THREADS of them run
# Django code at once (webapp/core/concurrency.py); the others wait at that gate, in order,
# while static files (WhiteNoise, before the gate) pass.
REQUEST_THREADS = 8


class SyncChainASGIHandler(ASGIHandler):
    def __init__(self) -> None:
        self.request_threads = ThreadPoolExecutor(REQUEST_THREADS, "web-request")
        super().__init__()

    async def __call__(
        self,
        scope: dict[str, Any],
        receive: Callable[[], Awaitable[Mapping[str, Any]]],
        send: Callable[[Mapping[str, Any]], Awaitable[None]],
    ) -> None:
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        await self.handle(scope, receive, send)  # no ThreadSensitiveContext: see above

    def load_middleware(self, is_async: bool = False) -> None:
        super().load_middleware(is_async=False)
        chain: Callable[[HttpRequest], HttpResponseBase] = self._middleware_chain  # type: ignore[has-type]

        def in_request_thread(request: HttpRequest) -> HttpResponseBase:
            close_old_connections()
            try:
                return chain(request)
            finally:
                close_old_connections()

        # get_response_async awaits the chain: one hop into a request thread.
        self._middleware_chain = sync_to_async(
            in_request_thread, thread_sensitive=False, executor=self.request_threads
        )


def get_asgi_application() -> SyncChainASGIHandler:
    """django.core.asgi.get_asgi_application, with the handler above."""
    import django

    django.setup(set_prefix=False)
    return SyncChainASGIHandler()
