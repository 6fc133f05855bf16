"""Small strict readers for settings from the environment.

A bad value fails loudly at start-up with the variable's name, instead of turning into a
surprising default later. A secret may come from a file (`NAME_FILE=/run/secrets/...`).
"""

from __future__ import annotations

import os
from pathlib import Path

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


class ImproperlyConfiguredEnv(RuntimeError):
    pass


def env_str(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name)
    return default if value is None else value


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    lowered = raw.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ImproperlyConfiguredEnv(
        f"{name}={raw!r} is not a boolean: use one of 1/0, true/false, yes/no, on/off"
    )


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise ImproperlyConfiguredEnv(f"{name}={raw!r} is not an integer") from exc


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return list(default)
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_secret(name: str, *, required: bool, default: str | None = None) -> str | None:
    """Read NAME, or the contents of the file named by NAME_FILE (for Docker secrets)."""
    value = os.environ.get(name)
    file_name = os.environ.get(f"{name}_FILE")
    if value and file_name:
        raise ImproperlyConfiguredEnv(f"set {name} or {name}_FILE, not both")
    if file_name:
        path = Path(file_name)
        if not path.is_file():
            raise ImproperlyConfiguredEnv(f"{name}_FILE={file_name!r}: no such file")
        value = path.read_text().strip()
    if value:
        return value
    if required:
        raise ImproperlyConfiguredEnv(
            f"{name} is required here: set {name}, or {name}_FILE to a file holding it"
        )
    return default
