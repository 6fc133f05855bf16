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
