"""What the console's templates show for a run (shared by the page, the htmx endpoints and
the websocket pushes, so all three render the same thing)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from webapp.console.charts import charts_for
from webapp.console.lineage import lineage_context
from webapp.console.models import TrainingRun


def plot_names(run: TrainingRun) -> list[str]:
    """PNG files training drew for the run (only names: the plot view serves them)."""
    if not run.output_dir:
        return []
    folder = Path(run.output_dir) / "plots"
    return sorted(p.name for p in folder.glob("*.png")) if folder.is_dir() else []


def run_context(run: TrainingRun) -> dict[str, Any]:
    rows = list(run.metrics.values_list("step", "values"))
    latest = rows[-1][1] if rows else {}
    return {
        "run": run,
        "charts": charts_for(rows),
        "latest": {k: v for k, v in latest.items() if k != "time"},
        "n_records": len(rows),
        "plots": plot_names(run),
        "lineage": lineage_context(run),
    }
