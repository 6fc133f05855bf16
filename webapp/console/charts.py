"""Inline SVG line charts from a run's metrics rows (drawn server-side, no JS library)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

WIDTH, HEIGHT, PAD = 320, 110, 6
SKIP_KEYS = {"step", "time", "stage"}
# Most telling first; other numeric series follow alphabetically.
PRIORITY = ("loss", "reward", "pass@1", "kl", "entropy", "lr")


@dataclass
class Chart:
    key: str
    points: str  # the polyline's "x,y x,y ..." in the viewBox
    first: float
    last: float
    low: float
    high: float
    n: int
    width: int = WIDTH
    height: int = HEIGHT


def _numeric_series(
    rows: Iterable[tuple[int, dict[str, Any]]],
) -> dict[str, list[tuple[int, float]]]:
    series: dict[str, list[tuple[int, float]]] = {}
    for step, values in rows:
        for key, value in values.items():
            if key in SKIP_KEYS or isinstance(value, bool) or not isinstance(value, (int, float)):
                continue
            if math.isfinite(value):
                series.setdefault(key, []).append((step, float(value)))
    return series


def _rank(key: str) -> tuple[int, str]:
    for i, word in enumerate(PRIORITY):
        if word in key:
            return i, key
    return len(PRIORITY), key


def _polyline(points: list[tuple[int, float]], low: float, high: float) -> str:
    steps = [p[0] for p in points]
    x0, x1 = min(steps), max(steps)
    span_x = (x1 - x0) or 1
    span_y = (high - low) or 1.0
    coords = []
    for step, value in points:
        x = PAD + (WIDTH - 2 * PAD) * (step - x0) / span_x
        y = HEIGHT - PAD - (HEIGHT - 2 * PAD) * (value - low) / span_y
        coords.append(f"{x:.1f},{y:.1f}")
    return " ".join(coords)


def charts_for(rows: Iterable[tuple[int, dict[str, Any]]], limit: int = 6) -> list[Chart]:
    """rows: (step, metrics dict) in step order; one chart per numeric metric, best first."""
    charts = []
    for key, points in sorted(_numeric_series(rows).items(), key=lambda kv: _rank(kv[0])):
        values = [v for _, v in points]
        low, high = min(values), max(values)
        if len(values) > 1 and low == high:
            continue  # a flat line says nothing the metrics table does not
        charts.append(
            Chart(key, _polyline(points, low, high), values[0], values[-1], low, high, len(points))
        )
    return charts[:limit]
