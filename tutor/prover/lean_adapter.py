"""The prover's adapters onto tutor.lean (the only prover module that touches its
sessions and workspaces).

- `lean_tactic_backend(checker)`: the search's TacticBackend over one leased REPL (tactic
  mode); REPL failures become could-not-check outcomes, never verdicts.
- `lean_tools_factory(checker)`: the agent's tools (lean_write_file, lean_check_file,
  rg_in_mathlib) over one LeanWorkspace per attempt.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from tutor.lean import LeanChecker, ReplError, ReplSession
from tutor.lean.tools import LeanWorkspace
from tutor.prover.problem import Problem
from tutor.prover.search import StepOutcome, TacticBackend
from tutor.prover.tools import ToolEnvironment, ToolOutcome

_TRY_THIS = re.compile(r"Try this:\s*(.+)")


class ReplTacticBackend:
    """TacticBackend over a leased REPL session."""

    def __init__(self, session: ReplSession, timeout_s: float | None = None) -> None:
        self._session = session
        self._timeout_s = timeout_s

    def start(self, problem: Problem) -> StepOutcome:
        """The posed statement with `sorry` as its proof gives the root proof state."""
        try:
            opens = _non_import_lines(problem.header)
            code = f"{opens}{problem.statement_head} := by sorry"
            reply = self._session.command(code, timeout_s=self._timeout_s)
        except ReplError as exc:
            return StepOutcome(None, [], False, error=str(exc), could_not_check=True)
        if "env" not in reply:
            return StepOutcome(
                None, [], False, error=str(reply.get("message", reply)), could_not_check=True
            )
        errors = [m for m in reply.get("messages", []) if m.get("severity") == "error"]
        sorries = reply.get("sorries", [])
        if errors or not sorries:
            why = errors[0].get("data", "") if errors else "Lean reported no proof state"
            return StepOutcome(None, [], False, error=f"the statement does not elaborate: {why}")
        first = sorries[0]
        return StepOutcome(int(first["proofState"]), [str(first.get("goal", ""))], False)

    def apply(self, proof_state: int, tactic: str) -> StepOutcome:
        try:
            result = self._session.tactic(tactic, proof_state, timeout_s=self._timeout_s)
        except ReplError as exc:
            return StepOutcome(None, [], False, error=str(exc), could_not_check=True)
        if result.error is not None:
            return StepOutcome(None, [], False, error=result.error)
        errors = [m.message for m in result.messages if m.severity == "error"]
        status = result.status or ""
        if errors or status.startswith("Error"):
            return StepOutcome(None, [], False, error=errors[0] if errors else status)
        if "sorry" in status:
            return StepOutcome(None, [], False, error="the tactic used sorry")
        used = None
        for message in result.messages:
            found = _TRY_THIS.search(message.message)
            if found:  # exact? / apply? found a term: write that, not the search tactic
                used = found.group(1).strip()
                break
        return StepOutcome(
            proof_state=result.proof_state,
            goals=list(result.goals),
            completed=result.completed,
            used_tactic=used,
        )


def lean_tactic_backend(
    checker: LeanChecker, timeout_s: float | None = None
) -> Callable[[Problem], AbstractContextManager[TacticBackend]]:
    """A backend_factory for search(): one REPL lease (with the problem's header) per search."""

    @contextmanager
    def lease(problem: Problem) -> Iterator[TacticBackend]:
        with checker.session(_imports_only(problem.header)) as session:
            yield ReplTacticBackend(session, timeout_s)

    return lease


def _imports_only(header: str) -> str:
    """The pool keys processes by import lines; `open ...` lines belong to the body."""
    return "\n".join(line for line in header.splitlines() if line.strip().startswith("import "))


def _non_import_lines(header: str) -> str:
    """The header without its import lines, otherwise verbatim (blank lines between
    `open`s included), so it matches what a model copies from the prompt."""
    kept = [line for line in header.split("\n") if not line.strip().startswith("import ")]
    return "\n".join(kept).lstrip("\n")


class WorkspaceTools:
    """ToolEnvironment over tutor.lean's LeanWorkspace (one folder per trajectory)."""

    def __init__(self, workspace: LeanWorkspace) -> None:
        self.workspace = workspace
        self._written: dict[str, str] = {}  # file name -> code, to name what a check is about

    def call(self, name: str, arguments: dict[str, Any]) -> ToolOutcome:
        try:
            if name == "lean_write_file":
                code, file_name = _str_arg(arguments, "code"), _str_arg(arguments, "file_name")
                report = self.workspace.lean_write_file(code, file_name)
                if report.get("ok"):
                    self._written[str(report.get("path", file_name))] = code
                return _lean_outcome(report, code if report.get("ok") else None)
            if name == "lean_check_file":
                path = _str_arg(arguments, "path")
                report = self.workspace.lean_check_file(
                    path, return_lemmas=bool(arguments.get("return_lemmas", False))
                )
                return _lean_outcome(report, self._written.get(str(report.get("path", path))))
            if name == "rg_in_mathlib":
                glob = arguments.get("glob")
                text = self.workspace.rg_in_mathlib(
                    _str_arg(arguments, "pattern"), str(glob) if glob else None
                )
                return ToolOutcome(text=text)
        except _BadArguments as exc:
            return ToolOutcome(text=json.dumps({"ok": False, "error": str(exc)}))
        return ToolOutcome(text=json.dumps({"ok": False, "error": f"unknown tool {name!r}"}))

    def close(self) -> None:
        self.workspace.cleanup()


class _BadArguments(ValueError):
    pass


def _str_arg(arguments: dict[str, Any], key: str) -> str:
    value = arguments.get(key)
    if not isinstance(value, str):
        raise _BadArguments(f"argument {key!r} is required and must be a string")
    return value


def _lean_outcome(report: dict[str, Any], code: str | None) -> ToolOutcome:
    if not report.get("ok", True):
        return ToolOutcome(text=json.dumps(report, ensure_ascii=False))
    could_not_check = bool(report.get("timed_out") or report.get("crashed") or report.get("error"))
    return ToolOutcome(
        text=json.dumps(report, ensure_ascii=False),
        valid=bool(report.get("valid")),
        could_not_check=could_not_check and not report.get("valid"),
        code=code,
        details=report,
    )


def posed_statement(problem: Problem) -> str:
    """What the workspace compares files against: the header's non-import lines (opens)
    and the statement ending in `:= by`, as the prompt shows them."""
    return f"{_non_import_lines(problem.header)}{problem.statement_head} := by"


def lean_tools_factory(
    checker: LeanChecker, library_src: str | None = None
) -> Callable[[Problem, int], ToolEnvironment]:
    """A tools_factory for rollout(): a fresh temporary workspace per attempt (removed
    when the attempt ends), checked against the posed statement."""

    def make(problem: Problem, attempt: int) -> ToolEnvironment:
        workspace = LeanWorkspace(
            checker=checker, statement=posed_statement(problem), library_src=library_src
        )
        return WorkspaceTools(workspace)

    return make
