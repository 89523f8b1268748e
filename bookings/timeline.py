"""The booking timeline as server-rendered SVG: nodes down, time across.
Pure: rows and items in, markup out (every text escaped).

A booking of several adjacent rows (a group's nodes are listed together)
is drawn as one bar, so a week of a 64-node fleet stays readable.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta, tzinfo
from html import escape

LABEL_GROUP_W = 118
LABEL_NODE_W = 92
LABEL_W = LABEL_GROUP_W + LABEL_NODE_W
CHART_W = 990
HEAD_H = 38
ROW_H = 18
CHAR_W = 6.1  # average width of a 10.5px system-ui character


@dataclass(frozen=True)
class Row:
    key: int  # Spark id
    node: str
    group: str
    flag: str = ""  # e.g. "maintenance" (inventory status), shown next to the name


@dataclass(frozen=True)
class Item:
    """Something holding nodes for a while: a booking or a maintenance window."""

    rows: tuple[int, ...]  # Row.key of every Spark it holds
    ref: int
    kind: str  # "booking" or "maintenance"
    start: datetime
    end: datetime
    label: str
    title: str
    css: str  # bar classes, e.g. "bk mine active"
    href: str = ""


@dataclass(frozen=True)
class Window:
    start: datetime
    end: datetime
    tz: tzinfo
    now: datetime
    month: date | None = None  # a month view: its days are drawn as in the month, the weeks around it lighter


def _x(at: datetime, w: Window) -> float:
    span = (w.end - w.start).total_seconds()
    share = (min(max(at, w.start), w.end) - w.start).total_seconds() / span
    return round(LABEL_W + share * CHART_W, 1)


def _runs(indices: list[int]) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    for i in sorted(set(indices)):
        if runs and runs[-1][1] == i - 1:
            runs[-1] = (runs[-1][0], i)
        else:
            runs.append((i, i))
    return runs


def _fit(text: str, width: float, least: int = 3) -> str:
    room = int((width - 8) / CHAR_W)
    if room < least:
        return ""  # a stub like "me…" says nothing; the tooltip has it all
    return text if len(text) <= room else text[: room - 1].rstrip() + "…"


def _next_start(xs: list[float], after: float) -> float:
    """The first bar start at or right of ``after`` on a row, or the chart's right edge."""
    i = bisect_left(xs, after)
    return xs[i] if i < len(xs) else float(LABEL_W + CHART_W)


def _days(w: Window) -> list[datetime]:
    local = w.start.astimezone(w.tz)
    day = datetime(local.year, local.month, local.day, tzinfo=w.tz)
    out = []
    while day < w.end:
        if day >= w.start:
            out.append(day)
        nxt = day.replace(tzinfo=None) + timedelta(days=1)  # wall-clock days: DST changes move the hour
        day = nxt.replace(tzinfo=w.tz)
    return out


def _grid(w: Window, height: int) -> list[str]:
    out = []
    days = _days(w)
    wide = CHART_W / max(1, (w.end - w.start).total_seconds() / 86400) > 60
    today = w.now.astimezone(w.tz).date()
    for i, day in enumerate(days):
        x0 = _x(day, w)
        x1 = _x(days[i + 1], w) if i + 1 < len(days) else _x(w.end, w)
        outside = w.month is not None and (day.year, day.month) != (w.month.year, w.month.month)
        cls = "today" if day.date() == today else ("outside" if outside else ("weekend" if day.weekday() >= 5 else ""))
        if cls:
            out.append(
                f'<rect class="tl-{cls}" x="{x0}" y="{HEAD_H}" width="{round(x1 - x0, 1)}" height="{height - HEAD_H}"/>'
            )
        out.append(f'<line class="tl-day" x1="{x0}" y1="{HEAD_H - 14}" x2="{x0}" y2="{height}"/>')
        label = day.strftime("%a %-d %b") if wide else day.strftime("%-d")
        top = day.strftime("%a")[0] if not wide else ""
        mid = round((x0 + x1) / 2, 1)
        if top:
            out.append(f'<text class="tl-wd{" tl-we" if day.weekday() >= 5 else ""}" x="{mid}" y="13">{top}</text>')
        mark = " tl-now-day" if day.date() == today else (" tl-out" if outside else "")
        out.append(f'<text class="tl-date{mark}" x="{mid}" y="{27 if top else 22}">{escape(label)}</text>')
        if wide:
            for hour in (6, 12, 18):
                hx = _x(day + timedelta(hours=hour), w)
                if hx < x1:
                    out.append(f'<line class="tl-hour" x1="{hx}" y1="{HEAD_H}" x2="{hx}" y2="{height}"/>')
                    out.append(f'<text class="tl-hourlabel" x="{hx}" y="{HEAD_H - 3}">{hour:02d}</text>')
    return out


def render(rows: list[Row], items: Iterable[Item], w: Window) -> str:
    """The whole timeline as one <svg> element."""
    index = {r.key: i for i, r in enumerate(rows)}
    height = HEAD_H + ROW_H * len(rows) + 16  # room under the rows for the "now" mark
    out = [
        f'<svg class="timeline" viewBox="0 0 {LABEL_W + CHART_W + 6} {height}" width="100%" '
        f'role="group" aria-label="Bookings from {w.start:%Y-%m-%d} to {w.end:%Y-%m-%d}">',
        '<defs><pattern id="tl-hatch" width="6" height="6" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(45)"><rect width="6" height="6" fill="#fff2dc"/>'
        '<line x1="0" y1="0" x2="0" y2="6" stroke="#e0a040" stroke-width="3"/></pattern></defs>',
    ]
    group_start = 0
    for i, row in enumerate(rows):
        y = HEAD_H + i * ROW_H
        if i == 0 or rows[i - 1].group != row.group:
            group_start = i
            out.append(f'<line class="tl-groupline" x1="0" y1="{y}" x2="{LABEL_W + CHART_W}" y2="{y}"/>')
            out.append(
                f'<text class="tl-group" x="4" y="{y + 13}">{escape(_fit(row.group, LABEL_GROUP_W + 4))}'
                f"<title>{escape(row.group)}</title></text>"
            )
        if (i - group_start) % 2:
            out.append(
                f'<rect class="tl-stripe" x="{LABEL_GROUP_W}" y="{y}" width="{LABEL_NODE_W + CHART_W}" '
                f'height="{ROW_H}"/>'
            )
        flag = f' <tspan class="tl-flag">{escape(row.flag)}</tspan>' if row.flag else ""
        out.append(f'<text class="tl-node" x="{LABEL_W - 6}" y="{y + 13}">{escape(row.node)}{flag}</text>')
    out += _grid(w, height)
    shown = [i for i in items if i.end > w.start and i.start < w.end]
    # Where the next bar starts on each row: a label too long for its bar is
    # written after it, in the room left before that next bar.
    starts: dict[int, list[float]] = {}
    for item in shown:
        for r in item.rows:
            if r in index:
                starts.setdefault(index[r], []).append(_x(item.start, w))
    for xs in starts.values():
        xs.sort()
    for item in sorted(shown, key=lambda i: (i.kind != "maintenance", i.start)):
        x0, x1 = _x(item.start, w), _x(item.end, w)
        width = max(2.0, round(x1 - x0, 1))
        inside = _fit(item.label, width, least=7)
        dark = " tl-label-dark" if "finished" in item.css.split() else ""
        open_, close = (f'<a href="{escape(item.href)}">', "</a>") if item.href else ("<g>", "</g>")
        for a, b in _runs([index[r] for r in item.rows if r in index]):
            y = HEAD_H + a * ROW_H + 2
            h = (b - a + 1) * ROW_H - 4
            out.append(
                f'{open_}<rect class="{escape(item.css)}" x="{x0}" y="{y}" width="{width}" height="{h}" '
                f'rx="3"><title>{escape(item.title)}</title></rect>'
            )
            ty = y + min(h, 14) / 2 + 4
            if inside:
                out.append(
                    f'<text class="tl-label tl-label-{item.kind}{dark}" x="{x0 + 4}" y="{ty}">{escape(inside)}</text>'
                )
            else:
                room = min(_next_start(starts.get(i, []), x1 - 0.05) for i in range(a, b + 1)) - x1 - 3
                after = _fit(item.label, room, least=7)
                upright = _fit(item.label, h, least=7) if width >= 12 else ""
                if upright and len(upright) > len(after):  # a narrow, tall bar: up its side
                    cx, cy = round(x0 + width / 2 + 3.5, 1), y + h - 4
                    out.append(
                        f'<text class="tl-label tl-label-{item.kind}{dark}" x="{cx}" y="{cy}" '
                        f'transform="rotate(-90 {cx} {cy})">{escape(upright)}</text>'
                    )
                elif after:
                    out.append(f'<text class="tl-label tl-label-out" x="{x1 + 3}" y="{ty}">{escape(after)}</text>')
            out.append(close)
    if w.start <= w.now < w.end:
        nx = _x(w.now, w)
        out.append(f'<line class="tl-now" x1="{nx}" y1="{HEAD_H}" x2="{nx}" y2="{height - 12}"/>')
        out.append(f'<text class="tl-nowlabel" x="{nx}" y="{height - 2}">now</text>')
    out.append("</svg>")
    return "\n".join(out)
