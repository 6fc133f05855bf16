"""Settings shared by every environment. dev.py / prod.py / test.py adjust a few values.

Everything that differs between machines comes from the environment via webapp.settings.env.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dj_database_url

from tutor import redis_boundary
from webapp.settings.env import env_bool, env_int, env_list, env_secret, env_str

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = Path(env_str("LEANCOACH_VAR_DIR", str(BASE_DIR / "var")) or BASE_DIR / "var")

DEBUG = env_bool("DJANGO_DEBUG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "template_partials.apps.SimpleAppConfig",
    "django_htmx",
    "csp",
    "channels",
    "webapp.core",
    "webapp.accounts",
    "webapp.courses",
    "webapp.attempts",
    "webapp.provers",
    "webapp.console",
    "webapp.assignments",
    "webapp.lti",
    # School sign-in (OpenID Connect); no provider unless LEANCOACH_OIDC_CONFIG names some.
    "allauth",
    "allauth.account",
    "allauth.socialaccount",
    "allauth.socialaccount.providers.openid_connect",
]

# Live sockets one signed-in user may hold open across every web process (webapp/core/
# sockets.py; a page holds one or two); past it a socket is closed with code 4429. 0: no cap.
WS_PER_USER = env_int("LEANCOACH_WS_PER_USER", 20)

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Before anything reads request.POST (the CSRF check, in process_view, runs after every
    # middleware's __call__): a message instead of a bare 400; after auth, so the page knows
    # who is logged in.
    "webapp.core.middleware.RequestTooBigMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "allauth.account.middleware.AccountMiddleware",
]

# Content Security Policy (django-csp), in every environment so tests and `make run` see
# what production sends: only this site's own scripts, styles and sockets. The templates
# have no inline scripts, inline styles or event attributes; htmx runs with eval and its
# injected indicator style off (the htmx-config meta tag in base.html). Websockets are
# covered by 'self' (CSP Level 3 browsers match ws:/wss: of the same host). Styles allow
# 'unsafe-inline': the CodeMirror editor sets inline styles as it lays out (inline styles
# cannot run code; scripts stay 'self' only). A nonce through EditorView.cspNonce is the
# stricter follow-up.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

ROOT_URLCONF = "webapp.urls"
ASGI_APPLICATION = "webapp.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "OPTIONS": {
            # django-template-partials' loader wrapper gives {% partialdef %} and
            # "page.html#fragment" names, as Django 6 does natively.
            # Compiled templates are cached per process (dev.py drops the cache in DEBUG).
            "loaders": [
                (
                    "template_partials.loader.Loader",
                    [
                        (
                            "django.template.loaders.cached.Loader",
                            [
                                "django.template.loaders.filesystem.Loader",
                                "django.template.loaders.app_directories.Loader",
                            ],
                        )
                    ],
                )
            ],
            "builtins": ["template_partials.templatetags.partials"],
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    }
]


def _database_from_env() -> dict[str, Any]:
    # Persistent connections (with a health check that replaces one the server closed).
    conn_max_age = env_int("DB_CONN_MAX_AGE", 60)
    url = env_str("DATABASE_URL")
    if url:
        config: dict[str, Any] = dict(
            dj_database_url.parse(url, conn_max_age=conn_max_age, conn_health_checks=True)
        )
        if env_bool("DB_PREPARED_STATEMENTS", True) and config["ENGINE"].endswith("postgresql"):
            # Parameters bound by the server, and a query a connection has run twice kept
            # prepared there: PostgreSQL stops parsing and planning the same few queries on
            # every request (Django's default sends each as text with its values quoted in).
            # Twice, not psycopg's 5: a burst spreads its submits over every pooled
            # connection. A PgBouncer in transaction mode before 1.21 cannot
            # keep prepared statements: set DB_PREPARED_STATEMENTS=0 there.
            config.setdefault("OPTIONS", {}).update(server_side_binding=True, prepare_threshold=2)
        if env_bool("LEANCOACH_ASGI_SERVER", False) and config["ENGINE"].endswith("postgresql"):
            # Django's ASGI handler runs each request's sync code in a thread of its own, and
            # connections are per thread, so persistent connections do not carry over from
            # one request to the next (Django's docs, "Connection management": disable them
            # under ASGI and use the backend's pool). The web lends connections from a
            # bounded per-process pool and gives them back at the end of each request (a
            # pool needs CONN_MAX_AGE 0). With CONN_HEALTH_CHECKS the pool checks a
            # connection before lending it: after a database restart its dead connections
            # are replaced, not lent.
            config.update(CONN_MAX_AGE=0, CONN_HEALTH_CHECKS=True)
            config.setdefault("OPTIONS", {})["pool"] = {
                "min_size": 1,
                "max_size": env_int("DB_POOL_SIZE", 8),
                "timeout": 20,  # a request waits this long for a free connection, then fails
            }
        return config
    # SQLite has no pool: under ASGI (a thread per request, see above) each request opens
    # the file and closes it at its end; workers and commands keep theirs.
    VAR_DIR.mkdir(mode=0o700, parents=True, exist_ok=True)  # sessions, password hashes
    if env_bool("LEANCOACH_ASGI_SERVER", False):
        conn_max_age = 0
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": VAR_DIR / "leancoach.sqlite3",
        "CONN_MAX_AGE": conn_max_age,
        "CONN_HEALTH_CHECKS": True,
        "OPTIONS": {
            # WAL lets the web process read while a worker writes; the busy timeout makes
            # a writer wait for the lock instead of failing with "database is locked".
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            "timeout": 20,
            "transaction_mode": "IMMEDIATE",
        },
    }


DATABASES = {"default": _database_from_env()}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env_str("REDIS_URL", "redis://127.0.0.1:6379/0") or ""

# Every Redis client below gets its timeouts from the one boundary (tutor/redis_boundary.py):
# a Redis that stops answering costs a request a second or two, not the whole site.
CHANNEL_LAYERS = {
    "default": {
        # channels_redis' layer with its blocking receive shorter than the socket timeout.
        "BACKEND": "webapp.core.layer.RedisChannelLayer",
        "CONFIG": {
            "hosts": [redis_boundary.channel_layer_host(REDIS_URL)],
            "prefix": "leancoach:channels:",
        },
    }
}

CACHES = {
    "default": redis_boundary.django_cache(REDIS_URL, "leancoach"),
    # The sessions' cache, in front of the database: while Redis is away a session is read
    # from the database (a miss) and its cache write is dropped, so nobody is signed out
    # and no page fails for it.
    "sessions": redis_boundary.django_cache(REDIS_URL, "leancoach", ignore_errors=True),
}
DJANGO_REDIS_LOG_IGNORED_EXCEPTIONS = True  # logged (django_redis/cache.py omit_exception)

# Django's own sessions (the database, read through the cache) and model backend.
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
SESSION_CACHE_ALIAS = "sessions"
AUTHENTICATION_BACKENDS = ["django.contrib.auth.backends.ModelBackend"]

# Celery (read by webapp.celery with namespace "CELERY").
CELERY_BROKER_URL = REDIS_URL
CELERY_RESULT_BACKEND = REDIS_URL
# One result backend per process, not one per thread: under ASGI every request runs in a
# thread of its own, and each `delay()` built a Redis backend (and its connection pool) anew.
CELERY_RESULT_BACKEND_THREAD_SAFE = True
CELERY_TASK_ALWAYS_EAGER = False
CELERY_TASK_ACKS_LATE = True
# A task whose pool process dies (worker stopped with its children, OOM-killed) goes back to
# the queue for another worker, instead of being acked as failed: none is lost on scale-in.
# Tasks are safe to re-run: check_attempt replays a finished attempt and re-checks the rest.
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_EXPIRES = 3600
# The broker's and the result backend's socket timeouts (tutor/redis_boundary.py).
_celery_redis = redis_boundary.celery_settings()
CELERY_REDIS_SOCKET_TIMEOUT = _celery_redis["redis_socket_timeout"]
CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = _celery_redis["redis_socket_connect_timeout"]
CELERY_REDIS_BACKEND_HEALTH_CHECK_INTERVAL = _celery_redis["redis_backend_health_check_interval"]
# Celery's Django fixup closes every database connection before and after each task (and,
# with PostgreSQL's pool, closes the pool): a new connection per check, whatever
# CONN_MAX_AGE says (profiled: a twentieth of the worker's CPU per check on SQLite; a TCP
# connect and login on PostgreSQL). Its closing is pushed out of reach here, and
# webapp/celery.py checks the connections at each task's edges instead, as a web request
# does (age, errors, health check; with the pool, handing the connection back).
CELERY_DB_REUSE_MAX = 10**9
from webapp.settings.resilience import *  # noqa: E402, F403  (time limits, deadlines, rate limits)

# Step-level search of "Ask the prover": workers per search (each leases its own REPL; with
# more than one they share the tree through Redis, REDIS_URL), and its expansion budget.
PROVER_SEARCH_WORKERS = env_int("LEANCOACH_PROVER_SEARCH_WORKERS", 1)
PROVER_SEARCH_BUDGET = env_int("LEANCOACH_PROVER_SEARCH_BUDGET", 64)

# Continual distillation (train.continual_distill) every N hours when set; 0 leaves it to
# admins (console) and cron. `make run` then also starts Celery beat.
CONTINUAL_EVERY_H = env_int("LEANCOACH_CONTINUAL_EVERY_H", 0)
CELERY_BEAT_SCHEDULE: dict[str, Any] = {
    # Ends or re-queues attempts and prover runs no worker will finish (webapp.attempts.sweeper),
    # on SWEEP_QUEUE: where a worker consumes nothing else, it never waits behind work.
    "sweep-stale": {
        "task": "lean.sweep_stale",
        "schedule": SWEEP_EVERY_S,  # noqa: F405
        "options": {"queue": SWEEP_QUEUE},  # noqa: F405
    },
}
if CONTINUAL_EVERY_H > 0:
    CELERY_BEAT_SCHEDULE["continual-distill"] = {
        "task": "train.continual_distill",
        "schedule": CONTINUAL_EVERY_H * 3600,
    }

# Database + checkpoint-registry snapshots every N days when set (docker/compose.yaml: 7),
# keeping LEANCOACH_SNAPSHOT_KEEP of them (webapp.core.snapshots; needs Celery beat).
SNAPSHOT_EVERY_DAYS = env_int("LEANCOACH_SNAPSHOT_EVERY_DAYS", 0)
if SNAPSHOT_EVERY_DAYS > 0:
    CELERY_BEAT_SCHEDULE["snapshot"] = {
        "task": "train.snapshot",
        "schedule": SNAPSHOT_EVERY_DAYS * 86400,
    }

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS: list[Any] = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"

# Where trained checkpoints live and which one serves (training.checkpoints owns the layout).
CHECKPOINT_ROOT = Path(
    env_str("LEANCOACH_CHECKPOINTS", str(VAR_DIR / "checkpoints")) or VAR_DIR / "checkpoints"
)

# /metrics answers staff users and requests bearing this token (Prometheus' scrape config).
METRICS_TOKEN = env_secret("LEANCOACH_METRICS_TOKEN", required=False, default="") or ""

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}

# Front-end packages come from npm (package.json); serve their built files as static files.
NODE_MODULES = BASE_DIR / "node_modules"
STATICFILES_DIRS += [
    ("vendor/htmx", NODE_MODULES / "htmx.org" / "dist"),
    ("vendor/htmx-ext-ws", NODE_MODULES / "htmx-ext-ws" / "dist"),
]

# LTI 1.3 (webapp.lti.platform): off unless LEANCOACH_LTI_CONFIG names a JSON file
# {"platforms": {<issuer>: {client_id, auth_login_url, auth_token_url, key_set_url,
# deployment_ids}}} and LEANCOACH_LTI_PRIVATE_KEY the tool's RSA private key (PEM file).
LTI_TOOL: dict[str, Any] | None = None
_lti_config = env_str("LEANCOACH_LTI_CONFIG", "")
if _lti_config:
    from webapp.lti.settings import load_tool

    LTI_TOOL = load_tool(_lti_config, env_str("LEANCOACH_LTI_PRIVATE_KEY", "") or "")

# School sign-in (webapp.accounts.sso, django-allauth): providers from the JSON file named by
# LEANCOACH_OIDC_CONFIG (webapp.accounts.sso_settings); none by default. A verified address
# opens only a student or teacher account that allowed it (or in an allow-listed domain),
# never staff, admins or superusers: the adapter's authenticate_by_email decides, and
# EMAIL_AUTHENTICATION only lets allauth ask it; a first sign-in makes a student account.
from webapp.accounts.sso_settings import load_providers  # noqa: E402

SOCIALACCOUNT_PROVIDERS: dict[str, Any] = {
    "openid_connect": {
        "OAUTH_PKCE_ENABLED": True,
        "APPS": load_providers(env_str("LEANCOACH_OIDC_CONFIG", "") or ""),
    }
}
SOCIALACCOUNT_ADAPTER = "webapp.accounts.sso.SchoolAccountAdapter"
SOCIALACCOUNT_AUTO_SIGNUP = True
SOCIALACCOUNT_EMAIL_AUTHENTICATION = True
# A login the adapter matched by address is linked, so later ones go by the provider's `sub`.
SOCIALACCOUNT_EMAIL_AUTHENTICATION_AUTO_CONNECT = True
SOCIALACCOUNT_STORE_TOKENS = False
ACCOUNT_EMAIL_VERIFICATION = "none"
ACCOUNT_SIGNUP_FIELDS = ["email*", "username*"]
