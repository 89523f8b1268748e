"""Server-rendered SVG of one topology group: Sparks, switches and the cables
between them, drawn as they are (``topology.state``): each cable coloured
and labelled by the speed observed on it (a half-speed link dashed amber
"100G (one twin)", a down one red, an unobserved one grey with its expected
speed), each Spark outlined by its health. Every Spark and cable is
focusable and carries its details in ``data-detail`` (the page shows them on
click or keyboard focus, not only on hover).

Pure: takes the engine's ``Group`` (plus optional per-device notes), returns
SVG text; no Django import. Every name goes through ``html.escape`` even
though validation already keeps ``<`` and ``&`` out of names.

Layouts: direct = two boxes side by side; ring = a circle (a closed snake
past 12 nodes, where a circle's boxes would shrink past reading); chain = a
snake of rows; one switch = the switch on top with its Sparks fanned out
below (one row) or hanging from rails (several rows); anything else = nodes
on a circle around the switches.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from html import escape
from typing import Any

from core.health import HEALTH_STATUSES, HealthStatus

from .engine import Group, Link
from .state import LinkState

# Colours follow the link speed classes of docs/hardware.md ("Cables"): 200 Gb/s
# is a Spark port's native speed, 100 is the half-speed case, 40/10 are the
# QSFP+ and RTX Spark cases.
GREEN, AMBER, RED, GREY = "#2e8b3e", "#d08700", "#c62f2f", "#98a0ad"
SPEED_LEGEND = ((200, GREEN, "200 Gb/s (native)"), (100, AMBER, "100 Gb/s (half)"), (40, RED, "40 Gb/s or less"))
BLUE = "#2f6fde"
# Line styles of the link states; the legend shows the same swatches.
DASH = {"ok": "", "half": "8 5", "down": "4 4", "unobserved": "2 5"}
LINK_LEGEND = (
    ("ok", GREEN, "200G as cabled"),
    ("slow", AMBER, "slower as cabled (e.g. a 100G cable)"),
    ("half", AMBER, "below its cabling: 100G (one twin) or (negotiated)"),
    ("down", RED, "down"),
    ("unobserved", GREY, 'not observed: the cabling\'s speed, "expected"'),
)
# Spark outline and fill per health (``core.health.HealthStatus``).
HEALTH_STYLE: dict[str, tuple[str, str]] = {
    HealthStatus.OK: ("#55606f", "#fff"),
    HealthStatus.DEGRADED: (AMBER, "#fff7e6"),
    HealthStatus.DOWN: (RED, "#fdecec"),
    HealthStatus.UNKNOWN: (GREY, "#f3f4f7"),
    HealthStatus.NEW: (BLUE, "#eef4ff"),
}
HEALTH_LEGEND = (
    (HealthStatus.OK, "ok"),
    (HealthStatus.DEGRADED, "degraded"),
    (HealthStatus.DOWN, "down"),
    (HealthStatus.NEW, "new: accept its key"),
    (HealthStatus.UNKNOWN, "unknown (no recent sample)"),
)
RING_CIRCLE_MAX = 12
# Soft fills that tell an admin's sub-groups apart while keeping names readable.
SUBGROUP_FILLS = ("#dcebff", "#fde7c8", "#dff3d8", "#efe0f7", "#d8f1f1", "#fbdcdc")


def legend() -> str:
    """The legend of links and Sparks as drawn: HTML with small SVG swatches."""
    items = []
    for kind, colour, text in LINK_LEGEND:
        dash = DASH["ok" if kind == "slow" else kind]
        attr = f' stroke-dasharray="{dash}"' if dash else ""
        items.append(
            f'<span class="lg-link lg-{kind}"><svg width="30" height="8" aria-hidden="true">'
            f'<line x1="1" y1="4" x2="29" y2="4" stroke="{colour}" stroke-width="3.5"{attr}/></svg>'
            f"{escape(text)}</span>"
        )
    for status, text in HEALTH_LEGEND:
        stroke, fill = HEALTH_STYLE[status]
        dash = ' stroke-dasharray="4 3"' if status in (HealthStatus.UNKNOWN, HealthStatus.NEW) else ""
        items.append(
            f'<span class="lg-node lg-{status}"><svg width="24" height="14" aria-hidden="true">'
            f'<rect x="1" y="1" width="22" height="12" rx="3" fill="{fill}" stroke="{stroke}" '
            f'stroke-width="2"{dash}/></svg>Spark {escape(text)}</span>'
        )
    return "".join(items)


def device_of(end: str) -> str:
    return end.rsplit(":", 1)[0]


@dataclass(frozen=True)
class Box:
    w: float
    h: float
    font: float


MIN_LABEL_PX = 11  # the smallest a Spark's name is drawn on a page, in CSS pixels


def _box(n: int) -> Box:
    # Sizes picked by looking at screenshots from 2 to 64 nodes: big enough
    # to read a ten-character name at the card's width.
    if n <= 4:
        return Box(128, 46, 14)
    if n <= 8:
        return Box(112, 42, 13)
    if n <= 16:
        return Box(100, 40, 12.5)
    if n <= 32:
        return Box(92, 38, 12)
    return Box(84, 36, 11.5)


def _fit(text: str, width: float, font: float) -> str:
    room = max(3, int((width - 10) / (font * 0.58)))
    return text if len(text) <= room else text[: room - 1] + "…"


@dataclass
class Canvas:
    nodes: dict[str, tuple[float, float]]
    switches: dict[str, tuple[float, float, float, float]]  # x, y, w, h
    width: float
    height: float
    paths: dict[int, list[tuple[float, float]]]  # link index -> polyline overriding the straight line
    # Neutral lines standing for one switch's backplane when its Sparks hang
    # from rails (several rows): (switch, polyline).
    fabric: list[tuple[str, list[tuple[float, float]]]] = field(default_factory=list)
    labels: list[tuple[float, float, str]] = field(default_factory=list)  # small muted text, e.g. port numbers


def render(
    group: Group,
    *,
    notes: Mapping[str, str] | None = None,
    href: str | None = "/sparks/{}/",
    title: str = "",
    tints: Mapping[str, tuple[str, str]] | None = None,
    states: Mapping[tuple[str, str], LinkState] | None = None,
    health: Mapping[str, tuple[str, str]] | None = None,
    columns: int | None = None,
    variant: str = "",
) -> str:
    """The group as an SVG document fragment (an ``<svg>`` element).

    ``notes``: a second line per device (e.g. its memory); ``tints``: node ->
    (sub-group name, fill colour), so an admin's split shows in the drawing;
    ``states``: (a, b) -> the link's state; ``health``: node -> (health, why).
    Without states the cabling's speeds are drawn as "expected". ``columns``:
    at most this many Sparks a row under a switch; ``variant``: a second class
    on the drawing (``responsive``'s "topo-wide" and "topo-narrow").
    """
    notes = notes or {}
    tints = tints or {}
    states = states or {}
    health = health or {}
    box = _box(len(group.nodes))
    canvas = _layout(group, box, columns)
    marked = _marked(group)
    out: list[str] = []
    for switch, points in canvas.fabric:
        d = "M" + " L".join(f"{x:.1f},{y:.1f}" for x, y in points)
        out.append(
            f'<g class="fabric"><title>{escape(f"switch {switch}: its Sparks hang from these rails")}</title>'
            f'<path d="{d}" fill="none" stroke="#55606f" stroke-width="3" stroke-linejoin="round"/></g>'
        )
    for i, link in enumerate(group.links):
        # Speed labels where they stay readable; the colour and the hover title carry it elsewhere.
        label = len(group.nodes) <= (4 if group.switches else 8)
        out.append(_link(i, link, canvas, marked, label=label, state=states.get((link.a, link.b))))
    for name, (x, y, w, h) in canvas.switches.items():
        out.append(_switch(name, x, y, w, h, notes.get(name, ""), marked))
    for x, y, text in canvas.labels:  # port numbers, inside the switch's bottom edge
        out.append(
            f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="middle" font-size="10" fill="#c9cfdb">{escape(text)}</text>'
        )
    for name, (cx, cy) in canvas.nodes.items():
        out.append(_node(name, cx, cy, box, notes.get(name, ""), marked, href, tints.get(name), health.get(name)))
    head = title or f"{group.kind} group of {len(group.nodes)} Spark{'s' * (len(group.nodes) != 1)}"
    w, h = math.ceil(canvas.width), math.ceil(canvas.height)
    # Never shrunk below the width at which a Spark's name is 11 px tall: on a phone a big
    # group's drawing scrolls inside its card (or ``responsive`` draws it narrower)
    # instead of shrinking its labels to specks.
    legible = math.ceil(w * MIN_LABEL_PX / box.font)
    cls = f"topo {variant}" if variant else "topo"
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="{cls}" viewBox="0 0 {w} {h}" width="{w}" height="{h}" '
        f'style="min-width: {legible}px" '
        # a group, not an image: the Sparks in it are links (an image's content is not reachable)
        f'role="group" aria-label="{escape(head)}"><title>{escape(head)}</title>{"".join(out)}</svg>'
    )


# The widest drawing a phone's card holds (390 px less the page's and the
# card's margins): wider ones get a second drawing for phones (``responsive``).
PHONE_PX = 327
PHONE_COLUMNS = 2


def legible_width(group: Group, columns: int | None = None) -> int:
    """The narrowest the drawing is shown (a Spark's name ``MIN_LABEL_PX`` tall), in CSS pixels."""
    box = _box(len(group.nodes))
    return math.ceil(math.ceil(_layout(group, box, columns).width) * MIN_LABEL_PX / box.font)


def responsive(group: Group, **kwargs: Any) -> str:
    """``render``'s drawing, and beside it, when a group under one switch would
    not fit a phone's card at a legible size, the same group with its Sparks
    two a row on rails: the page's style shows one or the other by width (the
    phone's drawing is taller rather than scrolled sideways)."""
    if group.kind != "switched" or len(group.switches) != 1:
        return render(group, **kwargs)
    wide = legible_width(group)
    if wide <= PHONE_PX or legible_width(group, PHONE_COLUMNS) >= wide:
        return render(group, **kwargs)
    return render(group, variant="topo-wide", **kwargs) + render(
        group, columns=PHONE_COLUMNS, variant="topo-narrow", **kwargs
    )


def _marked(group: Group) -> dict[str, str]:
    """Object (cable key, device, device:port) -> the worst finding code about it."""
    worst: dict[str, str] = {}
    for f in group.findings:
        if f.severity == "info":
            continue
        for obj in f.objects:
            worst.setdefault(obj, f.code)
    return worst


def _link(i: int, link: Link, c: Canvas, marked: dict[str, str], *, label: bool, state: LinkState | None = None) -> str:
    points = c.paths.get(i) or [_anchor(c, device_of(link.a)), _anchor(c, device_of(link.b))]
    finding = marked.get(link.cable) or marked.get(link.a) or marked.get(link.b)
    kind = state.state if state else "unobserved"
    gbps = state.gbps if state else link.gbps
    colour = {"down": RED, "unobserved": GREY}.get(kind) or (GREEN if gbps >= 200 and kind == "ok" else AMBER)
    dash = f' stroke-dasharray="{DASH[kind]}"' if DASH[kind] else ""
    text = state.label if state else f"{link.gbps}G expected"
    tip = f"{link.a} — {link.b}, cable {link.cable}: {text}"
    if state and state.observed_gbps is not None:
        tip += f" (observed {state.observed_gbps} of {state.expected_gbps} Gb/s expected)"
    if state and state.why:
        tip += f"; {state.why}"
    if link.limited_by:
        tip += f"; the cabling is limited by {link.limited_by}"
    if finding:
        tip += f"; finding: {finding}"
    d = "M" + " L".join(f"{x:.1f},{y:.1f}" for x, y in points)
    parts = [
        f'<g class="link state-{kind}" data-gbps="{gbps}" data-state="{kind}" tabindex="0" role="button" '
        f'aria-label="{escape(tip)}" data-detail="{escape(tip)}"><title>{escape(tip)}</title>',
        f'<path d="{d}" fill="none" stroke="transparent" stroke-width="12"/>',
        f'<path d="{d}" fill="none" stroke="{colour}" stroke-width="{4.5 if kind == "down" else 3.5}" '
        f'stroke-linejoin="round"{dash}/>',
    ]
    # A link that is not as cabled is always labelled, even where labels are left out for room.
    if (label or kind in ("half", "down")) and len(points) >= 2:
        (x1, y1), (x2, y2) = points[-2], points[-1]
        mx, my = (x1 + x2) / 2, (y1 + y2) / 2
        head, _, tail = text.partition(" ")  # "100G" over "(one twin)", "200G" over "expected"
        parts.append(
            f'<text x="{mx:.1f}" y="{my + (-2 if tail else 4):.1f}" text-anchor="middle" font-size="11" '
            f'fill="{colour}" stroke="#fff" stroke-width="4" paint-order="stroke" font-weight="600">'
            f"{escape(head)}</text>"
        )
        if tail:
            parts.append(
                f'<text x="{mx:.1f}" y="{my + 10:.1f}" text-anchor="middle" font-size="10" '
                f'fill="{colour}" stroke="#fff" stroke-width="4" paint-order="stroke">{escape(tail)}</text>'
            )
    parts.append("</g>")
    return "".join(parts)


def _anchor(c: Canvas, device: str) -> tuple[float, float]:
    if device in c.nodes:
        return c.nodes[device]
    x, y, w, h = c.switches.get(device, (0, 0, 0, 0))
    return x + w / 2, y + h / 2


def _node(
    name: str,
    cx: float,
    cy: float,
    box: Box,
    note: str,
    marked: dict[str, str],
    href: str | None,
    tint: tuple[str, str] | None,
    health: tuple[str, str] | None = None,
) -> str:
    x, y = cx - box.w / 2, cy - box.h / 2
    finding = marked.get(name)
    status, why = health or ("", "")
    stroke, fill = HEALTH_STYLE.get(status, ("#55606f", "#fff"))
    if not status and finding:
        stroke = RED if finding == "no-connectx" else AMBER
    lines = (
        [name]
        + ([f"health: {status}"] if status else [])
        + ([note] if note else [])
        + ([f"sub-group {tint[0]}"] if tint else [])
        + ([why] if why and status != "ok" else [])
        + ([f"finding: {finding}"] if finding else [])
    )
    tip, detail = "\n".join(lines), " · ".join(lines)
    name_y = cy - 2 if note else cy + box.font * 0.36
    text = [
        f'<text x="{cx:.1f}" y="{name_y:.1f}" text-anchor="middle" font-size="{box.font}" '
        f'font-weight="600" fill="#1d2330">{escape(_fit(name, box.w, box.font))}</text>'
    ]
    if note:
        small = box.font - 2.5
        text.append(
            f'<text x="{cx:.1f}" y="{cy + small + 2:.1f}" text-anchor="middle" font-size="{small}" '
            f'fill="#6b7385">{escape(_fit(note, box.w, small))}</text>'
        )
    if tint:
        fill = tint[1] if status in ("", "ok") else fill
    flagged = status in HEALTH_STATUSES and status != HealthStatus.OK or bool(finding)
    dash = ' stroke-dasharray="4 3"' if status in (HealthStatus.UNKNOWN, HealthStatus.NEW) else ""
    body = (
        f'<rect x="{x:.1f}" y="{y:.1f}" width="{box.w}" height="{box.h}" rx="7" fill="{fill}" '
        f'stroke="{stroke}" stroke-width="{2.4 if flagged else 1.4}"{dash}/>' + "".join(text)
    )
    marks: dict[str, str] = {HealthStatus.DOWN: "×", HealthStatus.NEW: "+", HealthStatus.UNKNOWN: "?"}
    mark = marks.get(status, "!" if status == HealthStatus.DEGRADED or finding else "")
    if mark:
        badge = AMBER if mark == "!" and status in ("", "ok") else stroke  # a finding on a healthy Spark
        body += (
            f'<circle cx="{x + box.w - 2:.1f}" cy="{y + 2:.1f}" r="7" fill="{badge}"/>'
            f'<text x="{x + box.w - 2:.1f}" y="{y + 6:.1f}" text-anchor="middle" font-size="11" '
            f'font-weight="700" fill="#fff">{mark}</text>'
        )
    cls = f"node health-{status}" if status else "node"
    inner = f'<g class="{cls}"><title>{escape(tip)}</title>{body}</g>'
    if href:
        return (
            f'<a href="{escape(href.format(name))}" aria-label="{escape(detail)}" '
            f'data-detail="{escape(detail)}">{inner}</a>'
        )
    return f'<g tabindex="0" role="button" aria-label="{escape(detail)}" data-detail="{escape(detail)}">{inner}</g>'


def _switch(name: str, x: float, y: float, w: float, h: float, note: str, marked: dict[str, str]) -> str:
    finding = marked.get(name)
    tip = f"switch {name}" + (f"\n{note}" if note else "") + (f"\nfinding: {finding}" if finding else "")
    return (
        f'<g class="switch"><title>{escape(tip)}</title>'
        f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="6" fill="#1b1f27" '
        f'stroke="{AMBER if finding else "#1b1f27"}" stroke-width="2"/>'
        f'<text x="{x + w / 2:.1f}" y="{y + h / 2 + 2:.1f}" text-anchor="middle" font-size="13" '
        f'font-weight="600" fill="#fff">{escape(_fit(name, w, 13))}</text></g>'
    )


# ---------------------------------------------------------------- layouts

PAD = 24


def _layout(group: Group, box: Box, columns: int | None = None) -> Canvas:
    return _fit_canvas(_place(group, box, columns), box)


def _fit_canvas(c: Canvas, box: Box) -> Canvas:
    """Shift everything so the drawing starts at the margin, and size the canvas to it."""
    xs: list[float] = []
    ys: list[float] = []
    for cx, cy in c.nodes.values():
        xs += [cx - box.w / 2, cx + box.w / 2]
        ys += [cy - box.h / 2, cy + box.h / 2]
    for x, y, w, h in c.switches.values():
        xs += [x, x + w]
        ys += [y, y + h]
    for points in [*c.paths.values(), *(p for _, p in c.fabric)]:
        xs += [x for x, _ in points]
        ys += [y for _, y in points]
    if not xs:
        return Canvas({}, {}, 2 * PAD, 2 * PAD, {})
    dx, dy = PAD - min(xs), PAD - min(ys)

    def move(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
        return [(x + dx, y + dy) for x, y in points]

    return Canvas(
        {n: (x + dx, y + dy) for n, (x, y) in c.nodes.items()},
        {s: (x + dx, y + dy, w, h) for s, (x, y, w, h) in c.switches.items()},
        max(xs) - min(xs) + 2 * PAD,
        max(ys) - min(ys) + 2 * PAD,
        {i: move(p) for i, p in c.paths.items()},
        [(s, move(p)) for s, p in c.fabric],
        [(x + dx, y + dy, t) for x, y, t in c.labels],
    )


def _place(group: Group, box: Box, columns: int | None = None) -> Canvas:
    nodes = list(group.nodes)
    if group.kind == "ring" and len(nodes) <= RING_CIRCLE_MAX:
        return _circle(group, _walk(group, closed=True), box)
    if group.kind in ("ring", "chain"):
        return _snake(group, _walk(group, closed=group.kind == "ring"), box, closed=group.kind == "ring")
    if group.kind == "switched" and len(group.switches) == 1:
        return _switched(group, box, columns)
    if group.kind in ("direct", "single") or not group.switches and len(nodes) <= 2:
        return _row(group, nodes, box)
    return _circle(group, nodes, box)


def _row(group: Group, nodes: list[str], box: Box) -> Canvas:
    gap = 104 if len(nodes) == 2 else 0  # room for "100G (one twin)"; a pair fits a phone's card
    width = 2 * PAD + len(nodes) * box.w + gap * max(0, len(nodes) - 1)
    pos = {n: (PAD + box.w / 2 + i * (box.w + gap), PAD + box.h / 2) for i, n in enumerate(nodes)}
    return Canvas(pos, {}, width, 2 * PAD + box.h, {})


def _neighbours(group: Group) -> dict[str, list[str]]:
    adj: dict[str, set[str]] = defaultdict(set)
    for link in group.links:
        a, b = device_of(link.a), device_of(link.b)
        adj[a].add(b)
        adj[b].add(a)
    return {k: sorted(v) for k, v in adj.items()}


def _walk(group: Group, *, closed: bool) -> list[str]:
    """The nodes in cable order, from an open end (chain) or the smallest name (ring)."""
    adj = _neighbours(group)
    ends = [n for n in group.nodes if len(adj.get(n, [])) == 1]
    start = group.nodes[0] if closed or not ends else ends[0]
    order, seen = [start], {start}
    while True:
        nxt = [n for n in adj.get(order[-1], []) if n not in seen]
        if not nxt:
            break
        order.append(nxt[0])
        seen.add(nxt[0])
    # Odd graphs never crash the drawing: anything the walk missed goes last.
    return order + [n for n in group.nodes if n not in seen]


def _circle(group: Group, order: list[str], box: Box) -> Canvas:
    n = max(len(order), 1)
    # Radius so that neighbouring boxes keep room for the cable and its speed label.
    r = max(box.w * 0.9, (box.w + 96) / (2 * math.sin(math.pi / n)) if n > 1 else 0)
    sw_w, sw_h = 150.0, 36.0
    if group.switches:
        r = max(r, sw_w / 2 + box.w + 30, len(group.switches) * (sw_h + 12) / 2 + box.h + 40)
    # Boxes are about 2.7 times wider than tall, so without switches in the
    # middle an ellipse keeps the vertical gaps like the horizontal ones.
    ry = r if group.switches else r * 0.62
    cx, cy = PAD + box.w / 2 + r, PAD + box.h / 2 + ry
    start = -math.pi / 2 - math.pi / n
    pos = {
        name: (cx + r * math.cos(start + 2 * math.pi * i / n), cy + ry * math.sin(start + 2 * math.pi * i / n))
        for i, name in enumerate(order)
    }
    stack = len(group.switches) * (sw_h + 12) - 12
    switches = {s: (cx - sw_w / 2, cy - stack / 2 + i * (sw_h + 12), sw_w, sw_h) for i, s in enumerate(group.switches)}
    return Canvas(pos, switches, 2 * (PAD + r) + box.w, 2 * (PAD + ry) + box.h, {})


def _snake(group: Group, order: list[str], box: Box, *, closed: bool) -> Canvas:
    cols = min(len(order), 8)
    gap_x, gap_y = 44, 44
    margin = PAD + (28 if closed else 0)
    pos: dict[str, tuple[float, float]] = {}
    for i, name in enumerate(order):
        row, col = divmod(i, cols)
        if row % 2:
            col = cols - 1 - col
        pos[name] = (margin + box.w / 2 + col * (box.w + gap_x), margin + box.h / 2 + row * (box.h + gap_y))
    rows = math.ceil(len(order) / cols)
    width = 2 * margin + cols * box.w + (cols - 1) * gap_x
    height = 2 * margin + rows * box.h + (rows - 1) * gap_y
    paths: dict[int, list[tuple[float, float]]] = {}
    if closed and len(order) > 2:
        first, last = order[0], order[-1]
        for i, link in enumerate(group.links):
            if {device_of(link.a), device_of(link.b)} == {first, last}:
                (fx, fy), (lx, ly) = pos[first], pos[last]
                left, bottom = PAD / 2 + 4, height - PAD / 2 - 4
                # Around the outside: down from the last node, left along the
                # bottom, up the left margin, into the first node.
                paths[i] = [(lx, ly), (lx, bottom), (left, bottom), (left, fy), (fx, fy)]
    return Canvas(pos, {}, width, height, paths)


def _switched(group: Group, box: Box, columns: int | None = None) -> Canvas:
    """One switch on top; one row of Sparks fanned out from their ports, or rows on rails."""
    nodes = list(group.nodes)
    n = len(nodes)
    widest = n if n <= 8 else 8 if n <= 32 else 12
    if columns is not None:
        widest = max(1, min(widest, columns))
    cols = math.ceil(n / math.ceil(n / widest)) if n else 1  # balanced rows: 64 -> 6 rows of 11 or less
    gap_x = 16 if cols > 8 else 22
    rows = math.ceil(n / cols) if n else 1
    row_w = cols * box.w + (cols - 1) * gap_x
    sw_w, sw_h = max(170.0, min(row_w * 0.45, 320.0)), 44.0
    width = max(row_w, sw_w) + 2 * PAD
    switch = group.switches[0]
    sx = (width - sw_w) / 2
    switches = {switch: (sx, float(PAD), sw_w, sw_h)}
    by_node = {device_of(link.a): i for i, link in enumerate(group.links)}
    pos: dict[str, tuple[float, float]] = {}
    paths: dict[int, list[tuple[float, float]]] = {}
    left = (width - row_w) / 2
    if rows == 1:
        top = PAD + sw_h + 90
        ports = sorted({link.b for link in group.links}, key=_port_key)
        labels = [
            (sx + sw_w * (k + 1) / (len(ports) + 1), PAD + sw_h - 4, port.rsplit(":", 1)[-1])
            for k, port in enumerate(ports)
        ]
        for k, name in enumerate(nodes):
            pos[name] = (left + box.w / 2 + k * (box.w + gap_x), top + box.h / 2)
            if name in by_node:
                link = group.links[by_node[name]]
                px = sx + sw_w * (ports.index(link.b) + 1) / (len(ports) + 1)
                paths[by_node[name]] = [(px, PAD + sw_h), (pos[name][0], top)]
        return Canvas(pos, switches, width, top + box.h + PAD, paths, [], labels)
    rail_gap, row_h = 24, box.h + 50
    top = PAD + sw_h + 34
    for k, name in enumerate(nodes):
        row, col = divmod(k, cols)
        y = top + rail_gap + row * row_h
        pos[name] = (left + box.w / 2 + col * (box.w + gap_x), y + box.h / 2)
        if name in by_node:
            paths[by_node[name]] = [(pos[name][0], y - rail_gap), (pos[name][0], y)]
    x0, x1, rails = left - 10, left + row_w + 10, [top + r * row_h for r in range(rows)]
    fabric = [(switch, [(width / 2, PAD + sw_h), (width / 2, rails[0])])]
    fabric += [(switch, [(x0, y), (x1, y)]) for y in rails]
    fabric.append((switch, [(x0, rails[0]), (x0, rails[-1])]))
    return Canvas(pos, switches, width, top + rows * row_h + PAD - 14, paths, fabric)


def _port_key(label: str) -> tuple[int, str]:
    port = label.rsplit(":", 1)[-1]
    return (int(port), "") if port.isascii() and port.isdigit() else (1 << 30, port)
