"""Where the project's shared data lives: `../shared` beside the repository root (a user's clone
may not have it; tests that need it skip with that reason)."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
SHARED_DIR = REPO_ROOT.parent / "shared"
SHARED_DATA = SHARED_DIR / "data"
MISSING_REASON = f"shared data not found at {SHARED_DATA} (../shared beside the repository root)"


def shared_data_file(name: str) -> Path:
    """The path of a file under ../shared/data, or skip the calling test when it is missing."""
    path = SHARED_DATA / name
    if not path.exists():
        pytest.skip(MISSING_REASON)
    return path
