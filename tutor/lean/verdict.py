"""Soundness rules for untrusted Lean: what a proof may contain and which axioms it may use.

A proof is accepted only if Lean reports no error and no sorry, and `#print axioms` on
the proved theorem (queried by its `_root_`-qualified name, so a namespace cannot shadow
it) lists nothing beyond ALLOWED_AXIOMS (this rejects sorryAx, axioms the user declared,
and native_decide's: at v4.32 one axiom per use, `NAME._native.native_decide.ax_1_1`,
lean4#12217; `Lean.ofReduceBool` on older toolchains).

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
    found = _rejections(proof, _why_rejected_in_proof, refuse_quotations=True)
    return found + _attribute_rejections(proof)


def file_rejections(code: str) -> list[Rejection]:
    """Why a whole file may not be elaborated (it would run code); empty: it may."""
    found = _rejections(code, _why_rejected_in_file, refuse_quotations=False)
    return found + _attribute_rejections(code)


# Attributes a checked text may use: they tag declarations for Lean's own fixed automation.
# Any other attribute can attach code that Lean then runs while it elaborates the rest of
# the file, e.g. `syntax "x" : command` plus `@[command_elab x] def f : CommandElab := ...`
# (likewise `tactic`, `term_elab`, `macro`, `delab`, `app_unexpander`, `init`, `export`,
# and Mathlib's `norm_num` / `positivity` extensions and `aesop ... tactic` rules).
_ALLOWED_ATTRIBUTES = frozenset(
    {
        "simp",
        "reducible",
        "irreducible",
        "semireducible",
        "instance",
        "inline",
        "noinline",
        "specialize",
        "ext",
        "refl",
        "symm",
        "trans",
        "congr",
        "elab_as_elim",
        "induction_eliminator",
        "cases_eliminator",
        "match_pattern",
        "nolint",
        "deprecated",
        "pp_nodot",
        "norm_cast",
        "push_cast",
        "simps",
        "to_additive",
        "coe",
        "gcongr",
        "mono",
        "fun_prop",
        "grind",
        "class",
    }
)
_ATTRIBUTE_LIST = re.compile(r"@\[|(?<![\w.'])attribute\s*\[")
_ATTRIBUTE_SCOPES = frozenset({"local", "scoped"})


def _attribute_rejections(text: str) -> list[Rejection]:
    """Every attribute in `@[...]` and `attribute [...]` must be one of _ALLOWED_ATTRIBUTES."""
    try:
        blanked = blank_comments_and_strings(text)
    except LexError:
        return []  # _rejections already refused the text
    found: list[Rejection] = []
    for match in _ATTRIBUTE_LIST.finditer(blanked):
        start = match.end()  # just past the `[`
        depth, i, entry_start = 0, start, start
        entries: list[tuple[int, str]] = []
        while i < len(blanked):
            char = blanked[i]
            if char in "[(⟨{":
                depth += 1
            elif char in "])⟩}":
                if depth == 0:
                    break
                depth -= 1
            elif char == "," and depth == 0:
                entries.append((entry_start, blanked[entry_start:i]))
                entry_start = i + 1
            i += 1
        entries.append((entry_start, blanked[entry_start:i]))
        for offset, entry in entries:
            words = entry.split()
            while words and words[0] in _ATTRIBUTE_SCOPES:
                words = words[1:]
            name = words[0].lstrip("-") if words else ""
            if not name or name in _ALLOWED_ATTRIBUTES:
                continue
            at = offset + entry.index(name)
            line = blanked.count("\n", 0, at) + 1
            column = at - (blanked.rfind("\n", 0, at) + 1)
            found.append(
                Rejection(
                    line,
                    column,
                    column + len(name),
                    f"the attribute `{name}` is not allowed here: attributes other than "
                    "Lean's own automation tags can attach code that runs while the file "
                    "is checked",
                )
            )
    return found


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


# -- which declarations a file makes ---------------------------------------------------

_DECL_KINDS = frozenset({"theorem", "lemma", "def", "abbrev", "instance", "opaque", "example"})
# Declarations that can hold a proof but whose axioms we cannot query by name: refuse.
_UNQUERYABLE = frozenset(
    {"structure", "class", "inductive", "coinductive", "mutual", "axiom", "axioms"}
)
_MODIFIERS = frozenset({"noncomputable", "protected", "partial", "nonrec", "unsafe", "private"})


class UnknownDeclarations(ValueError):
    """The file's declarations cannot be named with certainty: fail closed."""


@dataclass(frozen=True)
class Declared:
    name: str  # full name as Lean source text, namespaces applied (no `_root_.`)
    private: bool
    kind: str
    line: int  # 1-based
    column: int  # of the kind keyword
    components: tuple[str, ...] = ()  # the name's parts, «» removed, universes dropped

    @property
    def parts(self) -> tuple[str, ...]:
        """The name as Lean's `Name` components (what the kernel verifier is given: a
        dotted string would break `«a.b»` and `foo.{u}`)."""
        return self.components or tuple(self.name.split("."))

    @property
    def query(self) -> str:
        """How `#print axioms` must name it: `_root_`-qualified so no namespace the file
        is still inside (or one it opened) can shadow it; private names by their own."""
        return self.name if self.private else f"_root_.{self.name}"


_PLAIN_COMPONENT = re.compile(r"[^\W\d][\w'!?\u2080-\u209c]*")


def render_name(components: tuple[str, ...]) -> str:
    """Components as Lean source text: «» around any part that is not a plain identifier."""
    return ".".join(c if _PLAIN_COMPONENT.fullmatch(c) else f"«{c}»" for c in components)


def read_name(line: str, column: int) -> tuple[tuple[str, ...], int] | None:
    """The identifier starting at `column` of a source line: (components, end column).

    Follows Lean's identifier syntax as far as names in declarations need it: parts joined
    by `.`, each plain (`foo'`, `h₁`) or quoted (`«my thm»`); `.{u, v}` (explicit
    universes) ends the name. None when no identifier starts there."""
    parts: list[str] = []
    i = column
    while True:
        if i < len(line) and line[i] == "«":
            end = line.find("»", i + 1)
            if end < 0:
                return None
            parts.append(line[i + 1 : end])
            i = end + 1
        else:
            j = i
            while j < len(line) and _is_ident_char(line[j]) and line[j] != ".":
                j += 1
            if j == i or line[i].isdigit():
                return None
            parts.append(line[i:j])
            i = j
        if i + 1 < len(line) and line[i] == "." and line[i + 1] != "{":
            i += 1
            continue
        return tuple(parts), i


def declarations(code: str) -> list[Declared]:
    """Every `theorem/lemma/def/abbrev/instance NAME/opaque` the file declares, found
    token by token (attributes with nested brackets, several declarations on one line,
    namespaces opened and closed anywhere; names read from the source, so `«my thm»` and
    `foo.{u}` come out whole). Raises UnknownDeclarations when a declaration that could
    carry a proof has no name we can read (an anonymous instance, a structure or inductive
    with proofs in it, an `example` left unnamed)."""
    blanked = _strip_attributes(blank_comments_and_strings(code))
    source = code.split("\n")
    tokens = [
        (m.group(0), line_no, m.start(), m.end(), line)
        for line_no, line in enumerate(blanked.split("\n"), start=1)
        for m in re.finditer(r"\S+", line)
    ]

    def name_after(index: int, same_line: bool = False) -> tuple[tuple[str, ...] | None, int]:
        """The name in the token after `index` and the index of the first token past it
        (`same_line`: only a name on the keyword's own line counts, as after `end`)."""
        if index + 1 >= len(tokens) or (same_line and tokens[index + 1][1] != tokens[index][1]):
            return None, index + 1
        _, line_no, column, _, _ = tokens[index + 1]
        read = read_name(source[line_no - 1], column)
        if read is None:
            return None, index + 2
        parts, end = read
        after = index + 1
        while after < len(tokens) and tokens[after][1] == line_no and tokens[after][2] < end:
            after += 1
        return parts, after

    found: list[Declared] = []
    scopes: list[tuple[str, tuple[str, ...]]] = []
    index = 0
    while index < len(tokens):
        word, line_no, column, _end, _line = tokens[index]
        if word == "namespace":
            parts, after = name_after(index)
            if parts:
                scopes.append(("namespace", parts))
            index = after
            continue
        if word in ("section", "end"):
            parts, after = name_after(index, same_line=True)
            if parts is not None and parts[0] in _DECL_KINDS | _UNQUERYABLE | _MODIFIERS:
                parts, after = None, index + 1  # `section` then a declaration: anonymous
            if word == "section":
                scopes.append(("section", parts or ()))
            else:
                _close_scope(scopes, parts or ())
            index = after if parts is not None else index + 1
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
            following = tokens[index + 1][0] if index + 1 < len(tokens) else ""
            parts, after = name_after(index)
            if word == "instance" and (parts is None or following.startswith(("(", "["))):
                raise UnknownDeclarations(
                    f"the instance on line {line_no} has no name, so its axioms cannot be "
                    "printed; name it (`instance myName : ...`)"
                )
            if parts is None or parts[0] in _DECL_KINDS:
                raise UnknownDeclarations(f"cannot read the name declared on line {line_no}")
            full = _full_name(scopes, parts)
            found.append(Declared(render_name(full), private, word, line_no, column, full))
            index = after
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


def _close_scope(scopes: list[tuple[str, tuple[str, ...]]], name: tuple[str, ...]) -> None:
    # `end A.B` closes `namespace A.B`; `end` closes an anonymous section.
    while scopes:
        _kind, scope_name = scopes.pop()
        if scope_name == name or not name:
            return


def _full_name(scopes: list[tuple[str, tuple[str, ...]]], name: tuple[str, ...]) -> tuple[str, ...]:
    if name[0] == "_root_":
        return name[1:]
    prefix = [part for kind, scope_name in scopes if kind == "namespace" for part in scope_name]
    return (*prefix, *name)
