"""Settings shared by every environment. dev.py / prod.py / test.py adjust a few values.

Everything that differs between machines comes from the environment via webapp.settings.env.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dj_database_url

from webapp.settings.env import env_bool, env_int, env_list, env_str

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
    "channels",
    "webapp.core",
    "webapp.accounts",
    "webapp.courses",
    "webapp.attempts",
    "webapp.provers",
    "webapp.console",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "webapp.urls"
ASGI_APPLICATION = "webapp.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "OPTIONS": {
            # django-template-partials' loader wrapper gives {% partialdef %} and
            # "page.html#fragment" names, as Django 6 does natively.
            "loaders": [
                (
                    "template_partials.loader.Loader",
                    [
                        "django.template.loaders.filesystem.Loader",
                        "django.template.loaders.app_directories.Loader",
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
    url = env_str("DATABASE_URL")
    if url:
        return dict(dj_database_url.parse(url, conn_max_age=env_int("DB_CONN_MAX_AGE", 0)))
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": VAR_DIR / "leancoach.sqlite3",
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

CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {"hosts": [REDIS_URL], "prefix": "leancoach:channels:"},
    }
}

CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": "leancoach",
    }
}

# Celery (read by webapp.celery with namespace "CELERY").
CELERY_BROKER_URL = REDIS_URL
CELERY_RESULT_BACKEND = REDIS_URL
CELERY_TASK_ALWAYS_EAGER = False
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_EXPIRES = 3600
# Continual distillation (train.continual_distill) every N hours when set; 0 leaves it to
# admins (console) and cron. `make run` then also starts Celery beat.
CONTINUAL_EVERY_H = env_int("LEANCOACH_CONTINUAL_EVERY_H", 0)
CELERY_BEAT_SCHEDULE = (
    {
        "continual-distill": {
            "task": "train.continual_distill",
            "schedule": CONTINUAL_EVERY_H * 3600,
        }
    }
    if CONTINUAL_EVERY_H > 0
    else {}
)

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
