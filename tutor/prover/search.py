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
from tutor.prover.events import EventCallback, Finished, SearchExpansion, Started, emit
from tutor.prover.policy.base import ChatPolicyBase
from tutor.prover.problem import Problem
from tutor.prover.trajectory import Trajectory, Verdict, reward_for
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


@dataclass(frozen=True)
class SearchConfig:
    max_iterations: int = 64  # node expansions per attempt
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
    frontier: list[tuple[float, int, Node]] = [(0.0, 0, root)]
    seen = {_goal_key(root.goals)}
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
        for tactic, prior, source in _candidates(policy, problem, node, config):
            step = backend.apply(node.proof_state, tactic)
            written = step.used_tactic or tactic
            status = _status(step)
            record = {
                "iteration": iteration,
                "node": node.id,
                "tactic": written,
                "source": source,
                "status": status,
            }
            if step.proof_state is not None and not step.error and not step.completed:
                key = _goal_key(step.goals)
                if key in seen:
                    record["status"] = status = "duplicate"
            expansions.append(record)
            emit(
                on_event,
                SearchExpansion(
                    attempt, iteration, node.id, node.goals, written, source, status, rate
                ),
            )
            if status == "solved":
                script = "\n".join([*node.tactics, written])
                last_check = full_check(checker, problem, script)
                if last_check.valid:
                    return SearchResult(script, last_check, iteration, nodes, expansions, "valid")
                continue
            if status != "progress" or node.depth + 1 >= config.max_depth:
                continue
            assert step.proof_state is not None
            seen.add(_goal_key(step.goals))
            priority = node.priority + prior - config.goal_penalty * len(step.goals)
            child = Node(
                nodes,
                step.proof_state,
                step.goals,
                [*node.tactics, written],
                priority,
                node.depth + 1,
            )
            nodes += 1
            heapq.heappush(frontier, (-priority, child.id, child))
    return SearchResult(None, last_check, iteration, nodes, expansions, stop_reason)


def _select(frontier: list[tuple[float, int, Node]], rate: float, rng: random.Random) -> Node:
    if len(frontier) > 1 and rng.random() < rate:
        index = rng.randrange(len(frontier))
        frontier[index], frontier[-1] = frontier[-1], frontier[index]
        _, _, node = frontier.pop()
        heapq.heapify(frontier)
        return node
    return heapq.heappop(frontier)[2]


def _candidates(
    policy: ChatPolicyBase | None, problem: Problem, node: Node, config: SearchConfig
) -> list[tuple[str, float, str]]:
    """(tactic, log-prior, source) for one node: model proposals first, then the portfolio."""
    found: dict[str, tuple[float, str]] = {}
    if policy is not None and config.model_samples > 0:
        for tactic, logprob in propose_tactics(policy, node.goals, config):
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
            "tactics": result.proof.splitlines() if result.proof else None,
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
