"""Several MCTS workers on one tree: each with its own REPL (the double, as subprocesses),
sharing the tree in memory or through Redis. No node is expanded twice, and a worker that
dies in the middle of an expansion loses no node: its claim expires and another takes it."""

from __future__ import annotations

import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from tests.tutor.prover.doubles import ScriptedTacticPolicy
from tests.tutor.prover.search_trees import STATEMENT, synthetic_tree
from tutor.prover.lean_adapter import lean_tactic_backend
from tutor.prover.mcts import WorkerLog, mcts_search, run_worker
from tutor.prover.problem import Problem
from tutor.prover.search import SearchConfig, StepOutcome
from tutor.prover.tree import DEAD, DUPLICATE, MCTSConfig, MemoryTreeStore, RedisTreeStore

PROBLEM = Problem("t", STATEMENT)


@pytest.fixture(params=["memory", "redis"])
def make_store(request: pytest.FixtureRequest) -> Iterator[Any]:
    made: list[RedisTreeStore] = []

    def build(config: MCTSConfig) -> Any:
        if request.param == "memory":
            return MemoryTreeStore(config)
        url = request.getfixturevalue("redis_url")
        store = RedisTreeStore(url, f"test-{uuid.uuid4().hex}", config, ttl_s=120)
        made.append(store)
        return store

    yield build
    for store in made:
        store.delete()


class Slow:
    """A backend that takes a little time per tactic, as Lean does, and can die."""

    def __init__(self, inner: Any, die_after: int | None = None) -> None:
        self.inner, self.die_after, self.calls = inner, die_after, 0

    def start(self, problem: Problem) -> StepOutcome:
        return self.inner.start(problem)

    def apply(self, proof_state: int, tactic: str) -> StepOutcome:
        self.calls += 1
        if self.die_after is not None and self.calls > self.die_after:
            raise RuntimeError("worker killed")  # the thread ends here, claim held
        time.sleep(0.003)
        return self.inner.apply(proof_state, tactic)


def run_two(store: Any, checker: Any, script: Any, config: SearchConfig,
            die_after: int | None = None) -> list[WorkerLog]:  # fmt: skip
    logs = [WorkerLog("first"), WorkerLog("second")]
    lease = lean_tactic_backend(checker)
    started = time.monotonic()

    def work(log: WorkerLog, dies: int | None) -> None:
        policy = ScriptedTacticPolicy(script)
        with lease(PROBLEM) as backend:
            try:
                run_worker(log, store, policy, PROBLEM, Slow(backend, dies), checker, config,
                           started)  # fmt: skip
            except RuntimeError:
                log.last_check = "died"

    threads = [
        threading.Thread(target=work, args=(logs[0], die_after)),
        threading.Thread(target=work, args=(logs[1], None)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return logs


def test_two_workers_expand_one_tree_without_duplicated_work(
    make_store: Any, make_checker: Any
) -> None:
    table, script = synthetic_tree(depth=3, branching=3, solution=None)
    config = SearchConfig(algorithm="mcts", portfolio=(), max_iterations=100,
                          mcts=MCTSConfig(poll_s=0.01))  # fmt: skip
    store = make_store(config.mcts)
    logs = run_two(store, make_checker(tactics=table, max_processes=2), script, config)
    state = store.read()
    assert state.outcome is not None and state.outcome["reason"] == "exhausted"
    assert len(state.nodes) == 1 + 3 + 9 + 27  # every state of the tree, once
    assert all(node.status == DEAD for node in state.nodes.values())
    first, second = (set(log.expanded) for log in logs)
    assert first and second and not first & second  # both worked, never on the same node
    assert first | second == set(state.nodes)
    tried = Counter(pair for log in logs for pair in log.applied)
    assert max(tried.values()) == 1  # no tactic tried twice on one state
    assert state.discarded == 0 and state.expansions == 40


def test_no_node_is_lost_when_a_worker_dies(make_store: Any, make_checker: Any) -> None:
    table, script = synthetic_tree(depth=3, branching=3, solution=None)
    # A short lease so the test does not wait a minute for the dead worker's claim, yet long
    # enough that a live worker's expansion on a loaded machine (2 busy cores under CI) never
    # outlasts it: at 0.3 s the first worker lost its claim before it could die.
    config = SearchConfig(algorithm="mcts", portfolio=(), max_iterations=100,
                          mcts=MCTSConfig(poll_s=0.01, claim_lease_s=2.0))  # fmt: skip
    store = make_store(config.mcts)
    logs = run_two(store, make_checker(tactics=table, max_processes=2), script, config,
                   die_after=5)  # fmt: skip
    dead, alive = logs
    assert dead.last_check == "died"
    abandoned = set(dead.claimed) - set(dead.expanded)
    assert len(abandoned) == 1  # it died holding one claim, in the middle of its work
    state = store.read()
    assert state.outcome is not None and state.outcome["reason"] == "exhausted"
    assert len(state.nodes) == 40 and all(n.status == DEAD for n in state.nodes.values())
    [node] = abandoned
    assert state.nodes[node].expanded_by == alive.worker  # taken over after the lease
    assert not set(dead.expanded) & set(alive.expanded)


def test_parallel_mcts_finds_the_proof_and_stops_every_worker(make_checker: Any) -> None:
    table, script = synthetic_tree(depth=3, branching=3, solution="212")
    config = SearchConfig(algorithm="mcts", portfolio=(), workers=2, max_iterations=100)
    checker = make_checker(tactics=table, max_processes=2)
    events: list[Any] = []
    result = mcts_search(ScriptedTacticPolicy(script), PROBLEM, lean_tactic_backend(checker),
                         checker, config, on_event=events.append)  # fmt: skip
    assert result.stop_reason == "valid" and result.proof == "t2\nt1\nt2\nfinish"
    assert result.check is not None and result.check.valid
    final = events[-1]
    assert final.workers == 2 and final.outcome["reason"] == "found"
    assert {n["status"] for n in final.nodes} <= {DEAD, DUPLICATE, "open", "expanded", "solved"}


def test_two_workers_find_the_proof_on_a_redis_tree(make_checker: Any, redis_url: str) -> None:
    table, script = synthetic_tree(depth=2, branching=3, solution="21")
    config = SearchConfig(algorithm="mcts", portfolio=(), workers=2, max_iterations=50,
                          tree_store_url=redis_url)  # fmt: skip
    checker = make_checker(tactics=table, max_processes=2)
    result = mcts_search(ScriptedTacticPolicy(script), PROBLEM, lean_tactic_backend(checker),
                         checker, config)  # fmt: skip
    assert result.stop_reason == "valid" and result.proof == "t2\nt1\nfinish"
    assert [step["tactic"] for step in result.steps] == ["t2", "t1", "finish"]
