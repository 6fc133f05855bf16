"""The web layer's one boundary to the prover: tutor.prover.service.run_prover.

The Celery task calls `run(problem, mode, on_event, should_cancel)` and gets a ProverOutcome
back, never an exception: when Lean or the model is unavailable the outcome says so (`error`)
and carries no verdict. The service caches its policy per worker process (one model load per
process, reloaded when a new checkpoint is promoted). The model comes from the worker's
environment (LEANCOACH_PROVER_MODEL, LEANCOACH_SERVING_CHECKPOINT; see the service).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings

logger = logging.getLogger(__name__)

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


def run(
    problem: dict[str, Any],
    mode: str,
    on_event: Callable[[dict[str, Any]], None],
    should_cancel: Callable[[], bool],
    algorithm: str = "",
) -> ProverOutcome:
    from tutor.prover.problem import Problem
    from tutor.prover.service import ProverConfig, run_prover

    def forward(event: Any) -> None:
        on_event(event.to_dict() if hasattr(event, "to_dict") else dict(event))

    model, notice = prover_model_spec()
    if notice:
        on_event({"type": "notice", "text": notice})
    try:
        result = run_prover(
            Problem.from_dict(problem),
            ProverConfig(mode=mode, n=1, model=model, search=search_config(algorithm)),
            forward,
            should_cancel,
        )
    except Exception as exc:  # noqa: BLE001 - out of memory, a bug below: end the run visibly
        logger.exception("prover run failed")
        return ProverOutcome(error=f"the prover failed: {type(exc).__name__}: {exc}")
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
    return "smollm2", (
        "No trained prover model serves yet, so this run uses the base SmolLM2-135M, which has "
        "not learned the tool protocol. `python manage.py prepare_prover_model` (run once by "
        "`make run`) fine-tunes it on the starter course and puts it into serving."
    )


def outcome_from_result(result: Any) -> ProverOutcome:
    """tutor.prover.service.ProverResult -> ProverOutcome (the best attempt's trajectory)."""
    if not result.ok:
        return ProverOutcome(
            error=result.error or "the prover could not run", elapsed_s=result.elapsed_s
        )
    best = max(result.trajectories, key=lambda t: VERDICT_RANK.get(str(t.verdict), 0), default=None)
    trajectory = best.to_dict() if best is not None else None
    search = (trajectory or {}).get("search") or {}
    # Exploration paths for monitoring: how many expansions the search made.
    expansions = search.get("expansions")
    if isinstance(expansions, list):
        expansions = len(expansions)
    return ProverOutcome(
        verdict=str(result.verdict),
        trajectory=trajectory,
        final_proof=result.proof or (trajectory or {}).get("final_proof"),
        stop_reason=str((trajectory or {}).get("stop_reason", "")),
        elapsed_s=float(result.elapsed_s),
        expansions=int(expansions) if isinstance(expansions, (int, float)) else None,
        cancelled=bool(result.cancelled),
        extra={
            "n_valid": result.n_valid,
            "attempts": len(result.trajectories),
            "nodes": search.get("nodes"),
        },  # fmt: skip
    )
