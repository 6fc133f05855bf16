"""Inline SVG line charts from a run's metrics rows (drawn server-side, no JS library: the
strict CSP needs nothing but the markup and app.css's classes).

Each chart has both axes with their scale (steps along x, the metric's own unit up y, its
lowest, middle and highest values marked), a dot and the value at the latest point. A series
with one point, or whose every value is the same, is not a chart: it is a number
(`Figure`), listed with the others.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

WIDTH, HEIGHT = 340, 160
LEFT, RIGHT, TOP, BOTTOM = 52, 14, 10, 34  # room for the tick labels and the axis title
SKIP_KEYS = {"step", "time", "stage"}
# Most telling first; other numeric series follow alphabetically.
PRIORITY = ("loss", "reward", "pass@1", "kl", "entropy", "lr")
# The unit each kind of metric is measured in (the y axis title says it).
UNITS = (
    ("tokens_per_s", "tokens per second"),
    ("per_1k_words", "per 1,000 words"),
    ("pass@", "share of problems"),
    ("reward", "mean reward"),
    ("loss", "per-token loss"),
    ("kl", "nats"),
    ("entropy", "nats"),
    ("lr", "learning rate"),
    ("seconds", "s"),
    ("_s", "s"),
    ("tokens", "tokens"),
    ("fraction", "share"),
)


@dataclass
class Tick:
    at: float  # position in the viewBox along the axis
    label: str


@dataclass
class Chart:
    key: str
    unit: str
    points: str  # the polyline's "x,y x,y ..." in the viewBox
    first: float
    last: float
    low: float
    high: float
    n: int
    last_step: int
    dot_x: float
    dot_y: float
    x_ticks: list[Tick] = field(default_factory=list)
    y_ticks: list[Tick] = field(default_factory=list)
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    top: int = TOP
    plot_right: int = WIDTH - RIGHT
    plot_bottom: int = HEIGHT - BOTTOM

    @property
    def x_title_at(self) -> float:
        return (self.left + self.plot_right) / 2

    @property
    def x_tick_label_y(self) -> int:
        return self.plot_bottom + 14

    @property
    def x_title_y(self) -> int:
        return self.height - 4

    @property
    def y_tick_label_x(self) -> int:
        return self.left - 6

    @property
    def tick_start(self) -> int:
        return self.left - 4


@dataclass
class Figure:
    """A series shown as its latest value: one point, one value repeated, or past the
    chart limit."""

    key: str
    value: float
    n: int
    last_step: int


def unit_of(key: str) -> str:
    for needle, unit in UNITS:
        if needle in key:
            return unit
    return "value"


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


def number(value: float) -> str:
    """A tick label: 4 significant digits, no trailing zeros."""
    return f"{value:.4g}"


def _chart(key: str, points: list[tuple[int, float]]) -> Chart:
    values = [v for _, v in points]
    steps = [s for s, _ in points]
    low, high = min(values), max(values)
    x0, x1 = min(steps), max(steps)
    span_x, span_y = (x1 - x0) or 1, (high - low) or 1.0
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x_of(step: float) -> float:
        return LEFT + plot_w * (step - x0) / span_x

    def y_of(value: float) -> float:
        return TOP + plot_h - plot_h * (value - low) / span_y

    coords = " ".join(f"{x_of(s):.1f},{y_of(v):.1f}" for s, v in points)
    middle = (low + high) / 2
    x_ticks = [Tick(x_of(x0), str(x0)), Tick(x_of(x1), str(x1))]
    if x1 - x0 >= 4:
        x_mid = x0 + (x1 - x0) // 2
        x_ticks.insert(1, Tick(x_of(x_mid), str(x_mid)))
    return Chart(
        key=key, unit=unit_of(key), points=coords, first=values[0], last=values[-1],
        low=low, high=high, n=len(points), last_step=steps[-1],
        dot_x=round(x_of(steps[-1]), 1), dot_y=round(y_of(values[-1]), 1),
        x_ticks=x_ticks,
        y_ticks=[Tick(y_of(v), number(v)) for v in (low, middle, high)],
    )  # fmt: skip


def charts_for(
    rows: Iterable[tuple[int, dict[str, Any]]], limit: int = 6
) -> tuple[list[Chart], list[Figure]]:
    """rows: (step, metrics dict) in step order. The `limit` most telling series that change
    become charts; one-point and constant series, and the rest, become figures (numbers)."""
    charts: list[Chart] = []
    figures: list[Figure] = []
    drawn: list[list[tuple[int, float]]] = []
    for key, points in sorted(_numeric_series(rows).items(), key=lambda kv: _rank(kv[0])):
        values = [v for _, v in points]
        # Nothing to draw: one point, one value, or a series already drawn under another
        # name (SFT's loss and sft_loss).
        if len(values) == 1 or min(values) == max(values) or points in drawn:
            figures.append(Figure(key, values[-1], len(values), points[-1][0]))
        elif len(charts) < limit:
            charts.append(_chart(key, points))
            drawn.append(points)
        else:  # past the limit: its latest value, with the other figures
            figures.append(Figure(key, values[-1], len(values), points[-1][0]))
    return charts, figures
