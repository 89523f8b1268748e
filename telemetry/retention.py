"""Retention: raw polls for ``FLEET_RAW_RETENTION_H`` (48 h), then five-minute
aggregates for ``FLEET_AGGREGATE_RETENTION_D`` (90 days), then nothing.

Raw rows past retention are folded into their five-minute bucket and deleted
in the same transaction, one node at a time (short transactions, bounded
memory); a bucket that already has an aggregate is merged by sample count,
so running the task twice, or after a crash, never counts a poll twice.
Rows a node keeps as its latest poll are kept whatever their age.

On PostgreSQL the samples are in day partitions (``telemetry.partitions``): a
day is folded whole once all of it is past retention (so raw polls live 48 to
72 h) and its partition is dropped in the same transaction, instead of its
rows being deleted; only rows older than the first day partition (in the
default one) are still deleted as rows. SQLite deletes rows, as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.db import connection, transaction
from django.db.models import QuerySet
from django.utils import timezone

from telemetry import conf
from telemetry.models import NodeAggregate, NodeSample, NodeState, TwinSet
from telemetry.partitions import DayPartition, day_partitions, partition_drop_keeping, partitioned, partitions_ensure

_FIELDS = (
    "at",
    "reachable",
    "mem_total_bytes",
    "mem_used_bytes",
    "mem_available_bytes",
    "gpu_util_pct",
    "gpu_temp_c",
    "gpu_power_w",
    "load1",
    "twins_up",
    "twin_set__twins",
    "twins_inline",
    "disk_total_bytes",
    "disk_free_bytes",
)


@dataclass
class RetentionReport:
    folded: int = 0  # raw rows turned into aggregates
    buckets: int = 0
    aggregates_deleted: int = 0
    partitions_dropped: int = 0  # PostgreSQL: whole days dropped after folding
    twin_sets_deleted: int = 0  # twin sets no kept poll points at


def bucket_of(at: datetime) -> datetime:
    seconds = int(at.timestamp()) // conf.AGGREGATE_BUCKET_S * conf.AGGREGATE_BUCKET_S
    return datetime.fromtimestamp(seconds, tz=UTC)


def _avg(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _fold(rows: list[tuple[Any, ...]]) -> dict[str, Any]:
    cols = {f: [r[i] for r in rows] for i, f in enumerate(_FIELDS)}
    used = [v for v in cols["mem_used_bytes"] if v is not None]
    twins_of = [
        shared if shared is not None else inline
        for shared, inline in zip(cols["twin_set__twins"], cols["twins_inline"], strict=True)
    ]
    speeds = [t[4] for twins in twins_of if twins for t in twins if t[3] and t[4]]
    twins_up = [v for v in cols["twins_up"] if v is not None]
    avg_used = _avg(used)
    return {
        "samples": len(rows),
        "reachable": sum(1 for v in cols["reachable"] if v),
        "mem_total_bytes": max((v for v in cols["mem_total_bytes"] if v is not None), default=None),
        "mem_used_avg_bytes": int(avg_used) if avg_used is not None else None,
        "mem_used_max_bytes": max(used, default=None),
        "mem_available_min_bytes": min((v for v in cols["mem_available_bytes"] if v is not None), default=None),
        "gpu_util_avg_pct": _avg([v for v in cols["gpu_util_pct"] if v is not None]),
        "gpu_temp_max_c": max((v for v in cols["gpu_temp_c"] if v is not None), default=None),
        "gpu_power_avg_w": _avg([v for v in cols["gpu_power_w"] if v is not None]),
        "load1_avg": _avg([v for v in cols["load1"] if v is not None]),
        "twins_up_min": min(twins_up, default=None),
        "speed_min_mbps": min(speeds, default=None),
        "disk_total_bytes": max((v for v in cols["disk_total_bytes"] if v is not None), default=None),
        "disk_free_min_bytes": min((v for v in cols["disk_free_bytes"] if v is not None), default=None),
    }


def _merge(old: NodeAggregate, new: dict[str, Any]) -> dict[str, Any]:
    """Combine an existing bucket with newly folded rows, weighted by sample count."""
    n_old: int = old.samples
    n_new: int = new["samples"]

    def wavg(a: float | None, b: float | None) -> float | None:
        if a is None or b is None:
            return a if b is None else b
        return (a * n_old + b * n_new) / (n_old + n_new)

    def pick(fn: Any, a: Any, b: Any) -> Any:
        return fn(a, b) if a is not None and b is not None else (a if b is None else b)

    used = wavg(old.mem_used_avg_bytes, new["mem_used_avg_bytes"])
    return {
        "samples": n_old + n_new,
        "reachable": old.reachable + new["reachable"],
        "mem_total_bytes": pick(max, old.mem_total_bytes, new["mem_total_bytes"]),
        "mem_used_avg_bytes": int(used) if used is not None else None,
        "mem_used_max_bytes": pick(max, old.mem_used_max_bytes, new["mem_used_max_bytes"]),
        "mem_available_min_bytes": pick(min, old.mem_available_min_bytes, new["mem_available_min_bytes"]),
        "gpu_util_avg_pct": wavg(old.gpu_util_avg_pct, new["gpu_util_avg_pct"]),
        "gpu_temp_max_c": pick(max, old.gpu_temp_max_c, new["gpu_temp_max_c"]),
        "gpu_power_avg_w": wavg(old.gpu_power_avg_w, new["gpu_power_avg_w"]),
        "load1_avg": wavg(old.load1_avg, new["load1_avg"]),
        "twins_up_min": pick(min, old.twins_up_min, new["twins_up_min"]),
        "speed_min_mbps": pick(min, old.speed_min_mbps, new["speed_min_mbps"]),
        "disk_total_bytes": pick(max, old.disk_total_bytes, new["disk_total_bytes"]),
        "disk_free_min_bytes": pick(min, old.disk_free_min_bytes, new["disk_free_min_bytes"]),
    }


def _fold_node(spark_id: int, rows: QuerySet[NodeSample], report: RetentionReport) -> None:
    """Fold ``rows`` (one node's, inside the caller's transaction) into their
    five-minute buckets, merging with the buckets already there."""
    values = list(rows.order_by("at").values_list("pk", *_FIELDS))
    buckets: dict[datetime, list[tuple[Any, ...]]] = {}
    for row in values:
        buckets.setdefault(bucket_of(row[1]), []).append(row[1:])
    existing = {
        a.bucket: a
        for a in NodeAggregate.objects.select_for_update().filter(spark_id=spark_id, bucket__in=list(buckets))
    }
    new = []
    for bucket, members in buckets.items():
        folded = _fold(members)
        if bucket in existing:
            NodeAggregate.objects.filter(pk=existing[bucket].pk).update(**_merge(existing[bucket], folded))
        else:
            new.append(NodeAggregate(spark_id=spark_id, bucket=bucket, **folded))
    NodeAggregate.objects.bulk_create(new, batch_size=500)
    report.folded += len(values)
    report.buckets += len(buckets)


# PostgreSQL: a whole day folded in one statement, the same figures as _fold and
# _merge (averages over the values present, merged with an existing bucket
# weighted by sample count; the average memory truncated to whole bytes).
_BUCKET = f"to_timestamp(floor(extract(epoch FROM at) / {conf.AGGREGATE_BUCKET_S}) * {conf.AGGREGATE_BUCKET_S})"


def _speed_of(twins: str) -> str:
    """SQL: the slowest twin that is up (its speed, 0 not counted) of a jsonb list of packed twins."""
    return (
        f"(SELECT min((t->>4)::numeric) FROM jsonb_array_elements({twins}) t "  # noqa: S608 - a column name
        "WHERE t->3 = 'true'::jsonb AND (t->>4)::numeric <> 0)"
    )


# A twin set's slowest twin is worked out once per set, not once per poll pointing at it;
# polls stored before twin sets carry their twins inline.
_SPEED = f"CASE WHEN s.twin_set_id IS NULL THEN {_speed_of('s.twins')} ELSE sp.speed END"
_SUM = {"samples", "reachable"}
_MAX = {"mem_total_bytes", "mem_used_max_bytes", "gpu_temp_max_c", "disk_total_bytes"}
_MIN = {"mem_available_min_bytes", "twins_up_min", "speed_min_mbps", "disk_free_min_bytes"}
_AVG = {"mem_used_avg_bytes": True, "gpu_util_avg_pct": False, "gpu_power_avg_w": False, "load1_avg": False}
_AGG_COLUMNS = [
    ("samples", "count(*)"),
    ("reachable", "count(*) FILTER (WHERE reachable)"),
    ("mem_total_bytes", "max(mem_total_bytes)"),
    ("mem_used_avg_bytes", "trunc(avg(mem_used_bytes))"),
    ("mem_used_max_bytes", "max(mem_used_bytes)"),
    ("mem_available_min_bytes", "min(mem_available_bytes)"),
    ("gpu_util_avg_pct", "avg(gpu_util_pct)"),
    ("gpu_temp_max_c", "max(gpu_temp_c)"),
    ("gpu_power_avg_w", "avg(gpu_power_w)"),
    ("load1_avg", "avg(load1)"),
    ("twins_up_min", "min(twins_up)"),
    ("speed_min_mbps", "min(speed)"),
    ("disk_total_bytes", "max(disk_total_bytes)"),
    ("disk_free_min_bytes", "min(disk_free_bytes)"),
]


def _merged(column: str) -> str:
    old, new, table = f"a.{column}", f"EXCLUDED.{column}", "a"
    if column in _SUM:
        return f"{old} + {new}"
    if column in _MAX:
        return f"GREATEST({old}, {new})"
    if column in _MIN:
        return f"LEAST({old}, {new})"
    weighted = f"({old} * {table}.samples + {new} * EXCLUDED.samples)::numeric / ({table}.samples + EXCLUDED.samples)"
    if _AVG[column]:
        weighted = f"trunc({weighted})"
    return f"CASE WHEN {old} IS NULL THEN {new} WHEN {new} IS NULL THEN {old} ELSE {weighted} END"


FOLD_WORK_MEM = "256MB"


def _fold_day_in_sql(cursor: Any, part: DayPartition, keep: set[int], report: RetentionReport) -> None:
    """Fold one day partition (all its nodes, but the rows in ``keep``) into the
    aggregates with one INSERT ... SELECT ... GROUP BY ... ON CONFLICT."""
    keep_ids = sorted(keep)
    # A day's (spark, five minutes) groups outgrow the default 4 MB: without room they spill
    # to disk (measured at 300 Sparks: 4.1 to 4.6 s a day, 2.8 to 3.7 s with this). Once a day.
    cursor.execute(f"SET LOCAL work_mem = '{FOLD_WORK_MEM}'")
    cursor.execute(f'SELECT count(*) FROM "{part.name}" WHERE id <> ALL(%s)', [keep_ids])  # noqa: S608
    report.folded += int(cursor.fetchone()[0])
    columns = ", ".join(c for c, _ in _AGG_COLUMNS)
    values = ", ".join(e for _, e in _AGG_COLUMNS)
    updates = ", ".join(f"{c} = {_merged(c)}" for c, _ in _AGG_COLUMNS)
    # Every name here is the model's or a date's (no text from a request).
    cursor.execute(
        f"WITH sp AS (SELECT id, {_speed_of('twins')} AS speed FROM {TwinSet._meta.db_table}) "  # noqa: S608
        f"INSERT INTO telemetry_nodeaggregate AS a (spark_id, bucket, {columns}) "
        f"SELECT spark_id, {_BUCKET} AS bucket, {values} "
        f'FROM (SELECT s.*, {_SPEED} AS speed FROM "{part.name}" s '
        f"LEFT JOIN sp ON sp.id = s.twin_set_id WHERE s.id <> ALL(%s)) rows "
        f"GROUP BY spark_id, bucket "
        f"ON CONFLICT (spark_id, bucket) DO UPDATE SET {updates}",
        [keep_ids],
    )
    report.buckets += int(cursor.rowcount)


def _drop_expired_days(raw_cutoff: datetime, keep: set[int], report: RetentionReport, now: datetime) -> datetime:
    """PostgreSQL: fold (in SQL) and drop every day partition wholly before
    ``raw_cutoff``, one transaction per day (a crash folds nothing twice). Returns the time
    below which rows are still deleted one by one (the default partition's)."""
    partitions_ensure(now=now)
    live = []
    for part in day_partitions():
        if part.end > raw_cutoff:
            live.append(part)
            continue
        with transaction.atomic(), connection.cursor() as cursor:
            _fold_day_in_sql(cursor, part, keep, report)
            partition_drop_keeping(cursor, part, keep)
        report.partitions_dropped += 1
    return min([raw_cutoff, *(p.start for p in live)])


def downsample(*, now: datetime | None = None) -> RetentionReport:
    now = now or timezone.now()
    report = RetentionReport()
    # Only whole buckets: a bucket straddling the cutoff waits for the next run.
    raw_cutoff = bucket_of(now - timedelta(hours=conf.raw_retention_h()))
    keep = set(NodeState.objects.exclude(latest=None).values_list("latest_id", flat=True))
    row_cutoff = _drop_expired_days(raw_cutoff, keep, report, now) if partitioned() else raw_cutoff
    spark_ids = list(
        NodeSample.objects.filter(at__lt=row_cutoff).values_list("spark_id", flat=True).distinct().order_by()
    )
    for spark_id in spark_ids:
        with transaction.atomic():
            old = NodeSample.objects.filter(spark_id=spark_id, at__lt=row_cutoff).exclude(pk__in=keep)
            _fold_node(spark_id, old, report)
            # The same rows as read above (inside this transaction), without a huge IN list.
            old.delete()
    agg_cutoff = now - timedelta(days=conf.aggregate_retention_d())
    report.aggregates_deleted, _ = NodeAggregate.objects.filter(bucket__lt=agg_cutoff).delete()
    report.twin_sets_deleted = twin_sets_forget_unused(now=now)
    return report


def twin_sets_forget_unused(*, now: datetime) -> int:
    """Delete the twin sets no kept poll can point at: unused for a day longer
    than raw polls are kept (a store refreshes a set's ``used_at`` at least every
    ``sample_rows.TWIN_SET_REFRESH_S`` while it points polls at it), and not the
    set of a Spark's latest poll (kept whatever its age)."""
    cutoff = now - timedelta(hours=conf.raw_retention_h() + 24)
    latest = NodeSample.objects.filter(
        pk__in=NodeState.objects.exclude(latest=None).values("latest_id"), twin_set__isnull=False
    ).values("twin_set_id")
    deleted, _ = TwinSet.objects.filter(used_at__lt=cutoff).exclude(pk__in=latest).delete()
    return deleted
