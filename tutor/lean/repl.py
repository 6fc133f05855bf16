"""One Lean REPL process and its wire protocol (leanprover-community/repl).

Protocol, as the REPL speaks it:
- a request is one JSON object on one line (json.dumps escapes every newline inside a
  string, so a request never contains a blank line), followed by a blank line;
- a reply is pretty-printed JSON followed by a blank line. JSON strings never hold a raw
  newline, so the first blank line ends the reply.

Code elaborated by the REPL can write to the REPL's own stdout (`/dev/stdout`,
`/proc/self/fd/1`), so the driver trusts nothing it cannot check: exactly one framed
JSON object per request, nothing before it and nothing left over, replies and stderr
capped in size, and every environment / proof-state id a reply hands out must be the
next fresh one (the REPL numbers them 0, 1, 2, ... per process: IdTracker). Anything
else, a timeout, or a crash kills the whole process group and the process is never
reused; every failure is a ReplError so callers say "could not check" instead of
inventing a verdict.

Processes are started from one long-lived thread (`_Spawner`): bubblewrap's
--die-with-parent (PR_SET_PDEATHSIG) fires when the *thread* that forked exits, and
callers (the prover's per-rollout thread pools) come and go.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import secrets
import selectors
import shutil
import signal
import stat
import subprocess
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from tutor.lean.cgroups import Cgroup, CgroupPlan
from tutor.lean.sandbox import ChildLimits, seccomp_argv

_STDERR_TAIL_BYTES = 2000
MAX_REPLY_BYTES = 64 * 1024 * 1024  # Mathlib infotrees are large; 64 MB is far past any
MAX_STDERR_BYTES = 1024 * 1024
_READ_CHUNK = 1 << 20


class ReplError(Exception):
    """The REPL could not answer a request; the process is dead afterwards."""


class ReplTimeout(ReplError):
    pass


class ReplCrashed(ReplError):
    pass


class ReplProtocolError(ReplError):
    """The REPL wrote something other than one fresh, well-formed reply per request."""


class PickleFailed(Exception):
    """The REPL answered a `pickleTo` request without writing a readable pickle. The
    process itself is fine; the check that needed the pickle cannot be confirmed."""


def encode_request(payload: Mapping[str, Any]) -> bytes:
    """One request: a single line of JSON and the blank line that ends it.

    Raises ValueError for text that cannot travel (a lone surrogate is not UTF-8)."""
    line = json.dumps(payload, ensure_ascii=False)
    # json.dumps escapes control characters inside strings, so this cannot fire unless the
    # payload smuggles a raw newline through a non-string: refuse rather than desync.
    if "\n" in line:
        raise ValueError("a REPL request must encode to a single line")
    try:
        return (line + "\n\n").encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(
            f"the text holds a character that is not valid Unicode (U+{ord(exc.object[exc.start]):04X})"
        ) from exc


def split_reply(buffer: bytes | bytearray, start: int = 0) -> tuple[bytes, int] | None:
    """(reply, end) once buffer holds a blank-line-terminated reply, else None.

    `start` is where to resume scanning (bytes before it were scanned already and hold
    no terminator); the terminator may straddle it, so scanning backs up one byte.
    `end` is the index just past the terminator. A reply is never preceded by anything:
    the REPL's first byte for a request is the reply's `{`."""
    found = buffer.find(b"\n\n", max(0, start - 1))
    if found < 0:
        return None
    return bytes(buffer[:found]), found + 2


def decode_reply(raw: bytes) -> dict[str, Any]:
    try:
        reply = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        preview = raw[:200].decode("utf-8", "replace")
        raise ReplProtocolError(
            f"the REPL replied with something that is not JSON: {preview!r}"
        ) from exc
    if not isinstance(reply, dict):
        raise ReplProtocolError(f"the REPL replied with JSON that is not an object: {reply!r:.200}")
    return reply


_COMMAND_KEYS = frozenset({"env", "messages", "sorries", "tactics", "infotree"})
_TACTIC_KEYS = frozenset({"proofState", "goals", "proofStatus", "messages", "sorries", "traces"})


@dataclass
class IdTracker:
    """The ids one REPL process has handed out. The REPL numbers environments and proof
    states from 0 per process and never reuses one, so each reply must carry exactly the
    next fresh ids: a reply forged by elaborated code, or a stale one left queued behind
    it, does not."""

    next_env: int = 0
    next_proof_state: int = 0

    def accept(self, request: Mapping[str, Any], reply: Mapping[str, Any]) -> None:
        """Check reply against request and count its ids; ReplProtocolError if off."""
        if set(reply) == {"message"}:
            if not isinstance(reply["message"], str):
                raise ReplProtocolError("an error reply whose message is not text")
            return  # a refusal allocates nothing
        if "pickleTo" in request:
            self._pickle(request, reply)
        elif "cmd" in request or "path" in request or "unpickleEnvFrom" in request:
            self._keys(reply, _COMMAND_KEYS, "env")
            if reply["env"] != self.next_env:
                raise ReplProtocolError(
                    f"the REPL answered with environment {reply['env']!r}; the next fresh one "
                    f"is {self.next_env}"
                )
            self.next_env += 1
            self._proof_states(reply)
        elif "tactic" in request or "unpickleProofStateFrom" in request:
            self._keys(reply, _TACTIC_KEYS, "proofState")
            self._proof_states(reply)
        else:
            raise ReplProtocolError("a reply to a request the driver never sends")

    def _pickle(self, request: Mapping[str, Any], reply: Mapping[str, Any]) -> None:
        if "env" in request:
            self._keys(reply, frozenset({"env"}), "env")
            if reply["env"] != request["env"]:
                raise ReplProtocolError("a pickle reply for another environment")
        else:
            self._keys(reply, _TACTIC_KEYS, "proofState")
            self._proof_states(reply)

    @staticmethod
    def _keys(reply: Mapping[str, Any], allowed: frozenset[str], required: str) -> None:
        extra = set(reply) - allowed
        if required not in reply or extra:
            raise ReplProtocolError(
                f"a reply with keys {sorted(reply)} (expected {required!r}, and only "
                f"{sorted(allowed)})"
            )

    def _proof_states(self, reply: Mapping[str, Any]) -> None:
        ids: list[Any] = []
        for key in ("sorries", "tactics"):
            entries = reply.get(key, [])
            if not isinstance(entries, list):
                raise ReplProtocolError(f"{key!r} is not a list")
            ids += [e.get("proofState") for e in entries if isinstance(e, dict)]
        if "proofState" in reply:
            ids.append(reply["proofState"])
        expected = list(range(self.next_proof_state, self.next_proof_state + len(ids)))
        if any(type(i) is not int for i in ids) or sorted(ids) != expected:
            raise ReplProtocolError(
                f"the REPL answered with proof states {ids!r}; the next fresh ones are {expected!r}"
            )
        self.next_proof_state += len(ids)


@dataclass(frozen=True)
class SpawnSpec:
    """How to start one REPL process (the sandbox, if any, is already part of argv)."""

    argv: list[str]
    cwd: str | None = None
    env: dict[str, str] | None = None
    # rlimits set before exec, inherited by every child: RLIMIT_AS, RLIMIT_CPU (over the
    # process's whole life), RLIMIT_FSIZE, RLIMIT_NPROC. None fields are not capped.
    limits: ChildLimits = field(default_factory=ChildLimits)
    cgroup: CgroupPlan | None = None  # a fresh cgroup v2 per process (memory.max, pids.max)
    seccomp_program: bytes | None = None  # bwrap's --seccomp filter; argv[0] must be bwrap
    max_reply_bytes: int = MAX_REPLY_BYTES  # a longer reply kills the process
    max_stderr_bytes: int = MAX_STDERR_BYTES  # more stderr than this kills the process
    # The process's own writable folder (bound into its sandbox) for `pickleTo`; removed
    # with the process. None: this process cannot pickle.
    exchange_dir: str | None = None
    max_pickle_bytes: int = 256 * 1024 * 1024  # RLIMIT_FSIZE caps the write at the same size


class _Spawner:
    """One daemon thread that forks every REPL (see the module docstring)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._jobs: queue.SimpleQueue[tuple[Callable[[], Any], Future[Any]]] | None = None
        self._thread: threading.Thread | None = None

    def run(self, job: Callable[[], Any]) -> Any:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._jobs = queue.SimpleQueue()
                self._thread = threading.Thread(
                    target=self._serve, args=(self._jobs,), name="lean-repl-spawner", daemon=True
                )
                self._thread.start()
            jobs = self._jobs
        assert jobs is not None
        done: Future[Any] = Future()
        jobs.put((job, done))
        return done.result()

    @staticmethod
    def _serve(jobs: queue.SimpleQueue[tuple[Callable[[], Any], Future[Any]]]) -> None:
        while True:
            job, done = jobs.get()
            try:
                done.set_result(job())
            except BaseException as exc:  # handed to the caller's thread
                done.set_exception(exc)

    @property
    def thread(self) -> threading.Thread | None:
        return self._thread

    def forget(self) -> None:
        """After fork: the parent's thread does not exist in the child."""
        self._lock = threading.Lock()
        self._jobs = None
        self._thread = None


SPAWNER = _Spawner()
os.register_at_fork(after_in_child=SPAWNER.forget)


@dataclass
class ReplProcess:
    """A live REPL process. Not thread-safe: the pool lends it to one caller at a time."""

    spec: SpawnSpec
    uses: int = 0
    header: str | None = None
    header_env: int | None = None
    header_reply: dict[str, Any] | None = None
    posed: dict[str, int] = field(default_factory=dict)  # statement -> its sorry's proofState
    ids: IdTracker = field(default_factory=IdTracker)
    _proc: subprocess.Popen[bytes] = field(init=False, repr=False)
    _buffer: bytearray = field(default_factory=bytearray, init=False, repr=False)
    _stderr_tail: bytearray = field(default_factory=bytearray, init=False, repr=False)
    _stderr_total: int = field(default=0, init=False, repr=False)
    _stderr_open: bool = field(default=True, init=False, repr=False)
    _dead_reason: str | None = field(default=None, init=False)
    _cgroup: Cgroup | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self._cgroup = self.spec.cgroup.create() if self.spec.cgroup is not None else None
        try:
            self._proc = SPAWNER.run(self._popen)
        except BaseException:
            if self._cgroup is not None:
                self._cgroup.remove()
            raise
        assert self._proc.stdin and self._proc.stdout and self._proc.stderr
        for stream in (self._proc.stdin, self._proc.stdout, self._proc.stderr):
            os.set_blocking(stream.fileno(), False)

    def _popen(self) -> subprocess.Popen[bytes]:
        join = self._cgroup.join_preexec() if self._cgroup is not None else None
        with seccomp_argv(self.spec.argv, self.spec.seccomp_program) as (argv, pass_fds):
            return subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=self.spec.cwd,
                env=self.spec.env,
                start_new_session=True,  # own process group: a timeout kills all of it
                preexec_fn=self.spec.limits.preexec(join),
                pass_fds=pass_fds,
            )

    @property
    def pid(self) -> int:
        return self._proc.pid

    @property
    def alive(self) -> bool:
        return self._dead_reason is None and self._proc.poll() is None

    def request(self, payload: Mapping[str, Any], timeout_s: float) -> dict[str, Any]:
        """Send one request and read its one reply; on any failure the process is killed."""
        if not self.alive:
            raise ReplCrashed(self._describe_death())
        try:
            data = encode_request(payload)
        except ValueError as exc:
            # Nothing was sent; the process is untouched and stays usable.
            raise ReplRefusedInput(str(exc)) from exc
        deadline = time.monotonic() + timeout_s
        try:
            self._drain(0.0)  # bytes written since the last reply are outside the protocol
            self._expect_nothing_pending()
            self._write_all(data, deadline, timeout_s)
            reply = decode_reply(self._read_reply(deadline, timeout_s))
            self._drain(0.0)
            self._expect_nothing_pending()
            self.ids.accept(payload, reply)
            return reply
        except ReplError as exc:
            self.kill(str(exc))
            raise

    def pickle(self, env: int, timeout_s: float) -> bytes:
        """The constants environment `env` added to its imports, pickled by the REPL itself
        (`{"pickleTo": PATH, "env": env}`, leanprover-community/repl REPL/Main.lean
        `pickleCommandSnapshot`): one small write, no second elaboration. The bytes come
        from a process that ran the submission; only the kernel verifier's export step,
        in its own sandbox, reads them (tutor/lean/kernel_check.py)."""
        if self.spec.exchange_dir is None:
            raise PickleFailed("this REPL process has no folder to write a pickle into")
        path = os.path.join(self.spec.exchange_dir, f"env-{secrets.token_hex(8)}.olean")
        reply = self.request({"pickleTo": path, "env": env}, timeout_s)
        try:
            if "env" not in reply:
                raise PickleFailed(str(reply.get("message", reply)))
            return _read_regular_file(path, self.spec.max_pickle_bytes)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(path)

    def sync(self, timeout_s: float) -> None:
        """A barrier: an empty command whose reply must be the next fresh environment.

        A stale reply still queued (elaborated code wrote a forged one before it) or an
        impostor answering in the REPL's place shows up here, before a verdict is given."""
        env = self.header_env if self.header_env is not None else None
        payload: dict[str, Any] = {"cmd": ""} if env is None else {"cmd": "", "env": env}
        reply = self.request(payload, timeout_s)
        if any(m.get("severity") == "error" for m in reply.get("messages", [])):
            self.kill("the barrier command failed")
            raise ReplProtocolError("the REPL failed an empty command")

    def _expect_nothing_pending(self) -> None:
        if self._buffer:
            preview = bytes(self._buffer[:120]).decode("utf-8", "replace")
            raise ReplProtocolError(
                f"the REPL wrote outside the protocol (bytes beyond one reply): {preview!r}"
            )

    def _write_all(self, data: bytes, deadline: float, timeout_s: float) -> None:
        assert self._proc.stdin is not None
        fd = self._proc.stdin.fileno()
        view = memoryview(data)
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_WRITE)
            while view:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise ReplTimeout(f"Lean did not take the request within {timeout_s:g} s")
                if not selector.select(remaining):
                    continue
                try:
                    written = os.write(fd, view)
                except BlockingIOError:
                    continue
                except (BrokenPipeError, ConnectionResetError) as exc:
                    raise ReplCrashed(self._describe_death()) from exc
                view = view[written:]

    def _read_reply(self, deadline: float, timeout_s: float) -> bytes:
        """Bytes of exactly one reply; scans only bytes that arrived since the last look."""
        scanned = 0
        while True:
            complete = split_reply(self._buffer, scanned)
            if complete is not None:
                reply, end = complete
                del self._buffer[:end]
                return reply
            scanned = len(self._buffer)
            if scanned > self.spec.max_reply_bytes:
                raise ReplProtocolError(
                    f"the REPL's reply passed {self.spec.max_reply_bytes} bytes without ending"
                )
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ReplTimeout(f"Lean did not answer within {timeout_s:g} s")
            if not self._drain(remaining):
                raise ReplCrashed(self._describe_death(wait_s=1.0))

    def _drain(self, wait_s: float) -> bool:
        """Read what stdout and stderr hold (waiting up to wait_s for the first bytes).

        Returns False when stdout reached end of file. Every ready stream is read even
        then: a REPL that dies writes its last words to stderr as stdout closes, and
        select may list the two in either order."""
        assert self._proc.stdout is not None and self._proc.stderr is not None
        out_fd, err_fd = self._proc.stdout.fileno(), self._proc.stderr.fileno()
        stdout_open = True
        with selectors.DefaultSelector() as selector:
            selector.register(out_fd, selectors.EVENT_READ)
            if self._stderr_open:  # a closed stderr would wake select forever
                selector.register(err_fd, selectors.EVENT_READ)
            for key, _ in selector.select(max(0.0, wait_s)):
                try:
                    chunk = os.read(key.fd, _READ_CHUNK)
                except BlockingIOError:
                    continue
                if key.fd == err_fd:
                    self._stderr_open = bool(chunk)
                    self._keep_stderr(chunk)
                elif not chunk:
                    stdout_open = False
                else:
                    self._buffer += chunk
        return stdout_open

    def _drain_stderr(self, wait_s: float) -> None:
        """Read stderr to its end (or for wait_s), for the message that says why it died."""
        assert self._proc.stderr is not None
        err_fd = self._proc.stderr.fileno()
        deadline = time.monotonic() + wait_s
        with selectors.DefaultSelector() as selector:
            selector.register(err_fd, selectors.EVENT_READ)
            while self._stderr_open and (remaining := deadline - time.monotonic()) > 0:
                if not selector.select(remaining):
                    return
                try:
                    chunk = os.read(err_fd, _READ_CHUNK)
                except BlockingIOError:
                    continue
                self._stderr_open = bool(chunk)
                self._keep_stderr(chunk)

    def _keep_stderr(self, chunk: bytes) -> None:
        self._stderr_total += len(chunk)
        self._stderr_tail += chunk
        del self._stderr_tail[:-_STDERR_TAIL_BYTES]
        if self._stderr_total > self.spec.max_stderr_bytes:
            raise ReplProtocolError(
                f"the REPL wrote more than {self.spec.max_stderr_bytes} bytes to stderr"
            )

    def _describe_death(self, wait_s: float = 0.0) -> str:
        if self._dead_reason is not None:
            return self._dead_reason
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._proc.wait(timeout=wait_s)
        with contextlib.suppress(ReplError, OSError, ValueError):
            self._drain_stderr(0.2 if self._proc.returncode is not None else 0.05)
        code = self._proc.returncode
        if code is None:
            status = "closed its output"
        elif code < 0:
            status = f"was killed by signal {signal.Signals(-code).name}"
        else:
            status = f"exited with code {code}"
        tail = self.stderr_tail()
        return f"the Lean REPL {status}" + (f": {tail}" if tail else "")

    def stderr_tail(self) -> str:
        return bytes(self._stderr_tail).decode("utf-8", "replace").strip()

    def tree_pids(self) -> list[int]:
        """This process and all its descendants (bubblewrap -> lake -> repl), from /proc."""
        return process_tree(self.pid)

    def rss_mb(self) -> float | None:
        """Private resident memory (RssAnon) of the whole process tree, from /proc; None if
        unknown. The mapped .olean files of an `import Mathlib` are shared, clean pages: they
        count in VmRSS (several GB) but not here, and they are not what grows per check.

        The tree matters: under bubblewrap or `lake env` the REPL is a grandchild.
        """
        sizes = [rss for rss in (_rss_kb(pid) for pid in self.tree_pids()) if rss is not None]
        return sum(sizes) / 1024 if sizes else None

    def kill(self, reason: str = "stopped") -> None:
        """Kill the whole process group and reap it. Safe to call twice."""
        if self._dead_reason is None:
            self._dead_reason = reason
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._proc.pid, signal.SIGKILL)
        if self._cgroup is not None:
            self._cgroup.kill()  # whatever left the process group goes too
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._proc.wait(timeout=5)
        if self._cgroup is not None:
            self._cgroup.remove()
            self._cgroup = None
        if self.spec.exchange_dir is not None:
            shutil.rmtree(self.spec.exchange_dir, ignore_errors=True)
        for stream in (self._proc.stdin, self._proc.stdout, self._proc.stderr):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()


class ReplRefusedInput(ReplError):
    """The request could not be encoded (e.g. a lone surrogate); nothing reached Lean."""


def process_tree(root: int) -> list[int]:
    """root and its descendants, via /proc/<pid>/task/<tid>/children (Linux)."""
    found: list[int] = []
    pending = [root]
    while pending:
        pid = pending.pop()
        if pid in found:
            continue
        found.append(pid)
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as children:
                    pending.extend(int(child) for child in children.read().split())
            except OSError:
                continue
    return found


def _rss_kb(pid: int) -> int | None:
    """RssAnon (Linux >= 4.5), else VmRSS."""
    found: dict[str, int] = {}
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as status:
            for line in status:
                key = line.split(":", 1)[0]
                if key in ("RssAnon", "VmRSS"):
                    found[key] = int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return found.get("RssAnon", found.get("VmRSS"))


def _read_regular_file(path: str, cap: int) -> bytes:
    """A file's bytes, refusing a symlink or anything but a regular file, and anything
    larger than `cap` (the process that wrote it is not trusted)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise PickleFailed(f"no pickle was written ({exc.strerror})") from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise PickleFailed("the pickle is not a regular file")
        if info.st_size > cap:
            raise PickleFailed(f"the pickle is larger than {cap} bytes")
        chunks = []
        total = 0
        while chunk := os.read(fd, 1 << 20):
            total += len(chunk)
            if total > cap:
                raise PickleFailed(f"the pickle is larger than {cap} bytes")
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)
