"""A node's stored history as chart series: memory used/available, twins up,
the speed of each cabled port and the root filesystem's free space. Raw samples where they are kept,
five-minute aggregates further back; a gap where the node gave no numbers
or no poll happened for a while."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from inventory.models import Spark
from telemetry import charts, conf, selectors
from telemetry.charts import Point, Series
from telemetry.health import Thresholds

GIB = 2**30
USED, AVAILABLE, TOTAL, TWINS, P0, P1 = "#76b900", "#2f6fde", "#9aa3b5", "#2e8b3e", "#2f6fde", "#c77700"
DISK, DISK_LOW = "#6a4fb3", "#c0392b"


@dataclass
class Row:
    at: datetime
    used: float | None
    available: float | None
    total: float | None
    twins_up: float | None
    port_speed: dict[str, float | None]
    disk_free: int | None = None  # bytes a user may still write on / (the least of an aggregate's five minutes)
    disk_total: int | None = None


def _rows(spark: Spark, start: datetime, end: datetime, ports: tuple[str, ...]) -> list[Row]:
    rows: list[Row] = []
    for agg in selectors.aggregates_between(spark=spark, start=start, end=end):
        speed = agg.speed_min_mbps / 1000 if agg.speed_min_mbps else None
        rows.append(
            Row(
                agg.bucket,
                _gib(agg.mem_used_avg_bytes),
                _gib(agg.mem_available_min_bytes),
                _gib(agg.mem_total_bytes),
                agg.twins_up_min,
                dict.fromkeys(ports, speed),
                agg.disk_free_min_bytes,
                agg.disk_total_bytes,
            )
        )
    for s in selectors.samples_between(spark=spark, start=start, end=end):
        twins = [t for t in s.twin_list if t["port"] in ports] if s.twins is not None else None
        speeds: dict[str, float | None] = {}
        for port in ports:
            up = [t["speed_mbps"] or 0 for t in twins or () if t["port"] == port and t["up"]]
            speeds[port] = (min(up) / 1000 if up else 0.0) if twins is not None else None
        rows.append(
            Row(
                s.at,
                _gib(s.mem_used_bytes),
                _gib(s.mem_available_bytes),
                _gib(s.mem_total_bytes),
                sum(1 for t in twins if t["up"]) if twins is not None else None,
                speeds,
                s.disk_free_bytes,
                s.disk_total_bytes,
            )
        )
    rows.sort(key=lambda r: r.at)
    return _with_gaps(rows)


def _gib(value: int | None) -> float | None:
    return value / GIB if value is not None else None


def _with_gaps(rows: list[Row]) -> list[Row]:
    """Break the lines where polls stopped for more than three intervals."""
    gap = timedelta(seconds=max(3 * conf.poll_interval_s(), 3 * conf.AGGREGATE_BUCKET_S))
    out: list[Row] = []
    for row in rows:
        if out and row.at - out[-1].at > gap:
            out.append(Row(out[-1].at + timedelta(seconds=1), None, None, None, None, {}))
        out.append(row)
    return out


def node_charts(*, spark: Spark, start: datetime, end: datetime, cabled_ports: tuple[str, ...]) -> dict[str, str]:
    rows = _rows(spark, start, end, cabled_ports)
    total = max((r.total for r in rows if r.total), default=float(spark.memory_gb or 128))

    def pts(attr: str) -> list[Point]:
        return [(r.at, getattr(r, attr)) for r in rows]

    twins_max = max(2 * len(cabled_ports), 1)
    twins = charts.line_chart(
        [Series("twins up", TWINS, pts("twins_up"), step=True)],
        start=start,
        end=end,
        y_max=twins_max,
        y_ticks=twins_max,
        y_unit=f"twins up (of {2 * len(cabled_ports)} cabled)",
        title=f"{spark.name} twins up",
        width=540,
        height=180,
        y_format=lambda v: f"{v:.0f}",
    )
    speed_series = [
        # p1 dashed: two healthy ports sit on the same 200 Gb/s line.
        Series(port, color, [(r.at, r.port_speed.get(port)) for r in rows], step=True, dashed=index == 1)
        for index, (port, color) in enumerate(zip(cabled_ports, (P0, P1), strict=False))
    ]
    speed = charts.line_chart(
        speed_series,
        start=start,
        end=end,
        y_max=200,
        y_unit="slowest twin per port, Gb/s",
        title=f"{spark.name} link speed",
        width=540,
        height=180,
        y_format=lambda v: f"{v:.0f}",
    )
    # The two wide charts are drawn again for a phone (the page shows one of each pair by its
    # width), from at most a point per pixel of their narrower drawing.
    few = _thin(rows, PHONE_WIDTH)
    return {
        "memory": memory_chart(spark.name, rows, start, end, total),
        "memory_narrow": memory_chart(spark.name, few, start, end, total, narrow=True),
        "twins": twins,
        "speed": speed,
        "disk": disk_chart(spark.name, rows, start, end),
        "disk_narrow": disk_chart(spark.name, few, start, end, narrow=True),
    }


PHONE_WIDTH = 540  # the viewBox width of a chart's phone drawing


def _thin(rows: list[Row], most: int) -> list[Row]:
    """At most about ``most`` rows, evenly taken, keeping every gap (a row without
    figures) and the rows either side of it, so lines still break where polls stopped."""
    if len(rows) <= most:
        return rows
    step = -(-len(rows) // most)
    gap = [r.used is None and r.disk_free is None and r.twins_up is None for r in rows]
    return [
        r
        for i, r in enumerate(rows)
        if i % step == 0 or i == len(rows) - 1 or gap[i] or (i > 0 and gap[i - 1]) or (i + 1 < len(rows) and gap[i + 1])
    ]


def memory_chart(
    name: str, rows: list[Row], start: datetime, end: datetime, total: float, *, narrow: bool = False
) -> str:
    """Unified memory used (shaded) and available over time, on an axis topped at the memory's size."""
    return charts.line_chart(
        [
            Series("used", USED, [(r.at, r.used) for r in rows], area=True),
            Series("available", AVAILABLE, [(r.at, r.available) for r in rows]),
        ],
        start=start,
        end=end,
        y_max=total,
        y_unit="unified memory, GiB",
        title=f"{name} memory",
        y_format=lambda v: f"{v:.0f}",
        width=PHONE_WIDTH if narrow else 1180,
        height=250,
        narrow=narrow,
    )


def disk_chart(name: str, rows: list[Row], start: datetime, end: datetime, *, narrow: bool = False) -> str:
    """Free space on the root filesystem over time, in TB on a drive of a terabyte
    or more (GB below), against the line where disk-low opens."""
    size = max((r.disk_total for r in rows if r.disk_total), default=None)
    unit, scale = ("TB", 1e12) if size is None or size >= 1e12 else ("GB", 1e9)
    series = [Series("free", DISK, [(r.at, r.disk_free / scale if r.disk_free is not None else None) for r in rows])]
    if size:
        low = Thresholds().disk_free_fraction * size / scale
        series.append(Series("disk-low opens", DISK_LOW, [(start, low), (end, low)], dashed=True))
    return charts.line_chart(
        series,
        start=start,
        end=end,
        y_max=size / scale if size else None,
        y_unit=f"free on /, {unit}",
        title=f"{name} root filesystem free",
        width=PHONE_WIDTH if narrow else 1180,
        height=200 if narrow else 180,
        y_format=lambda v: f"{v:.1f}" if unit == "TB" else f"{v:.0f}",
        narrow=narrow,
    )
