"""Run each Lean process under bubblewrap: elaborating Lean runs code (#eval, run_cmd,
initialize, macros), and the checker elaborates strangers' Lean.

The recipe (lean4web / lean4game): read-only /usr and toolchain and project, a tmpfs
/tmp, new user/pid/net/ipc/uts namespaces, no capabilities, a cleared environment and
die-with-parent. The rlimits (ChildLimits: memory, CPU time, file size, process count)
are set on the bubblewrap process between fork and exec and inherited by everything
under it; a per-process cgroup (cgroups.py) and a seccomp filter (seccomp.py, passed to
bwrap as `--seccomp FD` by seccomp_argv) are added where configured and available.

bubblewrap needs unprivileged user namespaces and must mount a fresh /proc in its pid
namespace. A container can deny either: Docker's default seccomp and AppArmor profiles stop
the namespaces and mounts, and its masked /proc paths make the kernel refuse the new proc
mount ("Can't mount proc on /newroot/proc"); docker/compose.yaml says what its Lean workers
get instead. `probe()` runs bwrap once with exactly the flags used for Lean, so "sandboxed"
is reported only when it really works.
"""

from __future__ import annotations

import functools
import logging
import os
import resource
import shutil
import subprocess
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

TMPFS_SIZE_MB = 512  # the sandbox's /tmp (RAM-backed): Lean writes little there

# Read-only system paths every dynamically linked program needs. On merged-/usr systems
# /lib, /bin are symlinks into /usr; --ro-bind-try binds what they point to.
_SYSTEM_PATHS = ("/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc/ld.so.cache")
_SYSTEM_ETC = ("/etc/alternatives", "/etc/localtime", "/etc/ssl")


@dataclass(frozen=True)
class SandboxProbe:
    usable: bool
    reason: str
    bwrap: str | None


def find_bwrap() -> str | None:
    """LEANCOACH_BWRAP overrides the lookup (a path; empty or "none" means: do not use)."""
    override = os.environ.get("LEANCOACH_BWRAP")
    if override is not None:
        if override.strip().lower() in ("", "none", "0", "off"):
            return None
        return override if os.access(override, os.X_OK) else None
    return shutil.which("bwrap")


@dataclass(frozen=True)
class ChildLimits:
    """Kernel limits set between fork and exec; every child of the process inherits them.

    RLIMIT_NPROC counts all processes of the (real) user, so it is a coarse backstop only
    (and the kernel ignores it for root); the per-sandbox process and memory limit belongs
    to a cgroup v2 (tutor/lean/cgroups.py). `extra` runs last in the child (joining one)."""

    memory_mb: int | None = 8192  # RLIMIT_AS
    cpu_s: int | None = None  # RLIMIT_CPU
    file_size_mb: int | None = 256  # RLIMIT_FSIZE: any file it writes, stdout/stderr files too
    processes: int | None = 4096  # RLIMIT_NPROC (ignored for root by the kernel)

    def preexec(self, extra: Callable[[], None] | None = None) -> Callable[[], None]:
        # Runs between fork and exec: only system calls, nothing that takes a lock.
        def apply() -> None:
            for which, value in (
                (resource.RLIMIT_AS, _mb(self.memory_mb)),
                (resource.RLIMIT_FSIZE, _mb(self.file_size_mb)),
                (resource.RLIMIT_NPROC, self.processes),
            ):
                if value is not None:
                    resource.setrlimit(which, (value, value))
            if self.cpu_s is not None:
                # SIGXCPU at the soft limit, SIGKILL at the hard one if that is caught.
                resource.setrlimit(resource.RLIMIT_CPU, (self.cpu_s, self.cpu_s + 5))
            if extra is not None:
                extra()

        return apply


def _mb(value: int | None) -> int | None:
    return None if value is None else value * 1024 * 1024


@functools.lru_cache(maxsize=4)
def supported_flags(bwrap: str) -> frozenset[str]:
    """The optional hardening flags this bwrap knows (older ones lack --size, --disable-userns)."""
    try:
        done = subprocess.run([bwrap, "--help"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return frozenset()
    text = done.stdout + done.stderr
    found = frozenset(f for f in ("--size", "--disable-userns") if f in text)
    for flag in {"--size", "--disable-userns"} - found:
        log.warning("Lean sandbox: %s does not support %s; running without it", bwrap, flag)
    return found


def hardening_flags(bwrap: str | None) -> list[str]:
    """--disable-userns (no nested user namespaces) and a size-capped /tmp, when supported."""
    if bwrap is None:
        return []
    supported = supported_flags(bwrap)
    flags: list[str] = []
    if "--disable-userns" in supported:
        flags += ["--disable-userns"]
    if "--size" in supported:
        # --size applies to the next --tmpfs: remount /tmp with a cap.
        flags += ["--size", str(TMPFS_SIZE_MB * 1024 * 1024), "--tmpfs", "/tmp"]
    return flags


def base_flags() -> list[str]:
    flags = [
        "--die-with-parent",
        "--new-session",
        "--unshare-all",  # net, pid, ipc, uts, cgroup; user namespace forced below
        "--unshare-user",
        "--cap-drop",
        "ALL",
        "--clearenv",
        "--setenv",
        "HOME",
        "/tmp",
        "--setenv",
        "LANG",
        "C.UTF-8",
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--tmpfs",
        "/tmp",
    ]
    for path in _SYSTEM_PATHS + _SYSTEM_ETC:
        flags += ["--ro-bind-try", path, path]
    return flags


def wrap(
    bwrap: str,
    argv: Sequence[str],
    *,
    cwd: str | None,
    read_only_paths: Iterable[str],
    extra_env: Mapping[str, str] | None = None,
    writable_paths: Iterable[str] = (),
) -> list[str]:
    """argv run inside the sandbox, with read_only_paths (toolchain, project) visible and
    only extra_env (plus HOME, LANG, PATH) in its environment."""
    flags = [bwrap, *base_flags(), *hardening_flags(bwrap)]
    for name, value in (extra_env or {}).items():
        flags += ["--setenv", name, value]
    path_dirs = ["/usr/local/bin", "/usr/bin", "/bin"]
    for path in _unique_existing([*read_only_paths, *([cwd] if cwd else [])]):
        flags += ["--ro-bind", path, path]
    # The verification step's own folders: bound after the read-only ones so they win.
    for path in _unique_existing(writable_paths):
        flags += ["--bind", path, path]
    if argv and os.path.isabs(argv[0]):
        path_dirs.insert(0, str(Path(argv[0]).parent))
    flags += ["--setenv", "PATH", ":".join(path_dirs)]
    # Without a project folder, start in the throwaway tmpfs rather than an unbound path.
    flags += ["--chdir", cwd or "/tmp"]
    return [*flags, "--", *argv]


@contextmanager
def seccomp_argv(
    argv: Sequence[str], program: bytes | None
) -> Iterator[tuple[list[str], tuple[int, ...]]]:
    """(argv, pass_fds) for Popen: a bwrap argv given `--seccomp FD`, FD a pipe holding
    `program`. bwrap reads the pipe to its end, so every start needs a fresh one; the
    parent's end is closed when the block ends (the child keeps its copy)."""
    if program is None:
        yield list(argv), ()
        return
    if len(program) >= 65536:  # a pipe's buffer: the write must not block
        raise ValueError("a seccomp program this large does not fit a pipe")
    read_fd, write_fd = os.pipe()
    try:
        os.write(write_fd, program)
        os.close(write_fd)
        write_fd = -1
        yield [argv[0], "--seccomp", str(read_fd), *argv[1:]], (read_fd,)
    finally:
        os.close(read_fd)
        if write_fd >= 0:
            os.close(write_fd)


def paths_for_command(argv: Sequence[str]) -> list[str]:
    """Folders a command needs to see: those holding any absolute path among its words."""
    folders: list[str] = []
    for word in argv:
        if os.path.isabs(word) and os.path.exists(word):
            for candidate in (Path(word), Path(word).resolve()):
                folder = candidate if candidate.is_dir() else candidate.parent
                folders.append(str(folder))
    return folders


def _unique_existing(paths: Iterable[str]) -> list[str]:
    seen: list[str] = []
    for path in paths:
        if path and os.path.exists(path) and path not in seen:
            seen.append(path)
    return seen


@functools.lru_cache(maxsize=4)
def probe(bwrap: str | None) -> SandboxProbe:
    """Whether bwrap can start a process here with the flags we use (cached per path)."""
    if bwrap is None:
        return SandboxProbe(
            False,
            "bubblewrap is not installed (Debian/Ubuntu: `apt-get install bubblewrap`)",
            None,
        )
    try:
        done = subprocess.run(
            [
                bwrap,
                *base_flags(),
                *hardening_flags(bwrap),
                "--setenv",
                "PATH",
                "/usr/bin:/bin",
                "--",
                "true",
            ],
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return SandboxProbe(False, f"bubblewrap could not run: {exc}", bwrap)
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip() or f"exit code {done.returncode}"
        return SandboxProbe(
            False,
            f"bubblewrap is installed but cannot create its sandbox here ({detail}); "
            "it needs unprivileged user namespaces and a fresh /proc, which a container denies "
            "unless it is given them (Docker: security_opt seccomp, apparmor and systempaths "
            "unconfined; podman: also unmask=ALL; docker/compose.yaml)",
            bwrap,
        )
    return SandboxProbe(True, "Lean runs under bubblewrap", bwrap)
