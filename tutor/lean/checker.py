"""LeanChecker: check Lean files and proofs through a sandboxed pool of Lean REPLs.

    checker = LeanChecker()                       # autodetect the REPL
    result = checker.check("theorem t : 1 + 1 = 2 := by rfl")
    result = checker.check_proof("theorem t (n : Nat) : n + 0 = n := by", "  simp")

Positions: Diagnostic lines are 1-based in the code the caller passed (for check_proof:
in `proof_document(statement, proof, header)`), columns 0-based as Lean reports them.

What the verdict covers and what it does not: see docs/LEAN.md and tutor/lean/verdict.py.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import os
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from tutor.lean import sandbox
from tutor.lean.detect import INSTALL_HINT, detect_repl
from tutor.lean.messages import classify, extract_goal
from tutor.lean.pool import PoolBusy, PoolClosed, PoolLimits, ReplPool
from tutor.lean.repl import (
    ReplCrashed,
    ReplError,
    ReplProcess,
    ReplProtocolError,
    ReplTimeout,
    SpawnSpec,
)
from tutor.lean.types import (
    CheckResult,
    Diagnostic,
    DiagnosticKind,
    LeanStatus,
    LeanUnavailable,
    Sorry,
)
from tutor.lean.verdict import (
    blank_comments_and_strings,
    declared_names,
    disallowed_axioms,
    parse_axioms_message,
    proof_rejections,
)

log = logging.getLogger(__name__)

_warned_unsandboxed = False
_warn_lock = threading.Lock()


def env_flag(name: str, default: bool = False) -> bool:
    """A strict boolean from the environment: a typo fails loudly instead of meaning False."""
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    lowered = value.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{name}={value!r} is not a boolean; use 1 or 0")


@dataclass(frozen=True)
class LeanConfig:
    """How the checker runs Lean. Defaults suit a Mathlib REPL on a 4-8 GB worker."""

    timeout_s: float = 60.0  # wall-clock limit for one check (the REPL has none itself)
    memory_mb: int | None = 8192  # RLIMIT_AS per process; Mathlib maps ~5 GB of .olean files
    max_processes: int = 2  # REPL processes alive at once (each may hold Mathlib: ~1-2 GB RSS)
    max_uses: int = 100  # recycle a process after this many checks (Lean's memory grows)
    acquire_timeout_s: float = 30.0  # longest wait for a free process before "busy"
    header_timeout_s: float = 300.0  # importing Mathlib from a cold cache is slow
    recycle_rss_mb: float | None = None  # default: 80 % of memory_mb
    require_sandbox: bool = False  # production: refuse to check without bubblewrap
    use_sandbox: bool | None = None  # None: use bubblewrap when it works here
    cwd: str | None = None  # where the REPL runs (a Lean project folder)
    sandbox_paths: tuple[str, ...] = ()  # extra read-only folders inside the sandbox

    def __post_init__(self) -> None:
        if self.timeout_s <= 0:
            raise ValueError("timeout_s must be > 0 seconds (a check needs a wall-clock limit)")
        if self.memory_mb is not None and self.memory_mb < 64:
            raise ValueError("memory_mb must be >= 64 (or None for no cap); Mathlib needs ~8192")
        if self.require_sandbox and self.use_sandbox is False:
            raise ValueError("require_sandbox=True contradicts use_sandbox=False; drop one of them")

    @property
    def pool_limits(self) -> PoolLimits:
        rss = self.recycle_rss_mb
        if rss is None and self.memory_mb is not None:
            rss = 0.8 * self.memory_mb
        return PoolLimits(
            max_processes=self.max_processes,
            max_uses=self.max_uses,
            acquire_timeout_s=self.acquire_timeout_s,
            header_timeout_s=self.header_timeout_s,
            recycle_rss_mb=rss,
        )

    @property
    def cpu_limit_s(self) -> int:
        # RLIMIT_CPU counts over a process's whole life, so it must cover every use plus
        # the header; the wall-clock timeout is the per-check limit.
        return int(self.header_timeout_s + self.timeout_s * (self.max_uses + 1)) + 1


@dataclass(frozen=True)
class SplitFile:
    """A Lean file split into its header (imports, run once per process) and body."""

    header: str  # the import lines only, joined: the pool key
    body: str
    body_offset: int  # lines before the body in the original file
    import_lines: tuple[int, ...] = ()  # original 1-based line of each header line


def split_header(code: str) -> SplitFile:
    """Leading `import` lines (with comments/blank lines around them) form the header."""
    lines = code.split("\n")
    imports: list[str] = []
    import_lines: list[int] = []
    last_import = -1
    in_block = False
    for index, line in enumerate(lines):
        stripped = line.strip()
        if in_block:
            in_block = "-/" not in stripped
            continue
        if not stripped or stripped.startswith("--"):
            continue
        if stripped.startswith("/-") and not stripped.startswith("/--"):
            in_block = "-/" not in stripped[2:]
            continue
        if stripped.startswith("import ") or stripped == "import":
            imports.append(stripped)
            import_lines.append(index + 1)
            last_import = index
            continue
        break
    if last_import < 0:
        return SplitFile(header="", body=code, body_offset=0)
    return SplitFile(
        header="\n".join(imports),
        body="\n".join(lines[last_import + 1 :]),
        body_offset=last_import + 1,
        import_lines=tuple(import_lines),
    )


def proof_document(statement: str, proof: str, header: str = "") -> str:
    """The text check_proof's diagnostics are positioned in: header, statement, proof."""
    parts = [header.rstrip("\n")] if header.strip() else []
    return "\n".join([*parts, statement.rstrip("\n"), proof])


_POSED = re.compile(r"^(?P<indent>[ \t]*)(?P<kind>theorem|lemma|example)\b", re.MULTILINE)
_POSED_NAME = "leancoach_posed_statement"


@dataclass(frozen=True)
class TacticResult:
    """One tactic step in tactic mode (messages there carry no useful position)."""

    proof_state: int | None
    goals: list[str]
    status: str | None  # "Completed" | "Incomplete: ..." | "Error: ..." (newer REPLs)
    messages: list[Diagnostic]
    error: str | None = None  # the REPL refused the request ({"message": ...})

    @property
    def completed(self) -> bool:
        if self.error is not None or any(m.severity == "error" for m in self.messages):
            return False
        if self.status is not None:
            return self.status == "Completed"
        return not self.goals


class ReplSession:
    """A leased REPL for step-level work (the prover's search). Positions are raw REPL ones.

    Raises ReplError (ReplTimeout / ReplCrashed / ReplProtocolError) when the process
    fails; the process is then gone and the pool starts a fresh one for the next lease.
    """

    def __init__(self, process: ReplProcess, timeout_s: float) -> None:
        self._process = process
        self._timeout_s = timeout_s

    @property
    def header_env(self) -> int:
        assert self._process.header_env is not None
        return self._process.header_env

    def command(
        self, code: str, env: int | None = None, timeout_s: float | None = None
    ) -> dict[str, Any]:
        payload: dict[str, Any] = {"cmd": code, "env": self.header_env if env is None else env}
        return self._process.request(payload, timeout_s or self._timeout_s)

    def tactic(self, tactic: str, proof_state: int, timeout_s: float | None = None) -> TacticResult:
        reply = self._process.request(
            {"tactic": tactic, "proofState": proof_state}, timeout_s or self._timeout_s
        )
        if "proofState" not in reply:
            return TacticResult(None, [], None, [], error=str(reply.get("message", reply)))
        return TacticResult(
            proof_state=int(reply["proofState"]),
            goals=[str(g) for g in reply.get("goals", [])],
            status=reply.get("proofStatus"),
            messages=[_diagnostic(m, 0) for m in reply.get("messages", [])],
        )


@dataclass
class _Posed:
    """The file sent to Lean and how to map its positions back to the caller's view."""

    split: SplitFile
    names: list[str]
    # (line, column after `example`, added characters) where an example got a name
    renames: list[tuple[int, int, int]] = field(default_factory=list)
    indented_from_line: int | None = None  # proof lines got 2 spaces from this line on


class LeanChecker:
    """The product's one entry point to Lean. Thread-safe; one pool per instance."""

    def __init__(
        self,
        repl_command: list[str] | None = None,
        *,
        timeout_s: float = 60.0,
        memory_mb: int | None = 8192,
        max_processes: int = 2,
        max_uses: int = 100,
        acquire_timeout_s: float = 30.0,
        header_timeout_s: float = 300.0,
        require_sandbox: bool | None = None,
        sandbox: bool | None = None,
        cwd: str | None = None,
        sandbox_paths: list[str] | None = None,
        extra_env: dict[str, str] | None = None,
    ) -> None:
        detected = detect_repl() if repl_command is None else None
        self.config = LeanConfig(
            timeout_s=timeout_s,
            memory_mb=memory_mb,
            max_processes=max_processes,
            max_uses=max_uses,
            acquire_timeout_s=acquire_timeout_s,
            header_timeout_s=header_timeout_s,
            require_sandbox=(
                env_flag("LEANCOACH_REQUIRE_SANDBOX")
                if require_sandbox is None
                else require_sandbox
            ),
            use_sandbox=sandbox,
            cwd=cwd if cwd is not None else (detected.cwd if detected else None),
            sandbox_paths=tuple(
                sandbox_paths
                if sandbox_paths is not None
                else (detected.sandbox_paths if detected else [])
            ),
        )
        self.repl_command = (
            list(repl_command) if repl_command else (detected.command if detected else None)
        )
        self.library_src = detected.library_src if detected else None
        # Variables the REPL process gets on top of the minimal environment (e.g. a
        # LEAN_PATH); the app's own environment is never passed through.
        self.extra_env = dict(extra_env or {})
        self._probe = self._decide_sandbox()
        self.sandboxed = (
            self._probe is not None and self._probe.usable and self.config.use_sandbox is not False
        )
        self.unavailable_reason = self._unavailable_reason(detected)
        self._pool = ReplPool(self._spawn, self.config.pool_limits)

    # -- availability ---------------------------------------------------------------

    def _decide_sandbox(self) -> sandbox.SandboxProbe | None:
        if self.config.use_sandbox is False:
            return None
        return sandbox.probe(sandbox.find_bwrap())

    def _unavailable_reason(self, detected: Any) -> str | None:
        if self.repl_command is None:
            return detected.reason if detected is not None else f"No Lean REPL: {INSTALL_HINT}."
        probe = self._probe
        if self.config.use_sandbox is True and not (probe and probe.usable):
            return f"Lean checks were asked to run sandboxed, but {probe.reason if probe else ''}."
        if self.config.require_sandbox and not (probe and probe.usable):
            reason = probe.reason if probe else "bubblewrap is unusable"
            return (
                f"Lean checks are refused: production requires the bubblewrap sandbox, and "
                f"{reason}. Install bubblewrap or unset LEANCOACH_REQUIRE_SANDBOX (development only)."
            )
        return None

    @property
    def available(self) -> bool:
        return self.unavailable_reason is None

    def status(self) -> LeanStatus:
        if self.unavailable_reason is not None:
            reason = self.unavailable_reason
        elif self.sandboxed:
            reason = "Lean REPL ready, sandboxed with bubblewrap"
        else:
            why = self._probe.reason if self._probe else "the sandbox is switched off"
            reason = f"Lean REPL ready, NOT sandboxed ({why})"
        return LeanStatus(self.available, reason, self.repl_command, self.sandboxed)

    def _ensure_available(self) -> None:
        if self.unavailable_reason is not None:
            raise LeanUnavailable(self.unavailable_reason)
        if not self.sandboxed:
            _warn_unsandboxed_once(self._probe)

    # -- processes ------------------------------------------------------------------

    def _spawn(self) -> ReplProcess:
        assert self.repl_command is not None
        argv = [_absolute_if_path(word) for word in self.repl_command]
        env: dict[str, str] | None = None
        if self.sandboxed and self._probe is not None and self._probe.bwrap:
            paths = [*self.config.sandbox_paths, *sandbox.paths_for_command(argv)]
            argv = sandbox.wrap(
                self._probe.bwrap,
                argv,
                cwd=self.config.cwd,
                read_only_paths=paths,
                extra_env=self.extra_env,
            )
        else:
            env = {**_plain_environment(), **self.extra_env}
        spec = SpawnSpec(
            argv=argv,
            cwd=self.config.cwd,
            env=env,
            memory_mb=self.config.memory_mb,
            cpu_limit_s=self.config.cpu_limit_s,
        )
        try:
            return ReplProcess(spec)
        except OSError as exc:
            raise LeanUnavailable(
                f"Could not start the Lean REPL {self.repl_command!r}: {exc}. {INSTALL_HINT}."
            ) from exc

    @contextmanager
    def session(self, header: str = "") -> Iterator[ReplSession]:
        """Lease one REPL with `header` imported, for step-level (tactic mode) work."""
        self._ensure_available()
        try:
            with self._pool.lease(header) as process:
                yield ReplSession(process, self.config.timeout_s)
        except PoolClosed as exc:
            raise LeanUnavailable(str(exc)) from exc

    def close(self) -> None:
        self._pool.close()

    @property
    def pool(self) -> ReplPool:
        return self._pool

    # -- checks ---------------------------------------------------------------------

    def check(self, code: str, *, timeout_s: float | None = None) -> CheckResult:
        """Check a whole Lean file; `import` lines at its top select the pooled env."""
        self._ensure_available()
        split = split_header(code)
        # `#print axioms` cannot reach an unnamed `example`: name each one (and map the
        # columns on its line back) so native_decide or sorryAx in an example still count.
        body, renames = _name_examples(split.body, split.body_offset, "leancoach_example")
        named = replace(split, body=body)
        posed = _Posed(split=named, names=declared_names(body), renames=renames)
        return self._run(named, posed.names, timeout_s, posed=posed)

    def check_proof(self, statement: str, proof: str, header: str = "") -> CheckResult:
        """Check a user's tactic block against a course-posed statement ending in `:= by`.

        The statement is never taken from the user; the proof is appended after it, and a
        proof that tries to leave the tactic block is rejected (see verdict.py).
        """
        if not statement.rstrip().endswith(":= by"):
            raise ValueError(
                "check_proof's statement must end with ':= by' (the user supplies the tactics)"
            )
        self._ensure_available()
        started = time.monotonic()
        offset = len(header.rstrip("\n").split("\n")) if header.strip() else 0
        statement_lines = len(statement.rstrip("\n").split("\n"))
        rejections = proof_rejections(proof)
        if rejections:
            first = offset + statement_lines
            return CheckResult(
                valid=False,
                diagnostics=[
                    Diagnostic(
                        line=first + r.line,
                        column=r.column,
                        end_line=first + r.line,
                        end_column=r.end_column,
                        severity="error",
                        message=r.message,
                        kind=DiagnosticKind.OTHER,
                    )
                    for r in rejections
                ],
                elapsed_s=time.monotonic() - started,
            )
        posed = _compose(statement, proof, header)
        return self._run(posed.split, posed.names, None, posed=posed)

    async def acheck(self, code: str, *, timeout_s: float | None = None) -> CheckResult:
        """check() in a worker thread, for asyncio callers (Channels consumers)."""
        return await asyncio.to_thread(self.check, code, timeout_s=timeout_s)

    async def acheck_proof(self, statement: str, proof: str, header: str = "") -> CheckResult:
        return await asyncio.to_thread(self.check_proof, statement, proof, header)

    def _run(
        self,
        split: SplitFile,
        names: list[str],
        timeout_s: float | None,
        posed: _Posed | None,
    ) -> CheckResult:
        timeout = timeout_s or self.config.timeout_s
        started = time.monotonic()
        try:
            with self._pool.lease(split.header) as process:
                result = _check_in(process, split, names, timeout)
        except PoolBusy as exc:
            result = CheckResult(valid=False, error=str(exc))
        except PoolClosed as exc:
            raise LeanUnavailable(str(exc)) from exc
        except ReplTimeout as exc:
            result = CheckResult(valid=False, timed_out=True, error=str(exc))
        except ReplError as exc:  # crashed, garbage, or header refused
            result = CheckResult(
                valid=False,
                crashed=isinstance(exc, (ReplCrashed, ReplProtocolError)),
                error=str(exc),
            )
        result.elapsed_s = time.monotonic() - started
        if posed is not None:
            result = _map_back(result, posed)
        return result


def _check_in(
    process: ReplProcess, split: SplitFile, names: list[str], timeout: float
) -> CheckResult:
    header_diags = [
        _header_diagnostic(m, split) for m in (process.header_reply or {}).get("messages", [])
    ]
    deadline = time.monotonic() + timeout  # the body and the axiom query share it
    reply = process.request({"cmd": split.body, "env": process.header_env}, timeout)
    if "env" not in reply:
        # The REPL refused the request itself ("Unknown environment.", "Lean error: ...").
        return CheckResult(
            valid=False,
            diagnostics=header_diags,
            error=f"the REPL refused the check: {reply.get('message', reply)}",
        )
    diagnostics = header_diags + [
        _diagnostic(m, split.body_offset) for m in reply.get("messages", [])
    ]
    sorries = [_sorry(s, split.body_offset) for s in reply.get("sorries", [])]
    has_error = any(d.severity == "error" for d in diagnostics)
    has_sorry = bool(sorries) or any(d.kind is DiagnosticKind.SORRY for d in diagnostics)
    result = CheckResult(valid=False, diagnostics=diagnostics, sorries=sorries)
    if has_error or not names:
        # Nothing to print axioms of (only `example`s): the verdict rests on errors/sorry.
        result.valid = not has_error and not has_sorry
        result.axioms = None if has_error else []
        return result
    remaining = max(1.0, deadline - time.monotonic())
    axioms, problem = _axioms_of(process, names, int(reply["env"]), remaining)
    result.axioms = axioms
    if problem is not None:
        result.error = problem
        return result
    bad = disallowed_axioms(axioms or [])
    if bad:
        result.diagnostics.append(
            Diagnostic(
                line=split.body_offset + _declaration_line(split.body, names),
                column=0,
                end_line=None,
                end_column=None,
                severity="error",
                message=f"the proof depends on axioms that are not accepted: {', '.join(bad)}",
                kind=DiagnosticKind.SORRY if bad == ["sorryAx"] else DiagnosticKind.OTHER,
            )
        )
    result.valid = not has_sorry and not bad
    return result


def _axioms_of(
    process: ReplProcess, names: list[str], env: int, timeout: float
) -> tuple[list[str] | None, str | None]:
    """Union of `#print axioms` over names, or (None, why) when any could not be read."""
    command = "\n".join(f"#print axioms {name}" for name in names)
    reply = process.request({"cmd": command, "env": env}, timeout)
    by_line: dict[int, list[str]] = {}
    for message in reply.get("messages", []):
        line = int((message.get("pos") or {}).get("line", 0))
        text = str(message.get("data", ""))
        parsed = parse_axioms_message(text)
        if message.get("severity") == "error" or parsed is None:
            name = names[line - 1] if 0 < line <= len(names) else "?"
            return None, f"could not confirm the axioms of `{name}`: {text.strip()}"
        by_line.setdefault(line, []).extend(parsed)
    missing = [names[i] for i in range(len(names)) if (i + 1) not in by_line]
    if missing:
        return None, f"Lean printed no axioms for {', '.join(missing)}"
    return sorted({a for found in by_line.values() for a in found}), None


def _diagnostic(message: dict[str, Any], line_offset: int) -> Diagnostic:
    pos = message.get("pos") or {}
    end = message.get("endPos") or None
    text = str(message.get("data", ""))
    severity = str(message.get("severity", "error"))
    kind = classify(text)
    return Diagnostic(
        line=int(pos.get("line", 0)) + line_offset,
        column=int(pos.get("column", 0)),
        end_line=int(end["line"]) + line_offset if end else None,
        end_column=int(end["column"]) if end else None,
        severity="info" if severity == "trace" else severity,
        message=text,
        kind=kind,
        goal=extract_goal(text, kind),
    )


def _header_diagnostic(message: dict[str, Any], split: SplitFile) -> Diagnostic:
    diag = _diagnostic(message, 0)

    # The header sent to Lean is the import lines only; map its line i to the file's.
    def original(line: int | None) -> int | None:
        if line is None or not split.import_lines:
            return line
        return split.import_lines[min(max(line, 1), len(split.import_lines)) - 1]

    return replace(diag, line=original(diag.line) or 1, end_line=original(diag.end_line))


def _sorry(entry: dict[str, Any], line_offset: int) -> Sorry:
    pos = entry.get("pos") or {}
    return Sorry(
        goal=str(entry.get("goal", "")),
        line=int(pos.get("line", 0)) + line_offset,
        column=int(pos.get("column", 0)),
    )


_EXAMPLE = re.compile(r"^(?P<indent>[ \t]*(?:@\[[^\]]*\]\s*)?)example\b", re.MULTILINE)


def _name_examples(
    code: str, line_offset: int, prefix: str
) -> tuple[str, list[tuple[int, int, int]]]:
    """Turn each top-level `example` into `theorem <prefix>_<k>` (same line), with the
    (caller line, column after `example`, added characters) needed to map columns back."""
    blanked = blank_comments_and_strings(code)
    lines = code.split("\n")
    renames: list[tuple[int, int, int]] = []
    for index, line in enumerate(blanked.split("\n")):
        found = _EXAMPLE.match(line)
        if found is None:
            continue
        start = len(found.group("indent"))
        replacement = f"theorem {prefix}_{len(renames) + 1}"
        original = lines[index]
        lines[index] = original[:start] + replacement + original[start + len("example") :]
        delta = len(replacement) - len("example")
        renames.append((index + 1 + line_offset, start + len("example"), delta))
    return "\n".join(lines), renames


def _compose(statement: str, proof: str, header: str) -> _Posed:
    """Header + statement + proof as one file, naming an `example` so its axioms print."""
    statement = statement.rstrip("\n")
    offset = len(header.rstrip("\n").split("\n")) if header.strip() else 0
    if _POSED.search(statement) is None:
        raise ValueError("check_proof's statement must be a `theorem`, `lemma` or `example`")
    statement, renames = _name_examples(statement, offset, _POSED_NAME)
    names = declared_names(statement)
    if not names:
        raise ValueError("check_proof's statement must declare a named theorem (or an example)")
    proof_lines = proof.split("\n")
    indented_from = None
    non_blank = [line for line in proof_lines if line.strip()]
    if non_blank and min(len(line) - len(line.lstrip()) for line in non_blank) == 0:
        # A tactic block must be indented past the command; indent it for the user and
        # shift columns back when reporting.
        proof = "\n".join(("  " + line) if line.strip() else line for line in proof_lines)
        indented_from = offset + len(statement.split("\n")) + 1
    text = proof_document(statement, proof, header)
    return _Posed(
        split=split_header(text),
        names=names[-1:],
        renames=renames,
        indented_from_line=indented_from,
    )


def _map_back(result: CheckResult, posed: _Posed) -> CheckResult:
    def column(line: int | None, col: int | None) -> int | None:
        if line is None or col is None:
            return col
        for renamed_line, after_col, delta in posed.renames:
            if line == renamed_line and col >= after_col:
                return max(after_col, col - delta)
        if posed.indented_from_line is not None and line >= posed.indented_from_line:
            return max(0, col - 2)
        return col

    result.diagnostics = [
        replace(
            d, column=column(d.line, d.column) or 0, end_column=column(d.end_line, d.end_column)
        )
        for d in result.diagnostics
    ]
    result.sorries = [replace(s, column=column(s.line, s.column) or 0) for s in result.sorries]
    return result


def _absolute_if_path(word: str) -> str:
    # Inside the sandbox only bound folders exist, so a relative script path must become
    # absolute for paths_for_command to bind its folder.
    if not os.path.isabs(word) and os.sep in word and os.path.exists(word):
        return os.path.abspath(word)
    return word


def _declaration_line(body: str, names: list[str]) -> int:
    """1-based line in body that declares the first of names (1 if not found)."""
    for name in names:
        short = re.escape(name.rsplit(".", 1)[-1])
        found = re.search(
            rf"^.*\b(?:theorem|lemma|def|abbrev|instance|opaque)\s+(?:\S*\.)?{short}\b", body, re.M
        )
        if found:
            return body.count("\n", 0, found.start()) + 1
    return 1


def _plain_environment() -> dict[str, str]:
    # Without the sandbox, still avoid leaking the app's secrets (API keys, DB URLs) into
    # a process that runs strangers' code: pass only what Lean and lake need.
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "ELAN_HOME", "LEAN_PATH", "LEAN_SYSROOT", "TMPDIR")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    return env


def _warn_unsandboxed_once(probe: sandbox.SandboxProbe | None) -> None:
    global _warned_unsandboxed
    with _warn_lock:
        if _warned_unsandboxed:
            return
        _warned_unsandboxed = True
    why = probe.reason if probe else "the sandbox was switched off"
    log.warning(
        "LEAN RUNS UNSANDBOXED: %s. Elaborating Lean can run arbitrary code (#eval, "
        "run_cmd); never expose this to untrusted users. Production sets "
        "LEANCOACH_REQUIRE_SANDBOX=1, which refuses checks without bubblewrap.",
        why,
    )


@dataclass
class _Shared:
    checker: LeanChecker | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)


_shared = _Shared()


def get_checker() -> LeanChecker:
    """The process-wide checker (one pool per worker process), built on first use.

    Sized from the environment: LEANCOACH_LEAN_PROCESSES, LEANCOACH_LEAN_TIMEOUT_S,
    LEANCOACH_LEAN_MEMORY_MB, LEANCOACH_LEAN_MAX_USES. A forked child (Celery prefork)
    builds its own: pipes to the parent's REPLs must not be shared.
    """
    with _shared.lock:
        if _shared.checker is None:
            _shared.checker = LeanChecker(
                timeout_s=_env_number("LEANCOACH_LEAN_TIMEOUT_S", 60.0),
                memory_mb=int(_env_number("LEANCOACH_LEAN_MEMORY_MB", 8192)),
                max_processes=int(_env_number("LEANCOACH_LEAN_PROCESSES", 2)),
                max_uses=int(_env_number("LEANCOACH_LEAN_MAX_USES", 100)),
            )
        return _shared.checker


def reset_checker() -> None:
    """Close and forget the shared checker (tests; settings changes)."""
    with _shared.lock:
        checker, _shared.checker = _shared.checker, None
    if checker is not None:
        checker.close()


def _forget_after_fork() -> None:
    _shared.checker = None
    _shared.lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_after_fork)
atexit.register(reset_checker)


def _env_number(name: str, default: float) -> float:
    value = os.environ.get(name)
    if value is None or not value.strip():
        return default
    try:
        return float(value)
    except ValueError:
        raise ValueError(f"{name}={value!r} is not a number") from None


def lean_status() -> LeanStatus:
    """Whether checks can run here and why not; starts no Lean process."""
    return LeanChecker(max_processes=1).status()
