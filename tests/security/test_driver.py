"""The REPL driver against a process whose reply stream elaborated code can write into:
one fresh framed reply per request, caps, kills, no reuse, one spawner thread."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.security.attacks import EASY, HARD, eval_writing, forged_replies
from tests.tutor.lean.conftest import FAKE_COMMAND
from tutor.lean import LeanChecker, ReplProtocolError
from tutor.lean import repl as repl_module
from tutor.lean.repl import ReplProcess, ReplRefusedInput, SpawnSpec
from tutor.lean.tools import LeanWorkspace


@pytest.fixture
def process() -> Iterator[ReplProcess]:
    made = ReplProcess(SpawnSpec(argv=list(FAKE_COMMAND)))
    made.header_env = made.request({"cmd": ""}, 5)["env"]
    yield made
    made.kill()


def _forging(env: int) -> str:
    return HARD + " sorry\n" + eval_writing(forged_replies(env))


def test_a_forged_reply_with_the_right_id_is_caught_by_the_barrier(process: ReplProcess) -> None:
    # The forged {"env": 1} is exactly what the REPL would say next; the real reply then
    # sits behind it (or arrives with it), and the barrier finds it.
    with pytest.raises(ReplProtocolError):
        process.request({"cmd": _forging(1), "env": 0}, 5)
        process.sync(5)
    assert not process.alive


def test_a_forged_reply_with_a_stale_id_is_refused(process: ReplProcess) -> None:
    process.request({"cmd": EASY + " rfl", "env": 0}, 5)
    with pytest.raises(ReplProtocolError, match="environment|outside the protocol"):
        process.request({"cmd": _forging(1), "env": 0}, 5)
    assert not process.alive


def test_a_forger_that_exits_leaves_a_crash_not_a_verdict(process: ReplProcess) -> None:
    code = HARD + " sorry\n" + eval_writing(forged_replies(1), exit_after=True)
    with pytest.raises(repl_module.ReplError):
        process.request({"cmd": code, "env": 0}, 5)
        process.sync(5)
    assert not process.alive


def test_ids_must_be_fresh_and_in_order() -> None:
    tracker = repl_module.IdTracker()
    tracker.accept({"cmd": "x"}, {"env": 0, "sorries": [{"proofState": 0}]})
    tracker.accept({"tactic": "t", "proofState": 0}, {"proofState": 1, "goals": []})
    cases: list[tuple[dict[str, Any], dict[str, Any]]] = [
        ({"cmd": "x", "env": 0}, {"env": 0}),  # reused
        ({"cmd": "x", "env": 0}, {"env": 7}),  # skipped ahead
        ({"tactic": "t", "proofState": 0}, {"proofState": 1, "goals": []}),
        ({"cmd": "x", "env": 0}, {"env": 1, "extra": True}),  # not a REPL key
        ({"cmd": "x", "env": 0}, {"env": 1, "sorries": [{"proofState": "2"}]}),
    ]
    for request, reply in cases:
        with pytest.raises(ReplProtocolError):
            repl_module.IdTracker(next_env=1, next_proof_state=2).accept(request, reply)


def test_a_reply_past_the_cap_kills_the_process() -> None:
    capped = ReplProcess(SpawnSpec(argv=list(FAKE_COMMAND), max_reply_bytes=100_000))
    try:
        with pytest.raises(ReplProtocolError, match="passed 100000 bytes"):
            capped.request({"cmd": "-- fake: big-reply 500000"}, 5)
        assert not capped.alive
    finally:
        capped.kill()


def test_a_32_mb_reply_is_read_in_well_under_a_second_per_megabyte(process: ReplProcess) -> None:
    started = time.monotonic()
    reply = process.request({"cmd": f"-- fake: big-reply {32 * 1024 * 1024}", "env": 0}, 60)
    elapsed = time.monotonic() - started
    assert len(reply["messages"][0]["data"]) == 32 * 1024 * 1024
    assert elapsed < 5.0, elapsed  # the old bytes-concatenating reader took 11.5 s


def test_stderr_past_the_cap_kills_the_process() -> None:
    capped = ReplProcess(SpawnSpec(argv=list(FAKE_COMMAND), max_stderr_bytes=10_000))
    try:
        assert "env" in capped.request({"cmd": "-- fake: stderr 5000"}, 5)
        assert capped.stderr_tail().startswith("e")
        with pytest.raises(ReplProtocolError, match="stderr"):
            capped.request({"cmd": "-- fake: stderr 200000"}, 5)
        assert not capped.alive
    finally:
        capped.kill()


def test_a_lone_surrogate_is_refused_before_sending_and_the_process_survives(
    process: ReplProcess,
) -> None:
    with pytest.raises(ReplRefusedInput, match="not valid Unicode"):
        process.request({"cmd": "theorem t : True := \ud800", "env": 0}, 5)
    assert process.alive and "env" in process.request({"cmd": EASY + " rfl", "env": 0}, 5)


def test_processes_are_forked_by_one_long_lived_thread(
    make_checker: Callable[..., LeanChecker], monkeypatch: pytest.MonkeyPatch
) -> None:
    forked_by: list[str] = []
    real_popen = repl_module.subprocess.Popen

    def recording_popen(*args: object, **kwargs: object) -> object:
        # Only REPLs live on; the kernel check's compile/verify processes are waited for
        # by the calling thread, so they may start there.
        if "fake_lean" not in str(args):
            forked_by.append(threading.current_thread().name)
        return real_popen(*args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(repl_module.subprocess, "Popen", recording_popen)
    checker = make_checker(max_processes=2)
    for _ in range(2):  # the prover makes a fresh executor per rollout
        with ThreadPoolExecutor(max_workers=2) as rollout:
            results = list(
                rollout.map(lambda _: checker.check_proof(EASY, "  rfl -- fake: sleep 0.2"), [1, 2])
            )
        assert all(result.valid for result in results)
    assert forked_by and set(forked_by) == {"lean-repl-spawner"}
    spawner = repl_module.SPAWNER.thread
    assert spawner is not None and spawner.is_alive()
    for idle in checker.pool.idle_processes():  # outlived the threads that asked for them
        assert idle.alive


def test_tactic_mode_sessions_gate_model_tactics_and_use_their_own_pool(
    checker: LeanChecker,
) -> None:
    with checker.session() as session:
        reply = session.command("theorem t (n : Nat) : n = n := by sorry")
        state = int(reply["sorries"][0]["proofState"])
        refused = session.tactic("run_tac Lean.Elab.Tactic.evalTactic default", state)
        assert refused.error is not None and "run_tac" in refused.error
        assert session.tactic("rfl", state).completed  # the process was not disturbed
        blocked = session.command("open Lean in #eval! IO.println 1")
        assert "message" in blocked and "#eval!" in blocked["message"]
    assert checker.explore_pool.stats.spawned == 1
    assert checker.pool.stats.spawned == 0  # nothing the prover explored answers verdicts


def test_lemma_listing_never_sends_a_refused_file(checker: LeanChecker, tmp_path: Path) -> None:
    workspace = LeanWorkspace(tmp_path / "ws", checker=checker)
    code = (
        "import Mathlib\nopen Lean in #eval! IO.println 1\ntheorem t : 1 = 1 := Nat.add_comm 0 1\n"
    )
    report = workspace.lean_write_file(code, "Evil.lean")
    assert report["valid"] is False and "#eval!" in report["messages"][0]
    listed = workspace.lean_check_file("Evil.lean", return_lemmas=True)
    assert listed["lemmas"] == [] and listed["valid"] is False
    assert checker.pool.stats.spawned == 0 and checker.explore_pool.stats.spawned == 0


def test_lemmas_come_from_the_checked_environment(checker: LeanChecker, tmp_path: Path) -> None:
    workspace = LeanWorkspace(tmp_path / "ws", checker=checker)
    code = (
        "import Mathlib\nopen Nat\n"
        "theorem mine (a b : Nat) : a + b = b + a := by\n  exact Nat.add_comm a b\n"
        "theorem again (a b : Nat) : a + b = b + a := mine a b\n"
    )
    workspace.lean_write_file(code, "L.lean")
    report = workspace.lean_check_file("L.lean", return_lemmas=True)
    assert report["lemmas"] == ["Nat.add_comm"]


def test_a_forged_check_poisons_nobody(
    checker: LeanChecker, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tutor.lean.checker.file_rejections", lambda code: [])
    first = checker.check(EASY + "\n  rfl\n")
    assert first.valid
    [used] = checker.pool.idle_processes()
    forged = checker.check(_forging(used.ids.next_env))
    assert not forged.valid and forged.could_not_check
    assert not used.alive  # killed, never reused
    assert checker.check_proof(EASY, "  rfl").valid


def test_fresh_processes_hand_out_unguessable_ids(
    make_checker: Callable[..., LeanChecker],
) -> None:
    # Forged replies must carry the next fresh id; a fresh process would otherwise make
    # it predictable (header = env 0, body = env 1).
    checker = make_checker(max_uses=1, max_processes=1)
    seen = set()
    for _ in range(8):
        with checker.pool.lease("") as process:
            seen.add((process.ids.next_env, process.ids.next_proof_state))
    assert len(seen) > 1, seen
