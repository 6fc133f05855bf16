"""The web layer's one boundary to the prover: tutor.prover.service.run_prover, run in a child
process of the worker (tutor.prover.host.ProverHost).

The Celery task calls `run(problem, mode, on_event, should_cancel)` and gets a ProverOutcome
back, never an exception: when Lean or the model is unavailable the outcome says so (`error`)
and carries no verdict. A cancel asks the child to stop and kills it if it has not within
CANCEL_GRACE_S (a model generation polls nothing), so a cancelled run's computing ends within
seconds. The child keeps its policy loaded between runs (one model load per child, reloaded
when a new checkpoint is promoted), and a new child starts after a kill. The model comes from
the worker's environment (LEANCOACH_PROVER_MODEL, LEANCOACH_SERVING_CHECKPOINT; see the
service), which the child inherits.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings

logger = logging.getLogger(__name__)

# After a cancel, how long the prover's child process gets to stop by itself before it is
# killed; with the task's cancel poll (0.5 s) a cancelled run ends within about 3 s.
CANCEL_GRACE_S = 2.0

VERDICT_RANK = {"valid": 3, "invalid": 2, "could_not_check": 1, "no_proof": 0}


@dataclass
class ProverOutcome:
    """How a prover run ended. `verdict` is "" whenever the run could not take place."""

    verdict: str = ""
    trajectory: dict[str, Any] | None = None
    final_proof: str | None = None
    stop_reason: str = ""
    elapsed_s: float = 0.0
    expansions: int | None = None
    cancelled: bool = False
    error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.error is None

    def summary(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "final_proof": self.final_proof,
            "stop_reason": self.stop_reason,
            "elapsed_s": round(self.elapsed_s, 3),
            "expansions": self.expansions,
            **self.extra,
        }


_host_lock = threading.Lock()
_host: Any = None  # this worker process's tutor.prover.host.ProverHost, started on first use


def prover_host() -> Any:
    global _host
    with _host_lock:
        if _host is None:
            from tutor.prover.host import ProverHost

            _host = ProverHost()
            atexit.register(_host.close)
        return _host


def stop_prover_host() -> None:
    """End this process's prover child (tests; a worker's exit closes it by itself)."""
    with _host_lock:
        if _host is not None:
            _host.close()


def run(
    problem: dict[str, Any],
    mode: str,
    on_event: Callable[[dict[str, Any]], None],
    should_cancel: Callable[[], bool],
    algorithm: str = "",
) -> ProverOutcome:
    model, notice = prover_model_spec()
    if notice:
        on_event({"type": "notice", "text": notice})
    search = search_config(algorithm)
    request = {
        "problem": problem,
        "mode": mode,
        "n": 1,
        "model": model,
        "search": {
            "algorithm": search.algorithm,
            "workers": search.workers,
            "max_iterations": search.max_iterations,
            "tree_store_url": search.tree_store_url,
        },
    }
    try:
        result = prover_host().run(request, on_event, should_cancel, grace_s=CANCEL_GRACE_S)
    except OSError as exc:  # the child could not be started or spoken to
        logger.exception("prover run failed")
        return ProverOutcome(error=f"the prover could not run: {type(exc).__name__}: {exc}")
    return outcome_from_result(result)


def search_config(algorithm: str) -> Any:
    """The search of a run: its algorithm ("" is best-first), the workers and budget from
    settings; several workers share the tree through Redis."""
    from tutor.prover.search import SearchConfig

    workers = max(1, int(settings.PROVER_SEARCH_WORKERS))
    return SearchConfig(
        algorithm=algorithm or "best_first",
        workers=workers,
        max_iterations=max(1, int(settings.PROVER_SEARCH_BUDGET)),
        tree_store_url=settings.REDIS_URL if workers > 1 else None,
    )


def prover_model_spec() -> tuple[str, str | None]:
    """(model spec, a note for the page or None). LEANCOACH_PROVER_MODEL wins; else the
    registry's serving slot, so that promotions reach this worker; else the base GGUF model,
    untrained for the tool protocol, which the page then says."""
    explicit = os.environ.get("LEANCOACH_PROVER_MODEL")
    if explicit:
        return explicit, None
    root = Path(settings.CHECKPOINT_ROOT)
    if (root / "serving.json").exists():
        return str(root), None
    # The page's words: no command, no file path (operators find those in docs/PROVER.md).
    return "smollm2", (
        "No trained prover model is ready yet, so this run uses the small base model, which "
        "has not learned to write proofs with Lean's tools: expect it to find nothing. The "
        "search prover, which also tries standard tactics, does better until the model is ready."
    )


def outcome_from_result(result: dict[str, Any]) -> ProverOutcome:
    """tutor.prover.service.ProverResult.to_dict(), as the prover's child process sends it
    (tutor.prover.host), -> ProverOutcome (the best attempt's trajectory)."""
    elapsed = float(result.get("elapsed_s") or 0.0)
    if not result.get("ok"):
        return ProverOutcome(
            error=result.get("error") or "the prover could not run", elapsed_s=elapsed
        )
    if result.get("killed"):
        stopped = result.get("stopped_after_s")
        return ProverOutcome(
            cancelled=True,
            stop_reason="cancelled",
            extra={"stopped_after_s": stopped, "process_ended": True},
        )
    trajectories = list(result.get("trajectories") or [])
    best = max(trajectories, key=lambda t: VERDICT_RANK.get(str(t.get("verdict")), 0), default=None)
    trajectory = dict(best) if best is not None else None
    search = (trajectory or {}).get("search") or {}
    # Exploration paths for monitoring: how many expansions the search made.
    expansions = search.get("expansions")
    if isinstance(expansions, list):
        expansions = len(expansions)
    extra = {"n_valid": result.get("n_valid", 0), "attempts": len(trajectories),
             "nodes": search.get("nodes")}  # fmt: skip
    if result.get("stopped_after_s") is not None:
        extra["stopped_after_s"] = result["stopped_after_s"]
    return ProverOutcome(
        verdict=str(result.get("verdict") or ""),
        trajectory=trajectory,
        final_proof=result.get("proof") or (trajectory or {}).get("final_proof"),
        stop_reason=str((trajectory or {}).get("stop_reason", "")),
        elapsed_s=elapsed,
        expansions=int(expansions) if isinstance(expansions, (int, float)) else None,
        cancelled=bool(result.get("cancelled")),
        extra=extra,
    )
