"""The REPL pool against a real subprocess: reuse, header shift, recycling, timeouts,
crashes, garbage, the memory cap and backpressure."""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable

import pytest

from tests.tutor.lean.conftest import stats_of
from tutor.lean import CheckResult, LeanChecker, LeanUnavailable

HEADER = "import Mathlib\nimport Aesop\n"
PROVED = "theorem t (n : Nat) : n + 0 = n := by\n  simp\n"


def _pid_is_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_it_reuses_one_process_and_runs_the_header_once(checker: LeanChecker) -> None:
    first = checker.check(HEADER + PROVED + "-- fake: stats")
    second = checker.check(HEADER + PROVED + "-- fake: stats")
    assert first.valid and second.valid
    assert stats_of(first)["pid"] == stats_of(second)["pid"]
    assert stats_of(second)["imports"] == 2  # two import lines, imported once in total
    assert checker.pool.stats.spawned == 1
    assert checker.pool.stats.reused == 1


def test_it_keeps_separate_processes_per_header(checker: LeanChecker) -> None:
    with_mathlib = checker.check("import Mathlib\n" + PROVED + "-- fake: stats")
    core_only = checker.check(PROVED + "-- fake: stats")
    assert stats_of(with_mathlib)["pid"] != stats_of(core_only)["pid"]
    assert stats_of(core_only)["imports"] == 0


def test_it_shifts_lines_back_past_the_header(checker: LeanChecker) -> None:
    code = (
        "-- a comment before the imports\nimport Mathlib\n\nimport Aesop\n"
        + PROVED
        + "  -- fake: error unsolved_goals\n"
    )
    result = checker.check(code)
    [error] = result.errors
    assert code.split("\n")[error.line - 1].strip() == "-- fake: error unsolved_goals"
    assert error.line == 7


def test_it_recycles_a_process_after_max_uses(make_checker: Callable[..., LeanChecker]) -> None:
    checker = make_checker(max_uses=2)
    pids = [stats_of(checker.check(PROVED + "-- fake: stats"))["pid"] for _ in range(3)]
    assert pids[0] == pids[1] != pids[2]
    assert checker.pool.stats.recycled == 1
    assert _pid_is_gone(pids[0])


def test_it_recycles_a_process_whose_memory_is_high(
    make_checker: Callable[..., LeanChecker],
) -> None:
    # A Python interpreter is resident with > 1 MB, so a 1 MB threshold always trips.
    checker = make_checker(memory_mb=None)
    checker.pool.limits = type(checker.pool.limits)(max_processes=2, recycle_rss_mb=1.0)
    first = stats_of(checker.check(PROVED + "-- fake: stats"))["pid"]
    second = stats_of(checker.check(PROVED + "-- fake: stats"))["pid"]
    assert first != second
    assert checker.pool.stats.recycled == 2


def test_a_hang_times_out_kills_the_process_and_the_next_check_works(checker: LeanChecker) -> None:
    pid = stats_of(checker.check(PROVED + "-- fake: stats"))["pid"]
    started = time.monotonic()
    hung = checker.check(PROVED + "-- fake: hang", timeout_s=0.5)
    assert hung.timed_out and not hung.valid and hung.could_not_check
    assert time.monotonic() - started < 3
    assert _pid_is_gone(pid)
    after = checker.check(PROVED + "-- fake: stats")
    assert after.valid and stats_of(after)["pid"] != pid


def test_a_crash_is_reported_with_stderr_and_the_pool_recovers(checker: LeanChecker) -> None:
    crashed = checker.check(PROVED + "-- fake: crash")
    assert crashed.crashed and not crashed.valid and not crashed.timed_out
    assert crashed.error is not None and "exited with code 3" in crashed.error
    assert "crashing on request" in crashed.error
    assert checker.check(PROVED).valid
    assert checker.pool.live_processes == 1


def test_garbage_output_is_a_protocol_error_not_a_verdict(checker: LeanChecker) -> None:
    garbage = checker.check(PROVED + "-- fake: garbage")
    assert garbage.crashed and not garbage.valid
    assert garbage.error is not None and "not JSON" in garbage.error
    assert checker.check(PROVED).valid


def test_the_address_space_cap_stops_a_growing_process(
    make_checker: Callable[..., LeanChecker],
) -> None:
    checker = make_checker(memory_mb=300)
    grown = checker.check("-- fake: grow-memory")
    assert grown.crashed, grown
    assert grown.error is not None and "out of memory" in grown.error
    assert checker.check(PROVED).valid


def test_without_a_cap_the_same_request_grows_unchecked(
    make_checker: Callable[..., LeanChecker], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The control for the test above: the crash comes from RLIMIT_AS, not from the fake.
    monkeypatch.setenv("FAKE_REPL_GROW_LIMIT_MB", "96")
    checker = make_checker(memory_mb=None)
    grown = checker.check("-- fake: grow-memory")
    assert not grown.crashed
    assert any("no limit stopped it" in d.message for d in grown.diagnostics)


def test_it_fails_clearly_when_every_process_stays_busy(
    make_checker: Callable[..., LeanChecker],
) -> None:
    checker = make_checker(max_processes=1, acquire_timeout_s=0.3)
    slow: list[CheckResult] = []
    worker = threading.Thread(
        target=lambda: slow.append(checker.check(PROVED + "-- fake: sleep 1.5"))
    )
    worker.start()
    time.sleep(0.3)  # let the slow check take the only process
    started = time.monotonic()
    rejected = checker.check(PROVED)
    waited = time.monotonic() - started
    worker.join()
    assert not rejected.valid and rejected.error is not None
    assert "busy" in rejected.error
    assert 0.25 <= waited < 1.2
    assert slow[0].valid
    assert checker.pool.stats.busy_rejections == 1


def test_a_waiting_check_gets_the_process_when_it_frees_up(
    make_checker: Callable[..., LeanChecker],
) -> None:
    checker = make_checker(max_processes=1, acquire_timeout_s=5)
    results: list[CheckResult] = []
    worker = threading.Thread(
        target=lambda: results.append(checker.check(PROVED + "-- fake: sleep 0.5"))
    )
    worker.start()
    time.sleep(0.2)
    assert checker.check(PROVED).valid
    worker.join()
    assert results[0].valid and checker.pool.stats.spawned == 1


def test_an_idle_process_with_another_header_is_evicted_rather_than_waiting(
    make_checker: Callable[..., LeanChecker],
) -> None:
    checker = make_checker(max_processes=1, acquire_timeout_s=0.1)
    old = stats_of(checker.check("import Mathlib\n" + PROVED + "-- fake: stats"))["pid"]
    assert checker.check(PROVED).valid
    assert checker.pool.stats.evicted == 1
    assert _pid_is_gone(old)


def test_close_kills_idle_processes(checker: LeanChecker) -> None:
    pid = stats_of(checker.check(PROVED + "-- fake: stats"))["pid"]
    checker.close()
    assert _pid_is_gone(pid)


def test_a_program_that_cannot_start_raises_unavailable_and_frees_its_slot() -> None:
    checker = LeanChecker(["/nonexistent/repl"], sandbox=False)
    with pytest.raises(LeanUnavailable, match="Could not start"):
        checker.check("theorem t : True := trivial")
    assert checker.pool.live_processes == 0


def test_a_repl_that_dies_at_start_is_a_crash_with_its_exit_code() -> None:
    command = [sys.executable, "-c", "import sys; sys.stderr.write('no toolchain'); sys.exit(5)"]
    checker = LeanChecker(command, sandbox=False, max_processes=1)
    try:
        result = checker.check("theorem t : True := trivial")
        assert result.crashed and result.error is not None
        assert "exited with code 5" in result.error and "no toolchain" in result.error
        assert checker.pool.live_processes == 0
    finally:
        checker.close()


def test_a_repl_level_refusal_is_an_error_not_a_verdict(checker: LeanChecker) -> None:
    refused = checker.check('-- fake: reply {"message": "Unknown environment."}')
    assert not refused.valid and not refused.crashed and refused.could_not_check
    assert refused.error == "the REPL refused the check: Unknown environment."
    assert checker.check(PROVED).valid  # the process stays usable
    assert checker.pool.stats.spawned == 1


def test_a_prestarted_process_serves_the_first_check(checker: LeanChecker) -> None:
    """A worker starts its REPL (and the exercises' imports) before any student waits."""
    assert checker.prestart(HEADER + "set_option maxHeartbeats 400000\nopen Nat\n")
    assert checker.pool.stats.spawned == 1 and checker.pool.live_processes == 1
    assert not checker.prestart(HEADER)  # one is ready with these imports already
    first = checker.check(HEADER + PROVED + "-- fake: stats")
    assert first.valid
    assert stats_of(first)["imports"] == 2  # imported once, at the prestart
    assert checker.pool.stats.spawned == 1 and checker.pool.stats.reused == 1


def test_prestart_never_goes_past_the_pools_size(make_checker: Callable[..., LeanChecker]) -> None:
    checker = make_checker(max_processes=1)
    assert checker.prestart(HEADER)
    assert not checker.prestart("import Aesop\n")  # the only slot is taken
    assert checker.pool.live_processes == 1


def test_prestart_without_lean_starts_nothing_and_says_false() -> None:
    checker = LeanChecker(["/nonexistent/repl"], sandbox=False)
    assert not checker.prestart(HEADER)
    assert checker.pool.live_processes == 0 and checker.pool.stats.spawned == 0
    unavailable = LeanChecker(None, sandbox=False)
    if not unavailable.available:  # no REPL on this machine: not even a spawn is tried
        assert not unavailable.prestart(HEADER) and unavailable.pool.stats.spawned == 0


def test_a_header_that_fails_to_import_is_left_to_the_first_check(
    make_checker: Callable[..., LeanChecker], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_REPL_MISSING", "Mathlib")
    checker = make_checker()
    assert not checker.prestart(HEADER)
    assert checker.pool.live_processes == 0  # the slot was freed
    with pytest.raises(LeanUnavailable, match="Mathlib"):
        checker.check(HEADER + PROVED)
