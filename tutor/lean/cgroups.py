"""Per-REPL cgroup v2 limits: memory.max and pids.max on each REPL's whole process tree.

rlimits are per process (RLIMIT_AS: each of a fork bomb's children gets its own) or per
user (RLIMIT_NPROC: every process of the account, the web workers' too); a cgroup bounds
one REPL and all it starts, threads included, and `cgroup.kill` ends all of it even where
something left the process group.

It needs cgroup v2 with the memory and pids controllers delegated to this user: a
container with its own writable cgroup namespace, or a systemd unit with Delegate=yes.
cgroup v2 lets a cgroup hand controllers to children only while it holds no process
itself, so the parent is best an empty cgroup made for Lean: LEANCOACH_CGROUP_ROOT names
one; without it this process's own cgroup is tried. Where none works the reason is logged
once and shown in the checker's status, and the rlimits remain the only limits.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import logging
import os
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

CGROUP_MOUNT = Path("/sys/fs/cgroup")
PROC_SELF_CGROUP = Path("/proc/self/cgroup")
_CONTROLLERS = ("memory", "pids")


@dataclass(frozen=True)
class CgroupSupport:
    usable: bool
    reason: str
    parent: Path | None = None  # where per-REPL cgroups are made


def own_cgroup(mount: Path = CGROUP_MOUNT, proc_file: Path = PROC_SELF_CGROUP) -> Path | None:
    """This process's cgroup v2 folder (the `0::/path` line), or None under cgroup v1 only."""
    try:
        lines = proc_file.read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    for line in lines:
        if line.startswith("0::"):
            return mount / line[3:].lstrip("/")
    return None


def detect(
    parent: Path | None = None,
    *,
    mount: Path = CGROUP_MOUNT,
    proc_file: Path = PROC_SELF_CGROUP,
) -> CgroupSupport:
    """Whether per-REPL cgroups can be made under `parent` (default: LEANCOACH_CGROUP_ROOT,
    else our own cgroup), enabling the memory and pids controllers for its children."""
    if parent is None:
        configured = os.environ.get("LEANCOACH_CGROUP_ROOT", "").strip()
        parent = Path(configured) if configured else own_cgroup(mount, proc_file)
    if parent is None or not (parent / "cgroup.controllers").is_file():
        return CgroupSupport(False, "cgroup v2 is not mounted here (cgroup v1 or none)")
    offered = _words(parent / "cgroup.controllers")
    missing = [c for c in _CONTROLLERS if c not in offered]
    if missing:
        return CgroupSupport(
            False, f"the cgroup {parent} is not delegated the {' and '.join(missing)} controller"
        )
    control = parent / "cgroup.subtree_control"
    if not (os.access(parent, os.W_OK) and os.access(control, os.W_OK)):
        return CgroupSupport(False, f"the cgroup {parent} is not writable by this user")
    wanted = [c for c in _CONTROLLERS if c not in _words(control)]
    if wanted:
        try:
            control.write_text(" ".join(f"+{c}" for c in wanted), encoding="ascii")
        except OSError as exc:
            return CgroupSupport(
                False,
                f"could not enable {' and '.join(wanted)} for child cgroups of {parent} "
                f"({exc.strerror or exc}); a cgroup that holds processes itself cannot: point "
                "LEANCOACH_CGROUP_ROOT at an empty delegated cgroup",
            )
    return CgroupSupport(True, f"per-REPL cgroup v2 under {parent}", parent)


@functools.lru_cache(maxsize=1)
def support() -> CgroupSupport:
    """detect() once per process, its reason logged once where cgroups cannot be used."""
    found = detect()
    if not found.usable:
        log.warning("Lean sandbox: no per-REPL cgroup (%s); rlimits only", found.reason)
    return found


def _words(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="ascii").split()
    except OSError:
        return []


@dataclass(frozen=True)
class CgroupPlan:
    """The cgroup each REPL gets: made before it starts, removed when it is killed."""

    parent: Path
    memory_mb: int | None = None  # memory.max; swap is refused so the limit is real
    pids_max: int | None = None  # pids.max: processes and threads together

    def create(self) -> Cgroup:
        path = self.parent / f"leancoach-repl-{os.getpid()}-{secrets.token_hex(4)}"
        path.mkdir()
        cgroup = Cgroup(path)
        try:
            if self.memory_mb is not None:
                _write(path / "memory.max", str(self.memory_mb * 1024 * 1024))
                # The kernel ends the whole REPL on OOM, not one arbitrary thread of it.
                _write(path / "memory.oom.group", "1")
                with contextlib.suppress(OSError):  # absent where swap accounting is off
                    _write(path / "memory.swap.max", "0")
            if self.pids_max is not None:
                _write(path / "pids.max", str(self.pids_max))
        except OSError:
            cgroup.remove()
            raise
        return cgroup


@dataclass
class Cgroup:
    path: Path

    def join_preexec(self) -> Callable[[], None]:
        """Moves the child into this cgroup between fork and exec (before it can fork)."""
        procs = os.fsencode(self.path / "cgroup.procs")

        def join() -> None:
            fd = os.open(procs, os.O_WRONLY | os.O_CREAT, 0o644)
            try:
                os.write(fd, str(os.getpid()).encode("ascii"))
            finally:
                os.close(fd)

        return join

    def kill(self) -> None:
        """Every process in the cgroup, whatever its process group (Linux >= 5.14)."""
        with contextlib.suppress(OSError):
            _write(self.path / "cgroup.kill", "1")

    def remove(self) -> None:
        """rmdir once the killed processes are gone (EBUSY until then)."""
        for _ in range(100):
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError as exc:
                if exc.errno != errno.EBUSY:
                    break
                time.sleep(0.02)
        log.warning("Lean sandbox: could not remove the cgroup %s", self.path)


def _write(path: Path, value: str) -> None:
    path.write_text(value, encoding="ascii")
