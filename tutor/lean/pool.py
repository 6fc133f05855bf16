"""A bounded pool of REPL processes keyed by file header (the import lines).

Importing Mathlib takes seconds to minutes, so each process runs its header once and
keeps the resulting environment id; later checks with the same header send only their
body with `"env": header_env`. A process is recycled after `max_uses` leases or when its
resident memory passes `recycle_rss_mb` (Lean's memory grows with every command).

Backpressure: at most `max_processes` processes exist. When all are busy a caller waits
at most `acquire_timeout_s` and then gets PoolBusy; it never waits forever. An idle
process with a different header is evicted (least recently used first) rather than
making a caller wait.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass

from tutor.lean.repl import ReplCrashed, ReplError, ReplProcess

log = logging.getLogger(__name__)


class PoolBusy(Exception):
    """Every REPL process stayed busy for the whole bounded wait."""


class PoolClosed(Exception):
    pass


class HeaderFailed(ReplError):
    """Lean could not import the header (e.g. `import Mathlib` on a core-only install).

    The REPL still answers `{"env": 0, "messages": [error]}`, with an empty environment:
    every check against it would fail for a reason that is not the user's, so this is
    "Lean is unavailable for this header", never a verdict."""


@dataclass(frozen=True)
class PoolLimits:
    max_processes: int = 2
    max_uses: int = 100
    acquire_timeout_s: float = 30.0
    header_timeout_s: float = 300.0
    recycle_rss_mb: float | None = None
    # Up to this many throwaway commands after the header, a random number of them, so
    # the ids a fresh process hands out next cannot be guessed by code that would forge
    # a reply (IdTracker checks every id). 0 switches it off.
    id_scramble: int = 24

    def __post_init__(self) -> None:
        if self.max_processes < 1:
            raise ValueError("max_processes must be at least 1 (one REPL process per check slot)")
        if self.max_uses < 1:
            raise ValueError("max_uses must be at least 1 (1 = a fresh REPL for every check)")
        if self.acquire_timeout_s < 0:
            raise ValueError("acquire_timeout_s must be >= 0 seconds (0 = fail at once when busy)")
        if self.header_timeout_s <= 0:
            raise ValueError("header_timeout_s must be > 0 seconds; importing Mathlib needs ~60+")


@dataclass
class PoolStats:
    spawned: int = 0
    reused: int = 0
    recycled: int = 0
    evicted: int = 0
    busy_rejections: int = 0


class ReplPool:
    def __init__(self, spawn: Callable[[], ReplProcess], limits: PoolLimits) -> None:
        self._spawn = spawn
        self.limits = limits
        self.stats = PoolStats()
        self._cond = threading.Condition()
        self._idle: list[ReplProcess] = []  # least recently used first
        self._live = 0  # processes that exist or are being started (idle + leased + starting)
        self._closed = False

    @contextmanager
    def lease(self, header: str) -> Iterator[ReplProcess]:
        """A process whose header env is ready; returned to the pool (or recycled) after."""
        process = self._acquire(header)
        try:
            yield process
        finally:
            self._release(process)

    def _acquire(self, header: str) -> ReplProcess:
        deadline = time.monotonic() + self.limits.acquire_timeout_s
        victim: ReplProcess | None = None
        with self._cond:
            while True:
                if self._closed:
                    raise PoolClosed("the Lean checker was closed")
                reusable = self._take_idle(header)
                if reusable is not None:
                    self.stats.reused += 1
                    return reusable
                if self._live < self.limits.max_processes:
                    self._live += 1
                    break
                if self._idle:
                    victim = self._idle.pop(0)  # a slot held by another header: replace it
                    self.stats.evicted += 1
                    break
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    self.stats.busy_rejections += 1
                    raise PoolBusy(
                        f"all {self.limits.max_processes} Lean processes stayed busy for "
                        f"{self.limits.acquire_timeout_s:g} s; try again shortly"
                    )
                self._cond.wait(remaining)
        if victim is not None:
            victim.kill("evicted for another header")
        return self._start(header)

    def prestart(self, header: str) -> bool:
        """Start one process with `header` imported and leave it idle, so the first check
        with that header finds it ready (a real REPL's start and `import Mathlib` take tens
        of seconds). Nothing happens when one is idle with it already or every slot is
        taken. Raises what starting raises (HeaderFailed, ReplError, OSError)."""
        with self._cond:
            if self._closed or self._live >= self.limits.max_processes:
                return False
            if any(process.header == header for process in self._idle):
                return False
            self._live += 1
        process = self._start(header)  # on failure it frees the slot and raises
        with self._cond:
            if self._closed:
                process.kill("pool closed")
                self._live -= 1
                return False
            self._idle.append(process)
            self._cond.notify()
        return True

    def _take_idle(self, header: str) -> ReplProcess | None:
        for index in range(len(self._idle) - 1, -1, -1):
            candidate = self._idle[index]
            if candidate.header == header:
                del self._idle[index]
                if candidate.alive:
                    return candidate
                self._live -= 1  # died while idle (e.g. its CPU-time limit): forget it
        return None

    def _start(self, header: str) -> ReplProcess:
        try:
            process = self._spawn()
        except BaseException:
            self._forget_slot()
            raise
        self.stats.spawned += 1
        try:
            reply = process.request({"cmd": header}, self.limits.header_timeout_s)
        except ReplCrashed as exc:
            process.kill("header failed")
            self._forget_slot()
            if "out of memory" in str(exc):
                # Not the user's fault and not transient: the limits are too small for
                # what this header maps (an `import Mathlib` needs well over 8 GB).
                raise HeaderFailed(
                    f"Lean ran out of memory importing the header {header!r} ({exc}); raise "
                    'the memory limit (LEANCOACH_LEAN_MEMORY_MB, docs/LEAN.md "Sizing")'
                ) from exc
            raise
        except BaseException:
            process.kill("header failed")
            self._forget_slot()
            raise
        errors = [
            str(m.get("data", "")).strip()
            for m in reply.get("messages", [])
            if isinstance(m, dict) and m.get("severity") == "error"
        ]
        if "env" not in reply or errors:
            process.kill("header failed")
            self._forget_slot()
            why = "; ".join(errors) if errors else str(reply.get("message", reply))
            raise HeaderFailed(f"Lean could not import the header {header!r}: {why}")
        process.header = header
        process.header_env = int(reply["env"])
        process.header_reply = reply
        try:
            self._scramble_ids(process)
        except BaseException:
            process.kill("could not prepare the process")
            self._forget_slot()
            raise
        return process

    def _scramble_ids(self, process: ReplProcess) -> None:
        """Shift the next environment and proof-state ids by unguessable amounts."""
        if self.limits.id_scramble <= 0:
            return
        timeout = self.limits.header_timeout_s
        for _ in range(secrets.randbelow(self.limits.id_scramble)):
            process.request({"cmd": "", "env": process.header_env}, timeout)
        for _ in range(secrets.randbelow(self.limits.id_scramble)):
            process.request(
                {"cmd": "example : True := by sorry", "env": process.header_env}, timeout
            )

    def _release(self, process: ReplProcess) -> None:
        process.uses += 1
        reason = self._retire_reason(process)
        if reason is not None:
            process.kill(reason)
            if reason != "died":
                self.stats.recycled += 1
            self._forget_slot()
            return
        with self._cond:
            if self._closed:
                process.kill("pool closed")
                self._live -= 1
                return
            self._idle.append(process)
            self._cond.notify()

    def _retire_reason(self, process: ReplProcess) -> str | None:
        if not process.alive:
            return "died"
        if process.uses >= self.limits.max_uses:
            return f"recycled after {process.uses} uses"
        if self.limits.recycle_rss_mb is not None:
            rss = process.rss_mb()
            if rss is not None and rss > self.limits.recycle_rss_mb:
                return f"recycled at {rss:.0f} MB resident"
        return None

    def _forget_slot(self) -> None:
        with self._cond:
            self._live -= 1
            self._cond.notify()

    def close(self) -> None:
        """Kill idle processes now; leased ones are killed when they come back."""
        with self._cond:
            self._closed = True
            idle, self._idle = self._idle, []
            self._live -= len(idle)
            self._cond.notify_all()
        for process in idle:
            with suppress(Exception):
                process.kill("pool closed")

    @property
    def live_processes(self) -> int:
        with self._cond:
            return self._live

    def idle_pids(self) -> list[int]:
        """The process ids of the idle REPLs (tests and bench/bench_verify.py watch them)."""
        with self._cond:
            return [p.pid for p in self._idle]

    def idle_processes(self) -> list[ReplProcess]:
        """A snapshot, for inspection (tests, metrics); do not send requests to these."""
        with self._cond:
            return list(self._idle)
