"""webapp.core.warmup: a web process compiles the project's templates when it starts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.template import engines
from django.template.loaders.cached import Loader as CachedLoader

from webapp.core.warmup import compile_templates

TEMPLATES_DIR = Path(__file__).resolve().parents[2] / "templates"


def _cached_loader() -> CachedLoader:
    pending = list(engines["django"].engine.template_loaders)  # type: ignore[attr-defined]
    while pending:
        loader = pending.pop()
        if isinstance(loader, CachedLoader):
            return loader
        pending.extend(getattr(loader, "loaders", []))
    raise AssertionError("the settings cache no templates")


def test_every_project_template_is_compiled_into_the_cache() -> None:
    cache = _cached_loader()
    cache.reset()
    assert compile_templates() == len(list(TEMPLATES_DIR.rglob("*.html")))
    names = {key.split("-")[0] for key in cache.get_template_cache}
    assert {"courses/exercise.html", "attempts/attempt.html", "base.html"} <= names


def test_a_template_that_does_not_compile_is_logged_and_skipped(
    settings: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "broken.html").write_text("{% if %}", encoding="utf-8")
    (tmp_path / "fine.html").write_text("<p>{{ x }}</p>", encoding="utf-8")
    settings.TEMPLATES = [{**settings.TEMPLATES[0], "DIRS": [tmp_path]}]
    assert compile_templates() == 1
    assert "template broken.html does not compile" in caplog.text


def test_nothing_is_compiled_where_templates_are_not_cached(settings: Any) -> None:
    options = settings.TEMPLATES[0]["OPTIONS"]
    uncached = [("template_partials.loader.Loader", ["django.template.loaders.filesystem.Loader"])]
    settings.TEMPLATES = [{**settings.TEMPLATES[0], "OPTIONS": {**options, "loaders": uncached}}]
    assert compile_templates() == 0
