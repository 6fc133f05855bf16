"""Read the structure of an attempt's text: tactic blocks, their last lines, `sorry`s, names.

Lean reports some errors away from the line a student should change: unsolved goals at
`by` (or at `·`, `=>`, `}`) while the fix goes after the last tactic of that block; a
`sorry` warning at the declaration's name while the fix replaces the `sorry`. These helpers
find the line to change from the text and Lean's position, using indentation (which is
how Lean itself delimits tactic blocks).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_IDENT = re.compile(r"(?<![\w.'₀-₉])[A-Za-z_α-ωΑ-Ω][\w'₀-₉!?✝]*(?:\.[A-Za-z_][\w'₀-₉!?]*)*")
_SORRY = re.compile(r"(?<![\w.])sorry(?![\w'])")
_DECL = re.compile(
    r"^\s*(?:@\[[^\]]*\]\s*)?(?:private\s+|protected\s+)?(theorem|lemma|example|def)\b"
)
_KEYWORDS = frozenset(
    [
        "theorem",
        "lemma",
        "example",
        "def",
        "by",
        "fun",
        "at",
        "with",
        "in",
        "have",
        "show",
        "from",
        "then",
        "else",
        "if",
        "match",
        "do",
        "let",
        "calc",
        "using",
        "only",
        "return",
        "import",
        "open",
        "namespace",
        "end",
        "section",
        "variable",
        "Type",
        "Prop",
        "Sort",
        "True",
        "False",
        "sorry",
    ]
)


@dataclass(frozen=True)
class TacticLine:
    line: int  # 1-based
    text: str  # stripped


# Lean reads `. tac` as `· tac` (src/Init/Tactics.lean: `syntax cdotTk := patternIgnore("· " <|>
# ". ")`); the helpers below read one spelling, and both have the same length, so columns hold.
_ASCII_CDOT = re.compile(r"^(\s*)\. ", re.MULTILINE)


class AttemptText:
    def __init__(self, text: str) -> None:
        self.text = _ASCII_CDOT.sub(r"\1· ", text)
        self.lines = self.text.split("\n")

    @property
    def n_lines(self) -> int:
        return len(self.lines)

    def line(self, number: int) -> str:
        return self.lines[number - 1] if 1 <= number <= len(self.lines) else ""

    def is_code(self, number: int) -> bool:
        stripped = self.line(number).strip()
        return bool(stripped) and not stripped.startswith("--")

    def indent(self, number: int) -> int:
        line = self.line(number)
        return len(line) - len(line.lstrip())

    def token_at(self, line: int, column: int) -> str:
        rest = self.line(line)[column:]
        match = re.match(r"[\w'.₀-₉!?]+|=>|\S", rest)
        return match.group(0) if match else ""

    def last_code_line(self, upto: int, start: int = 1) -> int | None:
        for number in range(min(upto, self.n_lines), start - 1, -1):
            if self.is_code(number):
                return number
        return None

    def block_last_line(
        self, line: int, column: int, end_line: int | None = None, end_column: int | None = None
    ) -> int:
        """The last line of the tactic block that Lean's unsolved-goals error points at.

        The error sits at `by`, `·`, `=>` or a closing `}`. With an end position spanning the
        block (as Lean gives for `by` and `=>`) the block ends there; otherwise it runs over
        the following lines indented deeper than the line holding the token (for `·`: deeper
        than the `·` itself), which is how Lean's layout rule delimits it.
        """
        token = self.token_at(line, column)
        if token == "}":
            return self.last_code_line(line) or line
        if end_line is not None and end_line > line:
            end = end_line
            if end_column is not None and end_column == 0:
                end -= 1  # a span ending at column 0 closes on the line before
            return self.last_code_line(end, start=line) or line
        base = column if token == "·" else self.indent(line)
        last = line if self.line(line)[column + len(token) :].strip() else None
        for number in range(line + 1, self.n_lines + 1):
            if not self.is_code(number):
                continue
            if self.indent(number) <= base:
                break
            last = number
        return last if last is not None else line

    def declaration_span(self, line: int) -> tuple[int, int]:
        """(first, last) line of the declaration containing `line`."""
        start = 1
        for number in range(min(line, self.n_lines), 0, -1):
            if _DECL.match(self.line(number)):
                start = number
                break
        end = self.n_lines
        for number in range(start + 1, self.n_lines + 1):
            if _DECL.match(self.line(number)):
                end = number - 1
                break
        return start, end

    def sorry_lines(self, within: tuple[int, int] | None = None) -> list[int]:
        first, last = within if within is not None else (1, self.n_lines)
        return [
            number
            for number in range(first, last + 1)
            if _SORRY.search(self.line(number).split("--", 1)[0])
        ]

    def identifiers(self) -> set[str]:
        names = set(_IDENT.findall(self.text))
        return {name for name in names if name not in _KEYWORDS}

    def tactic_lines(self, within: tuple[int, int] | None = None) -> list[TacticLine]:
        """The lines after the first `by` of the declaration: one tactic (or more) each."""
        first, last = within if within is not None else (1, self.n_lines)
        lines: list[TacticLine] = []
        started = False
        for number in range(first, last + 1):
            text = self.line(number).split("--", 1)[0]
            if not started:
                match = re.search(r"(?<![\w.])by\b", text)
                if match:
                    started = True
                    rest = text[match.end() :].strip()
                    if rest:
                        lines.append(TacticLine(number, rest))
                continue
            if text.strip():
                lines.append(TacticLine(number, text.strip()))
        return lines


def proof_conclusion(statement: str) -> str | None:
    """The proposition a theorem states: the text after its first top-level `:` before `:=`.

    Binders sit in brackets, so the first colon outside brackets ends the signature; later
    colons belong to the proposition itself (`∀ n : Nat, ...`).
    """
    lines = statement.split("\n")
    starts = [i for i, line in enumerate(lines) if re.match(r"^\s*(theorem|lemma|example)\b", line)]
    head = "\n".join(lines[starts[-1] :] if starts else lines).split(":=", 1)[0]
    depth = 0
    colon = -1
    for i, ch in enumerate(head):
        if ch in "([{⟨":
            depth += 1
        elif ch in ")]}⟩":
            depth -= 1
        elif ch == ":" and depth == 0:
            colon = i
            break
    if colon == -1:
        return None
    return " ".join(head[colon + 1 :].split()) or None


def statement_hypotheses(statement: str) -> list[tuple[str, str]]:
    """(name, type) of the binders `(h : P)` written in a theorem's signature."""
    head = statement.split(":=", 1)[0]
    found = []
    for group in _binder_groups(head):
        names, colon, typ = group.partition(":")
        if not colon or not re.fullmatch(r"[\w'₀-₉ ]+", names.strip()):
            continue
        for name in names.split():
            found.append((name, " ".join(typ.split())))
    return found


def _binder_groups(head: str) -> list[str]:
    """The insides of the signature's top-level `( )` and `{ }` groups: types may hold their own
    brackets (`(h : (p ∧ q) ∧ r)`), so brackets are matched, not searched for."""
    groups, depth, start = [], 0, 0
    for i, ch in enumerate(head):
        if ch in "({[⟨":
            if depth == 0:
                start = i + 1
            depth += 1
        elif ch in ")}]⟩" and depth > 0:
            depth -= 1
            if depth == 0 and head[start - 1] in "({":
                groups.append(head[start:i])
    return groups
