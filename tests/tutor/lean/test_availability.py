"""REPL detection, lean_status, the sandbox (bubblewrap) and production strictness."""

from __future__ import annotations

import json
import logging
import shlex
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.tutor.lean.conftest import FAKE_COMMAND, info_of
from tutor.lean import (
    LeanChecker,
    LeanUnavailable,
    get_checker,
    lean_status,
    reset_checker,
    sandbox,
)
from tutor.lean import checker as checker_module
from tutor.lean.detect import detect_repl, manifest_path

bwrap_probe = sandbox.probe(sandbox.find_bwrap())
needs_bwrap = pytest.mark.skipif(not bwrap_probe.usable, reason=bwrap_probe.reason)


def test_without_any_repl_checks_raise_with_what_to_do() -> None:
    checker = LeanChecker()
    assert not checker.available
    with pytest.raises(LeanUnavailable, match="make lean"):
        checker.check("theorem t : True := trivial")
    status = lean_status()
    assert not status.available and "make lean" in status.reason and status.repl_command is None


def test_lean_repl_cmd_is_split_like_a_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEAN_REPL_CMD", shlex.join(FAKE_COMMAND))
    detected = detect_repl()
    assert detected.command == FAKE_COMMAND and detected.source == "env"
    with LeanCheckerClosing(sandbox=False) as checker:
        assert checker.check("theorem t : True := by\n  trivial").valid


def test_a_missing_program_in_lean_repl_cmd_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEAN_REPL_CMD", "/nowhere/repl --flag")
    status = lean_status()
    assert not status.available and "/nowhere/repl is missing" in status.reason


def test_the_installer_manifest_is_found(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    manifest = manifest_path()
    manifest.parent.mkdir(parents=True)
    library = tmp_path / "src"
    library.mkdir()
    manifest.write_text(
        json.dumps(
            {
                "command": FAKE_COMMAND,
                "cwd": str(tmp_path),
                "library_src": str(library),
                "sandbox_paths": [str(tmp_path)],
                "toolchain": "leanprover/lean4:v4.19.0",
                "mathlib": False,
            }
        )
    )
    detected = detect_repl()
    assert detected.source == "installer" and detected.command == FAKE_COMMAND
    assert detected.cwd == str(tmp_path) and detected.library_src == str(library)
    assert lean_status().available


def test_a_broken_manifest_is_unavailable_not_a_crash() -> None:
    manifest = manifest_path()
    manifest.parent.mkdir(parents=True)
    manifest.write_text("{not json")
    assert "unreadable" in detect_repl().reason and not lean_status().available


def test_production_refuses_checks_without_a_usable_sandbox(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LEANCOACH_REQUIRE_SANDBOX", "1")
    monkeypatch.setenv("LEANCOACH_BWRAP", "none")
    sandbox.probe.cache_clear()
    checker = LeanChecker(list(FAKE_COMMAND))
    assert not checker.available
    with pytest.raises(LeanUnavailable, match="bubblewrap"):
        checker.check("theorem t : True := trivial")
    assert "bubblewrap" in checker.status().reason


def test_a_bad_boolean_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEANCOACH_REQUIRE_SANDBOX", "maybe")
    with pytest.raises(ValueError, match="LEANCOACH_REQUIRE_SANDBOX"):
        LeanChecker(list(FAKE_COMMAND))


def test_development_warns_loudly_once_when_unsandboxed(
    make_checker: Callable[..., LeanChecker],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setattr(checker_module, "_warned_unsandboxed", False)
    checker = make_checker(sandbox=False)
    with caplog.at_level(logging.WARNING, logger="tutor.lean.checker"):
        checker.check("theorem t : True := trivial")
        checker.check("theorem t : True := trivial")
    warnings = [r for r in caplog.records if "UNSANDBOXED" in r.getMessage()]
    assert len(warnings) == 1
    assert not checker.status().sandboxed and "NOT sandboxed" in checker.status().reason


def test_unsandboxed_processes_do_not_inherit_app_secrets(
    make_checker: Callable[..., LeanChecker], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "secret")
    result = make_checker(sandbox=False).check("-- fake: environ")
    assert "ANTHROPIC_API_KEY" not in json.loads(info_of(result, "{"))["env"]


@needs_bwrap
def test_sandboxed_lean_gets_namespaces_a_clear_env_and_read_only_files(
    make_checker: Callable[..., LeanChecker], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "secret")
    checker = make_checker(sandbox=None)
    assert checker.sandboxed and checker.status().sandboxed
    seen = json.loads(info_of(checker.check("-- fake: environ"), "{"))
    assert seen["pid"] <= 3  # a new pid namespace: bwrap's init is 1
    assert set(seen["env"]) <= {"HOME", "LANG", "PATH", "PWD"}
    assert seen["script_dir_writable"] is False and seen["cwd"] == "/tmp"
    assert checker.check("theorem t : True := by\n  trivial").valid


@needs_bwrap
def test_sandboxed_timeouts_kill_the_whole_sandbox(
    make_checker: Callable[..., LeanChecker],
) -> None:
    checker = make_checker(sandbox=True)
    assert checker.check("theorem t : True := by\n  trivial").valid
    [process] = checker.pool.idle_processes()
    tree = process.tree_pids()
    assert len(tree) >= 2  # bubblewrap and the REPL under it (plus bwrap's pid-1 helper)
    hung = checker.check("-- fake: hang", timeout_s=0.5)
    assert hung.timed_out
    assert _all_gone(tree)
    assert checker.check("theorem t : True := by\n  trivial").valid


@pytest.mark.skipif(
    bwrap_probe.usable, reason="bubblewrap works here; the failure path needs it broken"
)
def test_lean_status_says_why_bubblewrap_is_unusable(
    make_checker: Callable[..., LeanChecker],
) -> None:
    checker = make_checker(sandbox=None)
    assert not checker.sandboxed and bwrap_probe.reason in checker.status().reason


def test_a_bwrap_that_cannot_start_is_reported_unusable(tmp_path: Path) -> None:
    fake_bwrap = tmp_path / "bwrap"
    fake_bwrap.write_text(
        "#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n"
    )
    fake_bwrap.chmod(0o755)
    probe = sandbox.probe(str(fake_bwrap))
    assert (
        not probe.usable and "No permissions" in probe.reason and "user namespaces" in probe.reason
    )


def test_get_checker_is_one_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEAN_REPL_CMD", shlex.join(FAKE_COMMAND))
    reset_checker()
    try:
        assert get_checker() is get_checker()
    finally:
        reset_checker()


async def test_acheck_runs_in_a_thread(make_checker: Callable[..., LeanChecker]) -> None:
    checker = make_checker()
    result = await checker.acheck("theorem t : True := by\n  sorry")
    assert not result.valid and result.sorries
    proved = await checker.acheck_proof("theorem t : True := by", "  trivial")
    assert proved.valid


class LeanCheckerClosing:
    def __init__(self, **options: object) -> None:
        self.checker = LeanChecker(**options)  # type: ignore[arg-type]

    def __enter__(self) -> LeanChecker:
        return self.checker

    def __exit__(self, *exc: object) -> None:
        self.checker.close()


def _all_gone(pids: list[int], wait_s: float = 3.0) -> bool:
    """True once every pid has exited (a zombie awaiting its reaper counts as exited)."""
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if all(_state(pid) in (None, "Z") for pid in pids):
            return True
        time.sleep(0.05)
    return False


def _state(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None
