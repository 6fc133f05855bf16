"""Driving the CodeMirror editor from Playwright (the form's textarea is hidden once the
editor is attached; typing goes to the editor's content element like a user's keys)."""

from __future__ import annotations

from typing import Any

EDITOR = ".lean-cm .cm-content"


def set_proof(page: Any, text: str) -> None:
    """Replace the proof (everything after the read-only statement) in one edit."""
    page.evaluate(
        """(text) => {
          const textarea = document.querySelector('#id_proof');
          const view = textarea.leanView;
          const start = textarea.dataset.statement.length + 1;
          view.dispatch({ changes: { from: start, to: view.state.doc.length, insert: text } });
        }""",
        text,
    )


def proof_text(page: Any) -> str:
    return str(page.evaluate("() => document.querySelector('#id_proof').value"))


def cursor_to(page: Any, line: int, column: int = 0) -> None:
    """Put the cursor on an editor line (1-based, the page's numbering) as a click would."""
    page.evaluate(
        """([line, column]) => {
          const view = document.querySelector('#id_proof').leanView;
          const at = view.state.doc.line(line).from + column;
          view.focus();
          view.dispatch({ selection: { anchor: at } });
        }""",
        [line, column],
    )
