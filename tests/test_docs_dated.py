"""The docs and the code's docstrings and comments describe the product as it is now: no dated
narratives ("Third session (2026-12-01, afternoon ...)", "figures at the time of writing",
"not measured in this session"). History lives in git. Code (fenced blocks, code spans) may
hold dates: an example export's timestamp, a snapshot's folder name. The data sets' own cards
(bench/data/*.README.md) say who wrote them and when, as a data set's provenance does."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

DATED = re.compile(
    r"\b(?:January|February|March|April|May|June|July|August|September|October|November"
    r"|December) (?:\d{1,2}|20\d\d)\b"
    r"|\b20\d\d-\d\d-\d\d\b"
    r"|\bat the time of writing\b"
    r"|\b(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last|this"
    r"|previous|next) (?:work )?sessions?\b"
    r"|\byesterday\b|\blast week\b|\bas of (?:today|now)\b",
    re.IGNORECASE,
)
_FENCED = re.compile(r"^ {0,3}(`{3,}|~{3,}).*?^ {0,3}\1", re.MULTILINE | re.DOTALL)
_SPAN = re.compile(r"(`+).+?\1")


def prose(text: str) -> str:
    """`text` without its code: fenced blocks and code spans."""
    return _SPAN.sub("", _FENCED.sub("", text))


def dated(text: str) -> list[str]:
    return [match.group(0) for match in DATED.finditer(prose(text))]


def docs() -> list[Path]:
    return [ROOT / "README.md", ROOT / "bench" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def code_texts(path: Path) -> Iterator[tuple[int, str]]:
    """(line, text) of each docstring and comment of a Python file."""
    source = path.read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node)
            if doc:
                yield getattr(node, "lineno", 1), doc
    for number, line in enumerate(source.splitlines(), 1):
        if "#" in line:
            yield number, line.split("#", 1)[1]


def test_the_docs_hold_no_dated_narrative() -> None:
    found = [f"{doc.relative_to(ROOT)}: {hit}" for doc in docs() for hit in dated(doc.read_text())]
    assert not found, found


def test_docstrings_and_comments_hold_no_dated_narrative() -> None:
    found = []
    for room in ("webapp", "tutor", "training", "bench"):
        for path in sorted((ROOT / room).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            for line, text in code_texts(path):
                found += [f"{path.relative_to(ROOT)}:{line}: {hit}" for hit in dated(text)]
    assert not found, found


def test_the_check_finds_what_it_is_for() -> None:
    text = (
        "Third session (2026-12-01, afternoon): 135 req/s.\n"
        "Figures at the time of writing (compiler):\n"
        "vLLM vs HF: not measured (no GPU in this session).\n"
        "Measured on December 2 on a quiet machine.\n"
        'An export starts `{"exported_at": "2026-11-29T21:00:00Z"}`:\n'
        "```\nsnapshot-2026-12-01\n```\n"
        "A session cookie, a training session, the sessions' cache; `since 2021`.\n"
    )
    assert dated(text) == [
        "Third session",
        "2026-12-01",
        "at the time of writing",
        "this session",
        "December 2",
    ]
