"""A protocol test double for the Lean REPL (leanprover-community/repl). Tests only.

Run as a real subprocess: `python tests/fakes/fake_repl.py`. It reads requests separated
by blank lines on stdin and writes pretty-printed JSON replies, each followed by a blank
line, exactly like the REPL. It does not understand Lean: it answers from what the request
contains, in the formats real Lean emits (docs/LEAN.md, "Talking to the REPL").

Requests
- `{"cmd": str}` (no env): a fresh environment; `import X` lines are recorded (each
  costs FAKE_REPL_IMPORT_DELAY_S seconds, default 0, to mimic Mathlib's import time).
- `{"cmd": str, "env": n}`: runs against env n (`{"message": "Unknown environment."}` if n
  is unknown; an `import` line there is an error, as in Lean).
- `{"path": str, "env"?: n}`: the file's text as a cmd.
- `{"tactic": str, "proofState": n}`: see "Tactic mode" below.
- anything else: `{"message": "Lean error: ..."}`.

What a cmd produces (line numbers are 1-based within the cmd, as the REPL reports)
- `theorem|lemma|def|instance|abbrev NAME` declares NAME (namespaces applied); `axiom NAME`
  declares an axiom. A declaration's axioms: `sorryAx` if its text holds `sorry`,
  for each `native_decide` the axiom `NAME._native.native_decide.ax_1_K` that Lean v4.32
  declares for it (lean_rules.native_decide_axiom: declared in the env too, so it is
  pickled), any user axiom it mentions, and
  propext/Classical.choice/Quot.sound if it mentions `classical`, `by_contra` or
  `Classical`.
- each `sorry` gives a "sorries" entry (goal from the declaration's binders and type,
  e.g. `theorem t (n : Nat) : n + 0 = n := by sorry` -> "n : Nat\n⊢ n + 0 = n", with a
  fresh proofState) and a "declaration uses 'sorry'" warning at the declaration name.
- `#print axioms NAME`: "'NAME' depends on axioms: [a, b]" / "'NAME' does not depend on
  any axioms" (info), or "unknown constant 'NAME'" (error).
- `#check @NAME`: info "NAME : <type>" when NAME is declared in the env or is in the
  fake library (FAKE_LIBRARY below, plus FAKE_REPL_LIBRARY="a,b"), else
  "unknown identifier 'NAME'" (error).
- Wording: old Lean ('quotes', lower case) by default; FAKE_REPL_WORDING=new, or a line
  `-- fake: wording new` in the cmd, switches to new Lean (`backticks`, capitals).

Markers (a comment line in the Lean code; the marker's line is where messages point)
- `-- fake: error KIND`   a canned error at that line; KIND is a key of CANNED_ERRORS
                          (unsolved_goals, type_mismatch, app_type_mismatch,
                          unknown_identifier, unknown_constant, linarith_failed,
                          omega_failed, simp_no_progress, rewrite_failed, syntax,
                          timeout, no_goals)
- `-- fake: hang`         never answer (tests the timeout)
- `-- fake: sleep S`      answer after S seconds (busy pools, benchmarks)
- `-- fake: crash`        write half a reply and exit with code 3
- `-- fake: garbage`      answer with text that is not JSON, then a blank line
- `-- fake: grow-memory`  allocate 16 MB blocks until MemoryError (then die like Lean:
                          "INTERNAL PANIC: out of memory", exit 1) or until
                          FAKE_REPL_GROW_LIMIT_MB (default 1024) is reached without a
                          limit stopping it; then it answers with an info message saying so
- `-- fake: reply JSON`   answer exactly JSON (any canned reply)
- `-- fake: big-reply N`  an info message of N bytes (reply size caps, parse speed)
- `-- fake: stderr N`     write N bytes to stderr, then answer (stderr caps)
- `-- fake: stats`        info message "pid=P imports=I commands=C" (pool reuse tests)
- `-- fake: environ`      info message: the sorted environment variable names, the cwd, and
                          whether the cwd is writable (sandbox tests)

Elaborated code writing to the REPL's own stdout (what real Lean does)
When a request's text (cmd or tactic) names the process's stdout (`"/dev/stdout"`,
`"/proc/self/fd/1"` or `IO.getStdout`), every string literal passed to `putStr` /
`putStrLn` in it is decoded (Lean escapes) and written to stdout *before* the real reply,
exactly where real Lean's bytes land; the real reply still follows (and stays queued if
the driver took the forged one). If the text also calls `IO.Process.exit`, the fake exits
right after writing, without its real reply. In tactic mode nothing runs when the tactic
does not parse (see below), as in Lean.

Infotrees
`{"cmd": ..., "infotree": ...}` adds an "infotree": one CommandInfo root per top-level
command (declarations: `Lean.Parser.Command.declaration`; `#eval`: `...Command.eval`;
others `...Command.<word>`), then `...Command.eoi`, with a child node for each
run_tac / by_elab / eval% inside (kinds `Lean.Parser.Tactic.runTac`,
`Lean.Parser.Term.byElab`, `Lean.Parser.Term.evalTerm`).

Header imports
FAKE_REPL_MISSING="Mathlib,Foo": importing a listed module (or one under it) fails as on
a core-only install: the reply is {"env": n, "messages": [error]} with an empty env.
`import Mathlib` (or a module under it) reserves the address space a real Mathlib import
maps (lean_rules.reserve_import_memory): under a smaller RLIMIT_AS the process dies with
"INTERNAL PANIC: out of memory", exit code 1, as Lean does.

Rules real Lean enforces (tests/fakes/lean_rules.py names the upstream files)
- `lemma` is Mathlib's command: without a Mathlib import a `lemma` line is the parse error
  "unexpected identifier; expected command" and declares nothing.
- infotree roots: `lemma ...` has kind `lemma`, `open X in ...` / `set_option ... in ...`
  has kind `Lean.Parser.Command.in`.

Pickles
`{"pickleTo": PATH, "env": n}` writes the environment's own declarations to PATH (JSON:
{"fake_pickle": 1, "imports": ["Init", ...], "decls": [{"name", "parts", "kind",
"unsafe", "partial", "type", "text"}]}) and answers {"env": n}, as the REPL answers
(`pickleCommandSnapshot`); an unknown env answers {"message": "Unknown environment."}.
Like Lean, a recursive `def f` also declares the unsafe shim `f._unsafe_rec`, and a
`partial def f` declares `f._unsafe_rec` and `f` as an opaque constant.
`-- fake: crash-with-all-tactics`: crash (as `crash`) only when the request asks for
`allTactics` (leanprover-community/repl#42).

Tactic mode
A tactic string in parentheses, `(tac1\n tac2 ...)`, is a whole tactic block: it must
parse as one tactic, so a line starting with a command keyword or `#`, or a `)` that
closes the outer parenthesis early, gives `{"message": "Lean error:\n<input>:L:C: ..."}`
and runs nothing. A block that parses completes unless it holds `sorry` ("Incomplete:
contains sorry") or an error marker (an error message at 0:0).
Each sorry and each tactic reply creates a proofState holding a list of goals. A tactic on
a state looks up (first goal's text, tactic) in the table, else fails like Lean:
- built in: `rfl` closes `⊢ a = a` when both sides are the same text; `trivial` closes
  `⊢ True`; `intro h` turns `⊢ P → Q` into `h : P\n⊢ Q`; `constructor` splits `⊢ P ∧ Q`;
  `sorry` closes the goal with status "Incomplete: contains sorry"; `skip` keeps it.
- FAKE_REPL_TACTICS=/path/to/table.json: a list of
  {"goal": "<exact goal text>", "tactic": "<tactic>", "goals": ["<next goal>", ...]}
  ("goals": [] closes the goal) or {"goal", "tactic", "error": "<Lean message>"};
  the table is consulted before the built-in rules. A parenthesised block of one tactic
  fails when the table scripts an error for it on its goal.
Replies: {"proofState": n, "goals": [...], "proofStatus": "Completed" |
"Incomplete: open goals remain" | "Incomplete: contains sorry" | "Error: ..."}; a failing
tactic also carries messages with pos 0:0, as tactic mode does.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from dataclasses import dataclass, field
from typing import Any

try:  # run as a script: its own folder is on sys.path
    import lean_rules
except ImportError:  # imported by a test as tests.fakes.fake_repl
    from tests.fakes import lean_rules

FAKE_LIBRARY = {
    "Nat.add_comm": "∀ (n m : ℕ), n + m = m + n",
    "Nat.add_zero": "∀ (n : ℕ), n + 0 = n",
    "Nat.succ_le_iff": "∀ {m n : ℕ}, m.succ ≤ n ↔ m < n",
    "add_comm": "∀ {G : Type u_1} [inst : AddCommMagma G] (a b : G), a + b = b + a",
    "mul_pos": "∀ {α : Type u_1} [inst : Mul α] [inst_1 : Zero α] {a b : α}, 0 < a → 0 < b → 0 < a * b",
    "le_refl": "∀ {α : Type u_1} [inst : Preorder α] (a : α), a ≤ a",
}

ALLOWED_TRIO = ["propext", "Classical.choice", "Quot.sound"]


def canned_errors(new: bool) -> dict[str, str]:
    """Lean's messages in the old ('quotes') or new (`backticks`, capitals) wording."""
    q = (lambda s: f"`{s}`") if new else (lambda s: f"'{s}'")
    return {
        "unsolved_goals": "unsolved goals\ncase h\nx : ℕ\nh : 0 < x\n⊢ 0 < x * x",
        "type_mismatch": (
            ("Type mismatch" if new else "type mismatch")
            + "\n  h\nhas type\n  x < 2 : Prop\nbut is expected to have type\n  x < 1 : Prop"
        ),
        "app_type_mismatch": (
            "Application type mismatch: The argument\n  h\nhas type\n  x < 2"
            if new
            else "application type mismatch\n  f h\nargument\n  h\nhas type\n  x < 2 : Prop"
        ),
        "unknown_identifier": f"{'Unknown' if new else 'unknown'} identifier {q('foo')}",
        "unknown_constant": f"{'Unknown' if new else 'unknown'} constant {q('Nat.foo')}",
        "linarith_failed": (
            "linarith failed to find a contradiction\ncase a\nx : ℕ\nh : x < 2\na✝ : x ≥ 5\n⊢ False failed"
        ),
        "omega_failed": (
            "omega could not prove the goal:\na possible counterexample may satisfy the "
            "constraints\n  c ≥ 0\n  b ≥ 0\nwhere\n b := x\n c := y"
        ),
        "simp_no_progress": f"{q('simp')} made no progress" if new else "simp made no progress",
        "rewrite_failed": (
            "Tactic `rewrite` failed: Did not find an occurrence of the pattern\n  a + 0\n"
            "in the target expression\n  a + b = b + a\n\na b : ℕ\n⊢ a + b = b + a"
            if new
            else "tactic 'rewrite' failed, did not find instance of the pattern in the target "
            "expression\n  a + 0\na b : ℕ\n⊢ a + b = b + a"
        ),
        "syntax": "unexpected token 'at'; expected term",
        "timeout": (
            "(deterministic) timeout at `whnf`, maximum number of heartbeats (200000) has been "
            "reached\nUse `set_option maxHeartbeats <num>` to set the limit."
        ),
        "no_goals": "No goals to be solved" if new else "no goals to be solved",
    }


@dataclass
class Decl:
    name: str
    axioms: list[str]
    type_text: str
    kind: str = "thm"  # thm | def | opaque | axiom (the kernel's kinds)
    text: str = ""
    unsafe: bool = False
    partial: bool = False


@dataclass
class Env:
    imports: list[str] = field(default_factory=list)
    decls: dict[str, Decl] = field(default_factory=dict)
    namespaces: list[str] = field(default_factory=list)  # still open after the command


@dataclass
class State:
    envs: list[Env] = field(default_factory=list)
    proof_states: list[list[str]] = field(default_factory=list)
    imports_run: int = 0
    commands: int = 0


MARKER = re.compile(r"--\s*fake:\s*(?P<what>[\w-]+)\s*(?P<arg>.*)$")
DECL = re.compile(
    r"^\s*(?:@\[(?:[^\[\]]|\[[^\]]*\])*\]\s*)?"
    r"(?P<mods>(?:(?:private|protected|noncomputable|partial|unsafe)\s+)*)"
    r"(theorem|lemma|def|instance|abbrev)\s+"
    r"((?:«[^»]*»|[^\s:({\[«.]+)(?:\.(?:«[^»]*»|[^\s:({\[«.]+))*)"
)
EXAMPLE = re.compile(r"^\s*(?P<mods>)(example)()(?=[\s:({\[])")
# Where a second declaration starts on the same line (Lean allows any layout).
MID_LINE_DECL = re.compile(r"(?<=\s)(?=(?:theorem|lemma|def|instance|abbrev|axiom)\s)")
STDOUT_NAMES = ('"/dev/stdout"', '"/proc/self/fd/1"', "IO.getStdout")
PUT_STR = re.compile(r'\bputStr(Ln)?\s+"((?:[^"\\]|\\.)*)"')
COMMAND_START = re.compile(
    r"^\s*(#|(theorem|lemma|def|example|axiom|namespace|end|open|section|instance|"
    r"elab|macro|syntax|run_cmd|initialize|import)\b)"
)
EXAMPLE_HEAD = re.compile(r"^(\s*)example\b")  # all_tactics: name it as a theorem
AXIOM = re.compile(r"^\s*axiom\s+([^\s:({\[]+)\s*(.*)$")


STATE = State()


def main() -> None:
    state = STATE
    tactics_table = load_tactics_table()
    for request in read_requests():
        reply = answer(state, request, tactics_table)
        if reply is not None:
            write_reply(reply)


def read_requests() -> Any:
    lines: list[str] = []
    for raw in sys.stdin:
        line = raw.rstrip("\n")
        if line.strip():
            lines.append(line)
            continue
        if lines:
            text = "\n".join(lines)
            lines = []
            try:
                yield json.loads(text)
            except json.JSONDecodeError as exc:
                write_reply({"message": f"Could not parse JSON:\n{exc}"})
    if lines:
        yield json.loads("\n".join(lines))


def write_reply(reply: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(reply, indent=2, ensure_ascii=False) + "\n\n")
    sys.stdout.flush()


def answer(
    state: State, request: dict[str, Any], table: list[dict[str, Any]]
) -> dict[str, Any] | None:
    state.commands += 1
    text = str(request.get("tactic", request.get("cmd", "")))
    if "tactic" not in request or tactic_parses(text) is None:
        write_to_own_stdout(text)
    if "tactic" in request:
        return run_tactic(state, str(request["tactic"]), request.get("proofState"), table)
    if "pickleTo" in request:
        return pickle_environment(state, request)
    if request.get("allTactics") and re.search(r"--\s*fake:\s*crash-with-all-tactics", text):
        act_on_marker(state, "crash", "", 0, [], False)
    if "path" in request:
        try:
            with open(request["path"], encoding="utf-8") as handle:
                request = {**request, "cmd": handle.read()}
        except OSError as exc:
            return {"message": f"Lean error:\n{exc}"}
    if "cmd" not in request:
        return {"message": "Lean error:\nunsupported request"}
    reply = run_command(state, str(request["cmd"]), request.get("env"))
    if reply is not None and "env" in reply and request.get("infotree"):
        reply["infotree"] = infotree(str(request["cmd"]))
    if request.get("allTactics") and reply is not None and "env" in reply:
        reply["tactics"] = all_tactics(state, str(request["cmd"]).split("\n"), table)
    return reply


def pickle_environment(state: State, request: dict[str, Any]) -> dict[str, Any]:
    """`{"pickleTo": PATH, "env": n}`: the env's own declarations, as JSON (the REPL writes
    an .olean of `env.constants.map₂`: repl v4.32.0 REPL/Snapshots.lean `pickle`)."""
    env_id = request.get("env")
    if not isinstance(env_id, int) or not 0 <= env_id < len(state.envs):
        return {"message": "Unknown environment."}
    env = state.envs[env_id]
    decls = [
        {
            "name": d.name,
            "parts": lean_rules.name_parts(d.name),
            "kind": d.kind,
            "unsafe": d.unsafe,
            "partial": False,
            "type": d.type_text,
            "text": d.text,
        }
        for d in env.decls.values()
    ]
    payload = {"fake_pickle": 1, "imports": [lean_rules.INIT, *env.imports], "decls": decls}
    with open(str(request["pickleTo"]), "w", encoding="utf-8") as handle:
        json.dump(payload, handle)
    return {"env": env_id}


def lean_string(body: str) -> str:
    """A Lean string literal's contents, escapes decoded."""
    out, i = [], 0
    simple = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "'": "'", "r": "\r"}
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in simple:
                out.append(simple[nxt])
                i += 2
                continue
            if nxt == "x":
                out.append(chr(int(body[i + 2 : i + 4], 16)))
                i += 4
                continue
            if nxt == "u":
                close = body.index("}", i)
                out.append(chr(int(body[i + 3 : close], 16)))
                i = close + 1
                continue
        out.append(body[i])
        i += 1
    return "".join(out)


def write_to_own_stdout(text: str) -> None:
    """What elaborated code that opens the process's stdout does in real Lean."""
    if not any(name in text for name in STDOUT_NAMES):
        return
    for match in PUT_STR.finditer(text):
        sys.stdout.write(lean_string(match.group(2)) + ("\n" if match.group(1) else ""))
    sys.stdout.flush()
    if "IO.Process.exit" in text:
        os._exit(0)


def tactic_parses(text: str) -> str | None:
    """None when a parenthesised tactic block parses as one tactic, else Lean's error."""
    if not text.startswith("("):
        return None
    depth = 0
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.split("--", 1)[0]
        found = COMMAND_START.match(line if number > 1 else line[1:])
        if found and depth <= 1:
            word = found.group(0).strip()
            column = len(line) - len(line.lstrip())
            return f"<input>:{number}:{column}: unexpected token '{word}'; expected ')'"
        for column, char in enumerate(line):
            depth += {"(": 1, ")": -1}.get(char, 0)
            if depth == 0 and (number, column) != (len(text.split("\n")), len(raw) - 1):
                rest = "\n".join(text.split("\n")[number - 1 :])[column + 1 :]
                if rest.strip():
                    return f"<input>:{number}:{column + 1}: unexpected token; expected end of input"
    return None


# Syntax kinds Lean's infotree names for code-running tactics and terms.
META_KINDS = {
    "run_tac": "Lean.Parser.Tactic.runTac",
    "by_elab": "Lean.Parser.Term.byElab",
    "eval%": "Lean.Parser.Term.evalTerm",
}


def infotree(cmd: str) -> list[dict[str, Any]]:
    """One CommandInfo root per top-level command (as `"infotree": "full"` gives), with a
    TacticInfo/TermInfo child for each code-running tactic or term inside it."""
    roots: list[dict[str, Any]] = []
    pending_in = False  # `open X in` at the end of a line: one root with the next command
    for number, whole in enumerate(cmd.split("\n"), start=1):
        for part in MID_LINE_DECL.split(whole.split("--", 1)[0]) or [""]:
            stripped = part.strip()
            word = stripped.split()[0] if stripped else ""
            if word in ("open", "set_option") and re.search(r"\sin$", stripped):
                pending_in = True
                continue
            if DECL.match(part) or EXAMPLE.match(part) or AXIOM.match(part):
                kind = lean_rules.root_kind(part, "Lean.Parser.Command.declaration")
            elif part[:1].strip() and word:
                kind = "eval" if word.startswith("#eval") else word.lstrip("#")
                kind = lean_rules.root_kind(part, f"Lean.Parser.Command.{kind}")
            else:
                kind = ""
            if kind:
                roots.append(
                    info_node("CommandInfo", lean_rules.IN_KIND if pending_in else kind, number)
                )
                pending_in = False
            for token, kind in META_KINDS.items():
                if token in part and roots:
                    node_kind = "TacticInfo" if "Tactic" in kind else "TermInfo"
                    roots[-1]["children"].append(info_node(node_kind, kind, number))
    roots.append(info_node("CommandInfo", "Lean.Parser.Command.eoi", len(cmd.split("\n"))))
    return roots


def info_node(kind: str, stx_kind: str, line: int) -> dict[str, Any]:
    position = {"line": line, "column": 0}
    stx = {
        "range": {"synthetic": False, "start": position, "finish": position},
        "pp": "",
        "kind": stx_kind,
        "argKinds": [],
    }
    return {"node": {"stx": stx}, "kind": kind, "children": []}


def all_tactics(
    state: State, lines: list[str], table: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """`allTactics`: each non-blank line after a declaration's `:= by` is one tactic; the
    goals before it evolve by the tactic-mode rules (a failing tactic leaves them as they
    were). Entries have the REPL's exact shape (see all_tactics.expected.out)."""
    entries: list[dict[str, Any]] = []
    goals: list[str] | None = None
    for number, raw in enumerate(lines, start=1):
        code = raw.split("--", 1)[0].rstrip()
        if DECL.match(raw) or EXAMPLE.match(raw):
            head = EXAMPLE_HEAD.sub(r"\1theorem _", "\n".join(lines[number - 1 :]), count=1)
            goals = [goal_of(head)] if code.endswith((":= by", ":= by (")) else None
            continue
        if goals is None or code.strip() in ("", "(", ")"):
            continue
        column = len(code) - len(code.lstrip())
        state.proof_states.append(list(goals))
        entries.append(
            {
                "usedConstants": [],
                "tactic": code.strip(),
                "proofState": len(state.proof_states) - 1,
                "pos": {"line": number, "column": column},
                "goals": "\n\n".join(goals),
                "endPos": {"line": number, "column": len(code)},
            }
        )
        if goals:
            outcome = scripted(table, goals[0], code.strip()) or built_in(goals[0], code.strip())
            if "goals" in outcome:
                goals = [*outcome["goals"], *goals[1:]]
    return entries


def run_command(state: State, cmd: str, env_id: Any) -> dict[str, Any] | None:
    lines = cmd.split("\n")
    new_wording = os.environ.get("FAKE_REPL_WORDING") == "new"
    for line in lines:
        m = MARKER.search(line)
        if m and m.group("what") == "wording":
            new_wording = m.group("arg").strip() == "new"
    messages: list[dict[str, Any]] = []
    for number, line in enumerate(lines, start=1):
        m = MARKER.search(line)
        if not m:
            continue
        early = act_on_marker(
            state, m.group("what"), m.group("arg").strip(), number, messages, new_wording
        )
        if early is not None:
            return early if early != {} else None
    if env_id is None:
        env = Env()
    else:
        if not isinstance(env_id, int) or not 0 <= env_id < len(state.envs):
            return {"message": "Unknown environment."}
        base = state.envs[env_id]
        env = Env(list(base.imports), dict(base.decls), list(base.namespaces))
    sorries: list[dict[str, Any]] = []
    elaborate(state, env, lines, env_id is None, messages, sorries, new_wording)
    state.envs.append(env)
    reply: dict[str, Any] = {"env": len(state.envs) - 1}
    if messages:
        reply["messages"] = messages
    if sorries:
        reply["sorries"] = sorries
    return reply


def act_on_marker(
    state: State, what: str, arg: str, line: int, messages: list[dict[str, Any]], new: bool
) -> dict[str, Any] | None:
    """A reply to send instead of elaborating ({} = send nothing), or None to go on."""
    if what == "hang":
        while True:
            time.sleep(3600)
    if what == "sleep":
        time.sleep(float(arg or 1))
    elif what == "crash":
        sys.stdout.write('{\n  "env": ')
        sys.stdout.flush()
        sys.stderr.write("fake REPL: crashing on request\n")
        sys.stderr.flush()
        os._exit(3)
    elif what == "garbage":
        sys.stdout.write("uncaught exception: this is not JSON\n\n")
        sys.stdout.flush()
        return {}
    elif what == "grow-memory":
        return grow_memory(line)
    elif what == "reply":
        canned = json.loads(arg)
        if isinstance(canned.get("env"), int):
            # A command reply gets a fresh environment id, as real Lean's always does (the
            # driver refuses any other id).
            state.envs.append(Env())
            canned["env"] = len(state.envs) - 1
        return canned
    elif what == "big-reply":
        messages.append(message("info", line, 0, "x" * int(arg)))
    elif what == "stderr":
        sys.stderr.write("e" * int(arg))
        sys.stderr.flush()
    elif what == "stats":
        text = f"pid={os.getpid()} imports={state.imports_run} commands={state.commands}"
        messages.append(message("info", line, 0, text))
    elif what == "environ":
        cwd = os.getcwd()
        here = os.path.dirname(os.path.abspath(__file__))
        text = json.dumps(
            {
                "env": sorted(os.environ),
                "cwd": cwd,
                "script_dir_writable": os.access(here, os.W_OK),
                "pid": os.getpid(),
            }
        )
        messages.append(message("info", line, 0, text))
    elif what == "error":
        text = canned_errors(new).get(arg, f"fake: unknown canned error {arg!r}")
        messages.append(message("error", line, 2, text))
    return None


def grow_memory(line: int) -> dict[str, Any]:
    limit_mb = int(os.environ.get("FAKE_REPL_GROW_LIMIT_MB", "1024"))
    blocks: list[bytearray] = []
    try:
        while len(blocks) * 16 < limit_mb:
            blocks.append(bytearray(16 * 1024 * 1024))
    except MemoryError:
        blocks.clear()
        sys.stderr.write("INTERNAL PANIC: out of memory\n")
        sys.stderr.flush()
        os._exit(1)
    grown = len(blocks) * 16
    blocks.clear()
    STATE.envs.append(Env())
    return {
        "env": len(STATE.envs) - 1,
        "messages": [message("info", line, 0, f"fake: grew {grown} MB and no limit stopped it")],
    }


def elaborate(
    state: State,
    env: Env,
    lines: list[str],
    fresh: bool,
    messages: list[dict[str, Any]],
    sorries: list[dict[str, Any]],
    new: bool,
) -> None:
    q = (lambda s: f"`{s}`") if new else (lambda s: f"'{s}'")
    namespaces = env.namespaces
    current: tuple[Decl, int, int] | None = None  # decl, line, name column
    start = end = 0  # the current declaration's first and last line (comments kept)
    body: list[str] = []
    header_done = not fresh
    missing = [m for m in os.environ.get("FAKE_REPL_MISSING", "").split(",") if m]
    segments = [
        (number, part)
        for number, whole in enumerate(lines, start=1)
        for part in MID_LINE_DECL.split(whole.split("--", 1)[0]) or [""]
    ]
    for number, raw in segments:
        line = raw.split("--", 1)[0]
        stripped = line.strip()
        if stripped.startswith("import "):
            if header_done:
                messages.append(
                    message(
                        "error",
                        number,
                        0,
                        "invalid 'import' command, it must be used in the beginning of the file",
                    )
                )
            elif any(stripped.split()[1].split(".")[0] == m for m in missing):
                module = stripped.split()[1]
                messages.append(
                    message(
                        "error",
                        number,
                        0,
                        f"unknown module prefix '{module.split('.')[0]}'\n\nNo directory "
                        f"'{module.split('.')[0]}' or file '{module}.olean' in the search path "
                        "entries:\n/root/.elan/toolchains/leanprover--lean4---v4.19.0/lib/lean",
                    )
                )
                env.imports.clear()
                env.decls.clear()
                header_done = True
            else:
                delay = float(os.environ.get("FAKE_REPL_IMPORT_DELAY_S", "0"))
                time.sleep(delay)
                env.imports.append(stripped.split()[1])
                lean_rules.reserve_import_memory([stripped.split()[1]])
                state.imports_run += 1
            continue
        if stripped:
            header_done = True
        words = stripped.split()
        if words[:1] == ["namespace"] and len(words) > 1:
            namespaces.append(words[1])
            continue
        if words[:1] == ["end"] and namespaces:
            namespaces.pop()
            continue
        if stripped.startswith("#print axioms"):
            target = stripped[len("#print axioms") :].strip()  # `«a b»` keeps its space
            print_axioms(env, resolve(env, namespaces, target), number, messages, q, new)
            continue
        if stripped.startswith("#check @") or stripped.startswith("#check "):
            check_name(env, stripped.split()[-1].lstrip("@"), number, messages, q, new)
            continue
        axiom = AXIOM.match(line)
        decl = DECL.match(line) or EXAMPLE.match(line)
        if axiom or decl:
            finish(state, current, body, env, sorries, messages, q, lines[start - 1 : end])
            body = []
            if axiom:
                name = ".".join([*namespaces, axiom.group(1)])
                env.decls[name] = Decl(name, [name], axiom.group(2), "axiom", text=raw)
                current = None
            else:
                assert decl is not None
                word, mods = decl.group(2), decl.group("mods").split()
                if word == "lemma" and not lean_rules.lemma_allowed(env.imports):
                    # Core Lean has no `lemma`: a parse error, and nothing is declared.
                    messages.append(
                        message("error", number, decl.start(2), lean_rules.LEMMA_WITHOUT_MATHLIB)
                    )
                    current = None
                    continue
                name = ".".join([*namespaces, decl.group(3) or "_example"])
                kind = "thm" if word in ("theorem", "lemma", "example") else "def"
                made = Decl(name, [], "", kind, unsafe="unsafe" in mods, partial="partial" in mods)
                current = (made, number, decl.start(3))
                body = [raw]
                start = end = number
            continue
        if current is not None:
            body.append(raw)
            end = number
    finish(state, current, body, env, sorries, messages, q, lines[start - 1 : end])


def finish(
    state: State,
    current: tuple[Decl, int, int] | None,
    body: list[str],
    env: Env,
    sorries: list[dict[str, Any]],
    messages: list[dict[str, Any]],
    q: Any,
    source: list[str] | None = None,
) -> None:
    if current is None:
        return
    decl, line, column = current
    text = "\n".join(body)
    code = "\n".join(b.split("--", 1)[0] for b in body)
    axioms: set[str] = set()
    decl.type_text = goal_of(
        re.sub(r"^\s*((partial|unsafe|private|protected|noncomputable)\s+)+", "", text)
    )
    for offset, part in enumerate(body):
        col = part.split("--", 1)[0].find("sorry")
        if col >= 0:
            state.proof_states.append([decl.type_text])
            sorries.append(
                {
                    "proofState": len(state.proof_states) - 1,
                    "pos": {"line": line + offset, "column": col},
                    "goal": decl.type_text,
                    "endPos": {"line": line + offset, "column": col + 5},
                }
            )
    if re.search(r"\bsorry\b", code):
        axioms.add("sorryAx")
        messages.append(
            message(
                "warning",
                line,
                column,
                f"declaration uses {q('sorry')}",
                end_col=column + len(decl.name.split(".")[-1]),
            )
        )
    native_axioms = [
        lean_rules.native_decide_axiom(decl.name, use)
        for use in range(1, len(re.findall(r"\bnative_decide\b", code)) + 1)
    ]
    axioms.update(native_axioms)
    if re.search(r"\b(classical|by_contra|Classical)\b", code):
        axioms.update(ALLOWED_TRIO)
    value = code.split(":=", 1)[1] if ":=" in code else ""  # not the declaration's own name
    for name, other in env.decls.items():
        if re.search(rf"(?<![\w.]){re.escape(name)}(?![\w.])", value):
            axioms.update(other.axioms)
    decl.axioms = sorted(axioms)
    decl.text = "\n".join(source) if source else text  # with its comments, as written
    for native in native_axioms:  # declared before the theorem that uses it, as Lean does
        env.decls[native] = Decl(native, [native], "", "axiom", text=f"axiom {native}")
    env.decls[decl.name] = decl
    short = decl.name.rsplit(".", 1)[-1]
    recursive = re.search(rf"(?<![\w.']){re.escape(short)}(?![\w'])", value) is not None
    if decl.partial or (decl.kind == "def" and recursive and not decl.unsafe):
        # Lean's compiler shim for recursive and partial definitions: an unsafe constant
        # the kernel never sees (SafeVerify Main.lean, `isCompilerUnsafeRecName`).
        shim = f"{decl.name}._unsafe_rec"
        env.decls[shim] = Decl(shim, [], decl.type_text, "def", text=text, unsafe=True)
    if decl.partial:
        decl.kind = "opaque"  # `partial def f`: the kernel sees an opaque `f`


def goal_of(text: str) -> str:
    """`theorem t (a b : Nat) (h : a < b) : b > a := ...` -> "a b : Nat\nh : a < b\n⊢ b > a"."""
    head = text.split(":=", 1)[0]
    head = re.sub(r"^\s*\S+\s+\S+", "", head, count=1)  # drop `theorem name`
    hyps: list[str] = []
    for group in re.finditer(r"[({\[]([^(){}\[\]]*?)\s:\s([^(){}\[\]]*)[)}\]]", head):
        hyps.append(f"{group.group(1).strip()} : {group.group(2).strip()}")
    depth = 0
    target = ""
    for index, char in enumerate(head):
        if char in "({[":
            depth += 1
        elif char in ")}]":
            depth -= 1
        elif char == ":" and depth == 0:
            target = head[index + 1 :].strip()
            break
    return "\n".join([*hyps, f"⊢ {' '.join(target.split())}"])


def resolve(env: Env, namespaces: list[str], name: str) -> str:
    """Lean's name resolution: the current namespaces first, then the root; `_root_.`
    goes straight to the root."""
    if name.startswith("_root_."):
        return name[len("_root_.") :]
    for depth in range(len(namespaces), 0, -1):
        candidate = ".".join([*namespaces[:depth], name])
        if candidate in env.decls:
            return candidate
    return name


def print_axioms(
    env: Env, name: str, line: int, messages: list[dict[str, Any]], q: Any, new: bool
) -> None:
    decl = env.decls.get(name)
    if decl is None:
        messages.append(
            message("error", line, 15, f"{'Unknown' if new else 'unknown'} constant {q(name)}")
        )
        return
    if decl.axioms:
        text = f"{q(name)} depends on axioms: [{', '.join(decl.axioms)}]"
    else:
        text = f"{q(name)} does not depend on any axioms"
    messages.append(message("info", line, 0, text))


def check_name(
    env: Env, name: str, line: int, messages: list[dict[str, Any]], q: Any, new: bool
) -> None:
    extra = [n for n in os.environ.get("FAKE_REPL_LIBRARY", "").split(",") if n]
    if name in env.decls:
        messages.append(message("info", line, 0, f"{name} : {env.decls[name].type_text}"))
    elif name in FAKE_LIBRARY or name in extra:
        messages.append(message("info", line, 0, f"{name} : {FAKE_LIBRARY.get(name, 'Prop')}"))
    else:
        messages.append(
            message("error", line, 8, f"{'Unknown' if new else 'unknown'} identifier {q(name)}")
        )


def message(
    severity: str, line: int, column: int, data: str, end_col: int | None = None
) -> dict[str, Any]:
    return {
        "severity": severity,
        "pos": {"line": line, "column": column},
        "endPos": {"line": line, "column": end_col if end_col is not None else column + 1},
        "data": data,
    }


def load_tactics_table() -> list[dict[str, Any]]:
    path = os.environ.get("FAKE_REPL_TACTICS")
    if not path:
        return []
    with open(path, encoding="utf-8") as handle:
        table = json.load(handle)
    assert isinstance(table, list), "FAKE_REPL_TACTICS must hold a JSON list"
    return table


def run_tactic(
    state: State, tactic: str, proof_state: Any, table: list[dict[str, Any]]
) -> dict[str, Any]:
    if not isinstance(proof_state, int) or not 0 <= proof_state < len(state.proof_states):
        return {"message": "Unknown proof state."}
    parse_error = tactic_parses(tactic)
    if parse_error is not None:
        return {"message": f"Lean error:\n{parse_error}"}
    goals = state.proof_states[proof_state]
    if tactic.startswith("(") and goals:
        return run_block(state, tactic, goals, table)
    if not goals:
        return tactic_error(state, "no goals to be solved")
    first, rest = goals[0], goals[1:]
    outcome = scripted(table, first, tactic) or built_in(first, tactic.strip())
    if "error" in outcome:
        return tactic_error(state, outcome["error"])
    new_goals = [*outcome["goals"], *rest]
    state.proof_states.append(new_goals)
    if outcome.get("sorry"):
        status = "Incomplete: contains sorry"
    else:
        status = "Completed" if not new_goals else "Incomplete: open goals remain"
    return {"proofState": len(state.proof_states) - 1, "goals": new_goals, "proofStatus": status}


def run_block(
    state: State, block: str, goals: list[str], table: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """A whole tactic block: completes unless it holds sorry or an error marker, or the
    FAKE_REPL_TACTICS table scripts an error for its goal and its one tactic."""
    errors = []
    for raw in block.split("\n"):
        found = MARKER.search(raw)
        if found and found.group("what") == "error":
            errors.append(canned_errors(False).get(found.group("arg").strip(), "fake error"))
    code = "\n".join(raw.split("--", 1)[0] for raw in block.split("\n"))
    inner = code.strip().removeprefix("(").removesuffix(")").strip()
    scripted_outcome = scripted(table or [], goals[0], inner) if "\n" not in inner else None
    if scripted_outcome is not None and "error" in scripted_outcome:
        errors.append(scripted_outcome["error"])
    if re.search(r"\bskip\b", code) and len(code.split()) == 1:
        errors.append("unsolved goals\n" + goals[0])
    has_sorry = re.search(r"\bsorry\b", code) is not None
    state.proof_states.append([] if not errors else list(goals))
    reply: dict[str, Any] = {"proofState": len(state.proof_states) - 1, "goals": []}
    if errors:
        reply["goals"] = list(goals)
        reply["messages"] = [message("error", 0, 0, text, end_col=0) for text in errors]
        reply["proofStatus"] = "Incomplete: contains sorry"  # Lean's error recovery
    elif has_sorry:
        reply["proofStatus"] = "Incomplete: contains sorry"
    else:
        reply["proofStatus"] = "Completed"
    return reply


def scripted(table: list[dict[str, Any]], goal: str, tactic: str) -> dict[str, Any] | None:
    for row in table:
        if row.get("goal") == goal and row.get("tactic") == tactic.strip():
            return (
                {"error": row["error"]} if "error" in row else {"goals": list(row.get("goals", []))}
            )
    return None


def built_in(goal: str, tactic: str) -> dict[str, Any]:
    target = goal.rsplit("⊢", 1)[-1].strip()
    context = goal.rsplit("⊢", 1)[0]
    if tactic == "rfl":
        sides = target.split(" = ")
        if len(sides) == 2 and sides[0].strip() == sides[1].strip():
            return {"goals": []}
        return {"error": f"The rfl tactic failed.\n{goal}"}
    if tactic == "trivial" and target == "True":
        return {"goals": []}
    if tactic.startswith("intro ") and " → " in target:
        name = tactic.split()[1]
        premise, conclusion = target.split(" → ", 1)
        return {"goals": [f"{context}{name} : {premise}\n⊢ {conclusion}"]}
    if tactic == "constructor" and " ∧ " in target:
        left, right = target.split(" ∧ ", 1)
        return {"goals": [f"{context}⊢ {left}", f"{context}⊢ {right}"]}
    if tactic == "sorry":
        return {"goals": [], "sorry": True}
    if tactic == "skip":
        return {"goals": [goal]}
    if tactic.startswith("exact ") and f"\n{tactic.split()[1]} : {target}\n" in f"\n{context}":
        return {"goals": []}
    return {"error": f"fake REPL: no scripted outcome for `{tactic}` on\n{goal}"}


def tactic_error(state: State, text: str) -> dict[str, Any]:
    state.proof_states.append([])
    return {
        "proofState": len(state.proof_states) - 1,
        "goals": [],
        "messages": [message("error", 0, 0, text, end_col=0)],
        "proofStatus": f"Error: {text.splitlines()[0]}",
    }


if __name__ == "__main__":
    main()
