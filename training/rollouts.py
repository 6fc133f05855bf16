"""The one rollout path FD and GRPO share: the prover's agent loop on the live policy.

A rollout function takes problems, a number of samples per problem and a temperature, and
returns trajectories grouped consecutively (all samples of problem 0, then problem 1, ...),
which is the layout group_advantages expects. The default comes from the prover
(tutor.prover) driving the *training* model in memory through its HF policy, in the Lean tool
environment of tutor.lean; tests pass a checker pointed at the REPL test double.

Coach feedback is attached here too (`attach_feedback`), because FD and the mixed mode both
need it per rollout, and the snapshot path (continual distillation) brings it ready-made.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

import torch

from tutor.lean.types import Diagnostic
from tutor.prover.problem import Problem
from tutor.prover.trajectory import Trajectory

log = logging.getLogger(__name__)


class RolloutFn(Protocol):
    """problems, samples per problem, temperature -> trajectories, problem-major.

    seed: the sampling seed of this call. The trainer derives it from the run's seed, the
    step and the rank (training.session.rollout_seed), and evaluation from the run's seed
    alone, so a resumed run samples what the uninterrupted one did and every evaluation
    draws the same samples (the gate compares checkpoints on the same draws). None:
    unseeded (the generator's global state)."""

    def __call__(
        self,
        problems: Sequence[Problem],
        samples: int,
        temperature: float,
        *,
        seed: int | None = None,
    ) -> list[Trajectory]: ...


def _agent_config(model_config: Any, temperature: float, seed: int | None) -> Any:
    """The agent's limits for one rollout call, sampled from `seed` (the agent offsets it
    per turn and attempt)."""
    from tutor.prover.agent import AgentConfig

    return AgentConfig(
        max_turns=model_config.max_turns,
        max_turn_tokens=model_config.max_new_tokens,
        max_total_tokens=model_config.max_total_tokens,
        temperature=temperature,
        top_p=model_config.top_p,
        seed=seed,
    )


def prover_rollout(
    model: Any,
    tokenizer: Any,
    *,
    checker: Any,
    tools_factory: Any,
    model_config: Any,
    name: str = "training-policy",
) -> RolloutFn:
    """Rollouts by the prover's agent (tutor.prover.agent.rollout) on the in-memory model.

    model/tokenizer: the live policy (its weights change every step; nothing is reloaded).
    checker: gives the final verdict (tutor.lean.checker.LeanChecker; in tests, one whose
    REPL is the test double). tools_factory(problem, attempt) -> the attempt's tool workspace.
    Each call samples from the seed it is given (RolloutFn): no counter lives here, so
    nothing needs saving for a resumed run to sample the same trajectories.
    """
    from tutor.prover.agent import rollout as agent_rollout
    from tutor.prover.policy.hf import HFPolicy

    policy = HFPolicy(model, tokenizer, name=name)

    def rollout(
        problems: Sequence[Problem], samples: int, temperature: float, *, seed: int | None = None
    ) -> list[Trajectory]:
        config = _agent_config(model_config, temperature, seed)
        was_training = model.training
        model.eval()
        try:
            return agent_rollout(
                policy,
                list(problems),
                n=samples,
                config=config,
                checker=checker,
                tools_factory=tools_factory,
            )
        finally:
            model.train(was_training)

    return rollout


def vllm_rollout(
    model: Any,
    tokenizer: Any,
    *,
    checker: Any,
    tools_factory: Any,
    model_config: Any,
    engine_seed: int = 0,
    world_size: int = 1,
    rank: int = 0,
    policy: Any = None,
    engine: Any = None,
) -> RolloutFn:
    """Rollouts on GPU hosts through a vLLM engine colocated with this training rank.

    The engine starts once (training.vllm_sync.start_colocated_engine: external_launcher
    under torchrun, sleep mode, model.vllm_gpu_memory_utilization of the GPU); before each
    rollout call it wakes up and, when the trainer has taken model.vllm_sync_every optimizer
    steps since the last load, the live weights are streamed into it in place
    (InPlaceSync); after the call it sleeps so the trainer gets its memory back. The
    sampler's per-token log-probs (after temperature and top-p) go into the trajectories for
    GRPO's importance-sampling correction. policy/engine: given by tests (a fake engine);
    otherwise a real vllm.LLM is started. The returned function has a `sync` attribute that
    optimizer_step marks stale.
    """
    from training.vllm_sync import InPlaceSync, VLLMEngine, start_colocated_engine

    if model_config.vllm_mode == "server":
        return vllm_server_rollout(
            model,
            tokenizer,
            checker=checker,
            tools_factory=tools_factory,
            model_config=model_config,
        )
    if policy is None or engine is None:
        from tutor.prover.policy.vllm import VLLMPolicy

        llm = start_colocated_engine(
            model_config, world_size=world_size, rank=rank, seed=engine_seed
        )
        policy, engine = VLLMPolicy.around(llm, tokenizer), VLLMEngine(llm)
    sync = InPlaceSync(
        engine, model, getattr(torch, model_config.dtype), every=model_config.vllm_sync_every
    )
    return _synced_rollout(policy, sync, checker, tools_factory, model_config)


def vllm_server_rollout(
    model: Any,
    tokenizer: Any,
    *,
    checker: Any,
    tools_factory: Any,
    model_config: Any,
    engine_factory: Any = None,
) -> RolloutFn:
    """Rollouts sampled by a separate vLLM server (model.vllm_mode: server;
    training/vllm_server.py): the same agent loop and trajectories as colocated, the
    policy's calls go to the server's /v1/completions, and the live weights are pushed to
    it (ServerSync, through vLLM's trainer-side NCCL engine) before the first rollout after
    model.vllm_sync_every optimizer steps. engine_factory: tests pass a fake transfer
    engine; default vLLM's (GPU hosts). An unreachable server raises
    VLLMServerUnreachable here, at start."""
    from training.vllm_server import ServerClient, ServerPolicy, ServerSync

    client = ServerClient(model_config.vllm_server_url, model_config.vllm_server_timeout_s)
    policy = ServerPolicy(client, tokenizer)
    sync = ServerSync(
        client,
        model,
        getattr(torch, model_config.dtype),
        engine_factory,
        every=model_config.vllm_sync_every,
    )
    return _synced_rollout(policy, sync, checker, tools_factory, model_config)


def _synced_rollout(
    policy: Any, sync: Any, checker: Any, tools_factory: Any, model_config: Any
) -> RolloutFn:
    """The agent's rollouts on `policy`, with sync.before_rollout() / after_rollout() around
    each call; `rollout.sync` is what optimizer_step marks stale."""
    from tutor.prover.agent import rollout as agent_rollout

    def rollout(
        problems: Sequence[Problem], samples: int, temperature: float, *, seed: int | None = None
    ) -> list[Trajectory]:
        config = _agent_config(model_config, temperature, seed)
        sync.before_rollout()
        try:
            return agent_rollout(
                policy,
                list(problems),
                n=samples,
                config=config,
                checker=checker,
                tools_factory=tools_factory,
            )
        finally:
            sync.after_rollout()

    rollout.sync = sync  # type: ignore[attr-defined]
    return rollout


# --- coach feedback ---------------------------------------------------------------------


@dataclass
class FeedbackOutcome:
    """attach_feedback's result: which trajectories got feedback, what failed, and where the
    feedback came from (so an `llm` run that quietly became a `compiler` run shows)."""

    with_feedback: list[Trajectory]
    texts: list[str]
    failures: list[str] = field(default_factory=list)
    sources: dict[str, int] = field(default_factory=dict)  # producing source -> count
    fallbacks: int = 0  # answers where the requested source fell back (e.g. llm -> compiler)
    dropped_fallbacks: int = 0  # fallbacks left out of the batch (coach.drop_fallback)
    latencies_s: list[float] = field(default_factory=list)  # per coach call made

    def metrics(self) -> dict[str, float]:
        """Per-step figures: calls, failures, fallback rate, latency, source mix."""
        calls = len(self.latencies_s)
        answered = sum(self.sources.values())
        out = {
            "coach_calls": float(calls),
            "coach_failures": float(len(self.failures)),
            "coach_fallbacks": float(self.fallbacks),
            "coach_fallback_rate": self.fallbacks / answered if answered else 0.0,
            "coach_dropped_fallbacks": float(self.dropped_fallbacks),
            "coach_latency_s": sum(self.latencies_s) / calls if calls else 0.0,
            "coach_latency_max_s": max(self.latencies_s, default=0.0),
        }
        # Every known source gets a figure (0 too), so all ranks reduce the same keys.
        from training.config import COACH_SOURCES

        for source in sorted({*COACH_SOURCES, *self.sources}):
            out[f"coach_source/{source}"] = float(self.sources.get(source, 0))
        return out


@dataclass
class _Answer:
    feedback: Any = None
    error: str | None = None
    latency_s: float = 0.0


def _ask(coach: Any, trajectory: Trajectory, problem: Problem | None) -> _Answer:
    started = time.perf_counter()
    try:
        feedback = coach.advise(
            trajectory.statement,
            _attempt_text(trajectory),
            _diagnostics(trajectory),
            reference_proof=problem.reference_proof if problem else None,
        )
    except Exception as exc:  # noqa: BLE001 - one bad call must not end the run
        return _Answer(
            error=f"{type(exc).__name__}: {exc}", latency_s=time.perf_counter() - started
        )
    return _Answer(feedback=feedback, latency_s=time.perf_counter() - started)


def attach_feedback(
    coach: Any,
    trajectories: Sequence[Trajectory],
    problems_by_id: dict[str, Problem] | None = None,
    *,
    max_workers: int = 1,
    drop_fallback: bool = False,
) -> FeedbackOutcome:
    """Ask the coach about each rollout: (statement, the rollout's final proof, Lean's messages).

    Calls run in a pool of at most max_workers threads (coach.concurrency: the paper's 128
    or 640 calls per step are network-bound), answers kept in the trajectories' order. The
    LLM coach's own cache (tutor.coach.cache) still answers repeats without a call.
    A trajectory that already carries feedback (snapshot data: teacher-approved) keeps it.
    A coach error drops that trajectory from the FD batch and is counted and logged; nothing
    is invented in its place. A fallback (the llm source could not answer, the compiler rules
    did) is counted; with drop_fallback it is left out of the batch too.
    """
    from tutor.coach.types import Feedback

    by_id = problems_by_id or {}
    asking = [t for t in trajectories if t.feedback is None]
    if max_workers > 1 and len(asking) > 1:
        with ThreadPoolExecutor(max_workers=min(max_workers, len(asking))) as pool:
            answers = list(pool.map(lambda t: _ask(coach, t, by_id.get(t.problem_id)), asking))
    else:
        answers = [_ask(coach, t, by_id.get(t.problem_id)) for t in asking]
    answer_of = {id(t): a for t, a in zip(asking, answers, strict=True)}

    outcome = FeedbackOutcome([], [])
    for trajectory in trajectories:
        answer = answer_of.get(id(trajectory))
        if answer is not None:
            outcome.latencies_s.append(answer.latency_s)
            if answer.error is not None:
                outcome.failures.append(f"{trajectory.problem_id}: {answer.error}")
                continue
            trajectory.feedback = answer.feedback.to_dict()
        feedback = Feedback.from_dict(trajectory.feedback or {})
        outcome.sources[feedback.source] = outcome.sources.get(feedback.source, 0) + 1
        if feedback.fell_back:
            outcome.fallbacks += 1
            if drop_fallback:
                outcome.dropped_fallbacks += 1
                continue
        outcome.with_feedback.append(trajectory)
        outcome.texts.append(feedback.as_text())
    if outcome.failures:
        log.warning(
            "coach failed on %d of %d trajectories (left out of the FD batch), e.g. %s",
            len(outcome.failures), len(asking), outcome.failures[0],
        )  # fmt: skip
    return outcome


def _attempt_text(trajectory: Trajectory) -> str:
    if trajectory.final_proof:
        return trajectory.final_proof
    # No proof was submitted: the coach reads what the model wrote instead.
    return "\n".join(turn.text for turn in trajectory.turns)


def _diagnostics(trajectory: Trajectory) -> list[Diagnostic]:
    if not trajectory.check:
        return []
    return [Diagnostic.from_dict(d) for d in trajectory.check.get("diagnostics", [])]


def assistant_text(trajectory: Trajectory) -> str:
    return "\n".join(turn.text for turn in trajectory.turns)
