"""Server-rendered SVG charts of benchmark records (no Django, no JavaScript):
decode speed against node count, one series per source and topology, the
ideal line and the model's predictions; and the leaderboard's bars. Text is
escaped; the caller marks the result safe.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape

from core.svg import nice_max

TOPOLOGY_COLOURS = {
    "single": "#6b7385",
    "direct": "#2f6fde",
    "ring": "#c77700",
    "chain": "#9c5bd1",
    "switched": "#4f9a00",
    "irregular": "#c62f2f",
}
KIND_STYLE = {  # how a source is drawn: line dash, marker, filled
    "measured": ("", "circle", True),
    "published": ("6 3", "square", False),
    "predicted": ("2 3", "diamond", False),
    "ideal": ("8 4", "", False),
}


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    note: str = ""  # tooltip


@dataclass(frozen=True)
class Series:
    name: str
    kind: str  # measured | published | predicted | ideal
    colour: str
    points: tuple[Point, ...]
    group: str = ""  # legend entry sharing the colour (e.g. the topology)
    reference: bool = False  # drawn light and thin behind the figures that matter here (published, on a group page)


# drawn bottom to top: predictions under the figures they predict
DRAW_ORDER = {"ideal": 0, "predicted": 1, "published": 2, "measured": 3}
STYLE_KEY = (("measured", "measured here"), ("published", "published"), ("predicted", "predicted"), ("ideal", "ideal"))


def _marker(shape: str, x: float, y: float, colour: str, filled: bool) -> str:
    fill = colour if filled else "#fff"
    common = f'fill="{fill}" stroke="{colour}" stroke-width="1.8"'
    if shape == "circle":
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4.5" {common}/>'
    if shape == "square":
        return f'<rect x="{x - 4:.1f}" y="{y - 4:.1f}" width="8" height="8" {common}/>'
    if shape == "diamond":
        corners = f"M{x:.1f} {y - 5:.1f} L{x + 5:.1f} {y:.1f} L{x:.1f} {y + 5:.1f} L{x - 5:.1f} {y:.1f} Z"
        return f'<path d="{corners}" {common}/>'
    return ""


def scaling_chart(
    series: list[Series],
    *,
    title: str,
    y_label: str = "decode tok/s",
    width: int = 760,
    height: int = 380,
    legend_below: bool = False,
) -> str:
    """A line chart of y against node count; an empty chart says there is nothing to show.
    ``legend_below`` puts the legend under the plot in two columns (a phone's
    narrow chart) instead of beside it; the chart grows by its rows."""
    entries = _legend_entries(series)
    left, top, bottom = 58, 34, 44
    right = 24 if legend_below else 200
    legend_h = 14 + math.ceil(len(entries) / 2) * 19 if legend_below and entries else 0
    plot_w, plot_h = width - left - right, height - top - bottom
    xs = [p.x for s in series for p in s.points]
    ys = [p.y for s in series for p in s.points]
    parts = [
        f'<svg class="chart{" narrow" if legend_below else ""}" viewBox="0 0 {width} {height + legend_h}" '
        f'role="img" aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">',
        f'<text x="{left}" y="18" font-size="14" font-weight="600" fill="#1d2330">{escape(title)}</text>',
    ]
    if not xs:
        parts.append(
            f'<text x="{width / 2:.0f}" y="{height / 2:.0f}" text-anchor="middle" fill="#6b7385" '
            'font-size="13">No runs to chart yet.</text></svg>'
        )
        return "".join(parts)
    x_max = max(2, math.ceil(max(xs)))
    y_max = nice_max(max(ys) * 1.08)

    def px(x: float) -> float:
        return left + (x - 1) / (x_max - 1) * plot_w if x_max > 1 else left + plot_w / 2

    def py(y: float) -> float:
        return top + plot_h - y / y_max * plot_h

    for i in range(6):  # horizontal grid and y ticks
        value = y_max * i / 5
        y = py(value)
        parts.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e1e4ea"/>')
        parts.append(
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11" fill="#6b7385">{value:g}</text>'
        )
    step = 1 if x_max <= 16 else math.ceil(x_max / 16)
    for n in range(1, x_max + 1, step):
        x = px(n)
        parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top + plot_h}" y2="{top + plot_h + 4}" stroke="#6b7385"/>')
        parts.append(
            f'<text x="{x:.1f}" y="{top + plot_h + 17}" text-anchor="middle" font-size="11" fill="#6b7385">{n}</text>'
        )
    parts.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{top + plot_h}" y2="{top + plot_h}" stroke="#6b7385"/>')
    parts.append(
        f'<text x="{left + plot_w / 2:.0f}" y="{height - 6}" text-anchor="middle" font-size="12" '
        'fill="#3b4252">nodes</text>'
    )
    parts.append(
        f'<text transform="translate(14 {top + plot_h / 2:.0f}) rotate(-90)" text-anchor="middle" '
        f'font-size="12" fill="#3b4252">{escape(y_label)}</text>'
    )

    labels: list[tuple[float, float, str, str, str]] = []  # x, y, text, anchor, colour
    for s in sorted(series, key=lambda s: (not s.reference, DRAW_ORDER.get(s.kind, 3))):
        dash, shape, filled = KIND_STYLE.get(s.kind, KIND_STYLE["measured"])
        points = sorted(s.points, key=lambda p: p.x)
        fade = ' opacity="0.55"' if s.reference else ""
        if len(points) > 1:
            path = " ".join(f"{'M' if i == 0 else 'L'}{px(p.x):.1f} {py(p.y):.1f}" for i, p in enumerate(points))
            width_attr = "1.4" if s.kind in ("ideal", "predicted") or s.reference else "2"
            dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
            parts.append(
                f'<path d="{path}" fill="none" stroke="{s.colour}" stroke-width="{width_attr}"{dash_attr}{fade}/>'
            )
        for p in points:
            if shape:
                tip = escape(f"{s.name}: {p.note or f'{p.y:.1f}'}")
                parts.append(f"<g{fade}><title>{tip}</title>{_marker(shape, px(p.x), py(p.y), s.colour, filled)}</g>")
            if s.kind in ("measured", "published") and (not s.reference or p is points[-1]):
                # measured figures labelled to the right, published to the left: fewer collisions
                # (at the last node count every label goes left: the legend or the edge is to the right)
                right_side = (s.kind == "measured" or p.x <= 1) and p.x < x_max
                dx, anchor = (7, "start") if right_side else (-7, "end")
                labels.append((px(p.x) + dx, py(p.y) - 6, f"{p.y:.1f}", anchor, s.colour))
    for x, y, text, anchor, colour in _spread(labels):
        parts.append(
            f'<text x="{x:.1f}" y="{y:.1f}" font-size="10.5" text-anchor="{anchor}" fill="{colour}">{text}</text>'
        )
    parts.extend(_legend(entries, _legend_places(entries, legend_below, left, left + plot_w + 18, top, width, height)))
    parts.append("</svg>")
    return "".join(parts)


LABEL_H = 12.0  # a value label's height in the chart's units
LABEL_CHAR_W = 6.2


def _spread(labels: list[tuple[float, float, str, str, str]]) -> list[tuple[float, float, str, str, str]]:
    """Value labels moved apart vertically so none overlaps another (8 nodes on
    four topologies put four figures in one column)."""
    placed: list[tuple[float, float, float, tuple[float, float, str, str, str]]] = []  # x0, x1, y, label

    def box(label: tuple[float, float, str, str, str]) -> tuple[float, float]:
        x, _, text, anchor, _ = label
        w = len(text) * LABEL_CHAR_W
        return (x, x + w) if anchor == "start" else (x - w, x)

    for label in sorted(labels, key=lambda lb: lb[1]):
        x0, x1 = box(label)
        y = label[1]
        moved = True
        while moved:  # y only grows, so this ends
            moved = False
            for other_x0, other_x1, other_y, _ in placed:
                if x0 < other_x1 and other_x0 < x1 and abs(y - other_y) < LABEL_H - 0.01:
                    y, moved = other_y + LABEL_H, True
        placed.append((x0, x1, y, label))
    return [(lb[0], y, lb[2], lb[3], lb[4]) for _, _, y, lb in placed]


# a legend entry: ("colour", label, colour) or ("style", label, kind)
LegendEntry = tuple[str, str, str]


def _legend_entries(series: list[Series]) -> list[LegendEntry]:
    """Colours (one per group, e.g. topology), then the drawing style of each source."""
    colours = dict.fromkeys((s.group or s.name, s.colour) for s in series if s.kind != "ideal")
    entries: list[LegendEntry] = [("colour", label, colour) for label, colour in colours]
    kinds = {s.kind for s in series}
    faint = any(s.reference for s in series if s.kind == "published")
    for kind, label in STYLE_KEY:
        if kind in kinds:
            entries.append(("style", "published (reference)" if kind == "published" and faint else label, kind))
    return entries


def _legend_places(
    entries: list[LegendEntry], below: bool, left: int, beside: int, top: int, width: int, height: int
) -> list[tuple[float, float]]:
    """Where each legend entry goes: in two columns under the plot, or in one
    beside it (the colours, a gap, then the drawing styles)."""
    if below:
        column = (width - left) / 2
        return [(left + column * (i % 2), float(height + 10 + 19 * (i // 2))) for i in range(len(entries))]
    places: list[tuple[float, float]] = []
    y = float(top + 8)
    for i, entry in enumerate(entries):
        if i and entry[0] == "style" and entries[i - 1][0] == "colour":
            y += 8
        places.append((float(beside), y))
        y += 19
    return places


def _legend(entries: list[LegendEntry], places: list[tuple[float, float]]) -> list[str]:
    parts: list[str] = []
    for (what, label, value), (x, y) in zip(entries, places, strict=True):
        if what == "colour":
            parts.append(f'<rect x="{x:.1f}" y="{y - 5:.1f}" width="14" height="10" rx="2" fill="{value}"/>')
            text_x = x + 20
        else:
            dash, shape, filled = KIND_STYLE[value]
            dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
            parts.append(
                f'<line x1="{x:.1f}" x2="{x + 24:.1f}" y1="{y:.1f}" y2="{y:.1f}" stroke="#6b7385" '
                f'stroke-width="1.6"{dash_attr}/>'
            )
            parts.append(_marker(shape, x + 12, y, "#6b7385", filled))
            text_x = x + 30
        parts.append(f'<text x="{text_x:.1f}" y="{y + 4:.1f}" font-size="11.5" fill="#1d2330">{escape(label)}</text>')
    return parts


@dataclass(frozen=True)
class Bar:
    label: str  # what the run was: where, nodes, engine
    value: float
    kind: str  # measured | published
    note: str = ""  # tooltip: where the figure comes from
    href: str = ""
    flag: str = ""  # drawn after the figure, never cut: what makes it unlike the others ("+ MTP")
    aside: str = ""  # drawn after the figure before the flag, never cut, in plain ink ("· 32 streams")


BAR_COLOURS = {"measured": "#4f7d00", "published": "#2660c8"}
FLAG_COLOUR = "#8a5300"  # the warn badge's ink (--warn-ink)


def _flagged(b: Bar) -> str:
    return "".join(f" {part}" for part in (b.aside, b.flag) if part)


def _after(b: Bar) -> str:
    """What follows the figure: its aside in the axis' ink, its flag in the warn badge's."""
    aside = f' <tspan class="bar-aside" font-weight="400" fill="#5f6778">{escape(b.aside)}</tspan>' if b.aside else ""
    flag = f' <tspan class="bar-flag" font-weight="600" fill="{FLAG_COLOUR}">{escape(b.flag)}</tspan>' if b.flag else ""
    return aside + flag


def bar_chart(bars: list[Bar], *, title: str, unit: str = "decode tok/s", width: int = 760, left: int = 250) -> str:
    """Horizontal bars, fastest first, coloured by where the figure comes from."""
    flag_room = max((len(_flagged(b)) for b in bars), default=0)
    right, top, row = 60 + (int(flag_room * 6.6) + 6 if flag_room else 0), 30, 24
    room = int((left - 12) / 6.6)  # characters of label that fit left of the bars
    height = top + row * max(1, len(bars)) + 26
    plot_w = width - left - right
    top_value = nice_max(max((b.value for b in bars), default=1.0))
    parts = [
        f'<svg class="chart barchart" viewBox="0 0 {width} {height}" role="group" aria-label="{escape(title)}" '
        f'xmlns="http://www.w3.org/2000/svg"><title>{escape(title)}</title>'
    ]
    for i in range(5):
        value = top_value * i / 4
        x = left + value / top_value * plot_w
        parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top - 6}" y2="{height - 22}" stroke="#e1e4ea"/>')
        parts.append(
            f'<text x="{x:.1f}" y="{height - 8}" text-anchor="middle" font-size="11" fill="#5f6778">{value:g}</text>'
        )
    parts.append(
        f'<text x="{left + plot_w:.0f}" y="{top - 12}" text-anchor="end" font-size="11" fill="#5f6778">'
        f"{escape(unit)}</text>"
    )
    for i, b in enumerate(bars):
        y = top + i * row
        w = max(1.5, b.value / top_value * plot_w)
        colour = BAR_COLOURS.get(b.kind, "#5f6778")
        label = b.label if len(b.label) <= room else b.label[: room - 1] + "…"
        text = (
            f'<text x="{left - 8}" y="{y + 15}" text-anchor="end" font-size="11.5" fill="#1d2330">'
            f"{escape(label)}</text>"
        )
        tip = f"{b.label}{_flagged(b)}: {b.value:.1f} {unit}, {b.kind}" + (f" ({b.note})" if b.note else "")
        bar = (
            f'<rect x="{left}" y="{y + 4}" width="{w:.1f}" height="{row - 8}" rx="2" fill="{colour}">'
            f"<title>{escape(tip)}</title></rect>"
        )
        figure = (
            f'<text x="{left + w + 5:.1f}" y="{y + 15}" font-size="11" font-weight="600" fill="#1d2330">'
            f"{b.value:.1f}{_after(b)}</text>"
        )
        if b.href:
            parts.append(f'<a href="{escape(b.href)}">{text}{bar}</a>{figure}')
        else:
            parts.append(text + bar + figure)
    parts.append("</svg>")
    return "".join(parts)
