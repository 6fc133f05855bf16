"""Find the relative links of Markdown files that do not resolve inside the repository.

A link resolves when its path names a file or folder inside the repository root and, when it
carries an anchor into a Markdown file, that file has a heading (or an HTML `id`/`name`) with
that anchor. Links with a scheme (https:, mailto:) and protocol-relative ones are left alone:
checking them needs the network. Code (fenced blocks, `code spans`) holds no links.

Anchors follow GitHub's rule for headings, which github-slugger reproduces (Flet/github-slugger,
index.js: lower-case the heading's text, drop every character but letters, digits, `_`, `-`
and spaces, turn each space into `-`; a repeated slug gets `-1`, `-2`, ... in order).
"""

from __future__ import annotations

import os.path
import re
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

# Folders of installed or generated files: their Markdown is not the project's.
SKIPPED_DIRS = frozenset(
    {".git", ".venv", "node_modules", "var", ".mypy_cache", ".pytest_cache", ".ruff_cache"}
)

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ATX_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
_SETEXT_UNDERLINE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
# [text](target) and ![alt](target), with an optional "title"; <target> may hold spaces.
_INLINE_LINK = re.compile(
    r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)"
)
_REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
_HTML_TARGET = re.compile(r"""<(?:a|img)\b[^>]*?\b(?:href|src)\s*=\s*["']([^"']+)["']""", re.I)
_HTML_ANCHOR = re.compile(r"""<[a-z]+\b[^>]*?\b(?:id|name)\s*=\s*["']([^"']+)["']""", re.I)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_EMPHASIS = re.compile(r"(\*{1,3}|(?<!\w)_{1,3})(\S(?:.*?\S)?)\1(?!\w)")
_HTML_TAG = re.compile(r"<[^>]+>")
_NOT_SLUG = re.compile(r"[^\w\- ]")


@dataclass(frozen=True)
class Link:
    source: Path  # the Markdown file
    line: int  # 1-based
    target: str  # as written


@dataclass(frozen=True)
class Problem:
    link: Link
    reason: str

    def __str__(self) -> str:
        return f"{self.link.source}:{self.link.line}: ({self.link.target}) {self.reason}"


def markdown_files(root: Path) -> list[Path]:
    """Every *.md under root, outside installed and generated folders."""
    found = []
    for path in sorted(root.rglob("*.md")):
        parts = path.relative_to(root).parts
        if not any(part in SKIPPED_DIRS for part in parts[:-1]):
            found.append(path)
    return found


def prose_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) outside fenced code blocks, with code spans blanked out."""
    fence = ""
    for number, line in enumerate(text.splitlines(), start=1):
        opening = _FENCE.match(line)
        if fence:
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = ""
            continue
        if opening:
            fence = opening.group(1)
            continue
        yield number, _CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)


def links(path: Path) -> list[Link]:
    found = []
    for number, line in prose_lines(path.read_text(encoding="utf-8")):
        targets = [m.group(1) for m in _INLINE_LINK.finditer(line)]
        targets += [m.group(1) for m in _REFERENCE_DEFINITION.finditer(line)]
        targets += [m.group(1) for m in _HTML_TARGET.finditer(line)]
        for target in targets:
            found.append(Link(path, number, target.strip("<>").strip()))
    return found


def heading_text(raw: str) -> str:
    """A heading's text as GitHub renders it: code spans keep their content, links their
    text, emphasis and HTML tags disappear."""
    pieces = re.split(r"(`+.+?`+)", raw)
    plain = []
    for piece in pieces:
        if piece.startswith("`"):
            plain.append(piece.strip("`").strip())
            continue
        piece = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", piece)
        piece = _HTML_TAG.sub("", piece)
        previous = None
        while previous != piece:
            previous, piece = piece, _EMPHASIS.sub(r"\2", piece)
        plain.append(piece)
    return "".join(plain)


def slug(text: str) -> str:
    return _NOT_SLUG.sub("", text.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every anchor a reader can link to in a Markdown file."""
    seen: dict[str, int] = {}
    found: set[str] = set()

    def add(heading: str) -> None:
        base = slug(heading_text(heading))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")

    text = path.read_text(encoding="utf-8")
    previous = ""
    fence = ""
    for line in text.splitlines():
        opening = _FENCE.match(line)
        if fence:
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = ""
            previous = ""
            continue
        if opening:
            fence = opening.group(1)
            previous = ""
            continue
        found.update(m.group(1) for m in _HTML_ANCHOR.finditer(line))
        atx = _ATX_HEADING.match(line)
        if atx:
            add(atx.group(2))
            previous = ""
            continue
        paragraph_line = previous.strip() and not previous.lstrip().startswith(("|", ">", "-", "*"))
        if _SETEXT_UNDERLINE.match(line) and paragraph_line:
            add(previous.strip())
            previous = ""
            continue
        previous = line
    return found


def check(link: Link, root: Path) -> str | None:
    """Why the link does not resolve inside root, or None when it does (or is not relative)."""
    target = link.target
    if not target or _SCHEME.match(target) or target.startswith("//"):
        return None
    path_part, _, anchor = target.partition("#")
    path_part = urllib.parse.unquote(path_part.split("?", 1)[0])
    if not path_part:
        destination = link.source
    elif path_part.startswith("/"):
        destination = root / path_part.lstrip("/")  # GitHub reads "/x" from the repository root
    else:
        destination = link.source.parent / path_part
    destination = Path(_normalise(destination))
    if not destination.is_relative_to(root):
        return "points outside the repository (dead in any clone)"
    inside = destination.relative_to(root).parts
    if any(part in SKIPPED_DIRS for part in inside):
        return "points into an installed or generated folder, absent from a clone"
    if not destination.exists():
        return "names no file in the repository"
    is_markdown = destination.is_file() and destination.suffix.lower() == ".md"
    if anchor and is_markdown and urllib.parse.unquote(anchor) not in anchors(destination):
        return f"{destination.relative_to(root)} has no heading with the anchor #{anchor}"
    return None


def _normalise(path: Path) -> str:
    """Resolve `..` and `.` without following symbolic links (a link is read as text)."""
    return os.path.normpath(path.absolute())


def problems(root: Path) -> list[Problem]:
    root = Path(_normalise(root))
    found = []
    for path in markdown_files(root):
        for link in links(path):
            reason = check(link, root)
            if reason:
                found.append(Problem(link, reason))
    return found
