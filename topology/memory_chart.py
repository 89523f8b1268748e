"""Server-rendered SVG of a group's memory: one bar per Spark (its capacity:
in use, and usable now), side by side with visible gaps, and the pool drawn
as a dashed outline around them labelled as distributed capacity, so nobody
reads the sum as one machine's memory.

Pure: plain numbers in, SVG text out. Usable memory is the one state's
(``topology.state``): measured (MemAvailable of a fresh sample; what is in
use, the OS included, is the rest of the capacity) or expected (capacity
minus the OS reserve, drawn hatched and labelled "expected"). GB = 10^9 bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

RESERVE, USED, FREE, UNKNOWN = "#55606f", "#2f6fde", "#8cc63f", "#e3e6ec"
LEGEND = (
    (USED, "in use, OS included (measured)"),
    (FREE, "usable now (measured)"),
    (RESERVE, "OS reserve (expected)"),
    (UNKNOWN, "usable (expected: no fresh sample)"),
)
BAR_H = 150.0  # pixels for the largest node in the chart


@dataclass(frozen=True)
class Bar:
    name: str
    total_gb: float  # capacity: the MemTotal a Spark of this size reports
    usable_gb: float  # the one state's usable memory
    measured: bool  # False: expected (capacity minus the OS reserve)
    down: bool = False  # down: nothing can run on it, its usable memory is 0


def _gb(value: float) -> str:
    return f"{value:,.0f}" if abs(value - round(value)) < 0.05 else f"{value:,.1f}"


def render(
    bars: Sequence[Bar], *, pooled_gb: float | None = None, local_gb: float | None = None, uid: str = "m"
) -> str:
    """Bars side by side; with ``pooled_gb`` the pool's outline and label below them."""
    n = max(len(bars), 1)
    bw = 46 if n <= 8 else 34 if n <= 16 else 22 if n <= 32 else 13
    gap = 26 if n <= 8 else 14 if n <= 32 else 5
    slanted = n > 8
    top, pad = 26.0, 20.0
    scale = BAR_H / max((b.total_gb for b in bars), default=1.0) if bars else 1.0
    base = top + BAR_H
    bars_w = n * bw + (n - 1) * gap
    label = f"pooled: {_gb(pooled_gb or 0)} GB usable across {len(bars)} machines — not one machine's memory"
    label_w = len(label) * 7.3 if pooled_gb is not None else 0.0
    # A gutter on the left holds the local-memory label; widen it when the
    # pool's label, centred under the bars, would otherwise run off the left.
    local_w = len(f"local {_gb(local_gb)} GB") * 7.0 + 26 if local_gb else 0.0  # its label must not be cut
    gutter = max(104.0, local_w, label_w / 2 - bars_w / 2 + pad)
    width = max(gutter + bars_w + pad, gutter + bars_w / 2 + label_w / 2 + pad)
    names_h = 64 if slanted else 22
    pool_h = 40 if pooled_gb is not None else 0
    height = base + names_h + pool_h + 8
    hatch = f"hatch-{escape(uid)}"  # one id per chart: a page holds many charts
    out = [
        f'<defs><pattern id="{hatch}" width="6" height="6" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(45)"><rect width="6" height="6" fill="#eef0f4"/>'
        '<line x1="0" y1="0" x2="0" y2="6" stroke="#b8bfcc" stroke-width="2"/></pattern></defs>'
    ]
    if pooled_gb is not None and bars:
        left, right, bottom = gutter - 9, gutter + bars_w + 9, base + names_h
        out.append(
            f'<g class="pool"><title>{escape(label)}</title>'
            f'<rect x="{left:.1f}" y="{top - 18}" width="{right - left:.1f}" height="{bottom - top + 18:.1f}" '
            'rx="8" fill="#f7f9fe" stroke="#2f6fde" stroke-width="1.5" stroke-dasharray="6 4"/>'
            f'<text x="{(left + right) / 2:.1f}" y="{bottom + 24:.1f}" text-anchor="middle" font-size="13" '
            f'font-weight="600" fill="#2f6fde">{escape(label)}</text></g>'
        )
    for i, bar in enumerate(bars):
        out.append(_bar(bar, gutter + i * (bw + gap), base, bw, scale, slanted, hatch))
    if local_gb and bars:
        y = base - local_gb * scale
        tip = f"local memory: {_gb(local_gb)} GB usable, the most one node takes alone"
        out.append(
            f'<g class="local"><title>{escape(tip)}</title>'
            f'<line x1="{gutter - 14:.1f}" y1="{y:.1f}" x2="{gutter + bars_w + 4:.1f}" y2="{y:.1f}" '
            'stroke="#1d2330" stroke-width="1.2" stroke-dasharray="3 3"/>'
            f'<text x="{gutter - 18:.1f}" y="{y - 2:.1f}" text-anchor="end" font-size="11.5" font-weight="600" '
            f'fill="#1d2330">local {_gb(local_gb)} GB</text>'
            f'<text x="{gutter - 18:.1f}" y="{y + 11:.1f}" text-anchor="end" font-size="10.5" '
            'fill="#6b7385">on one node</text></g>'
        )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="memchart" viewBox="0 0 {width:.0f} {height:.0f}" '
        f'width="{width:.0f}" height="{height:.0f}" role="img"><title>memory per node</title>' + "".join(out) + "</svg>"
    )


def _short(name: str, room: int) -> str:
    return name if len(name) <= room else name[: room - 1] + "…"


def _bar(bar: Bar, x: float, base: float, bw: float, scale: float, slanted: bool, hatch: str) -> str:
    usable = min(max(bar.usable_gb, 0.0), bar.total_gb)
    rest = bar.total_gb - usable
    if bar.down:
        segments = [(bar.total_gb, RESERVE)]
        tip = f"{bar.name}: 0 GB usable; down: nothing can run on it · capacity {_gb(bar.total_gb)} GB"
        top_label = "down"
    elif bar.measured:
        segments = [(rest, USED), (usable, FREE)]
        tip = (
            f"{bar.name}: {_gb(usable)} GB usable now (measured: MemAvailable) · {_gb(rest)} GB in use, "
            f"OS included · capacity {_gb(bar.total_gb)} GB"
        )
        top_label = _gb(usable)
    else:
        segments = [(rest, RESERVE), (usable, f"url(#{hatch})")]
        tip = (
            f"{bar.name}: {_gb(usable)} GB usable, expected (no fresh sample): capacity {_gb(bar.total_gb)} GB "
            f"minus {_gb(rest)} GB OS reserve"
        )
        top_label = f"{_gb(usable)} exp."
    parts = [
        f'<g class="mem-node" tabindex="0" aria-label="{escape(tip)}" data-detail="{escape(tip)}">'
        f"<title>{escape(tip)}</title>"
    ]
    y = base
    for gb, fill in segments:
        h = gb * scale
        if h <= 0:
            continue
        y -= h
        parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{bw}" height="{h:.1f}" fill="{fill}"/>')
    parts.append(
        f'<rect x="{x:.1f}" y="{base - bar.total_gb * scale:.1f}" width="{bw}" '
        f'height="{bar.total_gb * scale:.1f}" fill="none" stroke="#8a93a3" stroke-width="1"/>'
    )
    cx = x + bw / 2
    if slanted:
        # Past 32 bars the columns are too narrow for slanted names: stand them upright.
        angle = -90 if bw < 20 else -50
        parts.append(
            f'<text x="{cx + (3 if angle == -90 else 0):.1f}" y="{base + 8:.1f}" font-size="10" '
            f'fill="#3b4252" text-anchor="end" transform="rotate({angle} {cx:.1f} {base + 8:.1f})">'
            f"{escape(_short(bar.name, 12))}</text>"
        )
    else:
        parts.append(
            f'<text x="{cx:.1f}" y="{base + 15:.1f}" font-size="11" fill="#3b4252" '
            f'text-anchor="middle">{escape(_short(bar.name, 11))}</text>'
        )
        parts.append(
            f'<text x="{cx:.1f}" y="{base - bar.total_gb * scale - 5:.1f}" font-size="10" '
            f'fill="#6b7385" text-anchor="middle">{escape(top_label)}</text>'
        )
    parts.append("</g>")
    return "".join(parts)
