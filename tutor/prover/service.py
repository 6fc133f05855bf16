"""Worker-side entry point for a prover run (the web layer's Celery task calls this).

    result = run_prover(problem, ProverConfig(mode="agent", n=4), on_event, should_cancel)

One model load per worker process: policies are cached by (backend, model, device) and
reused across tasks; a policy loaded from the serving slot reloads itself between runs
when a new checkpoint is promoted. Cancellation is cooperative: `should_cancel()` is
polled between model turns and search expansions; a cancelled run returns what it has,
marked cancelled. Lean being unavailable fails the run with that reason; no verdict is
ever made up.

Environment: LEANCOACH_PROVER_MODEL (a model spec, see policy/models.py; default: the
serving slot LEANCOACH_SERVING_CHECKPOINT if set, else "smollm2"), LEANCOACH_PROVER_BACKEND
("hf" | "vllm", default hf), LEANCOACH_PROVER_DEVICE ("auto" | "cpu" | "cuda", default auto).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tutor.prover.agent import AgentConfig, rollout
from tutor.prover.events import EventCallback
from tutor.prover.policy import SERVING_ENV, SMOLLM2, Policy, load_policy
from tutor.prover.problem import Problem
from tutor.prover.search import SearchConfig, search
from tutor.prover.trajectory import Trajectory, Verdict
from tutor.prover.verify import ProofChecker

log = logging.getLogger(__name__)

MODES = ("agent", "search")
_VERDICT_RANK = {
    Verdict.VALID: 3,
    Verdict.INVALID: 2,
    Verdict.COULD_NOT_CHECK: 1,
    Verdict.NO_PROOF: 0,
}


@dataclass(frozen=True)
class ProverConfig:
    mode: str = "agent"  # "agent" (whole proofs with tools) | "search" (step-level)
    n: int = 1  # parallel attempts (pass@n)
    model: str | None = None  # model spec; None: from the environment (module docstring)
    backend: str | None = None  # "hf" | "vllm"; None: LEANCOACH_PROVER_BACKEND or hf
    device: str | None = None  # HF device; None: LEANCOACH_PROVER_DEVICE or auto
    agent: AgentConfig = field(default_factory=AgentConfig)
    search: SearchConfig = field(default_factory=SearchConfig)
    coach_source: str | None = None  # a tutor.coach source name for feedback, or None

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {self.mode!r}")
        if not 1 <= self.n <= 64:
            raise ValueError("n must be between 1 and 64 attempts")

    def resolved_model(self) -> str | None:
        if self.model:
            return self.model
        if os.environ.get("LEANCOACH_PROVER_MODEL"):
            return os.environ["LEANCOACH_PROVER_MODEL"]
        return None if os.environ.get(SERVING_ENV) else SMOLLM2

    def resolved_backend(self) -> str:
        return self.backend or os.environ.get("LEANCOACH_PROVER_BACKEND", "hf")

    def resolved_device(self) -> str:
        return self.device or os.environ.get("LEANCOACH_PROVER_DEVICE", "auto")


@dataclass
class ProverResult:
    """The outcome of one run. ok is False when the run could not take place (error says
    why); a run that took place but proved nothing is ok with verdict != "valid"."""

    ok: bool
    verdict: str  # the best verdict over the attempts
    proof: str | None = None  # a verified proof, when verdict is valid
    trajectories: list[Trajectory] = field(default_factory=list)
    error: str | None = None
    cancelled: bool = False
    elapsed_s: float = 0.0
    n_valid: int = 0  # attempts with a verified proof (pass@n numerator)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "verdict": self.verdict,
            "proof": self.proof,
            "trajectories": [t.to_dict() for t in self.trajectories],
            "error": self.error,
            "cancelled": self.cancelled,
            "elapsed_s": self.elapsed_s,
            "n_valid": self.n_valid,
        }


_cache_lock = threading.Lock()
_policies: dict[tuple[str, str | None, str], Policy] = {}


def get_policy(model: str | None, backend: str = "hf", device: str = "auto") -> Policy:
    """The process-wide policy for (backend, model, device), loaded on first use."""
    key = (backend, model, device)
    with _cache_lock:
        policy = _policies.get(key)
        if policy is None:
            options = {"device": device} if backend == "hf" else {}
            policy = load_policy(model, backend=backend, **options)
            _policies[key] = policy
        return policy


def clear_policy_cache() -> None:
    with _cache_lock:
        _policies.clear()


def run_prover(
    problem: Problem,
    config: ProverConfig | None = None,
    on_event: EventCallback | None = None,
    should_cancel: Callable[[], bool] | None = None,
    *,
    checker: Any | None = None,
    policy: Policy | None = None,
    coach: Any | None = None,
) -> ProverResult:
    """Run the prover on one problem. checker / policy / coach default to the worker's
    shared ones (tutor.lean.get_checker(), the cached policy, make_coach(coach_source))."""
    config = config or ProverConfig()
    started = time.monotonic()
    if checker is None:
        from tutor.lean import get_checker

        checker = get_checker()
    unavailable = getattr(checker, "unavailable_reason", None)
    if unavailable:
        return _failed(f"Lean is unavailable: {unavailable}", started)
    try:
        policy = policy or get_policy(
            config.resolved_model(), config.resolved_backend(), config.resolved_device()
        )
    except (FileNotFoundError, ImportError, ValueError, OSError) as exc:
        return _failed(f"the prover model could not be loaded: {exc}", started)
    if coach is None and config.coach_source:
        coach = _make_coach(config.coach_source)
    trajectories = _run_mode(problem, config, policy, checker, coach, on_event, should_cancel)
    cancelled = bool(should_cancel and should_cancel()) or any(
        t.stop_reason == "cancelled" for t in trajectories
    )
    return summarise(trajectories, started, cancelled)


def _run_mode(
    problem: Problem,
    config: ProverConfig,
    policy: Policy,
    checker: ProofChecker,
    coach: Any | None,
    on_event: EventCallback | None,
    should_cancel: Callable[[], bool] | None,
) -> list[Trajectory]:
    from tutor.prover.lean_adapter import lean_tactic_backend, lean_tools_factory

    if config.mode == "agent":
        return rollout(
            policy,  # type: ignore[arg-type]
            [problem],
            n=config.n,
            config=config.agent,
            checker=checker,
            tools_factory=lean_tools_factory(checker),  # type: ignore[arg-type]
            coach=coach,
            on_event=on_event,
            should_cancel=should_cancel,
        )
    return search(
        policy,  # type: ignore[arg-type]
        [problem],
        n=config.n,
        config=config.search,
        checker=checker,
        backend_factory=lean_tactic_backend(checker),  # type: ignore[arg-type]
        on_event=on_event,
        should_cancel=should_cancel,
    )


def summarise(trajectories: list[Trajectory], started: float, cancelled: bool) -> ProverResult:
    best = max(
        trajectories, key=lambda t: _VERDICT_RANK[t.verdict], default=None
    )  # valid > invalid > could not check > no proof
    valid = [t for t in trajectories if t.verdict is Verdict.VALID]
    return ProverResult(
        ok=True,
        verdict=str(best.verdict) if best else str(Verdict.NO_PROOF),
        proof=valid[0].final_proof if valid else None,
        trajectories=trajectories,
        cancelled=cancelled,
        elapsed_s=time.monotonic() - started,
        n_valid=len(valid),
    )


def _failed(reason: str, started: float) -> ProverResult:
    return ProverResult(
        ok=False,
        verdict=str(Verdict.COULD_NOT_CHECK),
        error=reason,
        elapsed_s=time.monotonic() - started,
    )


def _make_coach(source: str) -> Any | None:
    try:
        from tutor.coach import make_coach
    except ImportError:
        log.warning("tutor.coach.make_coach is not available; running without a coach")
        return None
    try:
        return make_coach(source)
    except Exception as exc:  # e.g. CoachUnavailable: no API key. Prove without feedback.
        log.warning("coach %r unavailable, running without feedback: %s", source, exc)
        return None
