"""The prover's agent tools (the paper's lean_write_file / lean_check_file / rg_in_mathlib)
over one workspace folder per trajectory.

Every tool returns plain JSON-able values to feed back to the model; failures come back
as {"ok": False, "error": "..."} instead of exceptions, because a model's bad call is
normal input. Workspace escapes are refused: names must be relative, without `..`, and
no component (folder or file) may be a symlink; files are opened component by component
relative to the workspace folder with O_NOFOLLOW, so a symlink planted between the check
and the open is refused too.

Lemmas (`return_lemmas=True`): the identifiers written in the file's proof text that
resolve to a constant in the environment the file itself produced (`#check @name` run
with `env` = the checked file's environment, so its own `open`s apply and nothing of the
file is re-sent), minus the names the file declares. The file must pass the file gate
first; a refused file never reaches a REPL. This runs in the checker's exploration pool,
never the verdict pool. Not covered: lemmas that automation (simp, linarith, omega,
aesop) uses internally without them being written.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path, PurePosixPath
from typing import Any

from tutor.lean.checker import LeanChecker, split_header
from tutor.lean.detect import library_src_root
from tutor.lean.repl import ReplError
from tutor.lean.types import CheckResult, LeanUnavailable
from tutor.lean.verdict import (
    LexError,
    UnknownDeclarations,
    blank_comments_and_strings,
    declared_names,
    file_rejections,
)

RG_MAX_LINES = 5
_MAX_FILE_BYTES = 1_000_000
_MAX_LEMMA_CANDIDATES = 200
_IDENT = re.compile(r"(?<![\w.'])[A-Za-z_][\w']*(?:\.[A-Za-z_][\w']*)*")
_NOT_LEMMAS = frozenset(
    [
        "by",
        "at",
        "with",
        "fun",
        "from",
        "have",
        "show",
        "let",
        "in",
        "if",
        "then",
        "else",
        "match",
        "do",
        "return",
        "this",
        "theorem",
        "lemma",
        "def",
        "example",
        "import",
        "open",
        "namespace",
        "end",
        "section",
        "where",
        "calc",
        "exact",
        "apply",
        "intro",
        "intros",
        "rw",
        "rwa",
        "simp",
        "simp_all",
        "linarith",
        "nlinarith",
        "omega",
        "norm_num",
        "ring",
        "ring_nf",
        "field_simp",
        "positivity",
        "decide",
        "aesop",
        "constructor",
        "cases",
        "rcases",
        "obtain",
        "induction",
        "use",
        "refine",
        "assumption",
        "contradiction",
        "exfalso",
        "left",
        "right",
        "specialize",
        "unfold",
        "split",
        "by_contra",
        "push_neg",
        "sorry",
        "rfl",
        "trivial",
        "tauto",
        "gcongr",
        "calc_tac",
        "Type",
        "Prop",
        "Sort",
    ]
)


class WorkspaceError(ValueError):
    """A file name that would leave the workspace or is otherwise unusable."""


class LeanWorkspace:
    """One trajectory's folder of Lean files plus the tools a model may call on it."""

    def __init__(
        self,
        root: str | Path | None = None,
        *,
        checker: LeanChecker | None = None,
        statement: str | None = None,
        library_src: str | Path | None = None,
    ) -> None:
        self.root = Path(os.path.realpath(root or tempfile.mkdtemp(prefix="leancoach-ws-")))
        self.root.mkdir(parents=True, exist_ok=True)
        self._checker = checker
        # When set, a file is judged as a proof of this posed statement (check_proof):
        # the file must state it verbatim right after its imports.
        self.statement = statement
        self._library_src = Path(library_src) if library_src else None

    @property
    def checker(self) -> LeanChecker:
        if self._checker is None:
            from tutor.lean.checker import get_checker

            self._checker = get_checker()
        return self._checker

    # -- the tools --------------------------------------------------------------------

    def lean_write_file(self, code: str, file_name: str) -> dict[str, Any]:
        """Write code to file_name inside the workspace, then compile it."""
        try:
            parts = _safe_parts(file_name)
            data = code.encode("utf-8")
            if len(data) > _MAX_FILE_BYTES:
                raise WorkspaceError(f"file is larger than {_MAX_FILE_BYTES} bytes")
            self._write(parts, data)
        except (WorkspaceError, OSError) as exc:
            return {"ok": False, "path": file_name, "error": _os_error_text(exc)}
        return {"ok": True, "path": "/".join(parts), "bytes": len(data), **self._check_text(code)}

    def lean_check_file(self, path: str, return_lemmas: bool = False) -> dict[str, Any]:
        """Compile a workspace file: messages, validity and (optionally) library lemmas used."""
        try:
            parts = _safe_parts(path)
            code = self._read(parts).decode("utf-8")
        except (WorkspaceError, OSError, UnicodeDecodeError) as exc:
            return {"ok": False, "path": path, "error": _os_error_text(exc)}
        report = {"ok": True, "path": "/".join(parts), **self._check_text(code)}
        if return_lemmas and report.get("error") is None:
            report["lemmas"] = self._lemmas(code)
        return report

    def rg_in_mathlib(self, pattern: str, glob: str | None = None) -> str:
        """ripgrep over the installed library sources; at most RG_MAX_LINES lines."""
        root, why = (self._library_src, "") if self._library_src else library_src_root()
        if root is None or not root.is_dir():
            return why or f"No library sources at {root}."
        rg = find_rg()
        if rg is None:
            return (
                "ripgrep (rg) is not installed: `pip install ripgrep` or `apt-get install ripgrep`."
            )
        argv = [rg, "--line-number", "--no-heading", "--color=never", "--max-columns=300"]
        # rg ORs several --glob options, so a caller's glob replaces the *.lean default.
        argv += ["--sort=path", f"--glob={glob or '*.lean'}"]
        argv += ["--regexp", pattern, "."]
        try:
            done = subprocess.run(argv, cwd=root, capture_output=True, timeout=30, check=False)
        except subprocess.TimeoutExpired:
            return "rg took longer than 30 s; use a more specific pattern or a glob."
        if done.returncode == 1:
            return f"No matches for {pattern!r}."
        if done.returncode != 0:
            return "rg error: " + done.stderr.decode("utf-8", "replace").strip()[:500]
        lines = done.stdout.decode("utf-8", "replace").splitlines()
        shown = [line.removeprefix("./") for line in lines[:RG_MAX_LINES]]
        if len(lines) > RG_MAX_LINES:
            shown.append(f"... {len(lines) - RG_MAX_LINES} more matching lines not shown")
        return "\n".join(shown)

    # -- internals --------------------------------------------------------------------

    def _check_text(self, code: str) -> dict[str, Any]:
        try:
            if self.statement is not None:
                return _summary(*self._check_against_statement(code))
            return _summary(self.checker.check(code), 0)
        except LeanUnavailable as exc:
            return {"valid": False, "error": f"Lean is unavailable: {exc}", "messages": []}

    def _check_against_statement(self, code: str) -> tuple[CheckResult, int]:
        assert self.statement is not None
        statement = self.statement.strip()
        split = split_header(code)
        start = code.find(statement, _line_start(code, split.body_offset))
        before = code[_line_start(code, split.body_offset) : max(start, 0)]
        if start < 0 or before.strip():
            return CheckResult(valid=False), -1
        proof = code[start + len(statement) :]
        proof = proof[1:] if proof.startswith("\n") else proof
        result = self.checker.check_proof(statement, proof, split.header)
        # check_proof positions lines in proof_document(statement, proof, header), where the
        # statement starts right after the header; in the file it may start further down.
        doc_start = len(split.header.split("\n")) + 1 if split.header else 1
        file_start = code.count("\n", 0, start) + 1
        return result, file_start - doc_start

    def _lemmas(self, code: str) -> list[str]:
        if file_rejections(code):
            return []
        split = split_header(code)
        try:
            own = declared_names(split.body)
            body = blank_comments_and_strings(split.body)
        except (UnknownDeclarations, LexError):
            return []
        own_names = set(own) | {name.rsplit(".", 1)[-1] for name in own}
        candidates: list[str] = []
        for match in _IDENT.finditer(body):
            word = match.group(0)
            if word not in _NOT_LEMMAS and word not in own_names and word not in candidates:
                candidates.append(word)
        candidates = candidates[:_MAX_LEMMA_CANDIDATES]
        if not candidates:
            return []
        try:
            with self.checker.session(split.header) as session:
                checked = session.command(split.body)
                if "env" not in checked:
                    return []
                command = "\n".join(f"#check @{name}" for name in candidates)
                reply = session.command(command, env=int(checked["env"]))
        except (ReplError, LeanUnavailable):
            return []
        found: list[str] = []
        for message in reply.get("messages", []):
            index = int((message.get("pos") or {}).get("line", 0)) - 1
            if message.get("severity") == "info" and 0 <= index < len(candidates):
                found.append(candidates[index])
        return found

    def _write(self, parts: list[str], data: bytes) -> None:
        folder = self._open_folder(parts[:-1], create=True)
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW
            fd = os.open(parts[-1], flags, 0o644, dir_fd=folder)
            try:
                os.write(fd, data)
            finally:
                os.close(fd)
        finally:
            os.close(folder)

    def _read(self, parts: list[str]) -> bytes:
        folder = self._open_folder(parts[:-1], create=False)
        try:
            fd = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW, dir_fd=folder)
            try:
                with os.fdopen(fd, "rb", closefd=False) as handle:
                    return handle.read(_MAX_FILE_BYTES + 1)[:_MAX_FILE_BYTES]
            finally:
                os.close(fd)
        finally:
            os.close(folder)

    def _open_folder(self, folders: list[str], *, create: bool) -> int:
        """An fd for root/folders..., walking with O_NOFOLLOW so no symlink is crossed."""
        fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY)
        try:
            for name in folders:
                if create:
                    with contextlib.suppress(FileExistsError):
                        os.mkdir(name, 0o755, dir_fd=fd)
                next_fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
                os.close(fd)
                fd = next_fd
        except BaseException:
            os.close(fd)
            raise
        return fd

    def cleanup(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def _safe_parts(name: str) -> list[str]:
    """The path's components, or WorkspaceError if it could leave the workspace."""
    if not name or "\x00" in name:
        raise WorkspaceError("file name is empty or contains a NUL byte")
    if "\\" in name:
        raise WorkspaceError("use '/' to separate folders in file names")
    path = PurePosixPath(name)
    if path.is_absolute() or name.startswith("~"):
        raise WorkspaceError(f"{name!r} is absolute; give a path relative to the workspace")
    parts = [p for p in path.parts if p != "."]
    if any(p == ".." for p in parts):
        raise WorkspaceError(f"{name!r} contains '..'; paths must stay inside the workspace")
    if not parts or not parts[-1].endswith(".lean"):
        raise WorkspaceError(f"{name!r} is not a .lean file")
    return parts


def _os_error_text(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.errno in (getattr(os, "ELOOP", 40), 20):
        return "a component of that path is a symlink or not a folder; symlinks are not followed"
    if isinstance(exc, FileNotFoundError):
        return "no such file in the workspace"
    return str(exc)


def _line_start(code: str, line_index: int) -> int:
    """Character offset where 0-based line line_index starts."""
    offset = 0
    for _ in range(line_index):
        next_newline = code.find("\n", offset)
        if next_newline < 0:
            return len(code)
        offset = next_newline + 1
    return offset


def _summary(result: CheckResult, line_delta: int) -> dict[str, Any]:
    """A CheckResult as short text lines a model can read."""
    if line_delta < 0:
        return {
            "valid": False,
            "error": None,
            "messages": [
                "the file must begin (after its imports) with the posed statement, unchanged"
            ],
        }
    messages = [
        f"{d.line + line_delta}:{d.column} {d.severity}: {d.message}" for d in result.diagnostics
    ]
    return {
        "valid": result.valid,
        "messages": messages,
        "sorries": [
            {"line": s.line + line_delta, "column": s.column, "goal": s.goal}
            for s in result.sorries
        ],
        "axioms": result.axioms,
        "timed_out": result.timed_out,
        "crashed": result.crashed,
        "error": result.error,
    }


def find_rg() -> str | None:
    """ripgrep: the pip package's binary next to this interpreter, else rg on PATH."""
    beside = Path(sys.executable).parent / "rg"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("rg")
