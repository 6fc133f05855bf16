"""Seed 000's monitoring: proof success rate, feedback latency, exploration paths, and the
alert when the success rate falls under 60%.

Definitions (also in docs/CONSOLE.md):

- Proof success rate: among the last WINDOW_RUNS (50) prover runs that ended with a checked
  verdict (valid, invalid or no_proof), the share that are valid. Runs that failed, were
  cancelled, or ended "could not check" (Lean unavailable or timed out) have no verdict and
  are left out: a missing checker is not a wrong proof. The students' own success rate
  (valid attempts among the last 100 checked) is shown beside it, for information only:
  learners failing is expected and raises no alert.
- Alert: when at least MIN_RUNS (10) runs are in the window and the rate is under 60%. It is
  shown on every console page and logged at WARNING (logger webapp.console.monitoring) each
  time a prover run ends while the rate is under the threshold.
- Feedback latency: for the last 100 finished student attempts, submit to the end of the
  check (Lean + coach), p50 and p95, against seed 000's bar of 500 ms.
- Exploration paths: search-mode prover runs record their expansions (nodes the search
  explored); shown as the mean over the last 50 search runs against the mean of the first 50
  (seed 000 expects growth past 3x the initial value).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from statistics import mean
from typing import Any

from webapp.provers.models import ProverRun

logger = logging.getLogger(__name__)

WINDOW_RUNS = 50
MIN_RUNS = 10
SUCCESS_THRESHOLD = 0.60
LATENCY_WINDOW = 100
LATENCY_TARGET_MS = 500
EXPLORATION_WINDOW = 50
CHECKED_VERDICTS = ("valid", "invalid", "no_proof")


@dataclass
class SuccessRate:
    valid: int
    total: int
    threshold: float = SUCCESS_THRESHOLD
    min_runs: int = MIN_RUNS

    @property
    def rate(self) -> float | None:
        return self.valid / self.total if self.total else None

    @property
    def enough_data(self) -> bool:
        return self.total >= self.min_runs

    @property
    def alert(self) -> bool:
        return self.enough_data and self.rate is not None and self.rate < self.threshold

    @property
    def percent(self) -> int | None:
        return None if self.rate is None else round(100 * self.rate)


@dataclass
class Latency:
    n: int
    p50_ms: float | None
    p95_ms: float | None
    target_ms: int = LATENCY_TARGET_MS

    @property
    def over_target(self) -> bool:
        return self.p95_ms is not None and self.p95_ms > self.target_ms


@dataclass
class Exploration:
    recent_mean: float | None
    initial_mean: float | None
    n_recent: int

    @property
    def ratio(self) -> float | None:
        if self.recent_mean is None or not self.initial_mean:
            return None
        return self.recent_mean / self.initial_mean


def prover_success_rate() -> SuccessRate:
    verdicts = list(
        ProverRun.objects.filter(status=ProverRun.Status.FINISHED, verdict__in=CHECKED_VERDICTS)
        .order_by("-finished_at", "-pk")
        .values_list("verdict", flat=True)[:WINDOW_RUNS]
    )
    return SuccessRate(valid=sum(v == "valid" for v in verdicts), total=len(verdicts))


def student_success_rate() -> SuccessRate:
    from webapp.attempts.models import Attempt

    valid = list(
        Attempt.objects.filter(valid__isnull=False)
        .order_by("-created_at", "-pk")
        .values_list("valid", flat=True)[:100]
    )
    return SuccessRate(valid=sum(bool(v) for v in valid), total=len(valid))


def _percentile(sorted_values: list[float], q: float) -> float:
    index = min(len(sorted_values) - 1, max(0, round(q * (len(sorted_values) - 1))))
    return sorted_values[index]


def feedback_latency() -> Latency:
    from webapp.attempts.models import Attempt

    rows = (
        Attempt.objects.filter(status=Attempt.Status.DONE, finished_at__isnull=False)
        .order_by("-created_at", "-pk")
        .values_list("created_at", "finished_at")[:LATENCY_WINDOW]
    )
    values = sorted((done - start).total_seconds() * 1000 for start, done in rows if done)
    if not values:
        return Latency(0, None, None)
    return Latency(len(values), _percentile(values, 0.5), _percentile(values, 0.95))


def _expansions(result: dict[str, Any]) -> float | None:
    value = result.get("expansions")
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def exploration_paths() -> Exploration:
    search = ProverRun.objects.filter(
        status=ProverRun.Status.FINISHED, mode=ProverRun.Mode.SEARCH
    ).exclude(result={})
    recent = [e for r in search.order_by("-finished_at", "-pk")[:EXPLORATION_WINDOW]
              if (e := _expansions(r.result)) is not None]  # fmt: skip
    initial = [e for r in search.order_by("finished_at", "pk")[:EXPLORATION_WINDOW]
               if (e := _expansions(r.result)) is not None]  # fmt: skip
    return Exploration(
        recent_mean=mean(recent) if recent else None,
        initial_mean=mean(initial) if initial else None,
        n_recent=len(recent),
    )


def snapshot() -> dict[str, Any]:
    """Everything the monitoring panel shows."""
    return {
        "prover": prover_success_rate(),
        "students": student_success_rate(),
        "latency": feedback_latency(),
        "exploration": exploration_paths(),
    }


def log_success_alert() -> SuccessRate:
    """Log a WARNING when the prover's success rate is under the threshold; returns the rate."""
    rate = prover_success_rate()
    if rate.alert:
        logger.warning(
            "ALERT proof success rate %d%% (%d of the last %d checked prover runs) is under %d%%",
            rate.percent,
            rate.valid,
            rate.total,
            round(100 * rate.threshold),
        )
    return rate
