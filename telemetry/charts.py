"""Server-side SVG line charts of a node's history: pure functions, no Django.

``line_chart`` draws one or more series over time into a self-contained
``<svg>`` string (text escaped): a gap where a value is missing (the node was
unreachable), optional step lines (twins up is a count, not a slope) and a
soft area under the first series.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from html import escape

Point = tuple[datetime, float | None]


@dataclass(frozen=True)
class Series:
    label: str
    color: str
    points: Sequence[Point]
    step: bool = False
    area: bool = False
    dashed: bool = False


def nice_ceiling(value: float) -> float:
    """The next round number at or above ``value`` (1, 2, 2.5, 5 times a power of ten)."""
    if value <= 0:
        return 1.0
    power: float = 10 ** math.floor(math.log10(value))
    for step in (1, 2, 2.5, 5, 10):
        if value <= step * power + 1e-9:
            return step * power
    return 10 * power


def tick_step(top: float, most: int) -> float:
    """The smallest round step (1, 2, 2.5, 5 times a power of ten) giving at most ``most`` intervals."""
    if top <= 0:
        return 1.0
    power: float = 10 ** math.floor(math.log10(top / max(most, 1)))
    for mult in (1, 2, 2.5, 5, 10, 20):
        if top / (mult * power) <= most + 1e-9:
            return mult * power
    return top


def _time_label(at: datetime, span: timedelta) -> str:
    return at.strftime("%d %b %H:%M") if span > timedelta(hours=36) else at.strftime("%H:%M")


def _segments(points: Sequence[tuple[float, float | None]]) -> list[list[tuple[float, float]]]:
    runs: list[list[tuple[float, float]]] = []
    current: list[tuple[float, float]] = []
    for x, y in points:
        if y is None:
            if current:
                runs.append(current)
            current = []
        else:
            current.append((x, y))
    if current:
        runs.append(current)
    return runs


def line_chart(
    series: Sequence[Series],
    *,
    start: datetime,
    end: datetime,
    y_max: float | None = None,
    y_unit: str = "",
    y_format: Callable[[float], str] = lambda v: f"{v:g}",
    y_ticks: int = 4,
    width: int = 640,
    height: int = 200,
    title: str = "",
    narrow: bool = False,
) -> str:
    """``narrow``: the phone's drawing of a chart drawn twice (class ``chart narrow``; the
    page shows one of the two by its width)."""
    left, right, top, bottom = 52, 12, 26, 24
    plot_w, plot_h = width - left - right, height - top - bottom
    values = [y for s in series for _, y in s.points if y is not None]
    # An explicit top (memory size, twins cabled) is kept as is; data gets a round one.
    top_value = y_max if y_max and y_max > 0 else nice_ceiling(max(values, default=1.0))
    span = max(end - start, timedelta(seconds=1))

    def sx(at: datetime) -> float:
        return left + plot_w * min(max((at - start) / span, 0.0), 1.0)

    def sy(value: float) -> float:
        return top + plot_h * (1 - min(max(value / top_value, 0.0), 1.0))

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" class="chart{" narrow" * narrow}" '
        'role="img" '
        f'aria-label="{escape(title)}">',
        f"<title>{escape(title)}</title>",
        f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="#fbfcfd" stroke="#e1e4ea"/>',
    ]
    step = tick_step(top_value, y_ticks)
    value = 0.0
    while value <= top_value + 1e-9:
        y = sy(value)
        parts.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#eef0f4"/>')
        parts.append(
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="12" fill="#6b7385">'
            f"{escape(y_format(value))}</text>"
        )
        value += step
    for i in range(5):
        at = start + span * i / 4
        x = sx(at)
        anchor = "start" if i == 0 else "end" if i == 4 else "middle"
        parts.append(
            f'<text x="{x:.1f}" y="{height - 6}" text-anchor="{anchor}" font-size="12" fill="#6b7385">'
            f"{escape(_time_label(at, span))}</text>"
        )
    if y_unit:
        parts.append(f'<text x="{left}" y="14" font-size="12" fill="#6b7385">{escape(y_unit)}</text>')
    legend_x: float = width - right
    for s in reversed(series):
        label = escape(s.label)
        text_w = 7.5 * len(s.label)
        legend_x -= text_w + 28
        parts.append(f'<rect x="{legend_x:.0f}" y="7" width="16" height="4" rx="2" fill="{escape(s.color)}"/>')
        parts.append(f'<text x="{legend_x + 20:.0f}" y="13" font-size="12" fill="#3b4252">{label}</text>')
    if not values:
        parts.append(
            f'<text x="{left + plot_w / 2:.0f}" y="{top + plot_h / 2:.0f}" text-anchor="middle" '
            'font-size="13" fill="#6b7385">no samples in this range</text>'
        )
    for s in series:
        scaled = [(sx(at), None if y is None else sy(y)) for at, y in s.points]
        for run in _segments(scaled):
            if s.step:
                coords: list[tuple[float, float]] = []
                for i, (x, y) in enumerate(run):
                    if i:
                        coords.append((x, coords[-1][1]))
                    coords.append((x, y))
            else:
                coords = run
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)
            if s.area and len(coords) > 1:
                base = top + plot_h
                area = f"{coords[0][0]:.1f},{base:.1f} {path} {coords[-1][0]:.1f},{base:.1f}"
                parts.append(f'<polygon points="{area}" fill="{escape(s.color)}" fill-opacity="0.12"/>')
            dash = ' stroke-dasharray="5 4"' if s.dashed else ""
            if len(coords) == 1:
                x, y = coords[0]
                parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5" fill="{escape(s.color)}"/>')
            else:
                parts.append(
                    f'<polyline points="{path}" fill="none" stroke="{escape(s.color)}" stroke-width="2" '
                    f'stroke-linejoin="round"{dash}/>'
                )
    parts.append("</svg>")
    return "".join(parts)
