"""Soundness rules for untrusted Lean: what a proof may contain and which axioms it may use.

A proof is accepted only if Lean reports no error and no sorry, and `#print axioms` on
the proved theorem (queried by its `_root_`-qualified name, so a namespace cannot shadow
it) lists nothing beyond ALLOWED_AXIOMS (this rejects sorryAx, axioms the user declared,
and native_decide's Lean.ofReduceBool).

Two gates run before any Lean process sees untrusted text:
- `proof_rejections` (check_proof, the prover's tactic steps): the user supplies only a
  tactic block. Any command word, any `#` command, `open`, code-running tactics and
  terms (run_tac, by_elab, eval%, ...), IO and meta-programming names are refused. The
  checker then runs the block in Lean's tactic mode, where a command cannot even parse:
  this gate is the first, cheap filter, not the only one.
- `file_rejections` (whole files: check(), the agent's files, lemma listing): files may
  hold declarations, but no command that runs code while the file is elaborated.

Both gates read the text through `blank_comments_and_strings`, a lexer that follows
Lean's own rules for nested block comments, line comments, string escapes, char literals
(`'"'`), raw strings (`r#"..."#`), `«»`-quoted names and `s!` interpolation (whose `{...}`
parts are code and stay visible), so no literal can hide a token and none can be faked.
"""

from __future__ import annotations

import re
from collections.abc import Callable
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


class LexError(ValueError):
    """Text the lexer cannot follow safely (too deeply nested): treat it as refused."""


_MAX_NESTING = 200


def blank_comments_and_strings(text: str) -> str:
    """The same text with comments and literals replaced by spaces.

    Line and column positions are preserved (newlines are kept), so tokens found in the
    result can be reported at their place in the original. The code inside an
    interpolated string's `{...}` is kept: it is elaborated like any other code.
    Raises LexError when nesting passes _MAX_NESTING.
    """
    out = list(text)
    _Lexer(text, out).code(0, 0, closing=None)
    return "".join(out)


def _is_ident_char(char: str) -> bool:
    return char.isalnum() or char in "_'!?." or "\u2080" <= char <= "\u209c"


class _Lexer:
    def __init__(self, text: str, out: list[str]) -> None:
        self.text = text
        self.out = out

    def blank(self, start: int, end: int) -> None:
        for k in range(start, min(end, len(self.out))):
            if self.out[k] != "\n":
                self.out[k] = " "

    def code(self, i: int, depth: int, closing: str | None) -> int:
        """Scan code from i; inside an interpolation stop at its matching `}`.

        Returns the index of that `}` (or len(text))."""
        if depth > _MAX_NESTING:
            raise LexError("comments, strings or interpolations are nested too deeply")
        text, n = self.text, len(self.text)
        braces = 0
        while i < n:
            char = text[i]
            two = text[i : i + 2]
            prev = text[i - 1] if i > 0 else ""
            if two == "/-":
                i = self.block_comment(i, depth + 1)
            elif two == "--":
                end = text.find("\n", i)
                end = n if end < 0 else end
                self.blank(i, end)
                i = end
            elif char == '"':
                interpolated = prev == "!" and i >= 2 and _is_ident_char(text[i - 2])
                i = self.string(i, depth + 1, interpolated)
            elif char == "r" and not _is_ident_char(prev) and self.raw_string_at(i):
                i = self.raw_string(i)
            elif char == "'" and not _is_ident_char(prev):
                i = self.char_literal(i)
            elif char == "«":
                end = text.find("»", i + 1)
                end = n - 1 if end < 0 else end
                self.blank(i + 1, end)
                i = end + 1
            elif char == "{" and closing is not None:
                braces += 1
                i += 1
            elif char == "}" and closing is not None:
                if braces == 0:
                    return i
                braces -= 1
                i += 1
            else:
                i += 1
        return n

    def block_comment(self, i: int, depth: int) -> int:
        text, n = self.text, len(self.text)
        start, nesting, i = i, 1, i + 2
        while i < n and nesting:
            two = text[i : i + 2]
            if two == "/-":
                nesting += 1
                i += 2
            elif two == "-/":
                nesting -= 1
                i += 2
            else:
                i += 1
            if nesting > _MAX_NESTING:
                raise LexError("block comments are nested too deeply")
        self.blank(start, i)
        return i

    def string(self, i: int, depth: int, interpolated: bool) -> int:
        """A string literal starting at the quote i; returns the index after it."""
        text, n = self.text, len(self.text)
        start, i = i, i + 1
        while i < n:
            char = text[i]
            if char == "\\":
                i += 2
            elif char == '"':
                self.blank(start, i + 1)
                return i + 1
            elif char == "{" and interpolated:
                self.blank(start, i + 1)
                i = self.code(i + 1, depth + 1, closing="}")
                start = i  # the `}` and what follows are literal again
                i += 1
            else:
                i += 1
        self.blank(start, n)
        return n

    def raw_string_at(self, i: int) -> bool:
        j = i + 1
        while j < len(self.text) and self.text[j] == "#":
            j += 1
        return j < len(self.text) and self.text[j] == '"'

    def raw_string(self, i: int) -> int:
        text = self.text
        j = i + 1
        while text[j] == "#":
            j += 1
        hashes = j - i - 1
        end = text.find('"' + "#" * hashes, j + 1)
        end = len(text) if end < 0 else end + 1 + hashes
        self.blank(i, end)
        return end

    def char_literal(self, i: int) -> int:
        """`'a'`, `'"'`, `'\\''`, `'\\x41'`, `'\\u{1F600}'`; a lone `'` is left alone."""
        text, n = self.text, len(self.text)
        if i + 1 >= n:
            return i + 1
        if text[i + 1] == "\\":
            close = text.find("'", i + 3)
            if close < 0 or close - i > 14 or "\n" in text[i:close]:
                return i + 1
            self.blank(i, close + 1)
            return close + 1
        if i + 2 < n and text[i + 2] == "'" and text[i + 1] != "\n":
            self.blank(i, i + 3)
            return i + 3
        return i + 1


# Commands that declare code Lean runs while it elaborates later text (simprocs, binder
# predicates): refused in proofs and in whole files alike.
_CODE_DECLARING_COMMANDS = frozenset(
    [
        "simproc",
        "simproc_decl",
        "dsimproc",
        "dsimproc_decl",
        "builtin_simproc",
        "builtin_simproc_decl",
        "builtin_dsimproc",
        "builtin_dsimproc_decl",
        "binder_predicate",
    ]
)
# Names that escape the kernel check or cast types unsafely: refused in proofs and files.
_KERNEL_BYPASS_NAMES = frozenset(
    [
        "skipKernelTC",
        "unsafeIO",
        "unsafeBaseIO",
        "unsafeEIO",
        "unsafeCast",
        "ofReduceBool",
    ]
)
# Command keywords: none can appear inside a tactic block, so any of them in a proof means
# the proof tries to leave the posed theorem.
_COMMAND_WORDS = (
    frozenset(
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
            "omit",
            "include",
            "open",
            "local",
            "scoped",
            "add_decl_doc",
            "register_simp_attr",
            "register_option",
            "declare_config_elab",
        ]
    )
    | _CODE_DECLARING_COMMANDS
)
# Tactics, terms and names that run arbitrary (meta-)code or weaken the kernel check.
# A dotted name is refused when any of its components is listed.
_META_WORDS = (
    frozenset(
        [
            "run_tac",
            "by_elab",
            "eval%",
            "implemented_by",
            "extern",
            "debug",
            "Elab",
            "Meta",
            "IO",
            "EIO",
            "BaseIO",
            "ptrAddrUnsafe",
            "dbgTrace",
            "dbg_trace",
            "dbgTraceIfShared",
            "Environment",
            "addDecl",
            "addAndCompile",
            "modifyEnv",
            "setEnv",
            "evalExpr",
            "evalConst",
            "evalTactic",
            "trustCompiler",
            "System",
            "Process",
            "FS",
            "initialize",
        ]
    )
    | _KERNEL_BYPASS_NAMES
)
# A whole file may declare things, but not run code while it is elaborated.
_FILE_COMMAND_WORDS = (
    frozenset(
        [
            "run_cmd",
            "run_elab",
            "run_meta",
            "run_tac",
            "by_elab",
            "eval%",
            "elab",
            "elab_rules",
            "macro",
            "macro_rules",
            "initialize",
            "builtin_initialize",
            "unsafe",
            "implemented_by",
            "extern",
            "declare_config_elab",
        ]
    )
    | _CODE_DECLARING_COMMANDS
    | _KERNEL_BYPASS_NAMES
)
_FILE_HASH_COMMANDS = frozenset({"#check", "#print", "#reduce", "#synth"})
_TOKEN = re.compile(r"(?:#|[^\W\d])[\w.'!?%]*")


@dataclass(frozen=True)
class Rejection:
    line: int  # 1-based within the text
    column: int
    end_column: int
    message: str


def proof_rejections(proof: str) -> list[Rejection]:
    """Why a user's tactic block is not allowed (empty list: it may go to Lean)."""
    return _rejections(proof, _why_rejected_in_proof, refuse_quotations=True)


def file_rejections(code: str) -> list[Rejection]:
    """Why a whole file may not be elaborated (it would run code); empty: it may."""
    return _rejections(code, _why_rejected_in_file, refuse_quotations=False)


def _rejections(
    text: str, why: Callable[[str, str], str | None], *, refuse_quotations: bool
) -> list[Rejection]:
    bad = _bad_characters(text)
    if bad:
        return bad
    try:
        blanked = blank_comments_and_strings(text)
    except LexError as exc:
        return [Rejection(1, 0, 1, str(exc))]
    rejections: list[Rejection] = []
    for line_no, line in enumerate(blanked.split("\n"), start=1):
        if refuse_quotations and "`" in line:
            column = line.index("`")
            message = (
                "quoted names and syntax quotations (`) are meta-programming and are not "
                "allowed in a proof"
            )
            rejections.append(Rejection(line_no, column, column + 1, message))
        for match in _TOKEN.finditer(line):
            word = match.group(0).rstrip(".")
            reason = why(word, line[match.end() :])
            if reason:
                rejections.append(Rejection(line_no, match.start(), match.end(), reason))
    return rejections


def _bad_characters(text: str) -> list[Rejection]:
    """A lone surrogate cannot be sent to Lean (not UTF-8); NUL bytes are refused too."""
    for line_no, line in enumerate(text.split("\n"), start=1):
        for column, char in enumerate(line):
            if "\ud800" <= char <= "\udfff" or char == "\x00":
                return [
                    Rejection(
                        line_no,
                        column,
                        column + 1,
                        f"the text holds an invalid character (U+{ord(char):04X}); "
                        "remove it and try again",
                    )
                ]
    return []


def _why_rejected_in_proof(word: str, rest_of_line: str) -> str | None:
    if word.startswith("#"):
        return f"`{word}` is a command; a proof may only contain tactics for the posed statement"
    if word in _COMMAND_WORDS:
        return (
            f"`{word}` starts a new command; a proof may only contain tactics for the posed "
            "statement"
        )
    if word in _META_WORDS or any(part in _META_WORDS for part in word.split(".")):
        return f"`{word}` runs meta-code or bypasses the kernel check and is not allowed in a proof"
    if word == "set_option":
        if not re.search(r"\bin\b", rest_of_line):
            return "`set_option` is allowed in a proof only as `set_option ... in <tactic>`"
        option = rest_of_line.split()[0] if rest_of_line.split() else ""
        if not option.startswith(("maxHeartbeats", "maxRecDepth", "pp.")):
            return f"`set_option {option}` is not allowed in a proof"
    return None


def _why_rejected_in_file(word: str, rest_of_line: str) -> str | None:
    if word.startswith("#") and word not in _FILE_HASH_COMMANDS:
        return f"`{word}` runs code while the file is checked and is not allowed"
    if word in _FILE_COMMAND_WORDS or any(p in _FILE_COMMAND_WORDS for p in word.split(".")):
        return f"`{word}` runs code while the file is checked and is not allowed"
    if word == "set_option" and ("debug." in rest_of_line or "skipKernel" in rest_of_line):
        return "this `set_option` switches off kernel checks and is not allowed"
    return None


# -- refusals from Lean's parsed syntax ------------------------------------------------

# Syntax kinds (last component) of tactics, terms and commands that run code. Lean names
# them in the REPL's infotree (`stx.kind`); run_tac is `Lean.Parser.Tactic.runTac`,
# by_elab `Lean.Parser.Term.byElab` (Mathlib's older `Mathlib.RunCmd.byElab`).
CODE_RUNNING_KINDS = frozenset(
    {"runTac", "byElab", "evalTerm", "eval", "evalBang", "runCmd", "runElab", "runMeta"}
)
_DECLARATION_KIND = "Lean.Parser.Command.declaration"
_EOI_KIND = "Lean.Parser.Command.eoi"


def syntax_refusal(infotree: object, proof_line: int | None = None) -> str | None:
    """Why an elaborated check_proof body is refused from its parsed syntax, or None.

    The body is the course's lines, then the posed declaration holding the proof (from
    body line proof_line on): the last command Lean parsed must be a declaration, none may
    start inside the proof (a proof that became more commands shows as more roots), and
    no node anywhere may be of a code-running kind."""
    if not isinstance(infotree, list):
        return "Lean returned no syntax tree to confirm the proof's structure"
    commands = [root for root in infotree if _stx_kind(root) != _EOI_KIND]
    kinds = [_stx_kind(root) for root in commands]
    escaped = proof_line is not None and any(_start_line(r) >= proof_line for r in commands)
    if not kinds or kinds[-1] != _DECLARATION_KIND or escaped:
        return f"the proof did not stay inside the posed theorem (Lean parsed: {kinds})"
    pending = list(infotree)
    while pending:
        node = pending.pop()
        if not isinstance(node, dict):
            continue
        kind = _stx_kind(node)
        if kind and kind.rsplit(".", 1)[-1] in CODE_RUNNING_KINDS:
            return f"the proof uses `{kind}`, which runs code, and is not accepted"
        children = node.get("children")
        if isinstance(children, list):
            pending.extend(children)
    return None


def _start_line(node: object) -> int:
    try:
        return int(node["node"]["stx"]["range"]["start"]["line"])  # type: ignore[index]
    except (KeyError, TypeError, ValueError):
        return 0


def _stx_kind(node: object) -> str | None:
    if not isinstance(node, dict) or not isinstance(node.get("node"), dict):
        return None
    stx = node["node"].get("stx")
    return stx.get("kind") if isinstance(stx, dict) else None


# -- which declarations a file makes ---------------------------------------------------

_DECL_KINDS = frozenset({"theorem", "lemma", "def", "abbrev", "instance", "opaque", "example"})
# Declarations that can hold a proof but whose axioms we cannot query by name: refuse.
_UNQUERYABLE = frozenset(
    {"structure", "class", "inductive", "coinductive", "mutual", "axiom", "axioms"}
)
_MODIFIERS = frozenset({"noncomputable", "protected", "partial", "nonrec", "unsafe", "private"})
_NAME = re.compile(r"[^\s:({\[⦃@]+")


class UnknownDeclarations(ValueError):
    """The file's declarations cannot be named with certainty: fail closed."""


@dataclass(frozen=True)
class Declared:
    name: str  # full name, namespaces applied (no `_root_.`)
    private: bool
    kind: str
    line: int  # 1-based
    column: int  # of the kind keyword

    @property
    def query(self) -> str:
        """How `#print axioms` must name it: `_root_`-qualified so no namespace the file
        is still inside (or one it opened) can shadow it; private names by their own."""
        return self.name if self.private else f"_root_.{self.name}"


def declarations(code: str) -> list[Declared]:
    """Every `theorem/lemma/def/abbrev/instance NAME/opaque` the file declares, found
    token by token (attributes with nested brackets, several declarations on one line,
    namespaces opened and closed anywhere). Raises UnknownDeclarations when a declaration
    that could carry a proof has no name we can read (an anonymous instance, a structure
    or inductive with proofs in it, an `example` left unnamed)."""
    blanked = _strip_attributes(blank_comments_and_strings(code))
    tokens = [
        (m.group(0), line_no, m.start(), m.end(), line)
        for line_no, line in enumerate(blanked.split("\n"), start=1)
        for m in re.finditer(r"\S+", line)
    ]
    found: list[Declared] = []
    scopes: list[tuple[str, str]] = []
    index = 0
    while index < len(tokens):
        word, line_no, column, _end, _line = tokens[index]
        following = tokens[index + 1][0] if index + 1 < len(tokens) else ""
        if word == "namespace" and following:
            scopes.append(("namespace", following))
            index += 2
            continue
        if word == "section":
            name = following if following and _NAME.fullmatch(following) else ""
            scopes.append(("section", "" if following in _DECL_KINDS else name))
            index += 1
            continue
        if word == "end":
            _close_scope(scopes, following if following and _NAME.fullmatch(following) else "")
            index += 1
            continue
        if word in _UNQUERYABLE:
            if word in ("axiom", "axioms"):
                index += 1  # an axiom is caught where it is used (it shows in #print axioms)
                continue
            raise UnknownDeclarations(
                f"a `{word}` declaration (line {line_no}) can hide proofs whose axioms "
                "cannot be printed; this check cannot vouch for the file"
            )
        if word in _DECL_KINDS:
            if word == "example":
                raise UnknownDeclarations(f"an unnamed `example` remains on line {line_no}")
            private = _is_private(tokens, index)
            name_match = _NAME.match(following)
            if word == "instance" and (not name_match or following.startswith(("(", "["))):
                raise UnknownDeclarations(
                    f"the instance on line {line_no} has no name, so its axioms cannot be "
                    "printed; name it (`instance myName : ...`)"
                )
            if not name_match or name_match.group(0) in _DECL_KINDS:
                raise UnknownDeclarations(f"cannot read the name declared on line {line_no}")
            found.append(
                Declared(_full_name(scopes, name_match.group(0)), private, word, line_no, column)
            )
            index += 2
            continue
        index += 1
    return found


def _strip_attributes(blanked: str) -> str:
    """Blank every `@[...]` (brackets nested to any depth), keeping positions."""
    out = list(blanked)
    i = blanked.find("@[")
    while i >= 0:
        depth, j = 0, i + 1
        while j < len(blanked):
            if blanked[j] == "[":
                depth += 1
            elif blanked[j] == "]":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        for k in range(i, min(j + 1, len(out))):
            if out[k] != "\n":
                out[k] = " "
        i = blanked.find("@[", j + 1)
    return "".join(out)


def _is_private(tokens: list[tuple[str, int, int, int, str]], index: int) -> bool:
    back = index - 1
    while back >= 0 and tokens[back][0] in _MODIFIERS:
        if tokens[back][0] == "private":
            return True
        back -= 1
    return False


def declared_names(code: str) -> list[str]:
    """Full names of the named declarations a file makes (namespaces applied); public
    and private alike. Raises UnknownDeclarations where it cannot tell (see declarations)."""
    return [d.name for d in declarations(code)]


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
