"""Where the Lean REPL is: env LEAN_REPL_CMD first, then what scripts/install_lean.sh built.

The installer writes a manifest, `<lean home>/repl.json`:

    {"command": ["/home/u/.elan/toolchains/.../bin/lake", "env", ".../repl"],
     "cwd": "<project the REPL runs in>", "library_src": "<Mathlib or Lean core sources>",
     "sandbox_paths": ["<folders the sandbox must show read-only>"],
     "toolchain": "leanprover/lean4:v4.32.0", "mathlib": false,
     "verifier_command": [".../leancoach-verify"],
     "verifier_env": {"LEAN_PATH": "<the project's>", "LEAN_SYSROOT": "<the toolchain>"}}

"verifier_command" is missing when the kernel verifier did not build ("verifier_error" says
why): the REPL still works, and no check can say "proved" (tutor/lean/kernel_check.py).

<lean home> is $LEANCOACH_LEAN_HOME, else $XDG_DATA_HOME/leancoach/lean, else
~/.local/share/leancoach/lean. Nothing here starts a Lean process.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

INSTALL_HINT = "run `make lean` (needs network access to GitHub) or set LEAN_REPL_CMD"


@dataclass(frozen=True)
class DetectedRepl:
    command: list[str] | None
    reason: str  # a sentence a user can act on
    source: str | None = None  # "env" | "installer" | None
    cwd: str | None = None
    library_src: str | None = None
    sandbox_paths: list[str] = field(default_factory=list)


def lean_home() -> Path:
    explicit = os.environ.get("LEANCOACH_LEAN_HOME")
    if explicit:
        return Path(explicit).expanduser()
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "leancoach" / "lean"


def manifest_path() -> Path:
    return lean_home() / "repl.json"


def detect_repl() -> DetectedRepl:
    from_env = os.environ.get("LEAN_REPL_CMD", "").strip()
    if from_env:
        return _from_env(from_env)
    manifest = manifest_path()
    if manifest.is_file():
        return _from_manifest(manifest)
    return DetectedRepl(None, f"No Lean REPL found: {INSTALL_HINT}.")


def _from_env(value: str) -> DetectedRepl:
    try:
        command = shlex.split(value)
    except ValueError as exc:
        return DetectedRepl(None, f"LEAN_REPL_CMD is not a valid shell command line ({exc}).")
    problem = _command_problem(command)
    if problem:
        return DetectedRepl(None, f"LEAN_REPL_CMD={value!r}: {problem}.")
    manifest = _read_manifest(manifest_path()) or {}
    return DetectedRepl(
        command,
        "Lean REPL from LEAN_REPL_CMD",
        source="env",
        cwd=os.environ.get("LEAN_REPL_CWD") or None,
        library_src=_str_or_none(manifest.get("library_src")),
        sandbox_paths=_sandbox_paths(os.environ.get("LEANCOACH_SANDBOX_PATHS", "")),
    )


def _from_manifest(path: Path) -> DetectedRepl:
    data = _read_manifest(path)
    if data is None:
        return DetectedRepl(
            None, f"The Lean install manifest {path} is unreadable: {INSTALL_HINT}."
        )
    command = data.get("command")
    if not isinstance(command, list) or not command or not all(isinstance(w, str) for w in command):
        return DetectedRepl(None, f'{path} has no usable "command": {INSTALL_HINT}.')
    problem = _command_problem(command)
    if problem:
        return DetectedRepl(None, f"The installed Lean REPL ({path}) {problem}: {INSTALL_HINT}.")
    raw_paths = data.get("sandbox_paths") or []
    return DetectedRepl(
        command,
        f"Lean REPL installed by `make lean` ({data.get('toolchain', 'unknown toolchain')})",
        source="installer",
        cwd=_str_or_none(data.get("cwd")),
        library_src=_str_or_none(data.get("library_src")),
        sandbox_paths=[p for p in raw_paths if isinstance(p, str)]
        + _sandbox_paths(os.environ.get("LEANCOACH_SANDBOX_PATHS", "")),
    )


def _read_manifest(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _command_problem(command: list[str]) -> str | None:
    program = command[0]
    if os.sep in program:
        if not os.access(program, os.X_OK):
            return f"{program} is missing or not executable"
    elif shutil.which(program) is None:
        return f"{program} is not on PATH"
    return None


def _sandbox_paths(value: str) -> list[str]:
    return [p for p in value.split(os.pathsep) if p]


def _str_or_none(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def library_src_root(detected: DetectedRepl | None = None) -> tuple[Path | None, str]:
    """The library sources rg_in_mathlib searches: (root, reason when there is none).

    LEANCOACH_LIBRARY_SRC wins; then the manifest's library_src (Mathlib's sources when the
    installer fetched Mathlib, else the toolchain's `src/lean`).
    """
    explicit = os.environ.get("LEANCOACH_LIBRARY_SRC")
    if explicit:
        root = Path(explicit).expanduser()
        if root.is_dir():
            return root, ""
        return None, f"LEANCOACH_LIBRARY_SRC={explicit} is not a folder."
    detected = detected or detect_repl()
    if detected.library_src and Path(detected.library_src).is_dir():
        return Path(detected.library_src), ""
    if detected.command is None:
        return None, f"No Lean library sources to search: no Lean is installed ({INSTALL_HINT})."
    core = _lean_core_src()
    if core is not None:
        return core, ""
    return None, (
        "No Lean library sources to search: set LEANCOACH_LIBRARY_SRC to the Mathlib or "
        "Lean core source folder."
    )


def _lean_core_src() -> Path | None:
    """Lean core's sources in the toolchain of the `lean` on PATH (`<prefix>/src/lean`)."""
    lean = shutil.which("lean")
    if lean is None:
        return None
    try:
        done = subprocess.run(
            [lean, "--print-prefix"], capture_output=True, text=True, timeout=20, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    src = Path(done.stdout.strip()) / "src" / "lean"
    return src if done.returncode == 0 and src.is_dir() else None
