"""The independent verification step: the only thing allowed to say "proved".

The fast path (the pooled REPL) elaborates the submission, and elaborating runs the
submission's code, so nothing that process writes can decide a verdict. Here, as the
anchors (lean4checker, SafeVerify, comparator) do:

1. compile: `lean -o Submission.olean Submission.lean` in a FRESH sandbox (fresh tmpfs,
   its own work folder, nothing shared with the pool), and the reference statement
   (the course's, proof replaced by `sorry`) the same way in another fresh sandbox;
2. verify: after the compile's whole process tree is gone, a separate program that runs no
   user code (tutor/lean/verifier/, built by `make lean`) reads the .olean's constants,
   replays them through the kernel on top of the trusted imports, compares the theorem's
   type (and every new constant its statement mentions) with the reference's, and collects
   the axioms of the fully qualified theorem name from the replayed environment;
3. it writes one JSON object into a folder created only after the compile ended and bound
   into no other sandbox; a per-run nonce, given on stdin, must come back.

Anything not confirmed (no verifier, crash, timeout, unreadable or mismatching result)
is VerifyStatus.UNAVAILABLE: the caller reports "could not check", never "proved".
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shlex
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from tutor.lean import sandbox, seccomp
from tutor.lean.verdict import disallowed_axioms

_RESULT_FILE = "result.json"
_RESULT_CAP_BYTES = 1 << 20  # a verdict is a few hundred bytes; refuse anything huge


class VerifyStatus(StrEnum):
    CONFIRMED = "confirmed"  # kernel-replayed, statement identical, axioms allowed
    REJECTED = "rejected"  # the verifier found a definite problem (reason says which)
    UNAVAILABLE = "unavailable"  # could not check: never read as "wrong" nor "proved"


@dataclass(frozen=True)
class VerifyConfig:
    """How to run the verification step. Commands are argv prefixes (e.g. `lake env lean`)."""

    compile_command: tuple[str, ...] | None = None  # + ["-o", OUT.olean, FILE.lean]
    verifier_command: tuple[str, ...] | None = None  # + the verifier's flags (see _verify)
    cwd: str | None = None  # the Lean project (its LEAN_PATH comes from `lake env`)
    sandbox_paths: tuple[str, ...] = ()
    timeout_s: float = 120.0  # per step (compile, reference, verify)
    memory_mb: int | None = 8192  # RLIMIT_AS per step
    file_size_mb: int = 256  # RLIMIT_FSIZE: the .olean, and the steps' captured output
    use_sandbox: bool | None = None  # None: bubblewrap when it works here
    seccomp: bool = False  # bwrap's seccomp filter on each step (production: on)
    extra_env: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if self.timeout_s <= 0:
            raise ValueError("verification timeout_s must be > 0")

    @property
    def configured(self) -> bool:
        return bool(self.compile_command) and bool(self.verifier_command)


@dataclass(frozen=True)
class KernelVerdict:
    status: VerifyStatus
    reason: str
    axioms: list[str] | None = None
    elapsed_s: float = 0.0
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def confirmed(self) -> bool:
        return self.status is VerifyStatus.CONFIRMED


def config_from_environment(manifest: dict[str, Any] | None) -> VerifyConfig:
    """LEANCOACH_COMPILE_CMD / LEANCOACH_VERIFIER_CMD (shell words) win over the manifest's
    "compile_command" / "verifier_command" written by scripts/install_lean.sh."""
    data = manifest or {}
    compile_cmd = _words(os.environ.get("LEANCOACH_COMPILE_CMD")) or _list(
        data.get("compile_command")
    )
    verifier_cmd = _words(os.environ.get("LEANCOACH_VERIFIER_CMD")) or _list(
        data.get("verifier_command")
    )
    cwd = os.environ.get("LEANCOACH_VERIFY_CWD") or data.get("cwd")
    paths = data.get("sandbox_paths") or []
    return VerifyConfig(
        compile_command=tuple(compile_cmd) if compile_cmd else None,
        verifier_command=tuple(verifier_cmd) if verifier_cmd else None,
        cwd=cwd if isinstance(cwd, str) and cwd else None,
        sandbox_paths=tuple(p for p in paths if isinstance(p, str)),
    )


def _words(value: str | None) -> list[str] | None:
    if not value or not value.strip():
        return None
    return shlex.split(value)


def _list(value: object) -> list[str] | None:
    if isinstance(value, list) and value and all(isinstance(w, str) for w in value):
        return list(value)
    return None


class KernelVerifier:
    """Runs the verification step; thread-safe (every call uses its own folders)."""

    def __init__(self, config: VerifyConfig) -> None:
        self.config = config
        self._probe = None if config.use_sandbox is False else sandbox.probe(sandbox.find_bwrap())
        self.sandboxed = bool(self._probe and self._probe.usable)
        self._reference_cache: dict[str, bytes] = {}
        self._seccomp_program: bytes | None = None
        self._seccomp_problem: str | None = None
        if config.seccomp:
            try:
                self._seccomp_program = seccomp.filter_program()
            except seccomp.SeccompUnsupported as exc:
                self._seccomp_problem = str(exc)

    @property
    def unavailable_reason(self) -> str | None:
        if not self.config.configured:
            return (
                "the independent kernel verifier is not installed (run `make lean`, or set "
                "LEANCOACH_COMPILE_CMD and LEANCOACH_VERIFIER_CMD)"
            )
        if self.config.use_sandbox is True and not self.sandboxed:
            return "kernel verification was asked to run sandboxed, but bubblewrap is unusable"
        if self.config.seccomp and not self.sandboxed:
            return "kernel verification was asked for a seccomp filter, which needs bubblewrap"
        return self._seccomp_problem

    def verify(
        self,
        document: str,
        *,
        header_imports: list[str],
        theorem: str | None,
        reference: str | None,
    ) -> KernelVerdict:
        """Confirm `document` (header + statement + proof) in fresh sandboxes.

        theorem: the fully qualified name the posed statement declares (None for a whole
        file: then every new constant's axioms count); reference: header + statement with
        its proof replaced by `sorry` (None: no statement to compare with).
        """
        started = time.monotonic()
        problem = self.unavailable_reason
        if problem is not None:
            return KernelVerdict(VerifyStatus.UNAVAILABLE, problem)
        try:
            verdict = self._verify(document, header_imports, theorem, reference)
        except _CouldNotCheck as exc:
            verdict = KernelVerdict(VerifyStatus.UNAVAILABLE, str(exc))
        return KernelVerdict(
            verdict.status,
            verdict.reason,
            verdict.axioms,
            time.monotonic() - started,
            verdict.details,
        )

    # -- steps ------------------------------------------------------------------------

    def _verify(
        self, document: str, imports: list[str], theorem: str | None, reference: str | None
    ) -> KernelVerdict:
        # Unsandboxed, a detached process of the submission may still write here while it
        # is removed: a leftover file must not turn the verdict into an exception.
        with tempfile.TemporaryDirectory(
            prefix="leancoach-verify-", ignore_cleanup_errors=True
        ) as job:
            root = Path(job)
            submission = self._compile(root / "submission", "Submission", document)
            reference_olean = None
            if reference is not None:
                reference_olean = self._reference(root / "reference", reference)
            # Created only now: no process that ran the submission ever existed alongside it.
            out = Path(tempfile.mkdtemp(prefix="out-", dir=root))
            os.chmod(out, 0o700)
            nonce = secrets.token_hex(16)
            argv = [
                *(self.config.verifier_command or ()),
                "--olean",
                str(submission),
                "--imports",
                ",".join(imports),
                "--out",
                str(out / _RESULT_FILE),
            ]
            if theorem is not None:
                argv += ["--theorem", theorem]
            if reference_olean is not None:
                argv += ["--reference", str(reference_olean)]
            readable = [str(submission.parent)] + (
                [str(reference_olean.parent)] if reference_olean else []
            )
            self._run_step(
                "the kernel verifier", argv, readable=readable, writable=str(out), stdin=nonce
            )
            return _read_result(out / _RESULT_FILE, nonce, theorem is not None)

    def _reference(self, folder: Path, reference: str) -> Path:
        """The reference statement's .olean; compiled once per statement (trusted text)."""
        cached = self._reference_cache.get(reference)
        if cached is not None:
            folder.mkdir(parents=True)
            path = folder / "Reference.olean"
            path.write_bytes(cached)
            return path
        path = self._compile(folder, "Reference", reference)
        self._reference_cache[reference] = path.read_bytes()
        return path

    def _compile(self, folder: Path, module: str, text: str) -> Path:
        folder.mkdir(parents=True)
        source = folder / f"{module}.lean"
        olean = folder / f"{module}.olean"
        source.write_text(text, encoding="utf-8")
        argv = [*(self.config.compile_command or ()), "-o", str(olean), str(source)]
        done = self._run_step(f"compiling {module}", argv, readable=[], writable=str(folder))
        if not olean.is_file():
            # Lean writes no .olean when elaboration fails: the fast path reports why.
            tail = done.stderr_tail or done.stdout_tail
            raise _CompileFailed(f"Lean did not compile {module}: {tail or 'no output'}")
        return olean

    def _run_step(
        self,
        what: str,
        argv: list[str],
        *,
        readable: list[str],
        writable: str,
        stdin: str = "",
    ) -> _StepOutput:
        env: dict[str, str] | None
        if self.sandboxed and self._probe is not None and self._probe.bwrap:
            paths = [*self.config.sandbox_paths, *sandbox.paths_for_command(argv), *readable]
            argv = sandbox.wrap(
                self._probe.bwrap,
                argv,
                cwd=self.config.cwd,
                read_only_paths=paths,
                extra_env=dict(self.config.extra_env),
                writable_paths=[writable],
            )
            env = None
        else:
            env = {**_plain_environment(), **dict(self.config.extra_env)}
        limits = sandbox.ChildLimits(
            memory_mb=self.config.memory_mb,
            cpu_s=int(self.config.timeout_s) + 5,
            file_size_mb=self.config.file_size_mb,
        )
        program = self._seccomp_program if self.sandboxed else None
        # Output goes to files, which RLIMIT_FSIZE caps: a flood cannot fill memory here.
        with (
            tempfile.TemporaryFile() as out,
            tempfile.TemporaryFile() as err,
            sandbox.seccomp_argv(argv, program) as (argv, pass_fds),
        ):
            try:
                proc = subprocess.Popen(
                    argv,
                    pass_fds=pass_fds,
                    stdin=subprocess.PIPE,
                    stdout=out,
                    stderr=err,
                    cwd=self.config.cwd,
                    env=env,
                    start_new_session=True,
                    preexec_fn=limits.preexec(),
                )
            except OSError as exc:
                raise _CouldNotCheck(f"{what} could not start: {exc}") from exc
            try:
                proc.communicate(stdin.encode(), timeout=self.config.timeout_s)
            except subprocess.TimeoutExpired:
                raise _CouldNotCheck(
                    f"{what} did not finish within {self.config.timeout_s:g} s"
                ) from None
            finally:
                # Whatever it started in its session goes too (bwrap's pid namespace does
                # this by itself; unsandboxed, this is the best a development machine gets).
                _kill_group(proc)
            return _StepOutput(proc.returncode, _tail(out), _tail(err))


@dataclass(frozen=True)
class _StepOutput:
    returncode: int
    stdout_tail: str
    stderr_tail: str


def _tail(handle: Any, size: int = 2000) -> str:
    end = handle.seek(0, os.SEEK_END)
    handle.seek(max(0, end - size))
    return str(handle.read().decode("utf-8", "replace").strip())


class _CouldNotCheck(Exception):
    pass


class _CompileFailed(_CouldNotCheck):
    pass


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)


def _read_result(path: Path, nonce: str, posed: bool) -> KernelVerdict:
    try:
        with open(path, "rb") as handle:
            raw = handle.read(_RESULT_CAP_BYTES + 1)
    except OSError as exc:
        raise _CouldNotCheck(f"the kernel verifier wrote no result ({exc.strerror})") from exc
    if len(raw) > _RESULT_CAP_BYTES:
        raise _CouldNotCheck("the kernel verifier's result is oversized")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise _CouldNotCheck("the kernel verifier's result is not JSON") from exc
    if not isinstance(data, dict) or data.get("nonce") != nonce:
        raise _CouldNotCheck("the kernel verifier's result does not belong to this run")
    status = data.get("status")
    reason = str(data.get("reason") or "")
    if status == "rejected":
        return KernelVerdict(
            VerifyStatus.REJECTED, reason or "the kernel rejected it", details=data
        )
    if status != "confirmed":
        raise _CouldNotCheck(f"the kernel verifier could not check: {reason or status!r}")
    axioms = data.get("axioms")
    if not isinstance(axioms, list) or not all(isinstance(a, str) for a in axioms):
        raise _CouldNotCheck("the kernel verifier's result lists no axioms")
    if posed and data.get("type_matches") is not True:
        return KernelVerdict(
            VerifyStatus.REJECTED, "the proved statement is not the posed one", axioms, details=data
        )
    bad = disallowed_axioms(axioms)
    if bad:
        return KernelVerdict(
            VerifyStatus.REJECTED,
            f"the kernel-checked proof depends on axioms that are not accepted: {', '.join(bad)}",
            sorted(axioms),
            details=data,
        )
    return KernelVerdict(VerifyStatus.CONFIRMED, "kernel-checked", sorted(axioms), details=data)


def _plain_environment() -> dict[str, str]:
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "ELAN_HOME", "LEAN_PATH", "LEAN_SYSROOT", "TMPDIR")
    return {k: os.environ[k] for k in keep if k in os.environ}
