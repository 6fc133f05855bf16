"""Server-drawn SVG bar charts (no JS library, nothing for the CSP to allow)."""

from __future__ import annotations

from dataclasses import dataclass

WIDTH, BAR_HEIGHT, GAP, LABEL_W, COUNT_W = 360, 16, 6, 130, 30


@dataclass
class Bar:
    label: str
    value: int
    y: int
    width: int
    text_y: int


@dataclass
class BarChart:
    title: str
    bars: list[Bar]
    width: int
    height: int
    label_w: int = LABEL_W
    bar_x: int = LABEL_W + 4

    @property
    def empty(self) -> bool:
        return not any(bar.value for bar in self.bars)


def bar_chart(title: str, items: list[tuple[str, int]]) -> BarChart:
    """Horizontal bars, one per (label, value), scaled to the largest value."""
    top = max((value for _, value in items), default=0) or 1
    room = WIDTH - LABEL_W - 4 - COUNT_W
    bars = [
        Bar(
            label=label,
            value=value,
            y=i * (BAR_HEIGHT + GAP),
            width=round(room * value / top),
            text_y=i * (BAR_HEIGHT + GAP) + BAR_HEIGHT - 4,
        )
        for i, (label, value) in enumerate(items)
    ]
    height = max(len(items) * (BAR_HEIGHT + GAP) - GAP, BAR_HEIGHT)
    return BarChart(title=title, bars=bars, width=WIDTH, height=height)
