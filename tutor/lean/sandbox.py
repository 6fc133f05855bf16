"""Run each Lean process under bubblewrap: elaborating Lean runs code (#eval, run_cmd,
initialize, macros), and the checker elaborates strangers' Lean.

The recipe (lean4web / lean4game): read-only /usr and toolchain and project, a tmpfs
/tmp, new user/pid/net/ipc/uts namespaces, no capabilities, a cleared environment and
die-with-parent. The memory (RLIMIT_AS) and CPU-time (RLIMIT_CPU) limits are set on the
bubblewrap process by the REPL driver and inherited by everything under it.

bubblewrap needs user namespaces; some containers forbid them. `probe()` runs bwrap once
with exactly the flags used for Lean, so "sandboxed" is reported only when it really works.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

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
) -> list[str]:
    """argv run inside the sandbox, with read_only_paths (toolchain, project) visible and
    only extra_env (plus HOME, LANG, PATH) in its environment."""
    flags = [bwrap, *base_flags()]
    for name, value in (extra_env or {}).items():
        flags += ["--setenv", name, value]
    path_dirs = ["/usr/local/bin", "/usr/bin", "/bin"]
    for path in _unique_existing([*read_only_paths, *([cwd] if cwd else [])]):
        flags += ["--ro-bind", path, path]
    if argv and os.path.isabs(argv[0]):
        path_dirs.insert(0, str(Path(argv[0]).parent))
    flags += ["--setenv", "PATH", ":".join(path_dirs)]
    # Without a project folder, start in the throwaway tmpfs rather than an unbound path.
    flags += ["--chdir", cwd or "/tmp"]
    return [*flags, "--", *argv]


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
            [bwrap, *base_flags(), "--setenv", "PATH", "/usr/bin:/bin", "--", "true"],
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
            "it needs unprivileged user namespaces (a container may forbid them)",
            bwrap,
        )
    return SandboxProbe(True, "Lean runs under bubblewrap", bwrap)
