"""The kernel verifier's Lean source against the API conformance table of docs/LEAN.md.

No Lean can run here, so Main.lean is first compiled by `make lean` (and the real-Lean CI
job). Until then, what keeps it honest is the table: every Lean API it calls is listed there
with its signature at the pinned toolchain and the upstream file that uses it the same way.
This test fails when Main.lean calls something the table does not list, when the table
lists something Main.lean no longer calls, and when Main.lean uses an API the table names
as wrong for v4.32.0.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
MAIN = ROOT / "tutor" / "lean" / "verifier" / "Main.lean"
DOC = ROOT / "docs" / "LEAN.md"

# Collection and monad plumbing every Lean program uses; listing each in the table would
# bury the APIs that matter.
_PLUMBING = {
    "push", "size", "insert", "contains", "map", "mapM", "toList", "toArray", "isEmpty",
    "all", "any", "erase", "filter", "get", "getD", "modify", "run", "head?", "isSome",
    "length", "ok", "error", "some", "none", "reverse", "forM", "find?",
    "pure", "throw", "s!", "Array", "List", "Option", "Bool", "Unit", "String", "Nat",
}  # fmt: skip

# Lean's own words: what follows them is syntax or a binder, not a call.
_KEYWORDS = {
    "def", "abbrev", "structure", "partial", "unsafe", "where", "do", "let", "mut", "if",
    "then", "else", "match", "with", "fun", "return", "for", "in", "unless", "continue",
    "break", "try", "catch", "finally", "open", "namespace", "end", "import", "deriving",
    "instance", "private", "protected", "theorem", "by", "have", "show", "from", "at",
    "true", "false", "Type", "Prop", "Sort", "matches",
}  # fmt: skip
_IDENT = r"[A-Za-z_\u03b1-\u03c9][\w?!'\u2080-\u2089]*"


def _code(text: str) -> str:
    """Main.lean without comments and string literals, scanned as Lean reads them (block
    comments nest; `--` inside a string is not a comment)."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("/-", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/-", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("-/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
            out.append(" ")
        elif text.startswith("--", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text[i] == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
            out.append('""')
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _table_tokens() -> set[str]:
    text = DOC.read_text(encoding="utf-8")
    start = text.index("| API | signature at v4.32.0 (as used) | upstream use |")
    rows = text[start:].split("\n\n", 1)[0].splitlines()[2:]
    tokens: set[str] = set()
    for row in rows:
        first = row.split("|")[1]
        for span in re.findall(r"`([^`]*)`", first):
            tokens.update(re.findall(r"[A-Za-z_][\w?!']*", span))
    return tokens


def _defined_here(code: str) -> set[str]:
    names = set(
        re.findall(r"\b(?:def|abbrev|structure|partial def|unsafe def)\s+([\w.?!']+)", code)
    )
    names |= {n.rsplit(".", 1)[-1] for n in names}
    fields = set(re.findall(r"^\s{2}(\w+)\s*:", code, flags=re.MULTILINE))
    return names | fields


def _bound_here(code: str) -> set[str]:
    """Names Main.lean binds itself (parameters, `let`, `fun`, `for`, pattern variables,
    `catch`): a bare name that is none of these, nor defined here, is a Lean global."""

    def names(text: str) -> set[str]:
        return set(re.findall(rf"(?<![\w.`]){_IDENT}", text))

    bound: set[str] = set()
    for group in re.findall(r"[({\[]\s*([^(){}\[\]:]*?)\s*:(?!=)", code):  # (a b : T)
        bound |= set(group.split())
    for pattern in (
        r"\bfun\s+(.*?)=>",
        r"\blet\s+(?:mut\s+)?(.*?)(?::=|←|:)",
        r"\bfor\s+(.*?)\s+in\b",
        r"(?<!\|)\|(?![|>])([^|\n]*?)=>",  # a match alternative's patterns
        r"\bcatch\s+(\w+)",
    ):
        for text in re.findall(pattern, code):
            bound |= names(text)
    return bound


def _apis_used(code: str) -> set[str]:
    used = set(re.findall(r"(?<=[\w)\]?!])\.([A-Za-z][\w?!']*)", code))  # `x.member`
    used |= set(re.findall(r"(?<![\w.])\.([A-Za-z][\w?!']*)", code))  # `.constructor`
    used |= set(re.findall(r"\b([A-Z]\w*)\.", code))  # namespaces: `Json.`, `Kernel.`
    # Bare names: functions, types and named arguments (`readModuleData`, `NonScalar`,
    # `cancelTk?`), not the module and namespace names after `import`/`open`/`namespace`.
    code = re.sub(r"\b(?:import|open|namespace|end)\s+[\w.]+", " ", code)
    bare = set(re.findall(rf"(?<![\w.`@]){_IDENT}", code))
    return used | (bare - _bound_here(code) - _KEYWORDS)


def _unlisted(code: str) -> list[str]:
    return sorted(_apis_used(code) - _table_tokens() - _defined_here(code) - _PLUMBING)


def test_every_api_main_lean_calls_is_in_the_conformance_table() -> None:
    missing = _unlisted(_code(MAIN.read_text(encoding="utf-8")))
    assert missing == [], f"Lean APIs used in Main.lean but not in docs/LEAN.md's table: {missing}"


def test_the_scan_catches_an_api_the_table_does_not_list() -> None:
    # The check above is only as good as its scanner: a new call of each shape must show.
    code = _code(MAIN.read_text(encoding="utf-8"))
    probe = (
        "\ndef probe (k : Nat) : IO Unit := do\n"
        "  let env ← mkEmptyEnvironment\n"  # a bare function
        "  let (_, s) := (CollectAxioms.collect `x).run env |>.run {}\n"  # a namespace
        "  match env.replay' k with\n"  # a member
        "  | .unfoldedTwice e => pure ()\n"  # a constructor
        "  | _ => discard <| evalConst Nat env {} `x (checkMeta := false)\n"  # a named argument
    )
    assert set(_unlisted(code + probe)) >= {
        "mkEmptyEnvironment",
        "CollectAxioms",
        "replay'",
        "unfoldedTwice",
        "evalConst",
        "checkMeta",
        "discard",
    }


def test_the_table_lists_nothing_main_lean_no_longer_calls() -> None:
    code = _code(MAIN.read_text(encoding="utf-8"))
    text = DOC.read_text(encoding="utf-8")
    start = text.index("| API | signature at v4.32.0 (as used) | upstream use |")
    rows = text[start:].split("\n\n", 1)[0].splitlines()[2:]
    stale = []
    for row in rows:
        first = row.split("|")[1]
        names = [n for span in re.findall(r"`([^`]*)`", first)
                 for n in re.findall(r"[A-Za-z_][\w?!']*", span)]  # fmt: skip
        if names and not any(re.search(rf"(?<![\w]){re.escape(n)}(?![\w])", code) for n in names):
            stale.append(first.strip())
    assert stale == []


def test_main_lean_avoids_what_does_not_hold_at_v4_32() -> None:
    code = _code(MAIN.read_text(encoding="utf-8"))
    # `Environment.replay`'s result is `ofKernelEnv` of the replayed kernel environment, whose
    # `Environment.find?` does not see the replayed constants (repl v4.32.0
    # REPL/Lean/Replay.lean:9-15); whether `import Lean` even has it at v4.32.0 is unsettled.
    assert not re.search(r"\breplay\b|ofKernelEnv|Lean\.Replay|readModuleDataParts", code)
    assert not re.search(r"\.trim\b", code)  # deprecated for `trimAscii` (REPL Main.lean:372)
    assert re.findall(r"^import\s+(\S+)", code, flags=re.MULTILINE) == ["Lean"]
    # Every lookup after the replay is on the kernel environment.
    assert "kenv.find?" in code and "env.find?" not in code.replace("kenv.find?", "")
