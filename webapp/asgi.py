"""ASGI entry point: Django views over HTTP, Channels consumers over websockets."""

from __future__ import annotations

import os
import threading

from webapp.core.asgi_handler import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings.dev")
# Read by the settings: this process serves requests each in a thread of its own (below).
os.environ["LEANCOACH_ASGI_SERVER"] = "1"
# Django must be set up before the routing imports consumers (and through them, models). The
# handler runs the middleware chain in one thread trip per request (core/asgi_handler.py).
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
