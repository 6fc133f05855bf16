"""One Lean REPL process and its wire protocol (leanprover-community/repl).

Protocol, as the REPL speaks it:
- a request is one JSON object on one line (json.dumps escapes every newline inside a
  string, so a request never contains a blank line), followed by a blank line;
- a reply is pretty-printed JSON followed by a blank line. JSON strings never hold a raw
  newline, so the first blank line ends the reply.

The REPL has no timeout of its own: a request that overruns kills the whole process group
(the REPL, and bubblewrap with everything under it) and the process is gone; the pool then
starts a fresh one. Every failure is a ReplError subclass so callers can say "could not
check" instead of inventing a verdict.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import selectors
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

_STDERR_TAIL_BYTES = 2000


class ReplError(Exception):
    """The REPL could not answer a request; the process is dead afterwards."""


class ReplTimeout(ReplError):
    pass


class ReplCrashed(ReplError):
    pass


class ReplProtocolError(ReplError):
    """The REPL answered something that is not one JSON object followed by a blank line."""


def encode_request(payload: Mapping[str, Any]) -> bytes:
    """One request: a single line of JSON and the blank line that ends it."""
    line = json.dumps(payload, ensure_ascii=False)
    # json.dumps escapes control characters inside strings, so this cannot fire unless the
    # payload smuggles a raw newline through a non-string: refuse rather than desync.
    if "\n" in line:
        raise ValueError("a REPL request must encode to a single line")
    return (line + "\n\n").encode("utf-8")


def split_reply(buffer: bytes) -> tuple[bytes, bytes] | None:
    """(reply, rest) once the buffer holds a blank-line-terminated reply, else None."""
    # Skip leading blank lines: the REPL may emit one before its first reply.
    stripped = buffer.lstrip(b"\n")
    end = stripped.find(b"\n\n")
    if end < 0:
        return None
    return stripped[:end], stripped[end + 2 :]


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


@dataclass(frozen=True)
class SpawnSpec:
    """How to start one REPL process (the sandbox, if any, is already part of argv)."""

    argv: list[str]
    cwd: str | None = None
    env: dict[str, str] | None = None
    memory_mb: int | None = None  # RLIMIT_AS; None = no cap
    cpu_limit_s: int | None = None  # RLIMIT_CPU over the process's whole life; None = none


def _limits_setter(memory_mb: int | None, cpu_limit_s: int | None) -> Callable[[], None]:
    # Runs in the child between fork and exec: only setrlimit calls, no allocation-heavy
    # work (preexec_fn's documented caveat with threads is about locks taken there).
    def set_limits() -> None:
        if memory_mb is not None:
            limit = memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        if cpu_limit_s is not None:
            resource.setrlimit(resource.RLIMIT_CPU, (cpu_limit_s, cpu_limit_s + 5))

    return set_limits


@dataclass
class ReplProcess:
    """A live REPL process. Not thread-safe: the pool lends it to one caller at a time."""

    spec: SpawnSpec
    uses: int = 0
    header: str | None = None
    header_env: int | None = None
    header_reply: dict[str, Any] | None = None
    _proc: subprocess.Popen[bytes] = field(init=False, repr=False)
    _stderr: Any = field(init=False, repr=False)
    _buffer: bytes = field(default=b"", init=False, repr=False)
    _dead_reason: str | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        # Lives as long as the process; closed in kill().
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115
        self._proc = subprocess.Popen(
            self.spec.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            cwd=self.spec.cwd,
            env=self.spec.env,
            start_new_session=True,  # own process group: a timeout kills all of it
            preexec_fn=_limits_setter(self.spec.memory_mb, self.spec.cpu_limit_s),
        )
        assert self._proc.stdin is not None and self._proc.stdout is not None
        os.set_blocking(self._proc.stdin.fileno(), False)
        os.set_blocking(self._proc.stdout.fileno(), False)

    @property
    def pid(self) -> int:
        return self._proc.pid

    @property
    def alive(self) -> bool:
        return self._dead_reason is None and self._proc.poll() is None

    def request(self, payload: Mapping[str, Any], timeout_s: float) -> dict[str, Any]:
        """Send one request and read its reply; on any failure the process is killed."""
        if not self.alive:
            raise ReplCrashed(self._describe_death())
        deadline = time.monotonic() + timeout_s
        try:
            self._write_all(encode_request(payload), deadline, timeout_s)
            return decode_reply(self._read_reply(deadline, timeout_s))
        except ReplError as exc:
            self.kill(str(exc))
            raise

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
        assert self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while True:
                complete = split_reply(self._buffer)
                if complete is not None:
                    reply, self._buffer = complete
                    return reply
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise ReplTimeout(f"Lean did not answer within {timeout_s:g} s")
                if not selector.select(remaining):
                    continue
                try:
                    chunk = os.read(fd, 1 << 16)
                except BlockingIOError:
                    continue
                if not chunk:
                    raise ReplCrashed(self._describe_death(wait_s=1.0))
                self._buffer += chunk

    def _describe_death(self, wait_s: float = 0.0) -> str:
        if self._dead_reason is not None:
            return self._dead_reason
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._proc.wait(timeout=wait_s)
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
        try:
            size = self._stderr.seek(0, os.SEEK_END)
            self._stderr.seek(max(0, size - _STDERR_TAIL_BYTES))
            return str(self._stderr.read().decode("utf-8", "replace").strip())
        except (OSError, ValueError):
            return ""

    def tree_pids(self) -> list[int]:
        """This process and all its descendants (bubblewrap -> lake -> repl), from /proc."""
        return process_tree(self.pid)

    def rss_mb(self) -> float | None:
        """Resident memory of the whole process tree, from /proc; None if unknown.

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
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._proc.wait(timeout=5)
        for stream in (self._proc.stdin, self._proc.stdout, self._stderr):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()


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
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None
