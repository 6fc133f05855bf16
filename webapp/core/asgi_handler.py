"""Django's HTTP handler for ASGI, with the middleware chain run synchronously: one trip into
a thread per request instead of one per middleware hook.

Django's ASGIHandler builds the chain for the event loop. Every view here is synchronous, and
a MiddlewareMixin middleware in an asynchronous chain runs each of its hooks (process_request,
process_response) through sync_to_async: measured on the submit view, the request crossed
between the loop and a thread about ten times (Security, Session, Common, CSRF, auth,
messages, clickjacking, CSP; a synchronous-only middleware such as WhiteNoise adds two more).
Here the chain is built for synchronous code, as under WSGI, and the whole of it is entered
once through sync_to_async (thread-sensitive: the same thread as the request's other
synchronous work, so the database connection is the same). Reading the body, streaming the
response, and the websockets (Channels) stay in the event loop.
"""

from __future__ import annotations

from collections.abc import Callable

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIHandler
from django.http import HttpRequest
from django.http.response import HttpResponseBase


class SyncChainASGIHandler(ASGIHandler):
    def load_middleware(self, is_async: bool = False) -> None:
        super().load_middleware(is_async=False)
        chain: Callable[[HttpRequest], HttpResponseBase] = self._middleware_chain  # type: ignore[has-type]
        # get_response_async awaits the chain: one hop into the request's thread.
        self._middleware_chain = sync_to_async(chain, thread_sensitive=True)


def get_asgi_application() -> SyncChainASGIHandler:
    """django.core.asgi.get_asgi_application, with the handler above."""
    import django

    django.setup(set_prefix=False)
    return SyncChainASGIHandler()
