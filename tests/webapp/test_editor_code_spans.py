"""The editor's tooltips show backquoted code as code, as the server-rendered panel does
(static/js/editor/codespans.js), run under Node; text never becomes HTML."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MODULE = ROOT / "static/js/editor/codespans.js"


def _code_spans(text: str) -> list[dict[str, object]]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the editor's modules cannot be run here")
    script = (
        f"import {{ codeSpans }} from {json.dumps(MODULE.as_uri())};"
        f"console.log(JSON.stringify(codeSpans({json.dumps(text)})));"
    )
    done = subprocess.run(
        [node, "--input-type=module", "-e", script],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return list(json.loads(done.stdout))


def test_backquoted_code_becomes_code_pieces() -> None:
    assert _code_spans("Coach: Do use `exact h.2` on line 3, not `rfl`.") == [
        {"code": False, "text": "Coach: Do use "},
        {"code": True, "text": "exact h.2"},
        {"code": False, "text": " on line 3, not "},
        {"code": True, "text": "rfl"},
        {"code": False, "text": "."},
    ]


def test_an_unmatched_backtick_and_html_stay_text() -> None:
    assert _code_spans("a ` b <b>x</b>") == [{"code": False, "text": "a ` b <b>x</b>"}]
