"""ASGI entry point: Django views over HTTP (Django's own handler), Channels consumers over
websockets."""

from __future__ import annotations

import os
import threading

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings.dev")
# Read by the settings: this process serves each request in a thread of its own, so its
# database connections come from a pool (PostgreSQL) or last one request (SQLite).
os.environ["LEANCOACH_ASGI_SERVER"] = "1"
# Django must be set up before the routing imports consumers (and through them, models).
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from webapp.core.sockets import SocketCapMiddleware  # noqa: E402
from webapp.core.warmup import compile_templates, prepare_sending  # noqa: E402
from webapp.routing import websocket_urlpatterns  # noqa: E402

compile_templates()  # before the first request, not during it
# In a thread: a Redis that does not answer must not hold the process's start (the first
# submit then meets it, and says so).
threading.Thread(target=prepare_sending, name="prepare-sending", daemon=True).start()

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(
            # The cap reads the signed-in user, so it sits inside the auth stack.
            AuthMiddlewareStack(SocketCapMiddleware(URLRouter(websocket_urlpatterns)))
        ),
    }
)
