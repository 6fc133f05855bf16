"""What the console's templates show for a run (shared by the page, the htmx endpoints and
the websocket pushes, so all three render the same thing)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.utils import timezone

from webapp.console.charts import charts_for
from webapp.console.lineage import lineage_context
from webapp.console.models import RunLineage, TrainingRun

HELD_OUT_KEY = "eval/pass@1"


def plot_names(run: TrainingRun) -> list[str]:
    """PNG files training drew for the run (only names: the plot view serves them)."""
    if not run.output_dir:
        return []
    folder = Path(run.output_dir) / "plots"
    return sorted(p.name for p in folder.glob("*.png")) if folder.is_dir() else []


@dataclass
class Headline:
    """The few figures an admin acts on, at the top of the run page."""

    phase: str
    elapsed: timedelta | None
    remaining: timedelta | None
    loss: float | None
    reward: float | None
    held_out: float | None  # this run's latest pass@1 on its held-out problems
    serving_held_out: float | None  # the serving checkpoint's, as its evaluation recorded
    serving_path: str


def _latest(rows: list[tuple[int, dict[str, Any], Any]], key: str) -> float | None:
    for _, values, _ in reversed(rows):
        value = values.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    return None


def _phase(run: TrainingRun) -> str:
    """Beside the status badge: what an active run is doing (an ended one: the badge says it)."""
    if not run.is_active:
        return ""
    if run.status == TrainingRun.Status.QUEUED:
        return "waiting for a training worker"
    return run.phase


def _remaining(run: TrainingRun, rows: list[tuple[int, dict[str, Any], Any]]) -> timedelta | None:
    """From the pace of the steps so far (first to last record: loading is not counted)."""
    if not run.is_active or len(rows) < 2 or run.step >= run.steps:
        return None
    (step0, _, at0), (step1, _, at1) = rows[0], rows[-1]
    if step1 <= step0:
        return None
    per_step = (at1 - at0) / (step1 - step0)
    return per_step * (run.steps - run.step)


def _serving_evaluation() -> tuple[float | None, str]:
    from webapp.console import training_bridge

    try:
        state = training_bridge.serving_state()
    except (OSError, ValueError):
        return None, ""
    if state is None:
        return None, ""
    evaluation = training_bridge.checkpoint_evaluation(state["path"])
    value = evaluation.get("pass@1", evaluation.get(HELD_OUT_KEY))
    return (float(value) if isinstance(value, (int, float)) else None), state["path"]


def _held_out(run: TrainingRun, rows: list[tuple[int, dict[str, Any], Any]]) -> float | None:
    """The latest held-out pass@1 the run reported, else its checkpoint's recorded one."""
    latest = _latest(rows, HELD_OUT_KEY)
    if latest is not None or not run.checkpoint:
        return latest
    from django.conf import settings

    from webapp.console import training_bridge

    try:
        rel = str(
            Path(run.checkpoint).resolve().relative_to(Path(settings.CHECKPOINT_ROOT).resolve())
        )
    except ValueError:
        return None
    value = training_bridge.checkpoint_evaluation(rel).get("pass@1")
    return float(value) if isinstance(value, (int, float)) else None


def headline(run: TrainingRun, rows: list[tuple[int, dict[str, Any], Any]]) -> Headline:
    end = run.finished_at or timezone.now()
    serving_value, serving_path = _serving_evaluation()
    return Headline(
        phase=_phase(run),
        elapsed=(end - run.started_at) if run.started_at else None,
        remaining=_remaining(run, rows),
        loss=_latest(rows, "loss"),
        reward=_latest(rows, "reward"),
        held_out=_held_out(run, rows),
        serving_held_out=serving_value,
        serving_path=serving_path,
    )


def run_context(run: TrainingRun) -> dict[str, Any]:
    rows = list(run.metrics.values_list("step", "values", "created_at"))
    charts, figures = charts_for([(step, values) for step, values, _ in rows], limit=12)
    return {
        "run": run,
        "headline": headline(run, rows),
        "charts": charts,
        "figures": figures,
        "n_records": len(rows),
        "plots": plot_names(run),
        "lineage": lineage_context(run),
    }


# --- checkpoints --------------------------------------------------------------------------

RUN_NAME = re.compile(r"^console-(\d+)$")


def run_of_checkpoint(run_name: str, rel_path: str) -> TrainingRun | None:
    """The console run that wrote a checkpoint: its registry run folder is the run's name
    (console-<pk>); a checkpoint registered under another name (the default prover's) is
    found by the path its run recorded."""
    match = RUN_NAME.match(run_name)
    if match:
        run = TrainingRun.objects.filter(pk=int(match.group(1))).first()
        if run is not None:
            return run
    return TrainingRun.objects.filter(checkpoint__endswith=rel_path).order_by("-pk").first()


@dataclass
class GateVerdict:
    """What the made-by run's gate said about a checkpoint, in one sentence."""

    kind: str  # "promoted", "refused", "other-candidate", "not-gated", "unknown"
    text: str
    reason: str = ""  # the gate's own words, when it judged this checkpoint


def gate_verdict(run: TrainingRun | None, rel_path: str) -> GateVerdict:
    if run is None:
        return GateVerdict("unknown", "no console run is recorded for this checkpoint")
    lineage = RunLineage.objects.filter(run=run).first()
    if lineage is None or (not lineage.gate and run.algorithm != run.Algorithm.CONTINUAL):
        return GateVerdict(
            "not-gated",
            f"not gated ({run.get_algorithm_display()} from the console): serves only when "
            "an admin promotes it",
        )
    candidate = str(lineage.gate.get("checkpoint", "")) or run.checkpoint
    if candidate and not candidate.rstrip("/").endswith(rel_path):
        return GateVerdict(
            "other-candidate",
            f"its run's gate judged another checkpoint ({Path(candidate).name}), not this one",
        )
    if lineage.promoted:
        return GateVerdict("promoted", f"passed the gate: {lineage.reason}", lineage.reason)
    reason = lineage.reason or "no decision recorded (the run did not reach its gate)"
    return GateVerdict("refused", f"refused by the gate: {reason}", reason)


@dataclass
class CheckpointView:
    row: Any  # training_bridge.CheckpointRow
    run: TrainingRun | None
    gate: GateVerdict


def checkpoint_views() -> list[CheckpointView]:
    from webapp.console import training_bridge

    views = []
    for row in training_bridge.list_checkpoints():
        run = run_of_checkpoint(row.run, row.rel_path)
        views.append(CheckpointView(row, run, gate_verdict(run, row.rel_path)))
    return views


def serving_context() -> dict[str, Any] | None:
    """The serving slot, with the run that made the serving checkpoint (its lineage)."""
    from webapp.console import training_bridge

    state = training_bridge.serving_state()
    if state is None:
        return None
    folder = Path(state["path"]).parent.name  # runs/<run>/<step>
    return {**state, "run": run_of_checkpoint(folder, state["path"])}
