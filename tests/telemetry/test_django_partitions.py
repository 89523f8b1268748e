"""Retention of raw polls. On PostgreSQL the samples live in day partitions
and a day past retention is folded into five-minute aggregates and dropped
whole (no row-by-row delete), a node's latest poll surviving the drop; on
SQLite (the embedded default) the same retention deletes rows. Either way the
aggregates are the same and nothing is counted twice."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta

import pytest
from django.db import connection

from inventory.models import Spark
from telemetry import partitions, retention
from telemetry.models import NodeAggregate, NodeSample, NodeState, TwinSet
from telemetry.sample_rows import twin_set_key
from tests.telemetry.test_django_store import _row

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 6, 10, 12, 0, tzinfo=UTC)  # raw retention 48 h: the cutoff is 2026-06-08 12:00
ON_POSTGRESQL = connection.vendor == "postgresql"


def exists(name: str) -> bool:
    with connection.cursor() as c:
        c.execute("SELECT to_regclass(%s)", [name])
        return c.fetchone()[0] is not None


def holder(row: NodeSample) -> str:
    """The partition a sample is stored in."""
    with connection.cursor() as c:
        c.execute(f"SELECT tableoid::regclass::text FROM {partitions.TABLE} WHERE id = %s", [row.pk])  # noqa: S608
        return c.fetchone()[0]


@pytest.fixture
def spark(import_lab):
    import_lab("pair.yaml")
    return Spark.objects.order_by("name").first()


@pytest.fixture
def days():
    """Day partitions from 2026-06-06 to 06-10 (PostgreSQL), as the hourly task keeps them."""
    if ON_POSTGRESQL:
        with connection.cursor() as c:
            for d in range(6, 11):
                partitions.day_partition_create(c, date(2026, 6, d))


def lab_day(spark: Spark) -> tuple[list[NodeSample], NodeSample, list[NodeSample], NodeSample]:
    """20 polls on 06-07 (the last one the node's latest), 4 on 06-08 before the cutoff, one an hour ago."""
    expired_day = NodeSample.objects.bulk_create(
        [_row(spark, datetime(2026, 6, 7, 9, 0, tzinfo=UTC) + timedelta(seconds=30 * i), 10 + i) for i in range(20)]
    )
    latest = expired_day[-1]
    NodeState.objects.update_or_create(spark=spark, defaults={"latest": latest})
    straddling = NodeSample.objects.bulk_create(
        [_row(spark, datetime(2026, 6, 8, 10, 0, tzinfo=UTC) + timedelta(seconds=30 * i), 60) for i in range(4)]
    )
    recent = NodeSample.objects.create(
        **{
            f: getattr(_row(spark, NOW - timedelta(hours=1), 50), f)
            for f in ("spark", "at", "reachable", "mem_total_bytes", "mem_used_bytes")
        }
    )
    return expired_day, latest, straddling, recent


def test_a_day_past_retention_is_folded_and_its_rows_are_gone(spark, days):
    expired_day, latest, straddling, recent = lab_day(spark)
    if ON_POSTGRESQL:
        assert holder(expired_day[0]) == "telemetry_nodesample_p20260607"
    report = retention.downsample(now=NOW)
    aggs = list(NodeAggregate.objects.filter(spark=spark).order_by("bucket"))
    # 19 polls of 06-07 (its latest is kept raw) in two five-minute buckets
    assert [(a.bucket, a.samples) for a in aggs[:2]] == [
        (datetime(2026, 6, 7, 9, 0, tzinfo=UTC), 10),
        (datetime(2026, 6, 7, 9, 5, tzinfo=UTC), 9),
    ]
    assert aggs[0].mem_used_max_bytes == 19 and aggs[1].mem_used_max_bytes == 28
    left = set(NodeSample.objects.filter(spark=spark).values_list("pk", flat=True))
    if ON_POSTGRESQL:
        # 06-06 (empty) and 06-07 were dropped whole; 06-08 is only partly past the cutoff, so it stays
        # raw until all of it is
        assert report.partitions_dropped == 2 and report.folded == 19 and len(aggs) == 2
        assert not exists("telemetry_nodesample_p20260606") and not exists("telemetry_nodesample_p20260607")
        assert exists("telemetry_nodesample_p20260608")
        assert left == {latest.pk, recent.pk, *(r.pk for r in straddling)}
        assert holder(latest) == partitions.DEFAULT
    else:
        # rows are deleted one by one up to the cutoff, 06-08's polls before it included
        assert report.partitions_dropped == 0 and report.folded == 23 and [a.samples for a in aggs[2:]] == [4]
        assert left == {latest.pk, recent.pk}
    # the node's latest poll is still read through its state, with its id
    state = NodeState.objects.select_related("latest").get(spark=spark)
    assert state.latest is not None and state.latest.pk == latest.pk and state.latest.mem_used_bytes == 29
    # a second run finds nothing to fold: no poll is counted twice
    again = retention.downsample(now=NOW)
    assert again.folded == 0 and again.partitions_dropped == 0
    assert sum(NodeAggregate.objects.filter(spark=spark).values_list("samples", flat=True)) == report.folded


@pytest.mark.skipif(not ON_POSTGRESQL, reason="day partitions are PostgreSQL's")
def test_a_day_partition_is_made_ahead_and_takes_its_rows_from_the_default_one(spark):
    early = NodeSample.objects.create(
        **{f: getattr(_row(spark, datetime(2030, 1, 2, 3, tzinfo=UTC), 5), f) for f in ("spark", "at", "reachable")}
    )
    assert holder(early) == partitions.DEFAULT  # no partition for that day yet: the default takes it
    made = partitions.partitions_ensure(now=datetime(2030, 1, 1, 23, tzinfo=UTC), days_ahead=2)
    assert made == 3
    assert holder(early) == "telemetry_nodesample_p20300102"
    assert [p.day for p in partitions.day_partitions() if p.day.year == 2030] == [
        date(2030, 1, 1),
        date(2030, 1, 2),
        date(2030, 1, 3),
    ]
    assert partitions.partitions_ensure(now=datetime(2030, 1, 1, 23, tzinfo=UTC), days_ahead=2) == 0
    NodeSample.objects.create(
        **{f: getattr(_row(spark, datetime(2030, 1, 3, 1, tzinfo=UTC), 6), f) for f in ("spark", "at", "reachable")}
    )
    assert NodeSample.objects.filter(at__year=2030).count() == 2


@pytest.mark.skipif(not ON_POSTGRESQL, reason="day partitions are PostgreSQL's")
def test_the_samples_table_is_partitioned_by_day_after_migrating():
    assert partitions.partitioned()
    today = datetime.now(UTC).date()
    have = {p.day for p in partitions.day_partitions()}
    # the migration made the seven days around the day it ran; the test database was migrated when the
    # session began, which a run crossing midnight (UTC) began the day before (a CI run did)
    migrated_on = [day for day in (today, today - timedelta(days=1)) if day + timedelta(days=3) in have]
    assert migrated_on, sorted(have)
    assert {migrated_on[0] + timedelta(days=d) for d in range(-3, 4)} <= have


@pytest.mark.skipif(not ON_POSTGRESQL, reason="the day's fold in SQL is PostgreSQL's")
def test_a_day_folded_in_sql_gives_the_figures_the_rows_fold_gives(spark, days):
    """Every aggregate field, from varied polls (missing values, twins down or at 0, a bucket already
    holding an aggregate), against retention's own row-by-row fold and merge of the same rows."""
    start = datetime(2026, 6, 7, 9, 0, tzinfo=UTC)
    rows = []
    sets: dict[int, tuple[str, object]] = {}
    for i in range(30):
        row = _row(spark, start + timedelta(seconds=30 * i), 10 + i)
        row.reachable = i % 7 != 3
        row.gpu_util_pct = None if i % 5 == 0 else 12.5 * (i % 8)
        row.gpu_temp_c = 40.0 + i % 9
        row.gpu_power_w = None if i % 4 == 1 else 30.0 + i
        row.load1 = 0.25 * i
        row.mem_total_bytes = 100 + i % 3
        row.twins_up = i % 3
        # the root filesystem: not read by some polls (before the poll asked), filling up over the day
        row.disk_total_bytes = None if i % 9 == 4 else 4_000_000_000_000 + (i % 2)
        row.disk_free_bytes = None if row.disk_total_bytes is None else 900_000_000_000 - 7_000_000 * ((i * 13) % 17)
        row.twins = [
            ["enp1s0f0np0", "p0", "rocep1s0f0", i % 2 == 0, 200000 - 1000 * (i % 4), 9000, []],
            ["enP2p1s0f0np0", "p0", "roceP2p1s0f0", True, 0 if i % 6 == 0 else 100000 + i, 9000, []],
        ]
        if i % 11 == 0:
            row.twins = None
        elif i % 2 == 0:  # a set shared with the polls that read the same twins; the others inline, as before 0006
            text = json.dumps(row.twins)
            sets.setdefault(twin_set_key(text), (text, row.twins))
            row.twin_set_id = twin_set_key(text)
            row.twins_inline = None
        rows.append(row)
    TwinSet.objects.bulk_create([TwinSet(id=k, twins=t, used_at=NOW) for k, (_, t) in sets.items()])
    NodeSample.objects.bulk_create(rows)
    assert 0 < NodeSample.objects.filter(twin_set__isnull=False).count() < 30
    assert 0 < NodeSample.objects.filter(twins_inline__isnull=False).count() < 30
    earlier = NodeAggregate.objects.create(
        spark=spark,
        bucket=start,
        samples=4,
        reachable=3,
        mem_total_bytes=120,
        mem_used_avg_bytes=77,
        mem_used_max_bytes=90,
        mem_available_min_bytes=5,
        gpu_util_avg_pct=None,
        gpu_temp_max_c=99.0,
        gpu_power_avg_w=10.0,
        load1_avg=2.0,
        twins_up_min=0,
        speed_min_mbps=150,
        disk_total_bytes=4_000_000_000_005,  # both above the polls' (GREATEST) and below (LEAST): the bucket's own win
        disk_free_min_bytes=899_800_000_000,
    )
    fields = [c for c, _ in retention._AGG_COLUMNS]
    expected: dict[datetime, dict[str, object]] = {}
    members: dict[datetime, list[tuple[object, ...]]] = {}
    for r in NodeSample.objects.filter(spark=spark).order_by("at").values_list(*retention._FIELDS):
        members.setdefault(retention.bucket_of(r[0]), []).append(r)
    for bucket, group in members.items():
        folded = retention._fold(group)
        expected[bucket] = retention._merge(earlier, folded) if bucket == earlier.bucket else folded
    report = retention.downsample(now=NOW)
    assert report.folded == 30 and report.buckets == 3
    got = {a.bucket: a for a in NodeAggregate.objects.filter(spark=spark)}
    assert set(got) == set(expected)
    for bucket, want in expected.items():
        for f in fields:
            have, should = getattr(got[bucket], f), want[f]
            if isinstance(should, float):
                assert have == pytest.approx(should, rel=1e-9), (bucket, f)
            else:
                assert have == should, (bucket, f, have, should)
