"""The web app uses Django, Channels, Celery and django-redis through their public parts only:
no private name (`_iterable_class`, `_middleware_chain`, `RedisCache._cache`,
`SessionStore._get_session_from_db`...) that a minor release may change without a word. The
checker (tests/support/private_names.py) is shown catching each kind first, so that a checker
that finds nothing cannot pass for a clean web app."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path
from typing import Any

import pytest
from django.contrib.sessions.backends.db import SessionStore
from django.core.cache.backends.redis import RedisCache
from django.core.handlers.asgi import ASGIHandler

import webapp
from tests.support.private_names import foreign_bases, inherited_uses, static_uses

ROOT = Path(__file__).resolve().parents[2]
# Imported for their classes, but not the entry point (asgi.py starts the app) nor the
# settings modules (prod's needs production's secrets; none subclasses a library's class).
NOT_IMPORTED = ("webapp.asgi", "webapp.settings")


def _sources() -> list[Path]:
    return sorted(p for p in (ROOT / "webapp").rglob("*.py") if "migrations" not in p.parts)


def _project_sources() -> list[Path]:
    return [p for room in ("tutor", "training") for p in sorted((ROOT / room).rglob("*.py"))]


def _web_app_classes() -> list[type]:
    classes: dict[str, type] = {}
    for info in pkgutil.walk_packages(webapp.__path__, "webapp."):
        if ".migrations" in info.name or info.name.startswith(NOT_IMPORTED):
            continue
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == info.name:
                classes[f"{cls.__module__}.{cls.__qualname__}"] = cls
    return [classes[name] for name in sorted(classes)]


def test_the_web_app_reads_no_private_name_of_a_library() -> None:
    found = static_uses(_sources(), also_defined=_project_sources())
    assert not found, "\n".join(s.replace(f"{ROOT}/", "") for s in found)


def test_no_web_app_class_overrides_or_reads_a_private_name_of_its_base() -> None:
    classes = _web_app_classes()
    assert sum(1 for cls in classes if foreign_bases(cls)) > 20  # models, consumers, forms...
    found = [use for cls in classes for use in inherited_uses(cls)]
    assert not found, "\n".join(found)


def test_the_static_check_finds_each_kind(tmp_path: Path) -> None:
    source = tmp_path / "prepared.py"
    source.write_text(
        "from django.db.models.query import _prepare_lookups\n"
        "from django.contrib.auth import get_user_model\n"
        "def read(qs, handler):\n"
        "    users = get_user_model()._default_manager\n"
        "    flag = getattr(qs, '_iterable_class')\n"
        "    own = handler._ours\n"
        "    return users, flag, own\n"
        "class Handler:\n"
        "    def __init__(self):\n"
        "        self._ours = 1\n"
    )
    found = {line.split(" ", 1)[1] for line in static_uses([source])}
    assert found == {"_prepare_lookups", "_default_manager", "_iterable_class"}


class _GatedHandler(ASGIHandler):
    async def get_response_async(self, request: Any) -> Any:
        return await self._middleware_chain(request)  # type: ignore[attr-defined]


class _PreparedSessions(SessionStore):
    def _get_session_from_db(self) -> Any:
        return None


class _OneClientCache(RedisCache):  # Django's own Redis cache, as the former subclass
    @property
    def _cache(self) -> Any:
        return None


class _PlainCache(RedisCache):
    def _our_helper(self) -> None:
        self._also_ours = 1


@pytest.mark.parametrize(
    ("cls", "name"),
    [
        (_GatedHandler, "_middleware_chain"),
        (_PreparedSessions, "_get_session_from_db"),
        (_OneClientCache, "_cache"),
    ],
)
def test_the_inheritance_check_finds_a_bases_private_name(cls: type, name: str) -> None:
    assert any(f".{name} (from " in use for use in inherited_uses(cls))


def test_names_a_subclass_makes_for_itself_are_its_own() -> None:
    assert inherited_uses(_PlainCache) == []
