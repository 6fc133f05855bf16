"""Shared pytest fixtures. tests/conftest.py loads them with
`pytest_plugins = ["tests.support.fixtures"]`; until then a test module can import a
fixture by name (`from tests.support.fixtures import tiny_model_dir  # noqa: F401`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.tiny_model import build_tiny_model


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random Qwen3 + locally trained tokenizer, built once per test session."""
    return build_tiny_model(tmp_path_factory.mktemp("tiny_model"))
