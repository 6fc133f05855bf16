"""Rewrites of a labelled coach case that change nothing a teacher's advice depends on: the
names a student gives hypotheses (`H`, `IH`, `Hp`, the Lean 3 habit), `. tac` for `· tac`
(Lean reads both: src/Init/Tactics.lean, `syntax cdotTk := patternIgnore("· " <|> ". ")`),
`↦` for `=>` after `fun`, `h₁` for `h1`, four-space indentation, a comment line after the
statement, `lemma` or `example` for `theorem`, `Nat` for `ℕ`.

Each rewrite edits the attempt and moves Lean's positions with it (a message's column shifts
by what was inserted before it on its line), and renames in the messages and labels what it
renames in the attempt. A case a rewrite does not apply to gives None."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from typing import Any

Case = dict[str, Any]

_NAME = re.compile(r"(?<![\w.'])[A-Za-z_][\w']*(?![\w'])")
# Lean 3 courses name hypotheses with capitals.
CAPITALS = {
    "h": "H",
    "ih": "IH",
    "hp": "Hp",
    "hq": "Hq",
    "h1": "H1",
    "h2": "H2",
    "hx": "Hx",
    "hn": "Hn",
    "ha": "Ha",
    "hb": "Hb",
    "hk": "Hk",
    "hm": "Hm",
    "hy": "Hy",
    "hs": "Hs",
}


def _rename_text(text: str, mapping: dict[str, str]) -> str:
    return _NAME.sub(lambda m: mapping.get(m.group(0), m.group(0)), text)


def _rename_label(label: str, mapping: dict[str, str]) -> str:
    if label.startswith("re:"):
        # `\bhm\b` in a regex: hide the `\b` so the name after it reads as a whole word.
        return "re:" + _rename_text(label[3:].replace("\\b", "\0"), mapping).replace("\0", "\\b")
    return _rename_text(label, mapping)


def renamed(case: Case, mapping: dict[str, str] = CAPITALS) -> Case | None:
    """Every name in `mapping` renamed (same length, so positions hold), where the new name is
    not already used."""
    text = "\n".join([case["attempt"], *(m["data"] for m in case["messages"])])
    present = set(_NAME.findall(text))
    used = {m.group(0) for m in re.finditer(r"[\w']+", text)}
    chosen = {a: b for a, b in mapping.items() if a in present and b not in used}
    if not chosen:
        return None
    new = copy.deepcopy(case)
    new["problem"] = _rename_text(case["problem"], chosen)
    new["attempt"] = _rename_text(case["attempt"], chosen)
    for message in new["messages"]:
        message["data"] = _rename_text(message["data"], chosen)
    new["accept"] = [_rename_label(p, chosen) for p in case["accept"]]
    new["wrong"] = [_rename_label(p, chosen) for p in case["wrong"]]
    return new


def _substituted(
    case: Case, pattern: str, replacement: str, only_line: int | None = None
) -> Case | None:
    """`pattern` replaced on the attempt's lines, each message position after a replacement on
    its line moved by the change in length."""
    new = copy.deepcopy(case)
    lines = new["attempt"].split("\n")
    changed = False
    for index, line in enumerate(lines):
        number = index + 1
        if only_line is not None and number != only_line:
            continue
        pieces, shifts, at = [], [], 0
        for match in re.finditer(pattern, line):
            written = match.expand(replacement)
            pieces += [line[at : match.start()], written]
            shifts.append((match.end(), len(written) - (match.end() - match.start())))
            at = match.end()
        if not shifts:
            continue
        lines[index] = "".join([*pieces, line[at:]])
        changed = True
        for message in new["messages"]:
            for key in ("pos", "endPos"):
                position = message.get(key)
                if position and position["line"] == number:
                    position["column"] += sum(d for end, d in shifts if end <= position["column"])
    if not changed:
        return None
    new["attempt"] = "\n".join(lines)
    new["problem"] = "\n".join(lines[: case["problem"].count("\n") + 1])
    return new


def _moved_down(case: Case) -> Case | None:
    """A comment line after the statement: every line below moves down by one."""
    lines = case["attempt"].split("\n")
    if len(lines) < 2:
        return None
    new = copy.deepcopy(case)
    head = case["problem"].count("\n") + 1
    new["attempt"] = "\n".join([*lines[:head], "  -- my attempt", *lines[head:]])
    for message in new["messages"]:
        for key in ("pos", "endPos"):
            if message.get(key) and message[key]["line"] > head:
                message[key]["line"] += 1
    if new["label_line"] > head:
        new["label_line"] += 1
    # A label naming a line number ("delete line 5") names the line the student now sees.
    new["accept"] = [_renumbered(p) for p in case["accept"]]
    return new


def _renumbered(label: str) -> str:
    return re.sub(r"line (\d+)", lambda m: f"line {int(m.group(1)) + 1}", label)


def _indented(case: Case) -> Case | None:
    """Four spaces per level instead of two: each tactic line's indent doubles."""
    return _substituted(case, r"^( +)", r"\1\1")


def _sorry_free(case: Case) -> bool:
    # The `sorry` warning sits on the theorem's name, which `example` does not have.
    return "sorry" not in json.dumps(case["messages"])


def _earlier_wording(message: str) -> str:
    """A Lean 4.2x message in the wording Lean printed before its messages were capitalised, as
    recorded in ../shared/data/lean_transcripts (`tactic 'decide' proved that the proposition`,
    `tactic 'rewrite' failed, did not find instance of the pattern in the target expression`,
    `tactic 'rfl' failed, the left-hand side`, `tactic 'apply' failed, failed to unify`,
    `type mismatch`, `unknown identifier 'x'`)."""
    head, _, rest = message.partition("\n")
    head = re.sub(r"^Unknown (identifier|constant) `([^`]+)`", r"unknown \1 '\2'", head)
    head = re.sub(r"^Type mismatch$", "type mismatch", head)
    head = re.sub(r"^Tactic `decide` proved", "tactic 'decide' proved", head)
    head = re.sub(
        r"^Tactic `rfl` failed: The left-hand side", "tactic 'rfl' failed, the left-hand side", head
    )
    if head.startswith("Tactic `rewrite` failed: Did not find an occurrence of the pattern"):
        # The old message names the pattern, then the context; no "in the target expression" block.
        pattern, _, after = rest.partition("\nin the target expression\n")
        context = after.split("\n\n", 1)[1] if "\n\n" in after else ""
        head = (
            "tactic 'rewrite' failed, did not find instance of the pattern in the target expression"
        )
        rest = pattern + ("\n" + context if context else "")
    apply = re.match(r"^Tactic `apply` failed: could not unify the conclusion of `[^`]+`$", head)
    if apply and "\nwith the goal\n" in rest:
        conclusion, _, after = rest.partition("\nwith the goal\n")
        goal, _, context = after.partition("\n\n")
        context = re.sub(r"^Note: The full type of .*?\n\n", "", context, flags=re.DOTALL)
        head = "tactic 'apply' failed, failed to unify"
        rest = f"{conclusion}\nwith\n{goal}\n{context}"
    return head + ("\n" + rest if rest else "")


def earlier_wording(case: Case) -> Case | None:
    new = copy.deepcopy(case)
    for message in new["messages"]:
        message["data"] = _earlier_wording(message["data"])
    if [m["data"] for m in new["messages"]] == [m["data"] for m in case["messages"]]:
        return None
    return new


# `0 < x` as `x > 0` (the same length, so positions hold): Lean prints a hypothesis as written.
_POSITIVE = re.compile(
    r"(?<![\w.'↑|)+*/^-] )(?<![\w.'↑|)])0 (<|≤) ([A-Za-z][\w'₀-₉]*)(?=\s*(?:$|[)\],∧∨→↔:]))",
    re.MULTILINE,
)


def _flipped_text(text: str) -> str:
    return _POSITIVE.sub(lambda m: f"{m.group(2)} {'>' if m.group(1) == '<' else '≥'} 0", text)


def flipped(case: Case) -> Case | None:
    """Every `0 < x` / `0 ≤ x` on a lone variable written `x > 0` / `x ≥ 0`, in the attempt,
    the messages and the literal labels alike."""
    new = copy.deepcopy(case)
    new["problem"] = _flipped_text(case["problem"])
    new["attempt"] = _flipped_text(case["attempt"])
    for message in new["messages"]:
        message["data"] = _flipped_text(message["data"])
    for key in ("accept", "wrong"):
        new[key] = [p if p.startswith("re:") else _flipped_text(p) for p in case[key]]
    return None if new["attempt"] == case["attempt"] else new


REWRITES: dict[str, Callable[[Case], Case | None]] = {
    "`x > 0` for `0 < x`": flipped,
    "Lean's earlier wording": earlier_wording,
    "capital hypothesis names": renamed,
    "`.` for `·`": lambda c: _substituted(c, r"^(\s*)· ", r"\1. "),
    "`↦` after `fun`": lambda c: _substituted(c, r"(fun [^=]*?)=>", r"\1↦"),
    "`h₁` for `h1`": lambda c: renamed(c, {"h1": "h₁", "h2": "h₂"}),
    "four-space indentation": _indented,
    "a comment line after the statement": _moved_down,
    "`lemma` for `theorem`": lambda c: (
        _substituted(c, r"^theorem ", "lemma ", only_line=1)
        if c["library"] == "mathlib" and _sorry_free(c)
        else None
    ),
    "`example` for `theorem`": lambda c: (
        _substituted(c, r"^theorem [\w'.]+", "example", only_line=1) if _sorry_free(c) else None
    ),
    "`<-` for `←`": lambda c: _substituted(c, "← ?", "<- "),
    "`λ` for `fun`": lambda c: _substituted(c, r"\bfun\b", "λ"),
    "`rcases h with` for `obtain … := h`": lambda c: _substituted(
        c, r"obtain (⟨[^:=]*⟩) := ([\w'.₀-₉]+)\s*$", r"rcases \2 with \1"
    ),
    "`Nat` for `ℕ`": lambda c: _substituted(c, "ℕ", "Nat") if c["library"] == "mathlib" else None,
}
