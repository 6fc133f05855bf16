"""The independent verification step: the only thing allowed to say "proved".

The fast path (the pooled REPL) elaborates the submission, and elaborating runs the
submission's code, so nothing that process says decides a verdict. The design (reasons and
cost budget: docs/LEAN.md, "The verification step"):

1. pickle: the same REPL process that checked the proof writes the checked environment's
   own constants to a file (`{"pickleTo": PATH, "env": n}`, the REPL's own command). No
   second elaboration and no second `import Mathlib`.
2. export: a single-use `leancoach-verify export --stdin`, in its own sandbox and folder,
   reads that file (untrusted bytes: the process that wrote it ran the submission) and
   writes the constants as plain JSON. A crafted pickle can only hurt this process. It is
   started ahead of the check that uses it, so its start is off the check's path.
3. serve: one long-lived `leancoach-verify serve --imports Init,...` per header imports the
   trusted modules once and, per request, rebuilds every exported constant, replays it
   through the kernel, compares the posed theorem's type with the reference statement's
   export (the same statement with `sorry`, elaborated by a REPL that never runs a
   submission) and collects the theorem's axioms. It runs no submission code.

Anything not confirmed (no verifier, crash, timeout, unreadable answer, any step that could
not run) is VerifyStatus.UNAVAILABLE: the caller reports "could not check", never "proved"
and never "wrong". REJECTED is only a definite finding about the submission's own constants.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import selectors
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from tutor.lean import sandbox, seccomp
from tutor.lean.repl import SPAWNER
from tutor.lean.verdict import disallowed_axioms

log = logging.getLogger(__name__)

_READ_CAP_BYTES = 1 << 20  # an answer line is a few hundred bytes; refuse anything huge
_EXPORT_CAP_BYTES = 256 << 20  # what the export step may write (also its RLIMIT_FSIZE)


class VerifyStatus(StrEnum):
    CONFIRMED = "confirmed"  # kernel-replayed, statement identical, axioms allowed
    REJECTED = "rejected"  # a definite finding about the submission (reason says which)
    UNAVAILABLE = "unavailable"  # could not check: never read as "wrong" nor "proved"


@dataclass(frozen=True)
class VerifyConfig:
    """How to run the verification step.

    verifier_command is the argv prefix of `leancoach-verify` (the mode and its arguments
    are appended); extra_env holds what it needs to find the modules (LEAN_PATH,
    LEAN_SYSROOT: scripts/install_lean.sh writes them into the manifest)."""

    verifier_command: tuple[str, ...] | None = None
    cwd: str | None = None
    sandbox_paths: tuple[str, ...] = ()
    extra_env: tuple[tuple[str, str], ...] = ()
    timeout_s: float = 60.0  # one export, and one answer from a started verifier
    start_timeout_s: float = 300.0  # a verifier's `import Mathlib` from a cold disk cache
    memory_mb: int | None = 24576  # RLIMIT_AS per process: see LeanConfig.memory_mb
    file_size_mb: int = 256  # RLIMIT_FSIZE: the export, and any file a step writes
    max_servers: int = 1  # verifier processes alive at once (one header each)
    use_sandbox: bool | None = None  # None: bubblewrap when it works here
    seccomp: bool = False  # bwrap's seccomp filter on each step (production: on)

    def __post_init__(self) -> None:
        if self.timeout_s <= 0 or self.start_timeout_s <= 0:
            raise ValueError("verification timeouts must be > 0 seconds")
        if self.max_servers < 1:
            raise ValueError("max_servers must be at least 1")

    @property
    def configured(self) -> bool:
        return bool(self.verifier_command)


@dataclass(frozen=True)
class KernelVerdict:
    status: VerifyStatus
    reason: str
    axioms: list[str] | None = None
    elapsed_s: float = 0.0
    step: str = ""  # which step decided it (export, imports, replay, statement, axioms...)
    details: dict[str, Any] = field(default_factory=dict)


def config_from_environment(manifest: dict[str, Any] | None) -> VerifyConfig:
    """LEANCOACH_VERIFIER_CMD (shell words) wins over the manifest's "verifier_command"
    written by scripts/install_lean.sh; "verifier_env" and "cwd" come from the manifest."""
    data = manifest or {}
    command = _words(os.environ.get("LEANCOACH_VERIFIER_CMD")) or _list(
        data.get("verifier_command")
    )
    cwd = os.environ.get("LEANCOACH_VERIFY_CWD") or data.get("cwd")
    paths = data.get("sandbox_paths") or []
    env = data.get("verifier_env") or {}
    return VerifyConfig(
        verifier_command=tuple(command) if command else None,
        cwd=cwd if isinstance(cwd, str) and cwd else None,
        sandbox_paths=tuple(p for p in paths if isinstance(p, str)),
        extra_env=tuple(
            (k, v) for k, v in sorted(env.items()) if isinstance(k, str) and isinstance(v, str)
        )
        if isinstance(env, dict)
        else (),
    )


def _words(value: str | None) -> list[str] | None:
    if not value or not value.strip():
        return None
    return shlex.split(value)


def _list(value: object) -> list[str] | None:
    if isinstance(value, list) and value and all(isinstance(w, str) for w in value):
        return list(value)
    return None


class CouldNotCheck(Exception):
    """A step of the verification could not run; `step` names it."""

    def __init__(self, step: str, reason: str) -> None:
        super().__init__(reason)
        self.step = step


class KernelVerifier:
    """Runs the verification step; thread-safe (each check has its own folder, and each
    verifier process answers one request at a time)."""

    def __init__(self, config: VerifyConfig) -> None:
        self.config = config
        self._probe = None if config.use_sandbox is False else sandbox.probe(sandbox.find_bwrap())
        self.sandboxed = bool(self._probe and self._probe.usable)
        self._seccomp_program: bytes | None = None
        self._seccomp_problem: str | None = None
        if config.seccomp:
            try:
                self._seccomp_program = seccomp.filter_program()
            except seccomp.SeccompUnsupported as exc:
                self._seccomp_problem = str(exc)
        self._lock = threading.Lock()
        self._root: Path | None = None
        self._servers: OrderedDict[tuple[str, ...], _Server] = OrderedDict()
        self._spare_exports: list[_ExportWorker] = []  # started, waiting for their one pickle
        self._closed = False

    @property
    def unavailable_reason(self) -> str | None:
        if not self.config.configured:
            return (
                "the independent kernel verifier is not installed (run `make lean`, or set "
                "LEANCOACH_VERIFIER_CMD)"
            )
        if self.config.use_sandbox is True and not self.sandboxed:
            return "kernel verification was asked to run sandboxed, but bubblewrap is unusable"
        if self.config.seccomp and not self.sandboxed:
            return "kernel verification was asked for a seccomp filter, which needs bubblewrap"
        return self._seccomp_problem

    # -- the public steps ---------------------------------------------------------------

    def verify(
        self,
        pickle: bytes,
        *,
        imports: Sequence[str],
        theorem: Sequence[str] | None,
        reference: bytes | None,
    ) -> KernelVerdict:
        """Confirm the environment `pickle` (written by the REPL that checked it).

        imports: the modules the header imports, Init first; theorem: the posed theorem's
        name as components (None for a whole file: then every new constant's axioms count);
        reference: the reference statement's export (see `export`), None without one."""
        started = time.monotonic()
        problem = self.unavailable_reason
        if problem is not None:
            return KernelVerdict(VerifyStatus.UNAVAILABLE, problem, step="setup")
        try:
            verdict = self._verify(pickle, tuple(imports), theorem, reference)
        except CouldNotCheck as exc:
            verdict = KernelVerdict(VerifyStatus.UNAVAILABLE, str(exc), step=exc.step)
        return KernelVerdict(
            verdict.status,
            verdict.reason,
            verdict.axioms,
            time.monotonic() - started,
            verdict.step,
            verdict.details,
        )

    def export(self, pickle: bytes) -> bytes:
        """The export (plain JSON) of a pickle; raises CouldNotCheck."""
        problem = self.unavailable_reason
        if problem is not None:
            raise CouldNotCheck("setup", problem)
        job = self._job()
        try:
            return self._export(job, pickle).read_bytes()
        finally:
            shutil.rmtree(job, ignore_errors=True)

    def prestart(self, imports: Sequence[str]) -> bool:
        """Start the verifier for `imports` ahead of the first check (a Celery worker does
        this as it starts). False when it is not configured or could not start."""
        if self.unavailable_reason is not None or self._closed:
            return False
        try:
            self._server(tuple(imports))
        except CouldNotCheck as exc:
            log.warning("kernel verifier not started ahead of the first check: %s", exc)
            return False
        return True

    def close(self) -> None:
        with self._lock:
            self._closed = True
            servers, self._servers = list(self._servers.values()), OrderedDict()
            spares, self._spare_exports = self._spare_exports, []
            root, self._root = self._root, None
        for server in servers:
            server.stop("verifier closed")
        for spare in spares:
            spare.stop()
        if root is not None:
            shutil.rmtree(root, ignore_errors=True)

    def spare_export_pids(self) -> list[int]:
        """The export processes started ahead, waiting for their one pickle (tests, metrics)."""
        with self._lock:
            return [w.pid for w in self._spare_exports if w.alive]

    def server_pids(self) -> list[int]:
        """The verifier processes alive now (tests, metrics)."""
        with self._lock:
            return [s.pid for s in self._servers.values() if s.alive]

    # -- steps ------------------------------------------------------------------------

    def _verify(
        self,
        pickle: bytes,
        imports: tuple[str, ...],
        theorem: Sequence[str] | None,
        reference: bytes | None,
    ) -> KernelVerdict:
        job = self._job()
        try:
            export = self._export(job, pickle)
            request: dict[str, Any] = {
                "id": secrets.token_hex(8),
                "submission": str(export),
                "theorem": list(theorem) if theorem is not None else None,
                "reference": None,
            }
            if reference is not None:
                ref = job / "reference.json"
                ref.write_bytes(reference)
                request["reference"] = str(ref)
            answer = self._server(imports).ask(request, self.config.timeout_s)
            return _read_answer(answer, request["id"], theorem is not None)
        finally:
            shutil.rmtree(job, ignore_errors=True)

    def _export(self, job: Path, pickle: bytes) -> Path:
        """The export of `pickle`, written by a single-use export process into `job`."""
        worker = self._take_export_worker()
        try:
            export = worker.run(pickle, self.config.timeout_s)
        finally:
            self._refill_exports(used=worker)
        out = job / "export.json"
        out.write_bytes(export)
        return out

    def _take_export_worker(self) -> _ExportWorker:
        with self._lock:
            if self._closed:
                raise CouldNotCheck("setup", "the kernel verifier was closed")
            while self._spare_exports:
                spare = self._spare_exports.pop()
                if spare.alive:
                    return spare
                spare.stop()
        return _ExportWorker(self, self._work_root())

    def _refill_exports(self, used: _ExportWorker) -> None:
        """In the background: end the used export process (its group, its folder) and
        start the next one, ready for the next check."""

        def start() -> None:
            used.stop()
            with self._lock:
                if self._closed or self._spare_exports:
                    return
            try:
                worker = _ExportWorker(self, self._work_root())
            except CouldNotCheck as exc:
                log.warning("no export process started ahead: %s", exc)
                return
            with self._lock:
                if not self._closed and not self._spare_exports:
                    self._spare_exports.append(worker)
                    return
            worker.stop()

        threading.Thread(target=start, name="lean-verify-export-spare", daemon=True).start()

    def _work_root(self) -> Path:
        with self._lock:
            if self._closed:
                raise CouldNotCheck("setup", "the kernel verifier was closed")
            if self._root is None:
                self._root = Path(tempfile.mkdtemp(prefix="leancoach-verify-"))
            return self._root

    def _job(self) -> Path:
        job = Path(tempfile.mkdtemp(prefix="job-", dir=self._work_root()))
        os.chmod(job, 0o700)
        return job

    def _server(self, imports: tuple[str, ...]) -> _Server:
        """A started verifier for `imports` (the least recently used other one is stopped
        when max_servers are alive)."""
        victims: list[_Server] = []
        with self._lock:
            if self._closed:
                raise CouldNotCheck("setup", "the kernel verifier was closed")
            server = self._servers.get(imports)
            if server is not None and server.alive:
                self._servers.move_to_end(imports)
                return server
            if server is not None:
                del self._servers[imports]
            while len(self._servers) >= self.config.max_servers:
                victims.append(self._servers.popitem(last=False)[1])
            if self._root is None:
                self._root = Path(tempfile.mkdtemp(prefix="leancoach-verify-"))
            root = self._root
        for victim in victims:
            victim.stop("evicted for another header")
        server = _Server(self, imports, root)
        with self._lock:
            if self._closed:
                server.stop("verifier closed")
                raise CouldNotCheck("setup", "the kernel verifier was closed")
            other = self._servers.get(imports)
            if other is not None and other.alive:  # another thread started one meanwhile
                server.stop("a twin was started")
                return other
            self._servers[imports] = server
        return server

    # -- process plumbing shared by both kinds of step ---------------------------------

    def wrapped(
        self, argv: list[str], *, readable: list[str], writable: list[str]
    ) -> tuple[list[str], dict[str, str] | None]:
        if self.sandboxed and self._probe is not None and self._probe.bwrap:
            paths = [*self.config.sandbox_paths, *sandbox.paths_for_command(argv), *readable]
            return (
                sandbox.wrap(
                    self._probe.bwrap,
                    argv,
                    cwd=self.config.cwd,
                    read_only_paths=paths,
                    extra_env=dict(self.config.extra_env),
                    writable_paths=writable,
                ),
                None,
            )
        return argv, {**_plain_environment(), **dict(self.config.extra_env)}

    def limits(self, cpu_s: float | None) -> sandbox.ChildLimits:
        return sandbox.ChildLimits(
            memory_mb=self.config.memory_mb,
            cpu_s=None if cpu_s is None else int(cpu_s) + 5,
            file_size_mb=self.config.file_size_mb,
        )

    @property
    def seccomp_program(self) -> bytes | None:
        return self._seccomp_program if self.sandboxed else None


def export_argv(config: VerifyConfig) -> list[str]:
    """The export step's command line (before the sandbox wraps it): one pickle, named on
    stdin, per process."""
    return [*(config.verifier_command or ()), "export", "--stdin"]


def serve_argv(config: VerifyConfig, imports: Sequence[str]) -> list[str]:
    """The long-lived verifier's command line for a header's imports (Init first)."""
    return [*(config.verifier_command or ()), "serve", "--imports", ",".join(imports)]


class _ExportWorker:
    """One `leancoach-verify export --stdin` process, started before it is needed, in its
    own folder (`in/` read-only to it, `out/` its only writable place); it exports exactly
    one pickle and exits. Nothing it did can reach another check: the next one is a new
    process with a new folder."""

    def __init__(self, verifier: KernelVerifier, root: Path) -> None:
        config = verifier.config
        self.folder = Path(tempfile.mkdtemp(prefix="export-", dir=root))
        (self.folder / "in").mkdir()
        (self.folder / "out").mkdir()
        argv = export_argv(config)
        argv, env = verifier.wrapped(
            argv, readable=[str(self.folder / "in")], writable=[str(self.folder / "out")]
        )
        limits = verifier.limits(config.timeout_s)
        # Open for the process's whole life (closed by stop()); files, so RLIMIT_FSIZE caps them.
        self._out = tempfile.TemporaryFile()  # noqa: SIM115
        self._err = tempfile.TemporaryFile()  # noqa: SIM115

        def start() -> subprocess.Popen[bytes]:
            with sandbox.seccomp_argv(argv, verifier.seccomp_program) as (args, pass_fds):
                return subprocess.Popen(
                    args,
                    pass_fds=pass_fds,
                    stdin=subprocess.PIPE,
                    stdout=self._out,
                    stderr=self._err,
                    cwd=config.cwd,
                    env=env,
                    start_new_session=True,
                    preexec_fn=limits.preexec(),
                )

        try:
            self._proc: subprocess.Popen[bytes] = SPAWNER.run(start)
        except OSError as exc:
            self._cleanup()
            raise CouldNotCheck("export", f"the export step could not start: {exc}") from exc

    @property
    def alive(self) -> bool:
        return self._proc.poll() is None

    @property
    def pid(self) -> int:
        return self._proc.pid

    def run(self, pickle: bytes, timeout_s: float) -> bytes:
        source = self.folder / "in" / "environment.olean"
        out = self.folder / "out" / "export.json"
        source.write_bytes(pickle)
        assert self._proc.stdin is not None
        try:
            self._proc.stdin.write(f"{source}\t{out}\n".encode())
            self._proc.stdin.close()
        except (BrokenPipeError, OSError) as exc:
            raise CouldNotCheck("export", f"the export step stopped: {self._tail()}") from exc
        try:
            code = self._proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            raise CouldNotCheck(
                "export", f"the export step did not finish within {timeout_s:g} s"
            ) from None
        if code != 0 or not out.is_file():
            raise CouldNotCheck(
                "export", f"the export step failed: {self._tail() or f'exit code {code}'}"
            )
        if out.stat().st_size > _EXPORT_CAP_BYTES:
            raise CouldNotCheck("export", "the export is larger than the verifier accepts")
        return out.read_bytes()

    def _tail(self) -> str:
        return _tail(self._err) or _tail(self._out)

    def stop(self) -> None:
        _kill_group(self._proc)
        self._cleanup()

    def _cleanup(self) -> None:
        for handle in (self._out, self._err):
            with contextlib.suppress(OSError):
                handle.close()
        shutil.rmtree(self.folder, ignore_errors=True)


class _Server:
    """One `leancoach-verify serve` process: started once per header, then one request at a
    time (one JSON line in, one JSON line out). Any failure stops it; the next check starts
    a fresh one."""

    def __init__(self, verifier: KernelVerifier, imports: tuple[str, ...], root: Path) -> None:
        if "Init" not in imports:
            raise CouldNotCheck("setup", "the verifier's imports must include Init")
        config = verifier.config
        self.imports = imports
        self._lock = threading.Lock()
        self._buffer = bytearray()
        self._dead: str | None = None
        argv = serve_argv(config, imports)
        # The job folders live under `root`: read-only, they are all it sees of this machine.
        argv, env = verifier.wrapped(argv, readable=[str(root)], writable=[])
        # No CPU-time budget for a process that serves checks for as long as it lives: each
        # request has its wall clock, past which the process is stopped.
        limits = verifier.limits(None)

        def start() -> subprocess.Popen[bytes]:
            with sandbox.seccomp_argv(argv, verifier.seccomp_program) as (args, pass_fds):
                return subprocess.Popen(
                    args,
                    pass_fds=pass_fds,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    cwd=config.cwd,
                    env=env,
                    start_new_session=True,
                    preexec_fn=limits.preexec(),
                )

        try:
            # Forked from the long-lived spawner thread: bwrap's --die-with-parent follows
            # the thread that forked (see tutor/lean/repl.py).
            self._proc: subprocess.Popen[bytes] = SPAWNER.run(start)
        except OSError as exc:
            raise CouldNotCheck("setup", f"the kernel verifier could not start: {exc}") from exc
        assert self._proc.stdout is not None and self._proc.stderr is not None
        os.set_blocking(self._proc.stdout.fileno(), False)
        os.set_blocking(self._proc.stderr.fileno(), False)
        self._stderr = bytearray()
        try:
            ready = self._read_line(config.start_timeout_s, "starting")
        except CouldNotCheck:
            self.stop("did not start")
            raise
        if ready.get("ready") is not True:
            self.stop("did not start")
            raise CouldNotCheck("setup", f"the kernel verifier did not start: {ready!r:.300}")

    @property
    def pid(self) -> int:
        return self._proc.pid

    @property
    def alive(self) -> bool:
        return self._dead is None and self._proc.poll() is None

    def ask(self, request: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        with self._lock:
            if not self.alive:
                raise CouldNotCheck("verifier", self._dead or "the kernel verifier stopped")
            assert self._proc.stdin is not None
            try:
                self._proc.stdin.write((json.dumps(request) + "\n").encode("utf-8"))
                self._proc.stdin.flush()
            except (BrokenPipeError, OSError) as exc:
                self.stop("its input closed")
                raise CouldNotCheck("verifier", f"the kernel verifier stopped: {exc}") from exc
            try:
                return self._read_line(timeout_s, "answering")
            except CouldNotCheck:
                self.stop("it did not answer")
                raise

    def _read_line(self, timeout_s: float, doing: str) -> dict[str, Any]:
        assert self._proc.stdout is not None and self._proc.stderr is not None
        deadline = time.monotonic() + timeout_s
        out_fd, err_fd = self._proc.stdout.fileno(), self._proc.stderr.fileno()
        with selectors.DefaultSelector() as selector:
            selector.register(out_fd, selectors.EVENT_READ)
            selector.register(err_fd, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise CouldNotCheck(
                        "verifier",
                        f"the kernel verifier did not finish {doing} within {timeout_s:g} s",
                    )
                for key, _ in selector.select(remaining):
                    with contextlib.suppress(BlockingIOError):
                        chunk = os.read(key.fd, 1 << 16)
                        if key.fd == err_fd:
                            self._stderr += chunk
                            del self._stderr[:-4000]
                            if not chunk:
                                selector.unregister(err_fd)
                        elif chunk:
                            self._buffer += chunk
                        else:
                            raise CouldNotCheck("verifier", self._death())
                if len(self._buffer) > _READ_CAP_BYTES:
                    raise CouldNotCheck("verifier", "the kernel verifier's answer is oversized")
        line, _, rest = bytes(self._buffer).partition(b"\n")
        self._buffer = bytearray(rest)
        try:
            answer = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise CouldNotCheck("verifier", "the kernel verifier's answer is not JSON") from exc
        if not isinstance(answer, dict):
            raise CouldNotCheck("verifier", "the kernel verifier's answer is not an object")
        return answer

    def _death(self) -> str:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._proc.wait(timeout=1)
        self._drain_stderr(0.5)  # its last words may still be in the pipe (stdout ended first)
        code = self._proc.returncode
        status = "closed its output" if code is None else f"exited with code {code}"
        if code is not None and code < 0:
            status = f"was killed by signal {signal.Signals(-code).name}"
        tail = bytes(self._stderr).decode("utf-8", "replace").strip()
        return f"the kernel verifier {status}" + (f": {tail[-1000:]}" if tail else "")

    def _drain_stderr(self, wait_s: float) -> None:
        assert self._proc.stderr is not None
        fd = self._proc.stderr.fileno()
        deadline = time.monotonic() + wait_s
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while (remaining := deadline - time.monotonic()) > 0 and selector.select(remaining):
                try:
                    chunk = os.read(fd, 1 << 16)
                except BlockingIOError:
                    continue
                except OSError:
                    return
                if not chunk:
                    return
                self._stderr += chunk
                del self._stderr[:-4000]

    def stop(self, reason: str) -> None:
        if self._dead is None:
            self._dead = f"the kernel verifier was stopped ({reason})"
        _kill_group(self._proc)
        for stream in (self._proc.stdin, self._proc.stdout, self._proc.stderr):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()


def _tail(handle: Any, size: int = 2000) -> str:
    end = handle.seek(0, os.SEEK_END)
    handle.seek(max(0, end - size))
    return str(handle.read().decode("utf-8", "replace").strip())


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)


def _read_answer(data: dict[str, Any], request_id: str, posed: bool) -> KernelVerdict:
    if data.get("id") != request_id:
        raise CouldNotCheck("verifier", "the kernel verifier answered another request")
    status = data.get("status")
    step = str(data.get("step") or "")
    reason = str(data.get("reason") or "")
    if status == "rejected":
        return KernelVerdict(
            VerifyStatus.REJECTED, reason or "the kernel rejected it", step=step, details=data
        )
    if status == "could_not_check":
        raise CouldNotCheck(step or "verifier", reason or "the kernel verifier could not check")
    if status != "confirmed":
        raise CouldNotCheck("verifier", f"the kernel verifier answered {status!r}")
    axioms = data.get("axioms")
    if not isinstance(axioms, list) or not all(isinstance(a, str) for a in axioms):
        raise CouldNotCheck("verifier", "the kernel verifier's answer lists no axioms")
    unverified = sorted(
        a.removeprefix("unverified:") for a in axioms if a.startswith("unverified:")
    )
    if unverified:
        raise CouldNotCheck(
            "axioms",
            f"{', '.join(unverified)} is not in the kernel-checked environment, so the axioms "
            "cannot be read",
        )
    found = sorted(set(axioms))
    if posed and data.get("type_matches") is not True:
        raise CouldNotCheck("statement", "the kernel verifier did not compare the statement")
    bad = disallowed_axioms(found)
    if bad:
        return KernelVerdict(
            VerifyStatus.REJECTED,
            f"the kernel-checked proof depends on axioms that are not accepted: {', '.join(bad)}",
            found,
            step="axioms",
            details=data,
        )
    return KernelVerdict(
        VerifyStatus.CONFIRMED, "kernel-checked", found, step="axioms", details=data
    )


def _plain_environment() -> dict[str, str]:
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "ELAN_HOME", "LEAN_PATH", "LEAN_SYSROOT", "TMPDIR")
    return {k: os.environ[k] for k in keep if k in os.environ}
