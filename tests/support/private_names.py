"""Find where the web app reaches into a library's private names (a leading underscore).

Django, Channels, Celery and django-redis may change such a name in any minor release
without a word, so the web app uses only their public parts (docs/ARCHITECTURE.md). Two
ways in are looked for:

- `static_uses(files)`: in the source, an attribute `x._name`, a `getattr(x, "_name")` or an
  import of `_name` from a module outside the project, where `_name` is none the project
  defines itself (a function, class, parameter or attribute it assigns), e.g.
  `queryset._iterable_class` or `get_user_model()._default_manager`;
- `inherited_uses(cls)`: a class of the web app that subclasses a library's class and
  defines, overrides or reads through `self` a private name that the library's class uses
  (its source mentions it), e.g. `_get_session_from_db` in a SessionStore subclass or
  `self._middleware_chain` in an ASGIHandler subclass.
"""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from collections.abc import Iterable
from pathlib import Path

PROJECT_PACKAGES = ("webapp", "tutor", "training", "tests")


def private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def defined_names(trees: Iterable[ast.AST]) -> set[str]:
    """Every name the project binds: functions, classes, parameters, assigned names and
    attributes, import aliases."""
    names: set[str] = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
            elif isinstance(node, ast.alias) and node.asname:
                names.add(node.asname)
    return names


def _foreign_module(module: str | None) -> bool:
    return bool(module) and str(module).split(".")[0] not in PROJECT_PACKAGES


def static_uses(files: Iterable[Path], also_defined: Iterable[Path] = ()) -> list[str]:
    """`path:line name` for each private name of someone else's that `files` use.
    `also_defined`: more of the project's files whose names count as its own."""
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in files}
    own = defined_names(trees.values())
    own |= defined_names(ast.parse(p.read_text(encoding="utf-8")) for p in also_defined)
    found = []
    for path, tree in trees.items():
        for node in ast.walk(tree):
            name = None
            if isinstance(node, ast.Attribute) and private(node.attr) and node.attr not in own:
                name = node.attr
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                if _foreign_module(node.module):
                    parts = [*str(node.module).split("."), *(a.name for a in node.names)]
                    name = next((part for part in parts if private(part)), None)
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "setattr", "hasattr", "delattr")
                and len(node.args) > 1
                and isinstance(node.args[1], ast.Constant)
                and isinstance(node.args[1].value, str)
                and private(node.args[1].value)
                and node.args[1].value not in own
            ):
                name = node.args[1].value
            if name:
                found.append(f"{path}:{getattr(node, 'lineno', 0)} {name}")
    return found


def _self_names(cls: type) -> set[str]:
    """Private names the class body defines, or reaches through `self`/`cls`."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    except (OSError, TypeError):
        return set()
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and private(node.name):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and private(node.attr):
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                names.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and private(node.id):
            names.add(node.id)  # class attributes
    return names


def foreign_bases(cls: type) -> list[type]:
    return [
        base
        for base in cls.__mro__[1:]
        if _foreign_module(base.__module__) and base.__module__ not in ("builtins", "typing")
    ]


def inherited_uses(cls: type) -> list[str]:
    """`Class._name (from Base)` for each private name of a library base class that `cls`
    defines, overrides or reads."""
    found = []
    names = _self_names(cls)
    for base in foreign_bases(cls):
        try:
            source = inspect.getsource(base)
        except (OSError, TypeError):
            continue
        for name in sorted(names):
            if re.search(rf"\b{re.escape(name)}\b", source):
                found.append(f"{cls.__module__}.{cls.__qualname__}.{name} (from {base.__name__})")
    return found
