"""Monte Carlo tree search over Lean proof states, with one or several workers on one tree.

One iteration of a worker (AlphaZero's loop, with Lean in place of a game engine):

1. select: from the root, PUCT picks children (tree.py: Q + c_puct * P * sqrt(N) / (1 + n),
   P the softmax of the policy's tactic log-probabilities) down to an open leaf, which the
   worker claims;
2. expand: the worker applies the candidate tactics (the policy's samples plus the
   portfolio, as in best-first) to that proof state in its own REPL; each tactic that makes
   progress is a child, valued by the heuristic (goal count, depth) mixed with a learned
   value head when one is given;
3. backup: the store adds the children and updates every node on the path to the root:
   by default ("max") a node's Q becomes the best estimate on its open frontier times its
   share of expansions that were not dead ends (tree.py `_backup` says why); "mean" adds
   the leaf's value (its best child's, or `dead_value` at a dead end) as AlphaZero does.

A tactic that closes every goal is checked in full (`check_proof` on the posed statement)
before it counts: the first accepted script ends the search for all workers.

Workers: `config.workers` threads, each with its own REPL lease (backend_factory), sharing
one tree store. With a RedisTreeStore the same `run_worker` can run in separate processes
or hosts (tests/tutor/prover/test_mcts_parallel.py runs two on one Redis tree). Budgets are
checked before each claim, so N workers may overshoot `max_iterations` by at most N - 1.

Departures from AlphaZero: no rollouts and no visit-count move selection (a proof is a
path, not a move); a leaf is expanded with all its candidates at once, since each costs a
Lean call either way; dead ends propagate upwards and an all-dead root ends the search as
"exhausted".
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tutor.prover.events import EventCallback, SearchTree, emit
from tutor.prover.policy.base import ChatPolicyBase
from tutor.prover.problem import Problem
from tutor.prover.search import (
    SearchConfig,
    SearchResult,
    StepOutcome,
    TacticBackend,
    _start_failure,
    _status,
    candidates,
    path_steps,
)
from tutor.prover.tree import (
    MemoryTreeStore,
    NewChild,
    RedisTreeStore,
    TreeNode,
    ValueHead,
    _TreeOps,
    estimate_value,
)
from tutor.prover.verify import ProofChecker, full_check

# outcome reason -> the SearchResult stop_reason the rest of the prover already knows
STOP_REASONS = {"found": "valid", "exhausted": "exhausted", "max_iterations": "max_iterations",
                "time_limit": "time_limit", "cancelled": "cancelled",
                "could_not_check": "could_not_check", "bad_statement": "bad_statement"}  # fmt: skip


@dataclass
class WorkerLog:
    """What one worker did (tests and the benchmark read it)."""

    worker: str
    claimed: list[int] = field(default_factory=list)  # node ids it claimed
    expanded: list[int] = field(default_factory=list)  # node ids it committed
    applied: list[tuple[int, str]] = field(default_factory=list)  # (node, tactic) it tried
    replayed: int = 0  # tactics re-applied to reach a node first seen by another worker
    lost: int = 0  # expansions refused because its claim had been taken over
    records: list[dict[str, Any]] = field(default_factory=list)  # per-tactic, as best-first
    last_check: Any = None


def mcts_search(
    policy: ChatPolicyBase | None,
    problem: Problem,
    backend_factory: Callable[[Problem], Any],
    checker: ProofChecker | None,
    config: SearchConfig | None = None,
    on_event: EventCallback | None = None,
    attempt: int = 0,
    should_cancel: Callable[[], bool] | None = None,
    *,
    store: _TreeOps | None = None,
    value_head: ValueHead | None = None,
) -> SearchResult:
    """MCTS with config.workers workers (threads, one REPL lease each) on one tree."""
    config = config or SearchConfig(algorithm="mcts")
    if store is None and config.tree_store_url:
        store = RedisTreeStore(config.tree_store_url, uuid.uuid4().hex, config.mcts)
    store = store or MemoryTreeStore(config.mcts)
    started = time.monotonic()
    logs = [WorkerLog(f"w{i}-{uuid.uuid4().hex[:6]}") for i in range(config.workers)]
    events = _Streamer(store, config, started, attempt, on_event)

    def work(log: WorkerLog) -> None:
        # Only the caller's thread streams: the caller's callback may touch a database
        # connection that belongs to this thread (the web task's does).
        streamer = events if log is logs[0] else None
        try:
            with backend_factory(problem) as backend:
                run_worker(log, store, policy, problem, backend, checker, config, started,
                           value_head, streamer, should_cancel)  # fmt: skip
        except Exception as exc:  # REPL lease failed: this worker cannot check anything
            log.last_check = exc
            if config.workers == 1:
                store.finish("could_not_check")

    threads = [threading.Thread(target=work, args=(log,), daemon=True) for log in logs[1:]]
    for thread in threads:
        thread.start()
    work(logs[0])
    for thread in threads:
        thread.join()
    if store.read().outcome is None:  # every worker failed to lease a REPL
        store.finish("could_not_check")
    events.send(final=True)
    return _result(store, logs)


def run_worker(
    log: WorkerLog,
    store: _TreeOps,
    policy: ChatPolicyBase | None,
    problem: Problem,
    backend: TacticBackend,
    checker: ProofChecker | None,
    config: SearchConfig,
    started: float,
    value_head: ValueHead | None = None,
    events: _Streamer | None = None,
    should_cancel: Callable[[], bool] | None = None,
) -> None:
    """One worker's loop until the shared tree has an outcome."""
    root = backend.start(problem)
    if root.proof_state is None:
        store.finish("could_not_check" if root.could_not_check else "bad_statement")
        log.last_check = _start_failure(root)
        return
    store.init_root(root.goals, estimate_value(root.goals, 0, config.mcts, value_head))
    local = {0: root.proof_state}  # node id -> this REPL's proof state
    while store.read_outcome() is None:
        if _budget_spent(store, config, started, should_cancel):
            break
        leaf = store.select_and_claim(log.worker)
        if leaf is None:
            if store.exhausted():
                store.finish("exhausted")
                break
            time.sleep(config.mcts.poll_s)  # other workers hold every open leaf
            if events is not None:
                events.send()  # their progress, while this worker waits
            continue
        log.claimed.append(leaf.id)
        proof_state = _reach(store, backend, local, leaf, log)
        if proof_state is None:
            store.finish("could_not_check")
            break
        _expand(log, store, policy, problem, backend, checker, config, leaf, proof_state,
                local, value_head)  # fmt: skip
        if events is not None:
            events.send()


def _budget_spent(
    store: _TreeOps, config: SearchConfig, started: float, cancel: Callable[[], bool] | None
) -> bool:
    if store.read_expansions() >= config.max_iterations:
        store.finish("max_iterations")
    elif time.monotonic() - started > config.time_limit_s:
        store.finish("time_limit")
    elif cancel is not None and cancel():
        store.finish("cancelled")
    else:
        return False
    return True


def _reach(
    store: _TreeOps, backend: TacticBackend, local: dict[int, int], leaf: TreeNode, log: WorkerLog
) -> int | None:
    """This REPL's proof state for the leaf: known, or replayed from the deepest known
    ancestor (another worker created the node). None when Lean fails on the way."""
    path = store.path(leaf.id)
    known = max(i for i, (node_id, _) in enumerate(path) if node_id in local)
    state = local[path[known][0]]
    for node_id, tactic in path[known + 1 :]:
        step = backend.apply(state, tactic)
        log.replayed += 1
        if step.proof_state is None or step.error is not None:
            return None
        state = local[node_id] = step.proof_state
    return state


def _expand(
    log: WorkerLog,
    store: _TreeOps,
    policy: ChatPolicyBase | None,
    problem: Problem,
    backend: TacticBackend,
    checker: ProofChecker | None,
    config: SearchConfig,
    leaf: TreeNode,
    proof_state: int,
    local: dict[int, int],
    value_head: ValueHead | None,
) -> None:
    children: list[NewChild] = []
    states: list[int | None] = []
    failed = 0
    script: str | None = None
    prefix = [tactic for _, tactic in store.path(leaf.id)[1:]]
    for tactic, prior, source in candidates(policy, problem, leaf.goals, config):
        step = backend.apply(proof_state, tactic)
        log.applied.append((leaf.id, tactic))
        if not store.renew(leaf.id, log.worker):
            log.lost += 1  # taken over after a long silence: the other worker redoes it
            return
        written = step.used_tactic or tactic
        status = _status(step)
        log.records.append({"node": leaf.id, "tactic": written, "source": source,
                            "status": status, "worker": log.worker, "path": prefix,
                            "goals": list(leaf.goals), "error": step.error})  # fmt: skip
        if status == "solved":
            check = full_check(checker, problem, "\n".join([*prefix, written]))
            log.last_check = check
            if check.valid:
                script = "\n".join([*prefix, written])
                children.append(NewChild(written, prior, source, [], 1.0, solved=True))
                states.append(None)
                break  # one accepted proof ends the search: no need to try the rest
            failed += 1
        elif status != "progress" or leaf.depth + 1 >= config.max_depth:
            failed += status != "progress"
        else:
            value = estimate_value(step.goals, leaf.depth + 1, config.mcts, value_head)
            children.append(NewChild(written, prior, source, step.goals, value))
            states.append(step.proof_state)
    ids = store.commit(leaf.id, log.worker, children, failed)
    if ids is None:
        log.lost += 1
        return
    log.expanded.append(leaf.id)
    for node_id, state in zip(ids, states, strict=True):
        if state is not None:
            local[node_id] = state
    if script is not None:
        store.finish("found", script, ids[-1])


class _Streamer:
    """Sends the tree to the caller after expansions: at most every `interval_s` (the
    page redraws the whole tree), and always at the end."""

    def __init__(self, store: _TreeOps, config: SearchConfig, started: float, attempt: int,
                 on_event: EventCallback | None, interval_s: float = 0.25) -> None:  # fmt: skip
        self.store, self.config, self.started = store, config, started
        self.attempt, self.on_event, self.interval_s = attempt, on_event, interval_s
        self._last = 0.0
        self._lock = threading.Lock()

    def send(self, final: bool = False) -> None:
        if self.on_event is None:
            return
        with self._lock:
            now = time.monotonic()
            if not final and now - self._last < self.interval_s:
                return
            self._last = now
            view = self.store.view()
            emit(
                self.on_event,
                SearchTree(
                    self.attempt, "mcts", view["nodes"], view["expansions"], view["depth"],
                    round(now - self.started, 3), self.config.max_iterations,
                    self.config.time_limit_s, self.config.workers, view["outcome"],
                ),
            )  # fmt: skip


def _result(store: _TreeOps, logs: list[WorkerLog]) -> SearchResult:
    state = store.read()
    outcome = state.outcome or {"reason": "could_not_check", "proof": None}
    reason = STOP_REASONS.get(str(outcome["reason"]), str(outcome["reason"]))
    checks = [log.last_check for log in logs if log.last_check is not None]
    check = next((c for c in checks if getattr(c, "valid", False)), None)
    if check is None and checks and hasattr(checks[-1], "valid"):
        check = checks[-1]
    if check is None and reason == "could_not_check":
        from tutor.lean.types import CheckResult

        error = next((str(c) for c in checks if isinstance(c, Exception)), None)
        check = CheckResult(valid=False, error=error, crashed=True)
    records = [record for log in logs for record in log.records]
    steps = path_steps(state.nodes, outcome.get("path") or []) if outcome.get("proof") else []
    return SearchResult(outcome.get("proof"), check, state.expansions, len(state.nodes),
                        records, reason, steps)  # fmt: skip


__all__ = ["StepOutcome", "WorkerLog", "mcts_search", "run_worker"]
