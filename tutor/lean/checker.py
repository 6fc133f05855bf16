"""LeanChecker: check Lean files and proofs through a sandboxed pool of Lean REPLs.

    checker = LeanChecker()                       # autodetect the REPL
    result = checker.check("theorem t : 1 + 1 = 2 := by rfl")
    result = checker.check_proof("theorem t (n : Nat) : n + 0 = n := by", "  simp")

Positions: Diagnostic lines are 1-based in the code the caller passed (for check_proof:
in `proof_document(statement, proof, header)`), columns 0-based as Lean reports them.

What the verdict covers and what it does not: see docs/LEAN.md and tutor/lean/verdict.py.

Two pools: one for verdicts (check, check_proof) and one for the prover's exploration
(session(): tactic mode, lemma listing), so a process that ran a model's experiments
never answers for a verdict. Untrusted text passes a gate before any process sees it
(verdict.proof_rejections / file_rejections). check_proof never lets the proof be a
command: the posed statement with `sorry` gives a proof state, the proof runs there in
tactic mode as one parenthesised tactic block (which must parse to the end, so a
command cannot even parse), and only then is the same block elaborated in place for
positions, sorries and `#print axioms _root_.NAME`. Every check ends with a barrier
request (ReplProcess.sync) so a process whose reply stream was tampered with is killed
before it can answer anyone else.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field, replace
from typing import Any

from tutor.lean import cgroups, sandbox, seccomp
from tutor.lean.detect import INSTALL_HINT, detect_repl, manifest_path
from tutor.lean.kernel_check import (
    CouldNotCheck,
    KernelVerifier,
    VerifyConfig,
    VerifyStatus,
    config_from_environment,
)
from tutor.lean.messages import classify, extract_goal
from tutor.lean.pool import HeaderFailed, PoolBusy, PoolClosed, PoolLimits, ReplPool
from tutor.lean.repl import (
    PickleFailed,
    ReplCrashed,
    ReplError,
    ReplProcess,
    ReplProtocolError,
    ReplTimeout,
    SpawnSpec,
)
from tutor.lean.tactics import parse_tactics, with_goals_after
from tutor.lean.types import (
    CheckResult,
    Diagnostic,
    DiagnosticKind,
    LeanStatus,
    LeanUnavailable,
    Sorry,
)
from tutor.lean.verdict import (
    Declared,
    LexError,
    Rejection,
    UnknownDeclarations,
    blank_comments_and_strings,
    declarations,
    disallowed_axioms,
    file_rejections,
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
    # RLIMIT_AS (address space) per process, and the per-REPL cgroup's memory.max. An
    # `import Mathlib` process peaks around 6.5 GB resident (zcash/ironwood#144) and maps
    # more address space than that (every .olean is mapped whole; mimalloc and thread
    # stacks reserve ahead): 8 GB stopped it, 24 GB leaves room (docs/LEAN.md, "Sizing").
    memory_mb: int | None = 24576
    max_processes: int = 2  # REPL processes alive at once (each may hold Mathlib)
    max_uses: int = 100  # recycle a process after this many checks (Lean's memory grows)
    acquire_timeout_s: float = 30.0  # longest wait for a free process before "busy"
    header_timeout_s: float = 300.0  # importing Mathlib from a cold cache is slow
    # Recycle when the process's *private* memory (RssAnon) passes this: the mapped .olean
    # files are shared, clean pages and count in VmRSS but are not what grows.
    recycle_rss_mb: float | None = 8192.0
    require_sandbox: bool = False  # production: refuse to check without bubblewrap
    use_sandbox: bool | None = None  # None: use bubblewrap when it works here
    cwd: str | None = None  # where the REPL runs (a Lean project folder)
    sandbox_paths: tuple[str, ...] = ()  # extra read-only folders inside the sandbox
    file_size_mb: int | None = 256  # RLIMIT_FSIZE: no file (or /tmp file) written past this
    user_processes: int | None = 4096  # RLIMIT_NPROC: per user, a backstop (not for root)
    pids_max: int | None = 512  # cgroup pids.max per REPL (threads count): where delegated
    use_cgroup: bool = True  # a cgroup v2 per REPL (memory.max = memory_mb) where delegated
    seccomp: bool = False  # production: on (LEANCOACH_SECCOMP=1 from settings/prod.py)

    def __post_init__(self) -> None:
        if self.timeout_s <= 0:
            raise ValueError("timeout_s must be > 0 seconds (a check needs a wall-clock limit)")
        if self.memory_mb is not None and self.memory_mb < 64:
            raise ValueError("memory_mb must be >= 64 (or None for no cap); Mathlib needs ~16384")
        if self.require_sandbox and self.use_sandbox is False:
            raise ValueError("require_sandbox=True contradicts use_sandbox=False; drop one of them")
        if self.seccomp and self.use_sandbox is False:
            raise ValueError("seccomp=True needs the bubblewrap sandbox; drop use_sandbox=False")

    @property
    def pool_limits(self) -> PoolLimits:
        return PoolLimits(
            max_processes=self.max_processes,
            max_uses=self.max_uses,
            acquire_timeout_s=self.acquire_timeout_s,
            header_timeout_s=self.header_timeout_s,
            recycle_rss_mb=self.recycle_rss_mb,
        )

    @property
    def cpu_limit_s(self) -> int:
        # RLIMIT_CPU counts over a process's whole life, so it must cover every use plus
        # the header; the wall-clock timeout is the per-check limit.
        return int(self.header_timeout_s + self.timeout_s * (self.max_uses + 1)) + 1

    @property
    def child_limits(self) -> sandbox.ChildLimits:
        return sandbox.ChildLimits(
            memory_mb=self.memory_mb,
            cpu_s=self.cpu_limit_s,
            file_size_mb=self.file_size_mb,
            processes=self.user_processes,
        )


@dataclass(frozen=True)
class SplitFile:
    """A Lean file split into its header (imports, run once per process) and body."""

    header: str  # the import lines only, joined: the pool key
    body: str
    body_offset: int  # lines before the body in the original file
    import_lines: tuple[int, ...] = ()  # original 1-based line of each header line


def split_header(code: str) -> SplitFile:
    """Leading `import` lines (with comments/blank lines around them) form the header.

    Lines are read with comments blanked, so `/- c -/ import X` is an import line too."""
    lines = code.split("\n")
    try:
        blanked = blank_comments_and_strings(code).split("\n")
    except LexError:
        blanked = lines
    imports: list[str] = []
    import_lines: list[int] = []
    last_import = -1
    for index, line in enumerate(blanked):
        stripped = line.strip()
        if not stripped:
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

    Leased from the exploration pool, never the verdict pool. Commands pass the file gate
    and tactics the proof gate before they are sent; a refused one comes back as a REPL
    refusal (`{"message": ...}` / TacticResult.error) and never reaches Lean.

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
        refused = file_rejections(code)
        if refused:
            return {"message": f"refused before Lean ran: {_describe(refused)}"}
        payload: dict[str, Any] = {"cmd": code, "env": self.header_env if env is None else env}
        return self._process.request(payload, timeout_s or self._timeout_s)

    def tactic(self, tactic: str, proof_state: int, timeout_s: float | None = None) -> TacticResult:
        refused = proof_rejections(tactic)
        if refused:
            return TacticResult(
                None, [], None, [], error=f"refused before Lean ran: {_describe(refused)}"
            )
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


def _describe(rejections: list[Rejection]) -> str:
    return "; ".join(f"line {r.line}: {r.message}" for r in rejections[:3])


@dataclass
class _Posed:
    """The file sent to Lean and how to map its positions back to the caller's view."""

    split: SplitFile
    names: list[Declared]
    # (line, column after `example`, added characters) where an example got a name
    renames: list[tuple[int, int, int]] = field(default_factory=list)
    indented_from_line: int | None = None  # proof lines got 2 spaces from this line on
    undetermined: str | None = None  # why the declared names are unknown (fail closed)
    # check_proof: the statement with `sorry` (for the proof state) and the tactic block
    sorry_body: str | None = None
    block: str | None = None
    first_proof_line: int = 0  # line of the proof's first line in the proof document
    # The posed statement (examples named) with `sorry`, as a REPL body after the header:
    # what the reference pool elaborates for the kernel check's statement comparison.
    reference_body: str | None = None


class LeanChecker:
    """The product's one entry point to Lean. Thread-safe; one pool per instance."""

    def __init__(
        self,
        repl_command: list[str] | None = None,
        *,
        timeout_s: float = 60.0,
        memory_mb: int | None = 24576,
        max_processes: int = 2,
        max_uses: int = 100,
        acquire_timeout_s: float = 30.0,
        header_timeout_s: float = 300.0,
        require_sandbox: bool | None = None,
        sandbox: bool | None = None,
        cwd: str | None = None,
        sandbox_paths: list[str] | None = None,
        extra_env: dict[str, str] | None = None,
        verify: VerifyConfig | None = None,
        seccomp: bool | None = None,
        cgroup: bool = True,
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
            use_cgroup=cgroup,
            seccomp=env_flag("LEANCOACH_SECCOMP") if seccomp is None else seccomp,
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
        self._cgroups = cgroups.support() if self.config.use_cgroup else None
        self._seccomp_program: bytes | None = None
        self.unavailable_reason = self._unavailable_reason(detected)
        self._pool = ReplPool(self._spawn, self.config.pool_limits)  # verdicts only
        self._explore_pool = ReplPool(self._spawn, self.config.pool_limits)  # prover's steps
        # Reference statements only (course text, never a submission): the kernel check
        # compares each proved theorem's type with what this pool elaborates from `sorry`.
        self._reference_pool = ReplPool(
            self._spawn, replace(self.config.pool_limits, max_processes=1)
        )
        self._references: dict[tuple[str, str], bytes] = {}
        self._references_lock = threading.Lock()
        self._ahead_pool: ThreadPoolExecutor | None = None
        self._failed_headers: dict[str, str] = {}
        # Every "proved" is confirmed by this independent step (kernel_check.py).
        self.verifier = KernelVerifier(
            verify
            if verify is not None
            else _verify_config_from_environment(sandbox, self.config.seccomp)
        )

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
        return self._seccomp_refusal()

    def _seccomp_refusal(self) -> str | None:
        """Why checks are refused when the seccomp filter is asked for but cannot apply."""
        if not self.config.seccomp:
            return None
        if not self.sandboxed:
            why = self._probe.reason if self._probe else "the sandbox is switched off"
            return (
                "Lean checks are refused: the seccomp filter (LEANCOACH_SECCOMP=1) is "
                f"installed by bubblewrap, and {why}."
            )
        try:
            self._seccomp_program = seccomp.filter_program()
        except seccomp.SeccompUnsupported as exc:
            return f"Lean checks are refused: {exc}; unset LEANCOACH_SECCOMP to run without it."
        return None

    def limits_summary(self) -> str:
        """Which limits hold for each REPL process, in words (status, /healthz)."""
        parts = ["rlimits (memory, CPU, file size, processes)"]
        if self._cgroups is None:
            parts.append("no per-REPL cgroup (switched off)")
        elif self._cgroups.usable:
            parts.append("cgroup memory.max and pids.max per REPL")
        else:
            parts.append(f"no per-REPL cgroup: {self._cgroups.reason}")
        if self._seccomp_program is not None:
            parts.append("seccomp filter")
        elif self.config.seccomp:
            parts.append("seccomp filter asked for but not in force")
        else:
            parts.append("no seccomp filter (LEANCOACH_SECCOMP is off)")
        return "; ".join(parts)

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
        if self.unavailable_reason is None and self.verifier.unavailable_reason is not None:
            reason += f"; no verdict can say 'proved': {self.verifier.unavailable_reason}"
        return LeanStatus(
            self.available, reason, self.repl_command, self.sandboxed, self.limits_summary()
        )

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
        # The one folder this process may write outside its tmpfs: where it pickles a
        # checked environment for the kernel verifier. Its own, removed when it dies.
        exchange = tempfile.mkdtemp(prefix="leancoach-repl-")
        if self.sandboxed and self._probe is not None and self._probe.bwrap:
            paths = [*self.config.sandbox_paths, *sandbox.paths_for_command(argv)]
            argv = sandbox.wrap(
                self._probe.bwrap,
                argv,
                cwd=self.config.cwd,
                read_only_paths=paths,
                extra_env=self.extra_env,
                writable_paths=[exchange],
            )
        else:
            env = {**_plain_environment(), **self.extra_env}
        cgroup = None
        if self._cgroups is not None and self._cgroups.usable and self._cgroups.parent:
            cgroup = cgroups.CgroupPlan(
                self._cgroups.parent, self.config.memory_mb, self.config.pids_max
            )
        spec = SpawnSpec(
            argv=argv,
            cwd=self.config.cwd,
            env=env,
            limits=self.config.child_limits,
            cgroup=cgroup,
            seccomp_program=self._seccomp_program if self.sandboxed else None,
            exchange_dir=exchange,
        )
        try:
            return ReplProcess(spec)
        except (OSError, subprocess.SubprocessError) as exc:
            shutil.rmtree(exchange, ignore_errors=True)
            raise LeanUnavailable(
                f"Could not start the Lean REPL {self.repl_command!r}: {exc}. {INSTALL_HINT}."
            ) from exc

    @contextmanager
    def session(self, header: str = "") -> Iterator[ReplSession]:
        """Lease one REPL with `header` imported, for step-level (tactic mode) work.

        From the exploration pool: nothing a session runs ever answers for a verdict."""
        self._ensure_available()
        self._refuse_failed_header(header)
        try:
            with self._explore_pool.lease(header) as process:
                yield ReplSession(process, self.config.timeout_s)
                # A process whose reply stream was tampered with dies here instead of
                # serving the next rollout (the barrier kills it on any mismatch).
                with suppress(ReplError):
                    process.sync(self.config.timeout_s)
        except PoolClosed as exc:
            raise LeanUnavailable(str(exc)) from exc
        except HeaderFailed as exc:
            self._failed_headers[header] = str(exc)
            raise LeanUnavailable(str(exc)) from exc

    def close(self) -> None:
        self._pool.close()
        self._explore_pool.close()
        self._reference_pool.close()
        with self._references_lock:
            ahead, self._ahead_pool = self._ahead_pool, None
        if ahead is not None:
            ahead.shutdown(wait=False, cancel_futures=True)
        self.verifier.close()

    @property
    def pool(self) -> ReplPool:
        """The verdict pool."""
        return self._pool

    @property
    def explore_pool(self) -> ReplPool:
        return self._explore_pool

    def _refuse_failed_header(self, header: str) -> None:
        if header in self._failed_headers:
            raise LeanUnavailable(self._failed_headers[header])

    # -- checks ---------------------------------------------------------------------

    def check(self, code: str, *, timeout_s: float | None = None) -> CheckResult:
        """Check a whole Lean file; `import` lines at its top select the pooled env."""
        self._ensure_available()
        started = time.monotonic()
        refused = file_rejections(code)
        if refused:
            return _refused(refused, 0, started)
        split = split_header(code)
        # `#print axioms` cannot reach an unnamed `example`: name each one (and map the
        # columns on its line back) so native_decide or sorryAx in an example still count.
        body, renames = _name_examples(split.body, split.body_offset, "leancoach_example")
        named = replace(split, body=body)
        posed = _Posed(split=named, names=[], renames=renames)
        try:
            posed.names = declarations(body)
        except UnknownDeclarations as exc:
            posed.undetermined = str(exc)
        ahead = self._ahead(split.header, None)
        result, pickle = self._run(named, timeout_s, posed=posed)
        return self._confirm(result, pickle, split.header, theorem=None, ahead=ahead)

    def prestart(self, header: str = "") -> bool:
        """Start a verdict REPL with `header`'s imports, the reference REPL that elaborates
        posed statements, and the kernel verifier for them, before any check asks for one (a
        Celery worker does this as it starts), so a first check pays no import. False when
        Lean is unavailable (nothing is started, nothing is claimed), the header cannot be
        imported (the first check then reports why), or a process with it is ready already."""
        if not self.available:
            return False
        key = split_header(header).header  # the pool's key, as a check computes it
        if key in self._failed_headers:
            return False
        try:
            started = self._pool.prestart(key)
        except (PoolClosed, HeaderFailed, ReplError, LeanUnavailable) as exc:
            log.warning("Lean REPL not started ahead of the first check: %s", exc)
            return False
        try:
            self._reference_pool.prestart(key)
        except (PoolClosed, HeaderFailed, ReplError, LeanUnavailable) as exc:
            log.warning("reference REPL not started ahead of the first check: %s", exc)
        self.verifier.prestart(verifier_imports(key))
        return started

    def prestart_explore(self, header: str = "") -> bool:
        """Start one exploration REPL with `header`'s imports (goals while typing and the
        prover use that pool), so the first goals after a worker starts are not an import
        away. False when Lean is unavailable, the header fails, or one is ready already."""
        if not self.available:
            return False
        key = split_header(header).header
        if key in self._failed_headers:
            return False
        try:
            return self._explore_pool.prestart(key)
        except (PoolClosed, HeaderFailed, ReplError, LeanUnavailable) as exc:
            log.warning("exploration REPL not started ahead of the first goals: %s", exc)
            return False

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
            return _refused(rejections, offset + statement_lines, started)
        posed = _compose(statement, proof, header)
        ahead = self._ahead(posed.split.header, posed)
        result, pickle = self._run(posed.split, None, posed=posed)
        return self._confirm(
            result, pickle, posed.split.header, theorem=posed.names[-1], ahead=ahead
        )

    def explore_proof(
        self, statement: str, proof: str, header: str = "", *, timeout_s: float | None = None
    ) -> CheckResult:
        """Goals and messages of a proof being typed, for the editor's goal view: the same
        gate and the same tactic-mode run as check_proof, in the exploration pool, with no
        kernel check. Never a verdict: `valid` only says Lean's fast path saw no error and
        no goal left, which is not what "proved" means (check_proof says that)."""
        if not statement.rstrip().endswith(":= by"):
            raise ValueError("explore_proof's statement must end with ':= by'")
        self._ensure_available()
        started = time.monotonic()
        offset = len(header.rstrip("\n").split("\n")) if header.strip() else 0
        statement_lines = len(statement.rstrip("\n").split("\n"))
        rejections = proof_rejections(proof)
        if rejections:
            return _refused(rejections, offset + statement_lines, started)
        posed = _compose(statement, proof, header)
        result, _ = self._run(posed.split, timeout_s, posed=posed, pool=self._explore_pool)
        return result

    def _confirm(
        self,
        result: CheckResult,
        pickle: bytes | str | None,
        header: str,
        *,
        theorem: Declared | None,
        ahead: Future[bytes | None] | None,
    ) -> CheckResult:
        """valid=True only when the independent verification step confirms it.

        pickle: the checked environment as the REPL pickled it, or why it could not."""
        if not result.valid:
            return result
        started = time.monotonic()
        verdict = None
        if self.verifier.unavailable_reason is not None:
            step, reason = "setup", self.verifier.unavailable_reason
        elif isinstance(pickle, str) or pickle is None:
            step, reason = "pickle", pickle or "the REPL wrote no environment"
        elif theorem is not None and theorem.private:
            step, reason = "statement", "a `private` posed theorem cannot be named to the verifier"
        else:
            step, reason = "", ""
            try:
                reference = ahead.result() if ahead is not None else None
                verdict = self.verifier.verify(
                    pickle,
                    imports=verifier_imports(header),
                    theorem=theorem.parts if theorem is not None else None,
                    reference=reference,
                )
            except CouldNotCheck as exc:
                step, reason = exc.step, str(exc)
        result.elapsed_s += time.monotonic() - started
        if verdict is not None and verdict.status is VerifyStatus.CONFIRMED:
            result.axioms = verdict.axioms
            return result
        result.valid = False
        if verdict is None or verdict.status is VerifyStatus.UNAVAILABLE:
            if verdict is not None:
                step, reason = verdict.step, verdict.reason
            result.error = (
                f"could not confirm the proof with the independent kernel check "
                f"(step: {step or 'setup'}): {reason}"
            )
            return result
        result.diagnostics.append(
            Diagnostic(
                line=1,
                column=0,
                end_line=None,
                end_column=None,
                severity="error",
                message=f"the independent kernel check refused the proof: {verdict.reason}",
                kind=DiagnosticKind.OTHER,
            )
        )
        if verdict.axioms is not None:
            result.axioms = verdict.axioms
        return result

    def _ahead(self, header: str, posed: _Posed | None) -> Future[bytes | None] | None:
        """While the fast path runs, start what the verification will need: the verifier for
        this header and (check_proof) the reference statement's export. A first check pays
        these starts at once instead of one after another; later ones find them ready."""
        if self.verifier.unavailable_reason is not None:
            return None
        with self._references_lock:
            if self._ahead_pool is None:
                self._ahead_pool = ThreadPoolExecutor(2, thread_name_prefix="lean-verify-ahead")
            pool = self._ahead_pool

        def prepare() -> bytes | None:
            self.verifier.prestart(verifier_imports(header))
            return self._reference(posed) if posed is not None else None

        try:
            return pool.submit(prepare)
        except RuntimeError:  # closed meanwhile: the check itself says so
            return None

    def _reference(self, posed: _Posed) -> bytes:
        """The export of the posed statement with `sorry`, elaborated by the reference pool
        (a REPL that only ever sees course text); one per statement and header, cached."""
        assert posed.reference_body is not None
        key = (posed.split.header, posed.reference_body)
        with self._references_lock:
            cached = self._references.get(key)
        if cached is not None:
            return cached
        timeout = self.config.timeout_s
        try:
            with self._reference_pool.lease(posed.split.header) as process:
                reply = process.request(
                    {"cmd": posed.reference_body, "env": process.header_env}, timeout
                )
                errors = [m for m in reply.get("messages", []) if m.get("severity") == "error"]
                if "env" not in reply or errors:
                    why = errors[0].get("data") if errors else reply.get("message", reply)
                    raise CouldNotCheck(
                        "reference", f"the posed statement does not elaborate: {why}"
                    )
                pickle = process.pickle(int(reply["env"]), timeout)
        except (PoolBusy, PoolClosed, HeaderFailed, ReplError, PickleFailed) as exc:
            raise CouldNotCheck("reference", f"the posed statement's reference: {exc}") from exc
        export = self.verifier.export(pickle)
        with self._references_lock:
            self._references[key] = export
        return export

    async def acheck(self, code: str, *, timeout_s: float | None = None) -> CheckResult:
        """check() in a worker thread, for asyncio callers (Channels consumers)."""
        return await asyncio.to_thread(self.check, code, timeout_s=timeout_s)

    async def acheck_proof(self, statement: str, proof: str, header: str = "") -> CheckResult:
        return await asyncio.to_thread(self.check_proof, statement, proof, header)

    def _run(
        self,
        split: SplitFile,
        timeout_s: float | None,
        posed: _Posed,
        all_tactics: bool = True,
        pool: ReplPool | None = None,
    ) -> tuple[CheckResult, bytes | str | None]:
        """The fast path in one leased process, and (for a result it found valid) the
        checked environment pickled by that same process: (result, pickle or why not).

        `pool`: the verdict pool unless given; from any other pool (explore_proof) nothing
        is pickled, since nothing it answers is ever confirmed as a verdict."""
        verdict = pool is None
        pool = self._pool if pool is None else pool
        timeout = timeout_s or self.config.timeout_s
        started = time.monotonic()
        self._refuse_failed_header(split.header)
        pickle: bytes | str | None = None
        try:
            with pool.lease(split.header) as process:
                deadline = time.monotonic() + timeout
                if posed.block is not None:
                    result, env = _check_proof_in(process, posed, timeout, all_tactics)
                else:
                    result, env = _check_in(
                        process, split, posed.names, timeout, posed.undetermined
                    )
                if (
                    verdict
                    and result.valid
                    and env is not None
                    and self.verifier.unavailable_reason is None
                ):
                    # Only what the kernel check will read (without a verifier, "proved"
                    # cannot be said anyway, and _confirm says why).
                    pickle = _pickle_of(process, env, max(1.0, deadline - time.monotonic()))
                # A reply stream tampered with shows here (and the process dies) before
                # the verdict leaves, and before the process can answer anyone else.
                if process.alive:  # one killed on purpose is retired by the pool
                    process.sync(max(1.0, deadline - time.monotonic()))
        except _AllTacticsCrashed as exc:
            # The REPL can crash while collecting `allTactics` (leanprover-community/repl#42):
            # check again without the goal view rather than give no verdict.
            log.warning("Lean crashed while collecting the tactic steps; checking without: %s", exc)
            return self._run(
                split, timeout_s, posed, all_tactics=False, pool=None if verdict else pool
            )
        except PoolBusy as exc:
            result, pickle = CheckResult(valid=False, error=str(exc)), None
        except PoolClosed as exc:
            raise LeanUnavailable(str(exc)) from exc
        except HeaderFailed as exc:
            self._failed_headers[split.header] = str(exc)
            raise LeanUnavailable(str(exc)) from exc
        except ReplTimeout as exc:
            result, pickle = CheckResult(valid=False, timed_out=True, error=str(exc)), None
        except ReplError as exc:  # crashed, garbage, or header refused
            result = CheckResult(
                valid=False,
                crashed=isinstance(exc, (ReplCrashed, ReplProtocolError)),
                error=str(exc),
            )
            pickle = None
        result.elapsed_s = time.monotonic() - started
        return _map_back(result, posed), pickle


def _refused(rejections: list[Rejection], line_offset: int, started: float) -> CheckResult:
    """Not valid, with the gate's reasons as errors; no Lean process saw the text."""
    return CheckResult(
        valid=False,
        diagnostics=[
            Diagnostic(
                line=line_offset + r.line,
                column=r.column,
                end_line=line_offset + r.line,
                end_column=r.end_column,
                severity="error",
                message=r.message,
                kind=DiagnosticKind.OTHER,
            )
            for r in rejections
        ],
        elapsed_s=time.monotonic() - started,
    )


_INPUT_POSITION = re.compile(r"<input>:(\d+):(\d+):\s*")


class _AllTacticsCrashed(ReplCrashed):
    """The REPL died answering a request that asked for `allTactics`."""


def _pickle_of(process: ReplProcess, env: int, timeout: float) -> bytes | str:
    """The environment `env` as the REPL pickles it, or why it could not (the verdict is
    then "could not check", never "proved")."""
    try:
        return process.pickle(env, timeout)
    except PickleFailed as exc:
        return f"the REPL could not write the checked environment: {exc}"


def _check_proof_in(
    process: ReplProcess, posed: _Posed, timeout: float, all_tactics: bool = True
) -> tuple[CheckResult, int | None]:
    """Tactic mode first (a command cannot parse there), then the same block in place."""
    assert posed.sorry_body is not None and posed.block is not None
    deadline = time.monotonic() + timeout
    state = process.posed.get(posed.sorry_body)
    if state is None:
        reply = process.request({"cmd": posed.sorry_body, "env": process.header_env}, timeout)
        errors = [m for m in reply.get("messages", []) if m.get("severity") == "error"]
        sorries = reply.get("sorries", [])
        if "env" not in reply or errors or len(sorries) != 1:
            why = errors[0].get("data") if errors else reply.get("message", "no proof state")
            return (
                CheckResult(valid=False, error=f"the posed statement does not elaborate: {why}"),
                None,
            )
        state = int(sorries[0]["proofState"])
        process.posed[posed.sorry_body] = state
    remaining = max(1.0, deadline - time.monotonic())
    step = process.request({"tactic": posed.block, "proofState": state}, remaining)
    if "proofState" not in step:
        return CheckResult(valid=False, diagnostics=[_tactic_refusal(step, posed)]), None
    failed = any(m.get("severity") == "error" for m in step.get("messages", []))
    if "proofStatus" in step:
        completed = step["proofStatus"] == "Completed" and not failed
    else:  # REPLs before proofStatus existed: no goals, no sorry, no error
        completed = not step.get("goals") and not step.get("sorries") and not failed
    remaining = max(1.0, deadline - time.monotonic())
    result, env = _check_in(
        process, posed.split, posed.names, remaining, None, all_tactics=all_tactics
    )
    if not completed and not result.errors:
        # Lean's tactic mode saw a failure the in-place run did not report (its messages
        # carry no position: put them at the proof's first line).
        result.diagnostics += [
            replace(_diagnostic(m, 0), line=posed.first_proof_line, end_line=None)
            for m in step.get("messages", [])
        ] or [
            Diagnostic(
                line=posed.first_proof_line,
                column=0,
                end_line=None,
                end_column=None,
                severity="error",
                message=f"the proof is not complete: {step.get('proofStatus')}",
            )
        ]
    result.valid = result.valid and completed
    return result, env


def _tactic_refusal(reply: dict[str, Any], posed: _Posed) -> Diagnostic:
    """Lean's `{"message": "Lean error:\\n<input>:L:C: ..."}` for the block, positioned in
    the proof document (block line 1 is the opening parenthesis)."""
    text = str(reply.get("message", reply)).removeprefix("Lean error:").strip()
    line, column = posed.first_proof_line, 0
    found = _INPUT_POSITION.match(text)
    if found:
        line = posed.first_proof_line + max(0, int(found.group(1)) - 2)
        column = int(found.group(2))
        text = text[found.end() :]
    kind = classify(text)
    return Diagnostic(line, column, None, None, "error", text, kind, extract_goal(text, kind))


def _check_in(
    process: ReplProcess,
    split: SplitFile,
    names: list[Declared],
    timeout: float,
    undetermined: str | None,
    all_tactics: bool = False,
) -> tuple[CheckResult, int | None]:
    """One body and its axioms: (result, the environment the body left)."""
    header_diags = [
        _header_diagnostic(m, split) for m in (process.header_reply or {}).get("messages", [])
    ]
    deadline = time.monotonic() + timeout  # the body and the axiom query share it
    request: dict[str, Any] = {"cmd": split.body, "env": process.header_env}
    if all_tactics:
        request["allTactics"] = True  # the goals before each tactic, for the goal view
    try:
        reply = process.request(request, timeout)
    except ReplCrashed as exc:
        if all_tactics:
            raise _AllTacticsCrashed(str(exc)) from exc
        raise
    if "env" not in reply:
        # The REPL refused the request itself ("Unknown environment.", "Lean error: ...").
        return (
            CheckResult(
                valid=False,
                diagnostics=header_diags,
                error=f"the REPL refused the check: {reply.get('message', reply)}",
            ),
            None,
        )
    env = int(reply["env"])
    diagnostics = header_diags + [
        _diagnostic(m, split.body_offset) for m in reply.get("messages", [])
    ]
    sorries = [_sorry(s, split.body_offset) for s in reply.get("sorries", [])]
    has_error = any(d.severity == "error" for d in diagnostics)
    has_sorry = bool(sorries) or any(d.kind is DiagnosticKind.SORRY for d in diagnostics)
    tactics = parse_tactics(reply.get("tactics") or [], split.body_offset)
    result = CheckResult(valid=False, diagnostics=diagnostics, sorries=sorries, tactics=tactics)
    if undetermined is not None:
        # Fail closed: without every declaration's name, its axioms cannot be read.
        result.error = f"could not tell which declarations the file makes: {undetermined}"
        return result, env
    if has_error or not names:
        # Nothing to print axioms of (only `example`s): the verdict rests on errors/sorry.
        result.valid = not has_error and not has_sorry
        result.axioms = None if has_error else []
        return result, env
    remaining = max(1.0, deadline - time.monotonic())
    axioms, problem = _axioms_of(process, names, env, remaining)
    result.axioms = axioms
    if problem is not None:
        result.error = problem
        return result, env
    bad = disallowed_axioms(axioms or [])
    if bad:
        result.diagnostics.append(
            Diagnostic(
                line=split.body_offset + names[0].line,
                column=0,
                end_line=None,
                end_column=None,
                severity="error",
                message=f"the proof depends on axioms that are not accepted: {', '.join(bad)}",
                kind=DiagnosticKind.SORRY if bad == ["sorryAx"] else DiagnosticKind.OTHER,
            )
        )
    result.valid = not has_sorry and not bad
    return result, env


def _axioms_of(
    process: ReplProcess, declared: list[Declared], env: int, timeout: float
) -> tuple[list[str] | None, str | None]:
    """Union of `#print axioms` over names, or (None, why) when any could not be read.

    Names are `_root_`-qualified: the file may leave a namespace open whose own
    declaration of the same short name would otherwise answer instead."""
    names = [d.name for d in declared]
    command = "\n".join(f"#print axioms {d.query}" for d in declared)
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


_EXAMPLE = re.compile(r"(?<![\w.'])example(?![\w'])")


def _name_examples(
    code: str, line_offset: int, prefix: str
) -> tuple[str, list[tuple[int, int, int]]]:
    """Turn each `example` (anywhere on a line) into `theorem <prefix>_<k>`, with the
    (caller line, column after `example`, added characters) needed to map columns back."""
    blanked = blank_comments_and_strings(code)
    lines = code.split("\n")
    renames: list[tuple[int, int, int]] = []
    for index, line in enumerate(blanked.split("\n")):
        shift = 0
        for found in _EXAMPLE.finditer(line):
            start = found.start() + shift
            replacement = f"theorem {prefix}_{len(renames) + 1}"
            original = lines[index]
            lines[index] = original[:start] + replacement + original[start + len("example") :]
            delta = len(replacement) - len("example")
            renames.append((index + 1 + line_offset, found.start() + len("example"), delta))
            shift += delta
    return "\n".join(lines), renames


def _compose(statement: str, proof: str, header: str) -> _Posed:
    """Header + statement + proof as one file, naming an `example` so its axioms print.

    The proof becomes one parenthesised tactic block, `:= by (` ... `)`: the same text
    is run first in tactic mode (where it must parse as one tactic to its end), so the
    in-place run cannot hold a command either. Lines stay where proof_document puts them."""
    statement = statement.rstrip("\n")
    offset = len(header.rstrip("\n").split("\n")) if header.strip() else 0
    if _POSED.search(statement) is None:
        raise ValueError("check_proof's statement must be a `theorem`, `lemma` or `example`")
    sorry_body = split_header(proof_document(statement + " sorry", "", header)).body
    statement, renames = _name_examples(statement, offset, _POSED_NAME)
    try:
        names = declarations(statement)
    except UnknownDeclarations as exc:
        raise ValueError(f"check_proof's statement must declare a named theorem: {exc}") from exc
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
    text = proof_document(statement + " (", proof + "\n  )", header)
    split = split_header(text)
    statement_body_line = offset + 1 - split.body_offset
    first_proof_line = offset + len(statement.split("\n")) + 1
    return _Posed(
        split=split,
        names=[replace(names[-1], line=names[-1].line + statement_body_line - 1)],
        renames=renames,
        indented_from_line=indented_from,
        sorry_body=sorry_body,
        block="(\n" + proof + "\n  )",
        first_proof_line=first_proof_line,
        reference_body=split_header(proof_document(statement + " sorry", "", header)).body,
    )


def _map_back(result: CheckResult, posed: _Posed) -> CheckResult:
    def column(line: int | None, col: int | None) -> int | None:
        if line is None or col is None:
            return col
        on_line = [(after, delta) for at, after, delta in posed.renames if at == line]
        if on_line:
            # Renames shift later columns cumulatively; walk them in order.
            original = col
            for after_col, delta in sorted(on_line):
                if original >= after_col + delta:
                    original -= delta
                elif original >= after_col:
                    original = after_col
            return original
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
    steps = [
        replace(
            t,
            column=column(t.line, t.column) or 0,
            end_column=column(t.end_line, t.end_column) or 0,
        )
        for t in result.tactics
    ]
    result.tactics = with_goals_after(steps, result.valid)
    return result


def header_modules(header: str) -> list[str]:
    """The modules `import` lines name, in order."""
    modules: list[str] = []
    try:
        lines = blank_comments_and_strings(header).split("\n")
    except LexError:
        lines = header.split("\n")
    for line in lines:
        words = line.split()
        if words[:1] == ["import"]:
            modules.extend(words[1:])
    return modules


def verifier_imports(header: str) -> list[str]:
    """What the kernel verifier imports for `header`: Init (every file without `prelude`
    imports it, and the verifier refuses to start without it), then the header's modules."""
    modules = ["Init"]
    for module in header_modules(header):
        if module not in modules:
            modules.append(module)
    return modules


def _verify_config_from_environment(use_sandbox: bool | None, use_seccomp: bool) -> VerifyConfig:
    import json

    try:
        manifest = json.loads(manifest_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        manifest = None
    config = config_from_environment(manifest if isinstance(manifest, dict) else None)
    return replace(config, use_sandbox=use_sandbox, seccomp=use_seccomp)


def _absolute_if_path(word: str) -> str:
    # Inside the sandbox only bound folders exist, so a relative script path must become
    # absolute for paths_for_command to bind its folder.
    if not os.path.isabs(word) and os.sep in word and os.path.exists(word):
        return os.path.abspath(word)
    return word


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
            _shared.checker = checker_from_environment()
        return _shared.checker


def checker_from_environment() -> LeanChecker:
    """A checker sized as the app's (get_checker), for the self-test and benchmarks."""
    return LeanChecker(
        timeout_s=_env_number("LEANCOACH_LEAN_TIMEOUT_S", 60.0),
        memory_mb=int(_env_number("LEANCOACH_LEAN_MEMORY_MB", LeanConfig.memory_mb or 0)) or None,
        max_processes=int(_env_number("LEANCOACH_LEAN_PROCESSES", 2)),
        max_uses=int(_env_number("LEANCOACH_LEAN_MAX_USES", 100)),
    )


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
