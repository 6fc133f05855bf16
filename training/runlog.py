"""Per-run metrics: a JSONL file, a callback (the web console passes one), PNG plots,
and the cooperative stop flag the console uses to end a run between steps.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MetricsCallback = Callable[[dict[str, Any]], None]


class StopFlag:
    """Set by another thread or process handler; trainers check it between steps.

    A file path may also be given: the run stops when that file appears (a Celery task in
    another process can touch it).
    """

    def __init__(self, stop_file: str | Path | None = None) -> None:
        self._event = threading.Event()
        self._stop_file = Path(stop_file) if stop_file else None

    def set(self) -> None:
        self._event.set()

    def is_set(self) -> bool:
        if self._stop_file is not None and self._stop_file.exists():
            self._event.set()
        return self._event.is_set()


@dataclass
class MetricsLogger:
    """Appends one JSON object per call to run_dir/metrics.jsonl and forwards it to callback.

    Every record carries "step", "stage" and "time". A failing callback is reported once in
    the record stream ("callback_error") and then ignored: a broken console must not kill a
    long training run.
    """

    run_dir: Path
    callback: MetricsCallback | None = None
    enabled: bool = True  # False on non-zero ranks
    _callback_failed: bool = field(default=False, init=False)

    def __post_init__(self) -> None:
        self.run_dir = Path(self.run_dir)
        if self.enabled:
            self.run_dir.mkdir(parents=True, exist_ok=True)

    @property
    def path(self) -> Path:
        return self.run_dir / "metrics.jsonl"

    def log(self, step: int, stage: str, metrics: Mapping[str, Any]) -> dict[str, Any]:
        record = {"step": step, "stage": stage, "time": time.time(), **_jsonable(metrics)}
        if not self.enabled:
            return record
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")
        if self.callback is not None and not self._callback_failed:
            try:
                self.callback(record)
            except Exception as exc:  # noqa: BLE001 - see class docstring
                self._callback_failed = True
                with self.path.open("a", encoding="utf-8") as handle:
                    handle.write(
                        json.dumps({"step": step, "stage": stage, "callback_error": repr(exc)})
                        + "\n"
                    )
        return record

    def plot(self) -> list[Path]:
        return plot_metrics(self.path, self.run_dir / "plots") if self.enabled else []


def _jsonable(metrics: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in metrics.items():
        if hasattr(value, "item"):
            value = value.item()
        if isinstance(value, float) and not math.isfinite(value):
            value = None if math.isnan(value) else str(value)
        out[key] = value
    return out


def read_metrics(path: str | Path) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


# The metrics docs/TRAINING.md ("What is measured") plots; the JSONL holds everything else
# (drawing a PNG costs ~0.1 s on a busy CPU, so not every counter gets one by default).
PLOTTED = (
    "loss",
    "reward",
    "entropy",
    "fd_kl",
    "grpo_loss",
    "response_length",
    "lemmas_discovered",
    "hedging_per_1k_words",
    "trajectories_seen",
    "tokens_per_s",
    "step_time_s",
    "could_not_check",
    "feedback_weight",
)


def _wanted(key: str) -> bool:
    return key in PLOTTED or key.startswith("eval/")


def plot_metrics(
    metrics_path: str | Path, out_dir: str | Path, everything: bool = False
) -> list[Path]:
    """One PNG per metric over steps (matplotlib Agg; no display needed): the metrics of
    PLOTTED and every eval/ metric, each only when its value changes over at least two points
    (a flat or one-point picture says less than its number); every numeric one with
    everything=True."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    records = read_metrics(metrics_path)
    series: dict[str, list[tuple[int, float]]] = {}
    for record in records:
        for key, value in record.items():
            if (
                key in ("step", "time")
                or isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not (everything or _wanted(key))
            ):
                continue
            series.setdefault(key, []).append((int(record["step"]), float(value)))
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for key, points in sorted(series.items()):
        if not everything and not (_wanted(key) and _informative(points)):
            continue
        fig, ax = plt.subplots(figsize=(5, 3))
        ax.plot(
            [p[0] for p in points], [p[1] for p in points], marker="." if len(points) < 50 else None
        )
        ax.set_xlabel("step")
        ax.set_title(key)
        fig.subplots_adjust(left=0.16, bottom=0.18)
        target = out / f"{_safe_name(key)}.png"
        fig.savefig(target, dpi=80)
        plt.close(fig)
        written.append(target)
    return written + plot_by_trajectory(records, out)


def _informative(points: list[tuple[Any, float]]) -> bool:
    """Two or more points, not all the same value."""
    values = {value for _, value in points}
    return len(points) >= 2 and len(values) >= 2


# Sample efficiency, as the paper's figures show it: against trajectories seen, not steps
# (an FD step holds 128 trajectories, a GRPO step 640).
BY_TRAJECTORY = ("reward", "entropy", "eval/pass@1", "eval/pass@8", "eval/pass@16")


def plot_by_trajectory(records: list[dict[str, Any]], out: Path) -> list[Path]:
    import matplotlib.pyplot as plt

    written = []
    for key in BY_TRAJECTORY:
        points = [
            (float(r["trajectories_seen"]), float(r[key]))
            for r in records
            if isinstance(r.get(key), (int, float)) and isinstance(r.get("trajectories_seen"), int)
        ]
        if not _informative(points):
            continue
        fig, ax = plt.subplots(figsize=(5, 3))
        ax.plot(
            [p[0] for p in points], [p[1] for p in points], marker="." if len(points) < 50 else None
        )
        ax.set_xlabel("trajectories seen")
        ax.set_title(f"{key} (sample efficiency)")
        fig.subplots_adjust(left=0.16, bottom=0.18)
        target = out / f"{_safe_name(key)}_by_trajectory.png"
        fig.savefig(target, dpi=80)
        plt.close(fig)
        written.append(target)
    return written


def _safe_name(key: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in key)
