"""The rules a suggestion's text must follow, and the parser for model-written feedback.

Rules (from the paper's coach prompt): 1-3 suggestions, each 10-50 words, each starting
"Do" or "Don't", each anchored to an existing line of the attempt or to none.

Model output is parsed leniently (numbered or bulleted lists, `[line N]` / `Line N:`
anchors, a JSON list) and then repaired where the fix is mechanical:
- split: an over-long item made of several "Do ..." / "Don't ..." sentences becomes several
  items;
- trim: an item over 50 words keeps its leading whole sentences (or its first 50 words);
- clamp: more than 3 items keep the first 3; a line number outside the attempt is dropped
  (the suggestion keeps its text, anchored to no line);
- items that cannot be repaired (too short, not imperative) are dropped.
Every repair is recorded so the caller can store what was changed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from tutor.coach.types import MAX_SUGGESTIONS, Suggestion, SuggestionKind

MIN_WORDS = 10
MAX_WORDS = 50

_DONT = re.compile(r"^(don['’]t|do not|dont)\b", re.IGNORECASE)
_DO = re.compile(r"^do\b", re.IGNORECASE)
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"^```[\w-]*\s*$", re.MULTILINE)
_MARKER = re.compile(r"^\s*(?:\d+[.)]|[-*•])\s+")
_ANCHOR = re.compile(
    r"^\s*(?:\*\*)?[\[(]?\s*(?:on\s+|at\s+)?(?:line|l)\s*[:#]?\s*(\d+|none|n/?a|-)\s*[\])]?"
    r"\s*(?:\*\*)?\s*[:,.\-–—]?\s*",
    re.IGNORECASE,
)
_NO_LINE = re.compile(r"^\s*[\[(]\s*(?:no line|general)\s*[\])]\s*[:,\-–—]?\s*", re.IGNORECASE)
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+")


def word_count(text: str) -> int:
    return len(text.split())


def kind_of(text: str) -> SuggestionKind:
    return "dont" if _DONT.match(text.strip()) else "do"


def text_problem(text: str) -> str | None:
    """Why a suggestion text breaks the rules, or None when it follows them."""
    stripped = text.strip()
    if not (_DONT.match(stripped) or _DO.match(stripped)):
        return "does not start with 'Do' or 'Don't'"
    words = word_count(stripped)
    if words < MIN_WORDS:
        return f"has {words} words, fewer than {MIN_WORDS}"
    if words > MAX_WORDS:
        return f"has {words} words, more than {MAX_WORDS}"
    return None


def trim_to_words(text: str, limit: int = MAX_WORDS) -> str:
    """Keep whole leading sentences within the limit, else the first `limit` words."""
    kept: list[str] = []
    for sentence in _SENTENCE_SPLIT.split(text.strip()):
        if word_count(" ".join([*kept, sentence])) > limit:
            break
        kept.append(sentence)
    if kept and word_count(" ".join(kept)) >= MIN_WORDS:
        return " ".join(kept)
    words = text.split()[:limit]
    return " ".join(words).rstrip(",;:") + ("" if words[-1].endswith(".") else ".")


@dataclass
class ParsedFeedback:
    """Suggestions recovered from model output, what was repaired and what was wrong."""

    suggestions: list[Suggestion] = field(default_factory=list)
    repairs: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return 1 <= len(self.suggestions) <= MAX_SUGGESTIONS


def parse_feedback(raw: str, n_lines: int) -> ParsedFeedback:
    """Parse, validate and repair model-written feedback for an attempt of n_lines lines."""
    result = ParsedFeedback()
    items = _json_items(raw)
    if items is None:
        items = _list_items(_clean(raw))
    if not items:
        result.problems.append("no suggestions found in the output")
        return result
    for line, text in items:
        for part in _split_if_long(text, result):
            _accept(line, part, n_lines, result)
    if len(result.suggestions) > MAX_SUGGESTIONS:
        result.repairs.append(
            f"clamp: kept the first {MAX_SUGGESTIONS} of {len(result.suggestions)} suggestions"
        )
        result.suggestions = result.suggestions[:MAX_SUGGESTIONS]
    if not result.suggestions and not result.problems:
        result.problems.append("no usable suggestion")
    return result


def _clean(raw: str) -> str:
    text = _THINK.sub("", raw)
    if "<think>" in text.lower():  # an unterminated reasoning block: nothing after it is final
        text = text[: text.lower().index("<think>")]
    return _FENCE.sub("", text).replace("**", "")


def _json_items(raw: str) -> list[tuple[int | None, str]] | None:
    text = _clean(raw).strip()
    start, end = text.find("["), text.rfind("]")
    if start == -1 or end <= start or not text[start + 1 :].lstrip().startswith("{"):
        return None
    try:
        data = json.loads(text[start : end + 1])
    except json.JSONDecodeError:
        return None
    if not isinstance(data, list):
        return None
    items: list[tuple[int | None, str]] = []
    for entry in data:
        if isinstance(entry, dict) and isinstance(entry.get("text"), str):
            line = entry.get("line")
            items.append((line if isinstance(line, int) else None, entry["text"]))
    return items


def _list_items(text: str) -> list[tuple[int | None, str]]:
    """Items of a numbered/bulleted list; without markers, each paragraph or Do-line."""
    items: list[list[str]] = []
    for raw_line in text.split("\n"):
        line = raw_line.strip()
        if not line:
            if items and items[-1]:
                items.append([])
            continue
        starts_item = bool(_MARKER.match(raw_line)) or _starts_advice(line)
        if starts_item or not items:
            items.append([_MARKER.sub("", raw_line).strip()])
        elif items[-1]:
            items[-1].append(line)
        else:
            items[-1] = [line]
    parsed: list[tuple[int | None, str]] = []
    for chunk in items:
        if not chunk:
            continue
        line_number, text_part = _take_anchor(" ".join(chunk))
        if text_part:
            parsed.append((line_number, text_part))
    return parsed


def _starts_advice(line: str) -> bool:
    rest = _take_anchor(line)[1]
    return bool(_DO.match(rest) or _DONT.match(rest))


def _take_anchor(text: str) -> tuple[int | None, str]:
    match = _ANCHOR.match(text)
    if match:
        value = match.group(1)
        rest = text[match.end() :].strip()
        return (int(value) if value.isdigit() else None), rest
    match = _NO_LINE.match(text)
    if match:
        return None, text[match.end() :].strip()
    return None, text.strip()


def _split_if_long(text: str, result: ParsedFeedback) -> list[str]:
    if word_count(text) <= MAX_WORDS:
        return [text]
    parts: list[str] = []
    for sentence in _SENTENCE_SPLIT.split(text.strip()):
        if parts and (_DO.match(sentence) or _DONT.match(sentence)):
            parts.append(sentence)
        elif parts:
            parts[-1] = f"{parts[-1]} {sentence}"
        else:
            parts.append(sentence)
    if len(parts) > 1:
        result.repairs.append(f"split: one long item became {len(parts)}")
    return parts


def _accept(line: int | None, text: str, n_lines: int, result: ParsedFeedback) -> None:
    text = " ".join(text.split())
    if re.match(r"^(do|don't|dont|do not)\b", text) and not text[:1].isupper():
        text = text[0].upper() + text[1:]
        result.repairs.append("case: capitalised the opening word")
    if re.match(r"^Dont\b", text):
        text = "Don't" + text[4:]
    if word_count(text) > MAX_WORDS:
        text = trim_to_words(text)
        result.repairs.append("trim: cut an item to at most 50 words")
    problem = text_problem(text)
    if problem is not None:
        result.problems.append(f"dropped an item that {problem}: {text[:60]!r}")
        return
    if line is not None and not 1 <= line <= n_lines:
        result.repairs.append(f"clamp: line {line} is not in the attempt (1-{n_lines}); dropped")
        line = None
    result.suggestions.append(Suggestion(line=line, text=text, kind=kind_of(text)))
