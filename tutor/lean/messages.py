"""Classify Lean's messages into DiagnosticKind and pull out what Lean printed inside them.

Lean's wording drifts between versions: 'quotes' became `backticks`, many messages gained a
capital ("Type mismatch", "Unknown identifier", "No goals to be solved"), some were reworded
("rewrite failed, did not find instance of the pattern" -> "Tactic `rewrite` failed: Did not
find an occurrence of the pattern"; "application type mismatch" -> "Application type mismatch:
In the application" / "...: The argument"), and newer compilers prefix an error name
(`error(lean.unknownIdentifier): ...`). So we drop such prefixes, fold case, drop every quote
character and match the opening words against a few patterns per kind.

The patterns were written against the recorded corpus in ../shared/data/lean_transcripts
(tests/tutor/lean/test_messages_corpus.py measures coverage, with a held-out third of the
recorded test files that no pattern was tuned on).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tutor.lean.types import DiagnosticKind

_QUOTES = re.compile(r"[`'\"‘’“”]")
# "Lean error:\n<input>:1:1: ..." (REPL tactic-mode replies), "error(lean.x): ..." (compiler
# output with error names), "Foo.lean:3:4: error: ..." (a header left on by a caller).
_PREFIX = re.compile(
    r"^\s*(?:lean error:\s*)?(?:<input>:\d+:\d+:\s*)?"
    r"(?:\S+\.lean:\d+:\d+(?:-\d+:\d+)?:\s*)?(?:(?:error|warning)(?:\([\w.]+\))?:\s*)?",
    re.IGNORECASE,
)

K = DiagnosticKind

# (kind, patterns matched with re.match on the normalised opening). Order matters: the first
# match wins, so specific openings come before looser ones (a `cases` alternative mismatch
# before "type mismatch", "failed to synthesize" before the generic "X failed").
_RULES: tuple[tuple[DiagnosticKind, tuple[str, ...]], ...] = (
    (K.UNSOLVED_GOALS, (r"unsolved goals",)),
    (K.NO_GOALS, (r"no goals( to be solved| to prove)?\b",)),
    (K.KERNEL, (r"\(kernel\)",)),
    (K.SORRY, (r"declaration (\S+ )?uses sorry",)),
    (
        K.CASES_ERROR,
        (
            r"alternative .* (has not been provided|is not needed)",
            r"(duplicate|redundant|unused|invalid) alternative",
            r"invalid occurrence of (the )?wildcard alternative",
            r"wildcard alternative is not needed",
            r"insufficient number of targets",
            r"invalid target",
            r"(unexpected eliminator|expected resulting type of eliminator)",
            r"dependent elimination failed",
            r"case tag .* not found",
            r"invalid pattern",
            r"missing cases",
            r"index in target.s type is not a variable",
            r"tactic (induction|cases) failed",
        ),
    ),
    (
        K.DECLARATION,
        (
            r".* has already been declared",
            r".*universe (level|parameters|mismatch)",
            r"constructor (field|resulting type)",
            r"unexpected constructor resulting type",
            r"invalid (mutually|mutual|inductive|resulting type|use of (noncomputable|partial))",
            r"invalid (private|protected) (constructor|field)",
            r"(partial|unsafe) theorems are not allowed",
            r"failed to compile( partial)? (definition|partial)",
            r"field .* (has already been declared|has been declared in parent)",
            r"omit field",
            r"duplicate parent structure",
            r"definition .* of class type must be marked",
            r"declaration is not a definition",
            r"invalid \{\.\.\.\} notation, constructor for .* is marked as private",
            r"invalid ⟨\.\.\.⟩ notation, constructor for .* is marked as private",
            r"❌️? docstring on #guard_msgs",
        ),
    ),
    (
        K.TYPE_MISMATCH,
        (r"(application |field )?type mismatch", r"type expected", r"expected type must be a type"),
    ),
    (
        K.UNKNOWN_IDENTIFIER,
        (r"unknown (identifier|namespace)", r"unknown free variable"),
    ),
    (K.UNKNOWN_CONSTANT, (r"unknown (constant|declaration)",)),
    (K.UNKNOWN_TACTIC, (r"unknown tactic",)),
    (K.LINARITH_FAILED, (r"(tactic )?n?linarith failed",)),
    (K.OMEGA_FAILED, (r"(tactic )?omega (could not|failed)", r"omega did not")),
    (K.SIMP_NO_PROGRESS, (r"(d?simp|simp_all|simp_arith|dsimp only|simp only) made no progress",)),
    (
        K.REWRITE_FAILED,
        (
            r"(tactic )?rewrite failed",
            r"did not find (an occurrence|instance) of the pattern",
            r"motive is not type correct",
            r"(tactic )?rw failed",
            r"equality or iff proof expected",
        ),
    ),
    (
        K.TIMEOUT,
        (
            r"\(deterministic\) timeout",
            r"deterministic timeout",
            r"maximum recursion depth has been reached",
        ),
    ),
    (
        K.FAILED_TO_SYNTHESIZE,
        (r"failed to synthesize", r"typeclass instance problem is stuck"),
    ),
    (
        K.RFL_FAILED,
        (
            r"(tactic )?rfl failed",
            r"the rfl tactic failed",
            r"(tactic )?(apply_)?rfl (failed|could not)",
            r"the lhs .* is not definitionally equal",
            r".*is not definitionally equal to (the )?right-hand side",
        ),
    ),
    (
        K.DECIDE_FAILED,
        (
            r"(tactic )?decide (failed|proved that)",
            r"failed to reduce to true/false",
            # `decide` on a goal with variables (Lean/Elab/Tactic/Decide.lean, ElabTerm.lean before,
            # `preprocessPropToDecide`): "Expected type must not contain free variables".
            r"expected type must not contain (free|meta)",
        ),
    ),
    (K.INTRO_FAILED, (r"insufficient number of binders", r"(tactic )?intro(n)? failed")),
    (
        K.APPLY_FAILED,
        (
            r"(tactic )?(apply|exact|refine|constructor|exfalso|left|right|use|existsi) failed",
            r"failed to unify",
            r"could not unify",
        ),
    ),
    (K.CALC_ERROR, (r"invalid calc step", r"calc (step|expression)", r"invalid calc")),
    (
        K.PLACEHOLDER,
        (
            r"don.?t know how to synthesize",
            r"synthetic hole has already been defined",
            r"(the )?placeholder",
        ),
    ),
    (
        K.FUNCTION_EXPECTED,
        (r"function expected", r"expected type is not a function", r"invalid argument name"),
    ),
    (K.INFER_FAILED, (r"failed to infer",)),
    (
        K.INVALID_FIELD,
        (
            r"invalid field",
            r"invalid dotted identifier",
            r"invalid projection",
            r"the environment does not contain",
        ),
    ),
    (K.ANONYMOUS_CONSTRUCTOR, (r"invalid constructor ⟨", r"invalid ⟨\.\.\.⟩ notation")),
    (K.AMBIGUOUS, (r"ambiguous", r"overloaded, errors")),
    (
        K.TERMINATION,
        (
            r"fail(ed)? to (show|prove) termination",
            r"structural recursion cannot be used",
            r"could not prove .* terminat",
        ),
    ),
    (
        K.DEPRECATED,
        (
            r".*(has been|is) deprecated",
            r"\[deprecated\] attribute",
            r"the updated constant has a different type",
        ),
    ),
    (
        K.UNUSED_VARIABLE,
        (r"unused variable", r"variable name .* is not explicitly referenced"),
    ),
    (
        K.SYNTAX,
        (
            r"unexpected (token|identifier|end of input|command|syntax)",
            r"unexpected .* expected",
            r"expected ",
            r"expected$",
            r"missing exponent digits",
            r"unterminated (comment|string)",
            r"invalid (escape|syntax)",
        ),
    ),
    # Last: any other named tactic that reports failure ("ring failed", "Tactic `norm_num`
    # failed: ...", "`exact?` could not close the goal", "positivity failed to prove ..."), and
    # Mathlib positivity's own wording (Mathlib/Tactic/Positivity/Core.lean: "not a positivity
    # goal", "failed to prove positivity/nonnegativity/nonzeroness", "failed to prove strict
    # positivity, but it would be possible to prove nonnegativity if desired").
    (
        K.TACTIC_FAILED,
        (
            r"not a positivity goal",
            r"failed to prove (strict )?(positivity|nonnegativity|nonzeroness)",
            r"(tactic )?[\w?_!.]+ failed",
            r"[\w?_!.]+ could not (close|prove)",
            r"(tactic )?[\w?_!.]+ made no progress",
        ),
    ),
)

_COMPILED = tuple((kind, tuple(re.compile(p) for p in patterns)) for kind, patterns in _RULES)


def strip_prefix(message: str) -> str:
    """The message without a REPL `Lean error:` / `<input>:1:1:` or `error(name):` prefix."""
    return _PREFIX.sub("", message.lstrip(), count=1)


def normalise(message: str) -> str:
    """Lower-case, quote-free, whitespace-collapsed first line: what the patterns match."""
    first_line = strip_prefix(message).strip().split("\n", 1)[0]
    return " ".join(_QUOTES.sub("", first_line).lower().split())


def classify(message: str) -> DiagnosticKind:
    """The kind of one Lean message, robust to quote style, capitals and prefixes."""
    opening = normalise(message)
    for kind, patterns in _COMPILED:
        if any(p.match(opening) for p in patterns):
            return kind
    return DiagnosticKind.OTHER


# ---------------------------------------------------------------------------- parts


@dataclass(frozen=True)
class Mismatch:
    """The three parts of a (application) type mismatch, in every recorded wording."""

    term: str
    has: str
    expected: str
    application: str | None = None  # the application the argument sits in, when printed


_MISMATCH = re.compile(
    r"\n(?P<term>(?:[ \t]+[^\n]*\n)+?)"
    r"\s*(?:argument )?has type\s*\n(?P<has>(?:[ \t]+[^\n]*\n)+?)(?:of sort [^\n]*)?"
    r"\s*but (?:it )?is expected to have type\s*\n(?P<want>(?:[ \t]+[^\n]*(?:\n|$))+)",
    re.IGNORECASE,
)
_APPLICATION = re.compile(r"in the application\s*\n((?:[ \t]+[^\n]*(?:\n|$))+)", re.IGNORECASE)


def _block(text: str) -> str:
    return " ".join(text.split())


def mismatch_parts(message: str) -> Mismatch | None:
    """Term, its type and the expected type of a type mismatch message, or None.

    Covers `type mismatch` / `Type mismatch`, `application type mismatch\\n  f x\\nargument`,
    `Application type mismatch: In the application\\n  f x\\nthe argument` and
    `Application type mismatch: The argument ... of sort ... in the application`.
    """
    text = strip_prefix(message)
    if "has type" not in text:
        return None
    body = (
        text.split("\n", 1)[1] if text.lower().startswith("application type mismatch: in") else text
    )
    match = _MISMATCH.search(body + "\n")
    if not match:
        return None
    want_raw = match.group("want")
    want_lines = []
    for line in want_raw.split("\n"):
        if not line.startswith((" ", "\t")):
            break
        want_lines.append(line)
    want = _block("\n".join(want_lines))
    want = re.split(r"\s+of sort\s", want)[0]
    application = _APPLICATION.search(text)
    app_text = _block(application.group(1)) if application else None
    term = _block(match.group("term"))
    if text.lower().startswith("application type mismatch\n") and app_text is None:
        first_block = text.split("\n")[1:]
        app_lines = []
        for line in first_block:
            if not line.startswith((" ", "\t")):
                break
            app_lines.append(line)
        app_text = _block("\n".join(app_lines)) or None
    return Mismatch(term, _block(match.group("has")), want, app_text)


_NAMED = re.compile(
    r"^(?:unknown (?:identifier|constant|declaration|namespace|tactic)|"
    r"alternative|invalid field|tactic)\s*['`‘]([^'`’]+)['`’]",
    re.IGNORECASE,
)


def named_subject(message: str) -> str | None:
    """The name a message is about (`unknown identifier 'x'` -> x; ``Tactic `rfl` failed`` -> rfl)."""
    first = strip_prefix(message).split("\n", 1)[0].strip()
    match = _NAMED.match(first)
    if match:
        return match.group(1)
    match = re.match(r"^[`']([^`']+)[`'] (?:failed|could not|made no progress)", first)
    return match.group(1) if match else None


# ---------------------------------------------------------------------------- goals


@dataclass(frozen=True)
class GoalHypothesis:
    names: tuple[str, ...]
    type: str

    @property
    def inaccessible(self) -> tuple[str, ...]:
        """Names Lean made up and the student cannot type (`h✝`, `a✝¹`)."""
        return tuple(n for n in self.names if "✝" in n)


@dataclass(frozen=True)
class GoalView:
    """One goal as Lean printed it: an optional `case` tag, hypotheses, and the target."""

    target: str
    hypotheses: tuple[GoalHypothesis, ...] = ()
    case: str | None = None

    @property
    def inaccessible(self) -> tuple[str, ...]:
        return tuple(n for h in self.hypotheses for n in h.inaccessible)


def parse_goal_block(text: str | None) -> list[GoalView]:
    """Goals from a printed goal block: `case tag`, `x y : T` lines (continuations indented),
    `⊢ target` (continuations indented); several goals separated by blank lines."""
    if not text:
        return []
    goals: list[GoalView] = []
    case: str | None = None
    hyps: list[GoalHypothesis] = []
    target: list[str] | None = None
    for line in text.split("\n"):
        stripped = line.strip()
        if target is not None:
            if stripped and line.startswith((" ", "\t")):
                target.append(stripped)
                continue
            goals.append(GoalView(" ".join(target), tuple(hyps), case))
            case, hyps, target = None, [], None
        if not stripped:
            continue
        if stripped.startswith("case ") and not line.startswith((" ", "\t")):
            case = stripped[5:].strip()
        elif stripped.startswith("⊢"):
            target = [stripped[1:].strip()]
        elif line.startswith((" ", "\t")) and hyps:
            last = hyps[-1]
            hyps[-1] = GoalHypothesis(last.names, f"{last.type} {stripped}")
        elif " : " in stripped or stripped.endswith(" :") or " := " in stripped:
            names, _, typ = stripped.partition(" :")
            hyps.append(GoalHypothesis(tuple(names.split()), typ.lstrip("= ").strip()))
    if target is not None:
        goals.append(GoalView(" ".join(target), tuple(hyps), case))
    return goals


_HYPOTHESIS = re.compile(r"^(case\s+\S+|[^\s:][^:]*\s:\s?.*|[^\s:][^:]*\s:=\s.*)$")


def extract_goal(message: str, kind: DiagnosticKind | None = None) -> str | None:
    """The goal block (hypotheses and `⊢ target`) Lean printed inside a message, if any.

    "unsolved goals" prints only goals after its first line, so all of it is the goal
    (several goals stay separated by a blank line). Other messages (linarith, rewrite,
    omega's counterexample is not a goal) print one goal somewhere inside: we take the
    last `⊢` line, its indented continuation lines, and the hypothesis lines just above.
    """
    if "⊢" not in message:
        return None
    message = strip_prefix(message)
    kind = kind if kind is not None else classify(message)
    lines = message.split("\n")
    if kind is DiagnosticKind.UNSOLVED_GOALS:
        goal = "\n".join(lines[1:]).strip("\n")
        return goal or None
    turnstile = max(i for i, line in enumerate(lines) if line.lstrip().startswith("⊢"))
    end = turnstile + 1
    while end < len(lines) and lines[end].startswith((" ", "\t")) and lines[end].strip():
        end += 1
    start = turnstile
    while start > 1 and _looks_like_goal_line(lines[start - 1]):
        start -= 1
    # A goal block cannot begin with a continuation line: those belong to the text above
    # (e.g. the pattern a rewrite did not find).
    while start < turnstile and lines[start].startswith((" ", "\t")):
        start += 1
    block = "\n".join(lines[start:end]).strip("\n")
    return _strip_trailing_failed(block) or None


def _looks_like_goal_line(line: str) -> bool:
    if not line.strip():
        return False
    # Continuation lines of a long hypothesis are indented.
    return line.startswith((" ", "\t")) or bool(_HYPOTHESIS.match(line))


def _strip_trailing_failed(block: str) -> str:
    # linarith ends with "⊢ False failed" on older versions (the word glued to the goal).
    if block.endswith(" failed") and "\n" not in block[block.rfind("⊢") :]:
        return block[: -len(" failed")]
    return block
