"""The images' entry point: the passwords compose hands over as secret files go into the URLs
the app reads, then the command runs in this process's place (exec).

DATABASE_URL and REDIS_URL name the user, host, port and database without a password; the
passwords come from files (compose: Docker secrets under /run/secrets):

    DATABASE_PASSWORD_FILE  DATABASE_URL postgres://leancoach@db:5432/leancoach
                            -> postgres://leancoach:<password>@db:5432/leancoach
    REDIS_PASSWORD_FILE     REDIS_URL redis://redis:6379/0 -> redis://:<password>@redis:6379/0

so no password is written in compose.yaml, in the image, or in the environment that
`docker inspect` shows: it lives in the secret file and in this process tree's memory. Every
reader of the URLs (Django's database, Celery, Channels, the cache, the coach's cache in
tutor/coach/cache.py) gets the same value. SECRET_KEY_FILE and LEANCOACH_METRICS_TOKEN_FILE are
read by the settings themselves (webapp/settings/env.py, env_secret).

Standard library only: it runs before anything else, in every container of the images.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import quote, urlsplit, urlunsplit

# (URL variable, the variable naming its password's file)
PASSWORD_FILES = (("DATABASE_URL", "DATABASE_PASSWORD_FILE"), ("REDIS_URL", "REDIS_PASSWORD_FILE"))


class SecretError(Exception):
    """A secret is asked for but cannot be used; the message says which and why."""


def with_password(url: str, password: str) -> str:
    """`url` with `password` in its user part (percent-encoded, so any character is safe)."""
    parts = urlsplit(url)
    if not parts.hostname:
        raise SecretError(f"{_redacted(url)} names no host")
    if parts.password is not None:
        raise SecretError(
            f"{_redacted(url)} already holds a password: give it in one place, the secret file"
        )
    user, _, host = parts.netloc.rpartition("@")
    netloc = f"{user}:{quote(password, safe='')}@{host}"
    return urlunsplit(parts._replace(netloc=netloc))


def secret_environment(env: Mapping[str, str]) -> dict[str, str]:
    """The URL variables to set, from the password files `env` names (none named: nothing)."""
    updates: dict[str, str] = {}
    for url_name, file_name in PASSWORD_FILES:
        path = env.get(file_name)
        if not path:
            continue
        url = env.get(url_name)
        if not url:
            raise SecretError(f"{file_name} is set but {url_name} is not")
        try:
            password = Path(path).read_text().strip()
        except OSError as exc:
            raise SecretError(f"{file_name}={path}: {exc.strerror or exc}") from exc
        if not password:
            raise SecretError(f"{file_name}={path} is empty")
        updates[url_name] = with_password(url, password)
    return updates


def _redacted(url: str) -> str:
    scheme, _, rest = url.partition("://")
    return f"{scheme}://***@{rest.rpartition('@')[2]}" if "@" in rest else url


def main(argv: list[str]) -> int:
    if not argv:
        print("entrypoint: no command given", file=sys.stderr)
        return 2
    try:
        os.environ.update(secret_environment(os.environ))
    except SecretError as exc:
        print(f"entrypoint: {exc}", file=sys.stderr)
        return 78  # EX_CONFIG: the container's restart policy retries, the log says why
    os.execvp(argv[0], argv)
    return 127  # not reached: execvp replaces this process or raises


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
