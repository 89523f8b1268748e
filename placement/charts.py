"""Server-rendered SVG of a plan (no Django, no JavaScript): a node's memory
as a stacked bar, and the predicted speed of each fitting plan. Text is
escaped; the caller marks the result safe.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from core.svg import nice_max


def memory_bar(segments: list[tuple[str, float, str]], total: float, *, width: int = 320, height: int = 16) -> str:
    """A horizontal stacked bar of (label, GB, css class) over ``total`` GB; overflow is drawn red."""
    used = sum(max(0.0, gb) for _, gb, _ in segments)
    scale = max(total, used, 1e-9)
    parts = [
        f'<svg class="plan-membar" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" '
        f'aria-label="memory per node" xmlns="http://www.w3.org/2000/svg">',
        f'<rect width="{width}" height="{height}" rx="3" class="seg-free"/>',
    ]
    x = 0.0
    for label, gb, css in segments:
        if gb <= 0:
            continue
        w = gb / scale * width
        parts.append(
            f'<rect x="{x:.1f}" width="{w:.1f}" height="{height}" class="{css}">'
            f"<title>{escape(label)}: {gb:.1f} GB</title></rect>"
        )
        x += w
    if used > total:  # where the node's usable memory ends
        edge = total / scale * width
        parts.append(
            f'<rect x="{edge - 1.5:.1f}" width="3" height="{height}" fill="#c62f2f">'
            f"<title>usable memory ends here: {total:.1f} GB</title></rect>"
        )
    parts.append("</svg>")
    return "".join(parts)


@dataclass(frozen=True)
class PlanBar:
    label: str
    one_stream: float
    aggregate: float
    mark: str = ""  # "recommended" | "runner-up" | ""


def plan_bars(bars: list[PlanBar], *, concurrency: int, width: int = 560) -> str:
    """Horizontal bars of predicted tok/s per plan: one stream, and all streams
    together when there are several. Plain SVG with a title per bar."""
    if not bars:
        return ""
    both = concurrency > 1
    row = 30 if both else 22
    left, right, top = 190, 62, 22
    height = top + row * len(bars) + 26
    top_value = nice_max(max(max(b.one_stream, b.aggregate if both else 0.0) for b in bars))
    span = width - left - right

    def x(value: float) -> float:
        return left + span * value / top_value

    parts = [
        f'<svg class="plan-chart" viewBox="0 0 {width} {height}" width="100%" role="img" '
        f'aria-label="Predicted tokens per second of each fitting plan" xmlns="http://www.w3.org/2000/svg">'
    ]
    for i in range(5):
        value = top_value * i / 4
        gx = x(value)
        parts.append(
            f'<line x1="{gx:.1f}" y1="{top - 6}" x2="{gx:.1f}" y2="{height - 22}" stroke="#e3e6ec"/>'
            f'<text x="{gx:.1f}" y="{height - 8}" font-size="10" fill="#5b6270" '
            f'text-anchor="middle">{value:g}</text>'
        )
    for i, b in enumerate(bars):
        y = top + i * row
        weight = ' font-weight="700"' if b.mark == "recommended" else ""
        label = escape(b.label if len(b.label) <= 30 else b.label[:29] + "…")
        parts.append(
            f'<text x="{left - 8}" y="{y + 11}" font-size="11" fill="#1d2330" text-anchor="end"{weight}>{label}</text>'
        )
        colour = {"recommended": "#4f7d00", "runner-up": "#2660c8"}.get(b.mark, "#a9b1bf")
        w1 = max(x(b.one_stream) - left, 1.0)
        parts.append(
            f'<rect x="{left}" y="{y + 2}" width="{w1:.1f}" height="11" fill="{colour}">'
            f"<title>{escape(b.label)}: {b.one_stream:.1f} tok/s, one stream (predicted)</title></rect>"
            f'<text x="{left + w1 + 4:.1f}" y="{y + 11}" font-size="10" fill="#1d2330">'
            f"{b.one_stream:.0f}</text>"
        )
        if both:
            w2 = max(x(b.aggregate) - left, 1.0)
            parts.append(
                f'<rect x="{left}" y="{y + 15}" width="{w2:.1f}" height="9" fill="{colour}" '
                f'fill-opacity="0.45"><title>{escape(b.label)}: {b.aggregate:.0f} tok/s, {concurrency} '
                f"streams together (predicted)</title></rect>"
                f'<text x="{left + w2 + 4:.1f}" y="{y + 23}" font-size="10" fill="#5b6270">'
                f"{b.aggregate:.0f}</text>"
            )
    key = "bars: one stream" + (f" (solid), {concurrency} streams together (light)" if both else "")
    parts.append(f'<text x="{left}" y="{top - 9}" font-size="10" fill="#5b6270">predicted tok/s · {key}</text>')
    parts.append("</svg>")
    return "".join(parts)
