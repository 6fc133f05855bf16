"""Production: secrets required, DEBUG off unless asked, HTTPS only, sandboxed Lean.

The app is meant to sit behind the reverse proxy of docker/compose.yaml (Caddy), which ends
TLS, sets X-Forwarded-Proto itself (a client's own value never passes) and is the only way
to reach uvicorn. Only then may Django trust that header: LEANCOACH_BEHIND_PROXY=0 for a
deployment where clients reach uvicorn directly (Django then sees plain http and
SECURE_SSL_REDIRECT would loop, so serve TLS some other way or turn that off too).

`python manage.py check --deploy --settings webapp.settings.prod` is clean but for one
deliberate silence: security.W021 (HSTS preload). Preloading asks browsers vendors to hard-
code HTTPS for the domain and every subdomain for months; an operator opts in with
SECURE_HSTS_PRELOAD=1 once the domain is ready, it is not a default we can choose for them.
"""

from __future__ import annotations

import os

from webapp.settings.base import *  # noqa: F403
from webapp.settings.env import env_bool, env_int, env_secret

DEBUG = env_bool("DJANGO_DEBUG", False)
SECRET_KEY = env_secret("SECRET_KEY", required=True)

# HTTPS everywhere: redirect plain http, tell browsers to stay on https, secure cookies.
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31_536_000)  # one year
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", True)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", True)
SESSION_COOKIE_HTTPONLY = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

# Trusted only because the proxy is the sole way in (see the docstring). Health checks of
# the proxy or the orchestrator reach /healthz, and Prometheus /metrics (bearer token), over
# plain http inside the network (docker/compose.yaml: web:8000), so neither is redirected.
BEHIND_PROXY = env_bool("LEANCOACH_BEHIND_PROXY", True)
if BEHIND_PROXY:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^metrics$"]

SILENCED_SYSTEM_CHECKS = [
    "security.W021",  # HSTS preload is the operator's choice (SECURE_HSTS_PRELOAD=1)
]

STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

# Checking strangers' Lean runs their code: the checker refuses to run without bubblewrap.
os.environ.setdefault("LEANCOACH_REQUIRE_SANDBOX", "1")
# ...and installs a seccomp filter (tutor/lean/seccomp.py) in every Lean sandbox.
os.environ.setdefault("LEANCOACH_SECCOMP", "1")
