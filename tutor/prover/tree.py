"""The shared search tree of MCTS: nodes, PUCT selection, backup, and where the tree lives.

A node is a proof state reached by a path of tactics from the root; an edge is the tactic
with its prior (the policy's summed log-probability), and each node keeps MCTS statistics
(visits, summed value). Every operation that reads and changes the tree is one transaction
of its store (`MemoryTreeStore` in one process, `RedisTreeStore` shared), so several
workers (threads, processes, hosts) can share one tree:

- `select_and_claim(worker)`: walk from the root by PUCT to the best open leaf nobody is
  expanding and claim it for `claim_lease_s` seconds. A worker that dies leaves a claim
  that expires; the next worker to select takes the node over, so no node is lost.
- `commit(node, worker, children)`: add the expansion's children and back the leaf's value
  up to the root, only if the worker still holds the claim. A late commit from a worker
  whose claim was taken over is refused, so no node is expanded twice.

Proof-state numbers belong to one REPL process and mean nothing to another worker, so the
tree stores goals and the tactic path; a worker replays the path in its own REPL when it
claims a node it has never seen (tutor.prover.mcts).

Transpositions: a child whose normalised goals were already reached elsewhere becomes a
"duplicate" leaf pointing at the first node (`same_as`) and is never expanded again.

Two stores: `MemoryTreeStore` (one process, a lock) and `RedisTreeStore` (the tree in Redis,
reached through tutor/redis_boundary.py: the whole tree is one JSON value under a Redis lock;
trees are a few hundred nodes, so reading it whole per transaction is cheaper than many
round trips).
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from typing import Any

# Node status: what the page draws and what selection may pick.
OPEN = "open"  # a leaf waiting to be expanded (the frontier)
EXPANDED = "expanded"  # has live children
DEAD = "dead"  # no tactic made progress here, or every child is dead (greyed)
SOLVED = "solved"  # a tactic closed every goal and the checker accepted the proof
DUPLICATE = "duplicate"  # same goals as an earlier node (transposition table)


@dataclass(frozen=True)
class MCTSConfig:
    """Monte Carlo tree search over proof states (PUCT as in AlphaZero; the priors are the
    policy's tactic log-probabilities, softmax-normalised among a node's children)."""

    # Exploration weight of the prior term. Far lower than AlphaZero's 1-2.5: MCTS is the
    # search that does not take the policy's word for it (best-first does). A policy's
    # confidence is what a deceptive branch exploits, and with max backup Q already says
    # which branches still look open. The price: where the favourite tactic is right, MCTS
    # expands about as much as breadth-first, ~2x best-first (bench/bench_search.py).
    c_puct: float = 0.25
    prior_temperature: float = 1.0  # softmax temperature over sibling log-priors
    goal_weight: float = 0.3  # heuristic value: cost per open goal
    # Heuristic value: cost per tactic on the path. With max backup this is what makes a
    # branch whose open frontier lies deep look worse than one still open near the top.
    depth_weight: float = 0.15
    dead_value: float = 0.0  # value backed up from a dead end (heuristic values are in (0,1])
    # "max": a node's Q is the best estimate on its open frontier, discounted by its dead-end
    # rate (an OR-node: a proof needs one way on; see _backup). "mean": AlphaZero's average
    # of every value backed up through the node.
    backup: str = "max"
    # Pseudo-count of the dead-end discount under max backup: Q = best * (a + n - dead) /
    # (a + n) for n expansions below the node, `dead` of them dead ends (0: the raw rate).
    dead_end_prior: float = 1.0
    value_mix: float = 0.0  # weight of a learned value head (0: the heuristic alone)
    transpositions: bool = True  # merge proof states with the same normalised goals
    # A claimed leaf is taken over when its worker has been silent this long (workers renew
    # the claim after every tactic, so keep it above the tactic timeout).
    claim_lease_s: float = 60.0
    poll_s: float = 0.05  # a worker with nothing to claim (all leaves busy) waits this long

    def __post_init__(self) -> None:
        if self.c_puct < 0 or self.prior_temperature <= 0:
            raise ValueError("need c_puct >= 0 and prior_temperature > 0")
        if self.backup not in ("max", "mean") or self.dead_end_prior < 0:
            raise ValueError("backup is 'max' or 'mean'; dead_end_prior must be >= 0")
        if not 0.0 <= self.value_mix <= 1.0:
            raise ValueError("value_mix is the learned head's weight: between 0 and 1")
        if self.claim_lease_s <= 0 or self.poll_s <= 0:
            raise ValueError("claim_lease_s and poll_s must be positive")


ValueHead = Callable[[Sequence[str], int], float]
"""A learned value estimate: (goals, depth) -> probability in [0, 1] that the state is provable."""


def heuristic_value(goals: Sequence[str], depth: int, config: MCTSConfig) -> float:
    """exp(-(goal_weight * goals + depth_weight * depth)): 1 for a closed state, smaller for
    more open goals and longer paths (fewer goals are closer to a proof; long paths are
    where weak policies wander)."""
    return math.exp(-(config.goal_weight * len(goals) + config.depth_weight * depth))


def estimate_value(
    goals: Sequence[str], depth: int, config: MCTSConfig, head: ValueHead | None = None
) -> float:
    value = heuristic_value(goals, depth, config)
    if head is not None and config.value_mix > 0:
        learned = min(1.0, max(0.0, float(head(goals, depth))))
        value = (1 - config.value_mix) * value + config.value_mix * learned
    return value


def goal_key(goals: Sequence[str]) -> str:
    """The transposition key: goals with whitespace runs collapsed, in order."""
    return "\n\n".join(" ".join(goal.split()) for goal in goals)


@dataclass
class TreeNode:
    id: int
    parent: int | None
    tactic: str  # the edge from the parent ("" at the root)
    prior: float  # log-prior of that tactic
    source: str  # "model" | "portfolio" | "" (root)
    goals: list[str]
    depth: int
    value: float  # the estimate when the node was created
    status: str = OPEN
    visits: int = 0
    value_sum: float = 0.0
    children: list[int] = field(default_factory=list)
    failed: int = 0  # tactics Lean rejected here (not nodes: counted, drawn as a number)
    same_as: int | None = None  # transposition: the earlier node with the same goals
    claimed_by: str = ""
    claim_until: float = 0.0
    expanded_by: str = ""
    dead_ends: int = 0  # expansions below (and at) this node that found no live child
    frontier: float | None = None  # max backup: the best estimate on the open frontier below
    backed: float | None = None  # max backup's Q (None: mean backup, or never backed up)

    def q(self) -> float:
        if self.backed is not None:
            return self.backed
        return self.value_sum / self.visits if self.visits else self.value

    def view(self) -> dict[str, Any]:
        """What the page needs (no claim bookkeeping)."""
        return {
            "id": self.id, "parent": self.parent, "tactic": self.tactic,
            "prior": round(self.prior, 3), "source": self.source, "goals": self.goals,
            "depth": self.depth, "status": self.status, "visits": self.visits,
            "value": round(self.q(), 3), "failed": self.failed, "same_as": self.same_as,
            "busy": bool(self.claimed_by) and self.status == OPEN,
        }  # fmt: skip


@dataclass
class NewChild:
    """One successful tactic of an expansion, before the store gives it an id."""

    tactic: str
    prior: float
    source: str
    goals: list[str]
    value: float
    solved: bool = False


@dataclass
class TreeState:
    nodes: dict[int, TreeNode] = field(default_factory=dict)
    keys: dict[str, int] = field(default_factory=dict)  # transposition table
    expansions: int = 0
    discarded: int = 0  # late commits refused (their claim had been taken over)
    outcome: dict[str, Any] | None = None  # {"reason", "proof", "path"} once the search ends

    def to_json(self) -> str:
        return json.dumps(
            {
                "nodes": [asdict(n) for n in self.nodes.values()],
                "keys": self.keys,
                "expansions": self.expansions,
                "discarded": self.discarded,
                "outcome": self.outcome,
            },
            ensure_ascii=False,
        )

    @classmethod
    def from_json(cls, text: str) -> TreeState:
        data = json.loads(text)
        nodes = {int(n["id"]): TreeNode(**n) for n in data["nodes"]}
        return cls(nodes, data["keys"], data["expansions"], data["discarded"], data["outcome"])

    def depth(self) -> int:
        return max((n.depth for n in self.nodes.values()), default=0)

    def path_to(self, node_id: int) -> list[int]:
        path = [node_id]
        parent = self.nodes[node_id].parent
        while parent is not None:
            path.append(parent)
            parent = self.nodes[parent].parent
        return path[::-1]


class _TreeOps:
    """The tree's operations, each one transaction of the concrete store."""

    config: MCTSConfig

    @contextmanager
    def transaction(self) -> Iterator[TreeState]:
        raise NotImplementedError
        yield  # pragma: no cover

    def read(self) -> TreeState:
        """A copy of the whole tree (for reports and tests; workers use the operations)."""
        with self.transaction() as state:
            return TreeState.from_json(state.to_json())

    def view(self) -> dict[str, Any]:
        """What the page draws: every node's view, the counters and the outcome."""
        with self.transaction() as state:
            return {
                "nodes": [n.view() for n in state.nodes.values()],
                "expansions": state.expansions,
                "depth": state.depth(),
                "outcome": dict(state.outcome) if state.outcome else None,
            }

    def init_root(self, goals: list[str], value: float) -> None:
        """Create the root unless another worker already did (first one wins)."""
        with self.transaction() as state:
            if 0 not in state.nodes:
                state.nodes[0] = TreeNode(0, None, "", 0.0, "", goals, 0, value)
                state.keys[goal_key(goals)] = 0

    def select_and_claim(self, worker: str, now: float | None = None) -> TreeNode | None:
        """Claim the best open leaf by PUCT (None: nothing claimable right now)."""
        now = time.time() if now is None else now
        with self.transaction() as state:
            if state.outcome is not None or 0 not in state.nodes:
                return None
            leaf = _select(state, state.nodes[0], self.config, now)
            if leaf is None:
                return None
            leaf.claimed_by = worker
            leaf.claim_until = now + self.config.claim_lease_s
            return replace(leaf, goals=list(leaf.goals), children=[])  # a copy to read freely

    def commit(
        self, node_id: int, worker: str, children: list[NewChild], failed: int = 0
    ) -> list[int] | None:
        """Add an expansion's children (and the count of tactics that failed) and back its
        value up; None if the claim was lost to another worker meanwhile."""
        with self.transaction() as state:
            node = state.nodes[node_id]
            if node.claimed_by != worker or node.status != OPEN:
                state.discarded += 1
                return None
            node.failed += failed
            ids = [_add_child(state, node, child, self.config) for child in children]
            node.status = EXPANDED if node.children else DEAD
            node.claimed_by, node.expanded_by = "", worker
            state.expansions += 1
            _backup(state, node, self.config)
            return ids

    def renew(self, node_id: int, worker: str) -> bool:
        """Extend a claim this worker still holds (a heartbeat); False if it was lost."""
        with self.transaction() as state:
            node = state.nodes[node_id]
            if node.claimed_by != worker or node.status != OPEN:
                return False
            node.claim_until = time.time() + self.config.claim_lease_s
            return True

    def path(self, node_id: int) -> list[tuple[int, str]]:
        """(node id, tactic into it) from the root to the node."""
        with self.transaction() as state:
            return [(i, state.nodes[i].tactic) for i in state.path_to(node_id)]

    def read_outcome(self) -> dict[str, Any] | None:
        with self.transaction() as state:
            return dict(state.outcome) if state.outcome else None

    def read_expansions(self) -> int:
        with self.transaction() as state:
            return state.expansions

    def finish(self, reason: str, proof: str | None = None, node_id: int | None = None) -> bool:
        """Record how the search ended; the first reason wins (False if one was there)."""
        with self.transaction() as state:
            if state.outcome is not None:
                return False
            path = state.path_to(node_id) if node_id is not None else []
            state.outcome = {"reason": reason, "proof": proof, "path": path}
            return True

    def exhausted(self) -> bool:
        state = self.read()
        return 0 in state.nodes and state.nodes[0].status == DEAD


def _select(state: TreeState, node: TreeNode, config: MCTSConfig, now: float) -> TreeNode | None:
    """Depth-first in PUCT order: the first claimable leaf under the best child wins, so
    parallel workers spread to the next-best leaves instead of waiting."""
    if node.status == OPEN:
        free = not node.claimed_by or node.claim_until < now
        return node if free else None
    if node.status != EXPANDED:
        return None
    live = [state.nodes[c] for c in node.children if state.nodes[c].status in (OPEN, EXPANDED)]
    for child in sorted(live, key=_puct(state, node, config), reverse=True):
        found = _select(state, child, config, now)
        if found is not None:
            return found
    return None


def _puct(state: TreeState, node: TreeNode, config: MCTSConfig) -> Callable[[TreeNode], float]:
    siblings = [state.nodes[c] for c in node.children]
    top = max(s.prior for s in siblings) / config.prior_temperature
    weights = {s.id: math.exp(s.prior / config.prior_temperature - top) for s in siblings}
    total = sum(weights.values())
    scale = config.c_puct * math.sqrt(max(1, node.visits))

    def score(child: TreeNode) -> float:
        return child.q() + scale * (weights[child.id] / total) / (1 + child.visits)

    return score


def _add_child(state: TreeState, parent: TreeNode, child: NewChild, config: MCTSConfig) -> int:
    node_id = max(state.nodes) + 1
    node = TreeNode(node_id, parent.id, child.tactic, child.prior, child.source, child.goals,
                    parent.depth + 1, 1.0 if child.solved else child.value)  # fmt: skip
    key = goal_key(child.goals)
    if child.solved:
        node.status = SOLVED
    elif config.transpositions and key in state.keys:
        node.status, node.same_as = DUPLICATE, state.keys[key]
        node.value = state.nodes[node.same_as].q()
    else:
        state.keys[key] = node_id
    state.nodes[node_id] = node
    parent.children.append(node_id)
    return node_id


def _backup(state: TreeState, leaf: TreeNode, config: MCTSConfig) -> None:
    """Back the expansion of `leaf` up to the root. Dead ends propagate: a node whose
    children are all dead (or duplicates of states expanded elsewhere) is dead too.

    "mean" (AlphaZero): the leaf's value (its best child's, dead_value at a dead end) is
    added to every node on the path; Q is the average of everything backed up through it.

    "max" (the default): Q(node) = best * (a + n - dead) / (a + n), where best is the
    largest Q among its live children (a leaf's own estimate), n the expansions below it
    and dead how many of them were dead ends (a = dead_end_prior). Why not the mean: a
    proof state is an OR-node (a proof needs only one way on), and the tree is
    deterministic, so the average of values backed up while the frontier was shallow says
    nothing about what is still open; it decays only as dead ends pile up, and a decoy
    branch (confident tactics that never close) gives its first dead end only at its
    bottom. The max is what is open now: with the depth cost in the estimate, a branch
    the search has dug deep into looks worse than a sibling still open near the top, so
    the search comes back up before the branch is exhausted. The dead-end rate (a
    Laplace-smoothed share of the node's expansions that led somewhere) is the evidence
    the max alone throws away: a branch whose explored leaves all died keeps a max as
    high as its best untried leaf, but is less likely to hold a proof than one whose
    leaves keep opening new states."""
    dead_end = not any(state.nodes[c].status in (OPEN, SOLVED) for c in leaf.children)
    children = [state.nodes[c] for c in leaf.children]
    live = [c for c in children if c.status != DEAD]
    value = max((c.value for c in live), default=config.dead_value)
    node: TreeNode | None = leaf
    while node is not None:
        node.visits += 1
        node.value_sum += value
        node.dead_ends += dead_end
        if node.status == EXPANDED and all(
            state.nodes[c].status in (DEAD, DUPLICATE) for c in node.children
        ):
            node.status = DEAD
        if config.backup == "max":
            node.frontier = max(
                (_frontier(state.nodes[c]) for c in node.children if state.nodes[c].status != DEAD),
                default=config.dead_value,
            )
            prior = config.dead_end_prior
            alive = (prior + node.visits - node.dead_ends) / (prior + node.visits)
            node.backed = node.frontier * alive
        node = state.nodes[node.parent] if node.parent is not None else None


def _frontier(node: TreeNode) -> float:
    """The best estimate on the open frontier at or below a node (max backup)."""
    return node.frontier if node.frontier is not None else node.q()


class MemoryTreeStore(_TreeOps):
    """One process: the tree in memory behind a lock (threads share it)."""

    def __init__(self, config: MCTSConfig | None = None) -> None:
        self.config = config or MCTSConfig()
        self._lock = threading.RLock()
        self._state = TreeState()

    @contextmanager
    def transaction(self) -> Iterator[TreeState]:
        with self._lock:
            yield self._state


class RedisTreeStore(_TreeOps):
    """Several processes or hosts: the tree as one JSON value in Redis, each transaction
    under a Redis lock (redis-py's Lock: a token with an expiry, so a worker that dies
    inside a transaction blocks the others for at most `lock_timeout_s`)."""

    def __init__(
        self,
        url: str,
        tree_id: str,
        config: MCTSConfig | None = None,
        ttl_s: int = 24 * 3600,
        lock_timeout_s: float = 10.0,
    ) -> None:
        from tutor import redis_boundary

        self.config = config or MCTSConfig()
        self._redis = redis_boundary.client(url)
        self.key = f"leancoach:prover:tree:{tree_id}"
        self._ttl_s = ttl_s
        self._lock_timeout_s = lock_timeout_s

    @contextmanager
    def transaction(self) -> Iterator[TreeState]:
        lock = self._redis.lock(
            self.key + ":lock", timeout=self._lock_timeout_s, blocking_timeout=30
        )
        if not lock.acquire():
            raise TimeoutError(f"the search tree {self.key} stayed locked for 30 s")
        try:
            raw: Any = self._redis.get(self.key)
            before = raw.decode() if raw else ""
            state = TreeState.from_json(before) if before else TreeState()
            yield state
            after = state.to_json()
            if after != before:  # reads (most transactions) write nothing back
                self._redis.set(self.key, after, ex=self._ttl_s)
        finally:
            lock.release()

    def delete(self) -> None:
        self._redis.delete(self.key)
