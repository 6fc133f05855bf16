"""Why a REPL died reaches the student's error, whichever stream the kernel reports first.

A REPL that crashes closes stdout and writes its last words to stderr; select can list
the two in either order. CI once lost the stderr line when stdout's end came first."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import pytest

from tutor.lean import LeanChecker
from tutor.lean.repl import ReplCrashed, ReplProcess, SpawnSpec

# Reads one request, closes stdout, and only then says why on stderr: the order that
# makes stdout's end of file the first ready stream.
_DIES_STDOUT_FIRST = r"""
import os, sys, time
sys.stdin.readline()
os.close(1)
time.sleep(0.2)
sys.stderr.write("INTERNAL PANIC: out of memory\n")
sys.stderr.flush()
os._exit(1)
"""

_DIES_STDERR_FIRST = r"""
import os, sys
sys.stdin.readline()
sys.stderr.write("INTERNAL PANIC: out of memory\n")
sys.stderr.flush()
os._exit(1)
"""


@pytest.mark.parametrize("script", [_DIES_STDOUT_FIRST, _DIES_STDERR_FIRST])
def test_the_last_stderr_line_is_in_the_crash_message(script: str) -> None:
    process = ReplProcess(SpawnSpec(argv=[sys.executable, "-c", script]))
    try:
        with pytest.raises(ReplCrashed) as raised:
            process.request({"cmd": "theorem t : True := trivial"}, 5)
    finally:
        process.kill()
    message = str(raised.value)
    assert "exited with code 1" in message, message
    assert "INTERNAL PANIC: out of memory" in message, message


def test_a_grandchild_holding_stderr_open_does_not_stall_the_report() -> None:
    # The REPL exits but something it started keeps stderr open (lake, a sandbox helper):
    # the report waits a moment for last words, not until that process ends.
    script = r"""
import os, subprocess, sys
sys.stdin.readline()
subprocess.Popen(
    [sys.executable, "-c", "import time; time.sleep(30)"],
    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=sys.stderr,
)
os._exit(4)
"""
    process = ReplProcess(SpawnSpec(argv=[sys.executable, "-c", script]))
    try:
        started = time.monotonic()
        with pytest.raises(ReplCrashed, match="exited with code 4"):
            process.request({"cmd": "theorem t : True := trivial"}, 5)
        assert time.monotonic() - started < 3.0
    finally:
        process.kill()


def test_a_crash_while_collecting_all_tactics_falls_back_to_a_check_without(
    make_checker: Callable[..., LeanChecker],
) -> None:
    # leanprover-community/repl#42: `allTactics` can crash the REPL on Mathlib. The verdict
    # must not become "could not check" for it: the check runs again without the goal view.
    checker = make_checker()
    result = checker.check_proof(
        "theorem t (n : Nat) : n + 0 = n := by", "  simp\n  -- fake: crash-with-all-tactics"
    )
    assert result.valid and not result.could_not_check, result
    assert result.tactics == []
    assert checker.pool.stats.spawned == 2  # the crashed process was replaced
