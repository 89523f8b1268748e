"""Reads of telemetry for pages, the API and /metrics: stored samples only,
never SSH, with a fixed number of queries however many nodes there are."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Count, QuerySet

from core import live
from core.errors import NotFound
from core.health import HEALTH_STATUSES, HealthStatus
from inventory.models import Spark
from telemetry import health as health_rules
from telemetry.expectations import expectations_cached
from telemetry.models import Alert, NodeAggregate, NodeSample, NodeState
from telemetry.sample import ComputeProcess

STATUSES = list(HEALTH_STATUSES)  # the one state's health (core.health)
HISTORY_LIMIT = 20_000  # rows per history answer: 48 h of 30 s polls is 5,760


@dataclass
class Tile:
    name: str
    status: str
    spark_status: str
    latest: NodeSample | None
    state: NodeState | None
    cabled_ports: tuple[str, ...]  # ports the inventory has a cable in
    open_alerts: int
    codes: list[str] = field(default_factory=list)
    health: Any = None  # the one state (core.live): health, why, usable memory
    findings: list[Any] = field(default_factory=list)  # its groups' findings about it that are not alerts

    @property
    def twins_cabled(self) -> int:
        """Twins the inventory expects up: two per cabled port."""
        return 2 * len(self.cabled_ports)

    @property
    def mem_pct(self) -> float | None:
        frac = self.latest.mem_used_fraction if self.latest else None
        return round(frac * 100, 1) if frac is not None else None

    @property
    def twins_up_cabled(self) -> int | None:
        if self.latest is None or self.latest.twins is None:
            return None
        return sum(1 for t in self.latest.twin_list if t["up"] and t["port"] in self.cabled_ports)


def spark_get(name: str) -> Spark:
    spark = (
        Spark.objects.select_related("hardware", "telemetry", "telemetry__latest", "telemetry__latest__twin_set")
        .filter(name=name)
        .first()
    )
    if spark is None:
        raise NotFound(f"no Spark named {name!r}", "name")
    return spark


def state_of(spark: Spark) -> NodeState | None:
    # A Spark never polled has no state row (the reverse accessor raises AttributeError).
    return getattr(spark, "telemetry", None)


def fleet_tiles(*, include_retired: bool = False) -> list[Tile]:
    sparks = Spark.objects.select_related("telemetry", "telemetry__latest", "telemetry__latest__twin_set").order_by(
        "name"
    )
    if not include_retired:
        sparks = sparks.exclude(status=Spark.Status.RETIRED)
    sparks_list = list(sparks)
    expectations = expectations_cached(s.pk for s in sparks_list).nodes
    open_counts: dict[int, list[str]] = {}
    for spark_id, code in (
        Alert.objects.filter(ended_at__isnull=True, spark__in=sparks_list)
        .values_list("spark_id", "code")
        .order_by("code")
    ):
        open_counts.setdefault(spark_id, []).append(code)
    states = live.spark_states([s.name for s in sparks_list])
    findings = live.spark_findings()
    tiles = []
    for spark in sparks_list:
        state = state_of(spark)
        exp = expectations.get(spark.name)
        one = states.get(spark.name)
        tile = Tile(
            name=spark.name,
            status=one.health if one else (state.status if state else HealthStatus.UNKNOWN),
            spark_status=spark.status,
            latest=state.latest if state else None,
            state=state,
            cabled_ports=tuple(sorted(exp.cabled_ports)) if exp else (),
            open_alerts=len(open_counts.get(spark.pk, [])),
            codes=sorted(set(open_counts.get(spark.pk, []))),
            health=one,
            findings=[f for f in findings.get(spark.name, ()) if f.code not in open_counts.get(spark.pk, [])],
        )
        tiles.append(tile)
    return tiles


def status_counts(tiles: list[Tile]) -> dict[str, int]:
    counts: dict[str, int] = dict.fromkeys(STATUSES, 0)
    for tile in tiles:
        counts[tile.status] = counts.get(tile.status, 0) + 1
    return counts


def samples_between(*, spark: Spark, start: datetime, end: datetime, limit: int = HISTORY_LIMIT) -> list[NodeSample]:
    rows = NodeSample.objects.filter(spark=spark, at__gte=start, at__lte=end).select_related("twin_set")
    return list(rows.order_by("at")[:limit])


def disk_full_in(*, spark: Spark, end: datetime) -> float | None:
    """Seconds until the Spark's root filesystem is full at the rate of its last six
    hours of polls (telemetry.health.disk_full_in), or None."""
    rows = (
        NodeSample.objects.filter(
            spark=spark,
            at__gte=end - timedelta(seconds=health_rules.FILL_WINDOW_S),
            at__lte=end,
            disk_free_bytes__isnull=False,
        )
        .order_by("at")
        .values_list("at", "disk_free_bytes")
    )
    return health_rules.disk_full_in([(at.timestamp(), free) for at, free in rows if free is not None])


def aggregates_between(
    *, spark: Spark, start: datetime, end: datetime, limit: int = HISTORY_LIMIT
) -> list[NodeAggregate]:
    qs = NodeAggregate.objects.filter(spark=spark, bucket__gte=start, bucket__lte=end)
    return list(qs.order_by("bucket")[:limit])


def history_start(*, spark: Spark, earliest: datetime, end: datetime) -> datetime:
    """Where a chart's time axis starts: the range asked for, or shortly before the
    node's first stored poll when its history is shorter (a new node's first
    minutes fill the chart instead of a sliver at its right edge)."""
    first = NodeSample.objects.filter(spark=spark, at__gte=earliest).order_by("at").values_list("at", flat=True).first()
    if first is None or NodeAggregate.objects.filter(spark=spark, bucket__gte=earliest).exists():
        return earliest
    span = max(end - first, timedelta(minutes=5))
    return max(earliest, end - span * 1.05)


def open_alerts(*, spark: Spark) -> list[Alert]:
    return list(Alert.objects.filter(spark=spark, ended_at__isnull=True).order_by("-severity", "code"))


def alerts_list(*, open: bool | None = None, code: str = "", node: str = "") -> QuerySet[Alert]:
    qs = Alert.objects.select_related("spark")
    if open is True:
        qs = qs.filter(ended_at__isnull=True)
    elif open is False:
        qs = qs.filter(ended_at__isnull=False)
    if code:
        qs = qs.filter(code=code)
    if node:
        qs = qs.filter(spark__name=node)
    return qs.order_by("-started_at", "-id")


def alert_codes_in_use() -> list[str]:
    return sorted(set(Alert.objects.values_list("code", flat=True).distinct().order_by()))


def open_alert_counts() -> list[dict[str, Any]]:
    """Open alerts per (code, severity), for /metrics and summaries."""
    return list(
        Alert.objects.filter(ended_at__isnull=True)
        .values("code", "severity")
        .annotate(n=Count("id"))
        .order_by("code", "severity")
    )


def alert_get(alert_id: int) -> Alert:
    alert = Alert.objects.select_related("spark").filter(pk=alert_id).first()
    if alert is None:
        raise NotFound(f"no alert with id {alert_id}", "id")
    return alert


def accepted_host_key(spark: Spark) -> str | None:
    """The host key an admin accepted for this Spark, or None: a command sent
    over SSH (a benchmark run, a fabric verification) needs one."""
    key = NodeState.objects.filter(spark=spark).values_list("host_key", flat=True).first()
    return key or None


def latest_samples(names: list[str]) -> dict[str, NodeSample]:
    """The latest stored sample of each of these nodes (one query; nodes never
    polled are left out)."""
    rows = NodeState.objects.filter(spark__name__in=list(names), latest__isnull=False).select_related(
        "spark", "latest", "latest__twin_set"
    )
    return {row.spark.name: row.latest for row in rows if row.latest is not None}


def latest_processes(nodes: list[str]) -> dict[str, list[ComputeProcess]]:
    """GPU compute processes in each node's latest sample, in one query.
    Nodes never polled, or whose latest sample could not list processes, are left out."""
    states = NodeState.objects.filter(spark__name__in=list(nodes)).select_related("spark", "latest")
    return {
        s.spark.name: s.latest.process_list for s in states if s.latest is not None and s.latest.processes is not None
    }


def node_health(spark_ids: list[int]) -> dict[int, str]:
    """Health per Spark id, the one state (ok, degraded, down, unknown, new): what
    bookings check before holding a Spark (a new Spark is not down)."""
    names = dict(Spark.objects.filter(pk__in=list(spark_ids)).values_list("name", "pk"))
    states = live.spark_states(list(names))
    return {names[name]: state.health for name, state in states.items() if name in names}


def software_drift_of(names: Iterable[str]) -> list[tuple[str, str]]:
    """(Spark, message) of the open ``software-drift`` findings of these Sparks, in name order (one query):
    what a plan, a launch or a fabric verification says before it starts."""
    from telemetry.drift import CODE

    rows = Alert.objects.filter(spark__name__in=list(names), code=CODE, ended_at__isnull=True)
    return list(rows.order_by("spark__name").values_list("spark__name", "message"))
