"""Soundness rules for untrusted Lean: what a proof may contain and which axioms it may use.

A proof is accepted only if Lean reports no error and no sorry, and `#print axioms` on
the proved theorem lists nothing beyond ALLOWED_AXIOMS (this rejects sorryAx, axioms the
user declared, and native_decide's Lean.ofReduceBool).

For check_proof the user supplies only the tactic block after the course's `:= by`. A
tactic block cannot contain a command, so a proof that holds a command keyword
(`theorem`, `axiom`, `#eval`, ...) is trying to end the posed theorem early and add
declarations or run code; such proofs are rejected before Lean sees them, as are the few
tactics that run arbitrary meta-code (run_tac, by_elab, ...) or switch off the kernel
check (debug.skipKernelTC). This gate is lexical (comments and strings are blanked first);
it is a belt on top of the axiom check and the sandbox, not a replacement for them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ALLOWED_AXIOMS = frozenset({"propext", "Classical.choice", "Quot.sound"})

_AXIOMS_LIST = re.compile(r"depends on axioms:\s*\[(.*?)\]", re.DOTALL)
_NO_AXIOMS = re.compile(r"does not depend on any axioms", re.IGNORECASE)


def parse_axioms_message(message: str) -> list[str] | None:
    """Axiom names from a `#print axioms` reply (either quote style); None if not one."""
    listed = _AXIOMS_LIST.search(message)
    if listed:
        return [name.strip() for name in listed.group(1).split(",") if name.strip()]
    if _NO_AXIOMS.search(message):
        return []
    return None


def disallowed_axioms(axioms: list[str]) -> list[str]:
    return sorted(set(axioms) - ALLOWED_AXIOMS)


def blank_comments_and_strings(text: str) -> str:
    """The same text with comments and string literals replaced by spaces.

    Line and column positions are preserved (newlines are kept), so tokens found in the
    result can be reported at their place in the original. Handles nested block comments.
    """
    out = list(text)
    i, n, depth = 0, len(text), 0
    while i < n:
        two = text[i : i + 2]
        if depth:
            if two == "/-":
                depth += 1
                _blank(out, i, i + 2)
                i += 2
            elif two == "-/":
                depth -= 1
                _blank(out, i, i + 2)
                i += 2
            else:
                _blank(out, i, i + 1)
                i += 1
        elif two == "/-":
            depth = 1
            _blank(out, i, i + 2)
            i += 2
        elif two == "--":
            end = text.find("\n", i)
            end = n if end < 0 else end
            _blank(out, i, end)
            i = end
        elif text[i] == '"':
            end = i + 1
            while end < n and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            _blank(out, i, min(end + 1, n))
            i = end + 1
        else:
            i += 1
    return "".join(out)


def _blank(chars: list[str], start: int, end: int) -> None:
    for k in range(start, min(end, len(chars))):
        if chars[k] != "\n":
            chars[k] = " "


# Command keywords: none can appear inside a tactic block, so any of them in a proof means
# the proof tries to leave the posed theorem.
_COMMAND_WORDS = frozenset(
    [
        "theorem",
        "lemma",
        "def",
        "axiom",
        "axioms",
        "example",
        "instance",
        "abbrev",
        "opaque",
        "structure",
        "class",
        "inductive",
        "coinductive",
        "mutual",
        "namespace",
        "section",
        "end",
        "universe",
        "variable",
        "import",
        "macro",
        "macro_rules",
        "syntax",
        "elab",
        "elab_rules",
        "notation",
        "infix",
        "infixl",
        "infixr",
        "prefix",
        "postfix",
        "initialize",
        "builtin_initialize",
        "declare_syntax_cat",
        "attribute",
        "run_cmd",
        "run_elab",
        "run_meta",
        "noncomputable",
        "private",
        "protected",
        "partial",
        "unsafe",
        "export",
        "deriving",
        "#eval",
        "#exit",
        "#print",
        "#check",
        "#reduce",
        "#synth",
        "#guard_msgs",
        "#help",
    ]
)
# Tactics and terms that run arbitrary meta-code or weaken the kernel check.
_META_WORDS = frozenset(
    [
        "run_tac",
        "by_elab",
        "eval%",
        "implemented_by",
        "extern",
        "debug.skipKernelTC",
        "skipKernelTC",
        "Lean.Elab",
        "Lean.Meta",
        "Lean.Environment",
        "addDecl",
        "addAndCompile",
        "modifyEnv",
        "setEnv",
        "ofReduceBool",
        "Lean.ofReduceBool",
    ]
)
# Allowed only as the `... in <tactic>` prefix form, which stays inside the block.
_PREFIX_WORDS = frozenset({"open", "set_option"})
_TOKEN = re.compile(r"[#A-Za-z_][A-Za-z0-9_.'!?%]*")


@dataclass(frozen=True)
class Rejection:
    line: int  # 1-based within the proof text
    column: int
    end_column: int
    message: str


def proof_rejections(proof: str) -> list[Rejection]:
    """Why a user's tactic block is not allowed (empty list: it may go to Lean)."""
    rejections: list[Rejection] = []
    for line_no, line in enumerate(blank_comments_and_strings(proof).split("\n"), start=1):
        for match in _TOKEN.finditer(line):
            word = match.group(0).rstrip(".")
            reason = _why_rejected(word, line[match.end() :])
            if reason:
                rejections.append(Rejection(line_no, match.start(), match.end(), reason))
    return rejections


def _why_rejected(word: str, rest_of_line: str) -> str | None:
    if word in _COMMAND_WORDS:
        return (
            f"`{word}` starts a new command; a proof may only contain tactics for the posed "
            "statement"
        )
    if word in _META_WORDS or any(word.startswith(m + ".") for m in _META_WORDS):
        return f"`{word}` runs meta-code or bypasses the kernel check and is not allowed in a proof"
    if word in _PREFIX_WORDS:
        if "skipKernelTC" in rest_of_line or " debug." in f" {rest_of_line}":
            return f"this `{word}` switches off kernel checks and is not allowed in a proof"
        if not re.search(r"\bin\b", rest_of_line):
            return f"`{word}` is allowed in a proof only as `{word} ... in <tactic>`"
    return None


_DECLARATION = re.compile(
    r"^(?:(?:set_option\s+\S+\s+\S+|open\s+[^\n]*?)\s+in\s+)*"
    r"(?:@\[[^\]]*\]\s*)?(?:(?:noncomputable|protected|partial|nonrec|unsafe)\s+)*"
    r"(?P<kind>theorem|lemma|def|abbrev|instance|opaque)\s+(?P<name>[^\s:({\[⦃]+)"
)
_PRIVATE = re.compile(r"^(?:@\[[^\]]*\]\s*)?private\s")


def declared_names(code: str) -> list[str]:
    """Full names of the named theorems/defs a file declares (namespaces applied).

    Skips `example` (unnamed: `#print axioms` cannot reach it), `private` declarations
    (their names are mangled) and unnamed instances.
    """
    names: list[str] = []
    scopes: list[tuple[str, str]] = []  # ("namespace" | "section", name)
    for raw in blank_comments_and_strings(code).split("\n"):
        line = raw.strip()
        words = line.split()
        if not words:
            continue
        if words[0] == "namespace" and len(words) > 1:
            scopes.append(("namespace", words[1]))
        elif words[0] == "section":
            scopes.append(("section", words[1] if len(words) > 1 else ""))
        elif words[0] == "end" and scopes:
            _close_scope(scopes, words[1] if len(words) > 1 else "")
        elif not _PRIVATE.match(line):
            match = _DECLARATION.match(line)
            if match and not (match.group("kind") == "instance" and match.group("name") == ":"):
                names.append(_full_name(scopes, match.group("name")))
    return names


def _close_scope(scopes: list[tuple[str, str]], name: str) -> None:
    # `end A.B` closes `namespace A.B`; `end` closes an anonymous section.
    while scopes:
        kind, scope_name = scopes.pop()
        if scope_name == name or not name:
            return


def _full_name(scopes: list[tuple[str, str]], name: str) -> str:
    if name.startswith("_root_."):
        return name[len("_root_.") :]
    prefix = [scope_name for kind, scope_name in scopes if kind == "namespace"]
    return ".".join([*prefix, name])
