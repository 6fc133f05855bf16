"""Step-level proof search over Lean proof states (the seeds' tree search).

Best-first search with epsilon-greedy exploration, run through the REPL's tactic mode:

- The root is the posed statement's goal (`<statement> := by sorry` gives a proof state).
- Expanding a node applies candidate tactics to its proof state: tactics the policy
  proposes for the goals (sampled, scored by their log-probability) plus a portfolio of
  standard finishing tactics (rfl, simp, omega, decide, exact?; linarith, nlinarith,
  norm_num when Mathlib is imported), so easy goals fall even to a weak model.
- Each successful step becomes a child whose priority is its path's summed log-prior
  minus a small penalty per open goal; proof states already seen (same goals) are skipped.
- Selection takes the best open node, except that with probability `exploration_rate`
  it takes a uniformly random one. The rate follows seed 000: start 0.3-0.5, decay by 5%
  every 1000 iterations, never below 0.1.
- A step that closes all goals yields a tactic script; it counts only after the checker's
  full verdict (`check_proof` on the posed statement) accepts it.
"""

from __future__ import annotations

import heapq
import math
import random
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from tutor.lean.types import CheckResult
from tutor.prover.events import (
    EventCallback,
    Finished,
    SearchExpansion,
    SearchTree,
    Started,
    emit,
)
from tutor.prover.policy.base import ChatPolicyBase
from tutor.prover.problem import Problem
from tutor.prover.trajectory import Trajectory, Verdict, reward_for
from tutor.prover.tree import MCTSConfig
from tutor.prover.verify import ProofChecker, full_check, verdict_of

BASE_PORTFOLIO = ("rfl", "simp", "omega", "decide", "exact?")
MATHLIB_PORTFOLIO = ("linarith", "nlinarith", "norm_num")

TACTIC_PROMPT = (
    "You are a Lean 4 expert. Given the proof state below, reply with exactly one Lean 4 "
    "tactic that makes progress, on one line, and nothing else."
)


@dataclass(frozen=True)
class ExplorationSchedule:
    """Seed 000: start 0.3-0.5, decay 5% per 1000 iterations, floor 0.1."""

    start: float = 0.3
    decay: float = 0.05
    every: int = 1000
    floor: float = 0.1

    def __post_init__(self) -> None:
        if not 0.0 <= self.floor <= self.start <= 1.0:
            raise ValueError("need 0 <= floor <= start <= 1 (seed 000: start 0.3-0.5, floor 0.1)")
        if not 0.0 <= self.decay < 1.0 or self.every < 1:
            raise ValueError("decay must be in [0, 1) and every >= 1")

    def rate(self, iteration: int) -> float:
        return max(self.floor, self.start * (1.0 - self.decay) ** (iteration // self.every))


ALGORITHMS = ("best_first", "mcts")


@dataclass(frozen=True)
class SearchConfig:
    algorithm: str = "best_first"  # "best_first" (this module) | "mcts" (tutor.prover.mcts)
    workers: int = 1  # MCTS only: workers sharing one tree, each with its own REPL lease
    mcts: MCTSConfig = field(default_factory=MCTSConfig)  # PUCT, value, claims (tree.py)
    # MCTS only: "redis://..." shares the tree through Redis (workers in other processes can
    # join it, tree.RedisTreeStore); None keeps it in this process's memory.
    tree_store_url: str | None = None
    max_iterations: int = 64  # node expansions per attempt (all workers together)
    max_depth: int = 12  # tactics on one path
    time_limit_s: float = 300.0
    model_samples: int = 4  # tactics sampled from the policy per expansion (0: portfolio only)
    model_max_tokens: int = 48
    temperature: float = 1.0
    top_p: float = 0.95
    portfolio: tuple[str, ...] | None = None  # None: BASE_PORTFOLIO (+ MATHLIB_PORTFOLIO)
    # log-prior of a portfolio tactic (a model tactic's prior is its own log-probability)
    portfolio_logprior: float = math.log(0.2)
    goal_penalty: float = 0.1  # priority cost per open goal
    exploration: ExplorationSchedule = field(default_factory=ExplorationSchedule)
    iteration_offset: int = 0  # iterations already run elsewhere (training keeps one clock)
    tactic_timeout_s: float | None = 20.0
    seed: int | None = None

    def __post_init__(self) -> None:
        if self.max_iterations < 1 or self.max_depth < 1:
            raise ValueError("max_iterations and max_depth must be at least 1")
        if self.model_samples < 0:
            raise ValueError("model_samples must be >= 0 (0 searches with the portfolio only)")
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm must be one of {ALGORITHMS}, got {self.algorithm!r}")
        if not 1 <= self.workers <= 32:
            raise ValueError("workers must be between 1 and 32 (each holds a REPL process)")

    def portfolio_for(self, problem: Problem) -> tuple[str, ...]:
        if self.portfolio is not None:
            return self.portfolio
        return BASE_PORTFOLIO + (MATHLIB_PORTFOLIO if problem.uses_mathlib else ())


@dataclass
class StepOutcome:
    """One tactic applied to one proof state (tactic-mode reply, adapted)."""

    proof_state: int | None
    goals: list[str]
    completed: bool
    error: str | None = None  # Lean rejected the tactic (an ordinary search failure)
    could_not_check: bool = False  # the REPL timed out / crashed
    used_tactic: str | None = None  # what to write in the proof (exact? -> its suggestion)


class TacticBackend(Protocol):
    """Step-level access to Lean for one search (tutor.lean's ReplSession, adapted)."""

    def start(self, problem: Problem) -> StepOutcome: ...

    def apply(self, proof_state: int, tactic: str) -> StepOutcome: ...


@dataclass
class Node:
    id: int
    proof_state: int
    goals: list[str]
    tactics: list[str]  # path from the root
    priority: float
    depth: int


@dataclass
class SearchResult:
    proof: str | None  # the tactic script, when the checker accepted one
    check: CheckResult | None
    iterations: int
    nodes: int
    expansions: list[dict[str, Any]]
    stop_reason: str
    # The found proof step by step: [{"goals": state before, "tactic": what closed/advanced it}]
    # (tactic-level SFT examples are made from these: tutor.prover.search_examples).
    steps: list[dict[str, Any]] = field(default_factory=list)


def portfolio_search(
    policy: ChatPolicyBase | None,
    problem: Problem,
    backend: TacticBackend,
    checker: ProofChecker | None,
    config: SearchConfig | None = None,
    on_event: EventCallback | None = None,
    attempt: int = 0,
    should_cancel: Callable[[], bool] | None = None,
) -> SearchResult:
    config = config or SearchConfig()
    rng = random.Random(config.seed)
    started = time.monotonic()
    root_step = backend.start(problem)
    if root_step.proof_state is None:
        return SearchResult(
            None,
            _start_failure(root_step),
            0,
            0,
            [],
            "could_not_check" if root_step.could_not_check else "bad_statement",
        )
    root = Node(0, root_step.proof_state, root_step.goals, [], 0.0, 0)
    tree = _TreeView(config, started, attempt, on_event)
    tree.add(root, None, "", 0.0, "")
    frontier: list[tuple[float, int, Node]] = [(0.0, 0, root)]
    seen = {_goal_key(root.goals): 0}
    expansions: list[dict[str, Any]] = []
    nodes = 1
    last_check: CheckResult | None = None
    stop_reason = "max_iterations"
    iteration = 0
    while iteration < config.max_iterations:
        if not frontier:
            stop_reason = "exhausted"
            break
        if time.monotonic() - started > config.time_limit_s:
            stop_reason = "time_limit"
            break
        if should_cancel is not None and should_cancel():
            stop_reason = "cancelled"
            break
        rate = config.exploration.rate(config.iteration_offset + iteration)
        node = _select(frontier, rate, rng)
        iteration += 1
        for tactic, prior, source in candidates(policy, problem, node.goals, config):
            step = backend.apply(node.proof_state, tactic)
            written = step.used_tactic or tactic
            status = _status(step)
            record = {
                "iteration": iteration,
                "node": node.id,
                "tactic": written,
                "source": source,
                "status": status,
                # where it was tried and what Lean said: failed branches become FD
                # examples (tutor.prover.search_examples.failed_branch_examples)
                "path": list(node.tactics),
                "goals": list(node.goals),
                "error": step.error,
            }
            if step.proof_state is not None and not step.error and not step.completed:
                key = _goal_key(step.goals)
                if key in seen:
                    record["status"] = status = "duplicate"
                    tree.duplicate(node, step.goals, written, prior, source, seen[key])
            expansions.append(record)
            emit(
                on_event,
                SearchExpansion(
                    attempt, iteration, node.id, node.goals, written, source, status, rate
                ),
            )
            if status in ("error", "could_not_check"):
                tree.failed(node)
            if status == "solved":
                script = "\n".join([*node.tactics, written])
                last_check = full_check(checker, problem, script)
                if last_check.valid:
                    solved = tree.add(None, node, written, prior, source, status="solved")
                    steps = tree.finish(iteration, "found", script, solved)
                    return SearchResult(
                        script, last_check, iteration, nodes, expansions, "valid", steps
                    )
                tree.failed(node)
                continue
            if status != "progress" or node.depth + 1 >= config.max_depth:
                continue
            assert step.proof_state is not None
            seen[_goal_key(step.goals)] = nodes
            priority = node.priority + prior - config.goal_penalty * len(step.goals)
            child = Node(
                nodes,
                step.proof_state,
                step.goals,
                [*node.tactics, written],
                priority,
                node.depth + 1,
            )
            tree.add(child, node, written, prior, source, value=priority)
            nodes += 1
            heapq.heappush(frontier, (-priority, child.id, child))
        tree.expanded(node, iteration)
    tree.finish(iteration, stop_reason)
    return SearchResult(None, last_check, iteration, nodes, expansions, stop_reason)


class _TreeView:
    """The best-first tree as tutor.prover.tree views, streamed as SearchTree events (no
    visits; `value` is the node's priority)."""

    def __init__(
        self, config: SearchConfig, started: float, attempt: int, on_event: EventCallback | None
    ) -> None:
        self.config, self.started, self.attempt, self.on_event = config, started, attempt, on_event
        self.nodes: dict[int, dict[str, Any]] = {}
        self.ids: dict[int, int] = {}  # search node id -> view id

    def add(self, node: Node | None, parent: Node | None, tactic: str, prior: float,
            source: str, goals: list[str] | None = None, status: str = "open",
            value: float = 0.0) -> int:  # fmt: skip
        """A view node (ids of its own: duplicates and the solved step are not search
        nodes); returns its id."""
        view_id = len(self.nodes)
        if node is not None:
            self.ids[node.id] = view_id
        depth = self.nodes[self.ids[parent.id]]["depth"] + 1 if parent else 0
        self.nodes[view_id] = {
            "id": view_id, "parent": self.ids[parent.id] if parent else None,
            "tactic": tactic, "prior": round(prior, 3), "source": source,
            "goals": node.goals if node is not None else goals or [], "depth": depth,
            "status": status, "visits": 0, "value": round(value, 3), "failed": 0,
            "same_as": None, "busy": False,
        }  # fmt: skip
        return view_id

    def duplicate(self, parent: Node, goals: list[str], tactic: str, prior: float, source: str,
                  same_as: int) -> None:  # fmt: skip
        view_id = self.add(None, parent, tactic, prior, source, goals, status="duplicate")
        self.nodes[view_id]["same_as"] = self.ids.get(same_as)

    def failed(self, node: Node) -> None:
        self.nodes[self.ids[node.id]]["failed"] += 1

    def expanded(self, node: Node, iteration: int) -> None:
        view_id = self.ids[node.id]
        live = [n for n in self.nodes.values() if n["parent"] == view_id and n["status"] == "open"]
        self.nodes[view_id]["status"] = "expanded" if live else "dead"
        self.nodes[view_id]["visits"] = 1
        self.emit(iteration)

    def finish(
        self, iteration: int, reason: str, proof: str | None = None, node_id: int | None = None
    ) -> list[dict[str, Any]]:
        path: list[int] = []
        while node_id is not None:
            path.insert(0, node_id)
            node_id = self.nodes[node_id]["parent"]
        self.emit(iteration, {"reason": reason, "proof": proof, "path": path})
        return path_steps(self.nodes, path)

    def emit(self, iteration: int, outcome: dict[str, Any] | None = None) -> None:
        if self.on_event is None:
            return
        emit(
            self.on_event,
            SearchTree(
                self.attempt, "best_first", [dict(n) for n in self.nodes.values()], iteration,
                max((n["depth"] for n in self.nodes.values()), default=0),
                round(time.monotonic() - self.started, 3), self.config.max_iterations,
                self.config.time_limit_s, 1, outcome,
            ),
        )  # fmt: skip


def path_steps(nodes: Any, path: Sequence[int]) -> list[dict[str, Any]]:
    """[{"goals", "tactic"}] along a root-to-leaf path of node views (dicts) or TreeNodes."""

    def get(node_id: int, key: str) -> Any:
        node = nodes[node_id]
        return node[key] if isinstance(node, dict) else getattr(node, key)

    return [
        {"goals": list(get(parent, "goals")), "tactic": get(child, "tactic")}
        for parent, child in zip(path, path[1:], strict=False)
    ]


def _select(frontier: list[tuple[float, int, Node]], rate: float, rng: random.Random) -> Node:
    if len(frontier) > 1 and rng.random() < rate:
        index = rng.randrange(len(frontier))
        frontier[index], frontier[-1] = frontier[-1], frontier[index]
        _, _, node = frontier.pop()
        heapq.heapify(frontier)
        return node
    return heapq.heappop(frontier)[2]


def candidates(
    policy: ChatPolicyBase | None, problem: Problem, goals: Sequence[str], config: SearchConfig
) -> list[tuple[str, float, str]]:
    """(tactic, log-prior, source) for one state: model proposals first, then the portfolio."""
    found: dict[str, tuple[float, str]] = {}
    if policy is not None and config.model_samples > 0:
        for tactic, logprob in propose_tactics(policy, goals, config):
            if tactic not in found or found[tactic][0] < logprob:
                found[tactic] = (logprob, "model")
    for tactic in config.portfolio_for(problem):
        found.setdefault(tactic, (config.portfolio_logprior, "portfolio"))
    return [(tactic, prior, source) for tactic, (prior, source) in found.items()]


def propose_tactics(
    policy: ChatPolicyBase, goals: Sequence[str], config: SearchConfig
) -> list[tuple[str, float]]:
    """Sample tactics for the goals; each is the first line of a completion, with the
    summed log-probability of the tokens it came from (a length-normalised prior would
    favour long tactics; the sum favours short, confident ones, as in GPT-f)."""
    state = "\n\n".join(goals) if goals else "no goals"
    prompt: str | list[dict[str, Any]]
    if getattr(policy.tokenizer, "chat_template", None):
        prompt = [
            {"role": "system", "content": TACTIC_PROMPT},
            {"role": "user", "content": f"Proof state:\n{state}\n\nNext tactic:"},
        ]
    else:
        prompt = f"{TACTIC_PROMPT}\n\nProof state:\n{state}\n\nNext tactic:"
    completions = policy.generate(
        [prompt],
        n=config.model_samples,
        temperature=config.temperature,
        top_p=config.top_p,
        max_tokens=config.model_max_tokens,
        stop=["\n"],
        seed=config.seed,
    )[0]
    proposals = []
    for completion in completions:
        tactic = clean_tactic(completion.text)
        if tactic:
            proposals.append((tactic, float(sum(completion.logprobs))))
    return proposals


_FENCE = re.compile(r"^```\w*\s*|```$")


def clean_tactic(text: str) -> str | None:
    """The first non-empty line of a completion, without code fences; None if unusable."""
    for line in text.splitlines():
        line = _FENCE.sub("", line.strip()).strip()
        if line:
            if "sorry" in line or "admit" in line or len(line) > 200:
                return None
            return line
    return None


def _status(step: StepOutcome) -> str:
    if step.could_not_check:
        return "could_not_check"
    if step.error is not None:
        return "error"
    if step.completed:
        return "solved"
    return "progress"


def _goal_key(goals: Sequence[str]) -> tuple[str, ...]:
    return tuple(" ".join(goal.split()) for goal in goals)


def _start_failure(step: StepOutcome) -> CheckResult:
    return CheckResult(
        valid=False,
        error=step.error if step.could_not_check else None,
        crashed=step.could_not_check,
    )


def search_trajectory(
    problem: Problem,
    result: SearchResult,
    policy_name: str,
    config: SearchConfig,
    elapsed_s: float,
) -> Trajectory:
    """A search run as a Trajectory record (no token stream: search mode is not trained
    on token by token; its proofs can feed SFT through `final_proof`)."""
    if result.proof is not None and result.check is not None:
        verdict = verdict_of(result.check)
    elif (
        result.check is not None
        and result.check.could_not_check
        or result.stop_reason == "could_not_check"
    ):
        verdict = Verdict.COULD_NOT_CHECK
    else:
        verdict = Verdict.NO_PROOF
    return Trajectory(
        problem_id=problem.id,
        statement=problem.header + problem.statement,
        mode="search",
        prompt_messages=[],
        tools=[],
        verdict=verdict,
        final_proof=problem.with_proof(result.proof) if result.proof is not None else None,
        check=result.check.to_dict() if result.check is not None else None,
        reward=reward_for(verdict),
        stop_reason=result.stop_reason,
        model=policy_name,
        sampling={"temperature": config.temperature, "top_p": config.top_p, "seed": config.seed},
        search={
            "algorithm": config.algorithm,
            "workers": config.workers if config.algorithm == "mcts" else 1,
            "tactics": result.proof.splitlines() if result.proof else None,
            "steps": result.steps,
            "iterations": result.iterations,
            "nodes": result.nodes,
            "expansions": result.expansions,
        },
        elapsed_s=elapsed_s,
    )


def search(
    policy: ChatPolicyBase | None,
    problems: Sequence[Problem],
    n: int = 1,
    config: SearchConfig | None = None,
    checker: ProofChecker | None = None,
    backend_factory: Callable[[Problem], Any] | None = None,
    on_event: EventCallback | None = None,
    should_cancel: Callable[[], bool] | None = None,
) -> list[Trajectory]:
    """n searches per problem (different seeds), problem-major order, one Trajectory each.

    backend_factory(problem) returns a context manager yielding a TacticBackend (e.g.
    `lean_tactic_backend(checker)`), so a REPL is leased per search and given back.
    """
    config = config or SearchConfig()
    if backend_factory is None:
        raise ValueError(
            "search needs a backend_factory (lean_tactic_backend(checker) or a test double)"
        )
    trajectories = []
    if policy is not None:
        policy.reload_if_changed()  # a promoted checkpoint is picked up between runs
    name = policy.name if policy is not None else "portfolio-only"
    for i, problem in enumerate(problems):
        for k in range(n):
            index = i * n + k
            seed = None if config.seed is None else config.seed + k
            run_config = _with_seed(config, seed)
            emit(on_event, Started(index, problem.id, "search", name))
            started = time.monotonic()
            try:
                if run_config.algorithm == "mcts":
                    from tutor.prover.mcts import mcts_search

                    result = mcts_search(
                        policy, problem, backend_factory, checker, run_config, on_event, index,
                        should_cancel,
                    )  # fmt: skip
                else:
                    with backend_factory(problem) as backend:
                        result = portfolio_search(
                            policy,
                            problem,
                            backend,
                            checker,
                            run_config,
                            on_event,
                            index,
                            should_cancel,
                        )
            except Exception as exc:  # REPL lease failed / Lean unavailable: could not check
                result = SearchResult(
                    None, CheckResult(valid=False, error=str(exc)), 0, 0, [], "could_not_check"
                )
            trajectory = search_trajectory(
                problem, result, name, run_config, time.monotonic() - started
            )
            trajectories.append(trajectory)
            emit(
                on_event,
                Finished(
                    index,
                    str(trajectory.verdict),
                    trajectory.stop_reason,
                    trajectory.final_proof,
                    trajectory.elapsed_s,
                ),
            )
            if should_cancel is not None and should_cancel():
                return trajectories
    return trajectories


def _with_seed(config: SearchConfig, seed: int | None) -> SearchConfig:
    from dataclasses import replace

    return replace(config, seed=seed)
