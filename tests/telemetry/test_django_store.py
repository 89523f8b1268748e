"""Storing polls: sample rows, node health, alerts opened once and closed when
they stop firing, idempotent retries, link rules, stale nodes, retention, and
the inventory's expectations. Real simulated Sparks over SSH, real database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.db import IntegrityError, transaction

from inventory.models import Spark
from simfleet.simulator import SimNode
from telemetry import retention, services
from telemetry.expectations import expectations_for
from telemetry.models import Alert, NodeAggregate, NodeSample, NodeState
from telemetry.poll_round import poll_and_store
from telemetry.sample import PollResult
from tests.telemetry import django_sim
from tests.telemetry.django_sim import ids, sim_lab

fleet_key = django_sim.fleet_key  # the fixture, shared with the other Django-side telemetry tests

pytestmark = pytest.mark.django_db


def health_expectation(name: str):
    from telemetry.health import NodeExpectation

    return NodeExpectation(name)


def pair(*faults_a: str) -> list[SimNode]:
    return [
        SimNode("spark-a", cabled_ports={"p0": ("spark-b", "p0")}, faults=set(faults_a)),
        SimNode("spark-b", cabled_ports={"p0": ("spark-a", "p0")}),
    ]


def open_codes(name: str) -> set[str]:
    return set(Alert.objects.filter(spark__name=name, ended_at__isnull=True).values_list("code", flat=True))


def test_a_healthy_pair_is_stored_ok_without_alerts(fleet_key, tmp_path, settings):
    with sim_lab(pair(), fleet_key, tmp_path, settings):
        report = poll_and_store(spark_ids=ids("spark-a", "spark-b"))
    assert report.stored == 2 and report.statuses == {"spark-a": "ok", "spark-b": "ok"}
    row = NodeSample.objects.get(spark__name="spark-a")
    assert row.reachable and row.error == "" and row.status == "ok"
    assert 0 < row.mem_used_bytes < row.mem_total_bytes
    assert row.mem_used_bytes == row.mem_total_bytes - row.mem_available_bytes
    assert row.twins_up == 2 and len(row.twins) == 4  # p0 cabled: both twins up; p1 free
    assert {t["name"]: t["up"] for t in row.twin_list}["enP2p1s0f0np0"] is True
    state = NodeState.objects.get(spark__name="spark-a")
    assert state.latest == row and state.last_sample_at == row.at and state.key_status == "ok"
    assert not Alert.objects.exists()


def test_alert_opens_once_stays_open_and_closes_when_the_fault_clears(fleet_key, tmp_path, settings):
    with sim_lab(pair("twin-down"), fleet_key, tmp_path, settings) as fleet:
        poll_and_store(spark_ids=ids("spark-a"))
        assert open_codes("spark-a") == {"link-down", "single-half"}
        first = Alert.objects.get(code="link-down")
        poll_and_store(spark_ids=ids("spark-a"))
        assert Alert.objects.filter(code="link-down").count() == 1  # never duplicated while open
        again = Alert.objects.get(code="link-down")
        assert again.started_at == first.started_at and again.last_seen_at > first.last_seen_at
        assert NodeState.objects.get(spark__name="spark-a").status == "degraded"

        fleet.set_faults("spark-a", set())
        poll_and_store(spark_ids=ids("spark-a"))
    closed = Alert.objects.get(code="link-down")
    assert closed.ended_at is not None and closed.ended_at > closed.started_at
    assert open_codes("spark-a") == set()
    assert NodeState.objects.get(spark__name="spark-a").status == "ok"


def test_only_one_open_alert_per_node_code_and_objects_in_the_database(fleet_key, tmp_path, settings):
    with sim_lab(pair(), fleet_key, tmp_path, settings):
        pass
    spark = Spark.objects.get(name="spark-a")
    now = datetime.now(UTC)
    fields = dict(
        spark=spark,
        code="stale",
        severity="warning",
        objects_key="spark-a",
        message="m",
        started_at=now,
        last_seen_at=now,
    )
    Alert.objects.create(**fields)
    with pytest.raises(IntegrityError), transaction.atomic():
        Alert.objects.create(**fields)
    Alert.objects.update(ended_at=now)
    Alert.objects.create(**fields)  # a new episode once the old one ended
    assert Alert.objects.count() == 2


def test_storing_the_same_results_again_is_a_no_op(fleet_key, tmp_path, settings):
    at = datetime.now(UTC)
    result = PollResult(
        name="spark-a",
        at=at,
        reachable=False,
        sample=None,
        error="connection refused",
        host_key=None,
        host_key_status="ok",
        duration_ms=3.0,
    )
    with sim_lab(pair(), fleet_key, tmp_path, settings):
        pass
    first = services.results_store(results=[result])
    second = services.results_store(results=[result])
    assert (first.stored, second.stored, second.skipped) == (1, 0, 1)
    assert NodeSample.objects.count() == 1 and Alert.objects.filter(code="unreachable").count() == 1
    assert NodeState.objects.get(spark__name="spark-a").status == "down"


def test_a_late_older_poll_is_kept_as_history_and_leaves_the_latest_alone(fleet_key, tmp_path, settings):
    def down(at):
        return PollResult("spark-a", at, False, None, "connection refused", None, "ok", 3.0)

    now = datetime.now(UTC)
    with sim_lab(pair(), fleet_key, tmp_path, settings):
        pass
    services.results_store(results=[down(now)])
    newest = NodeSample.objects.get()
    late = services.results_store(results=[down(now - timedelta(seconds=30))])  # a chunk that came late
    assert (late.stored, late.skipped) == (1, 0) and NodeSample.objects.count() == 2
    state = NodeState.objects.get(spark__name="spark-a")
    assert state.latest == newest and state.last_poll_at == now and state.status == "down"
    again = services.results_store(results=[down(now - timedelta(seconds=30))])  # and retried
    assert (again.stored, again.skipped) == (0, 1) and NodeSample.objects.count() == 2
    assert NodeState.objects.get(spark__name="spark-a").latest == newest


def test_mtu_mismatch_needs_both_ends_and_is_filed_once_under_the_first(fleet_key, tmp_path, settings):
    with sim_lab(pair("mtu-1500"), fleet_key, tmp_path, settings):
        poll_and_store(spark_ids=ids("spark-a"))
        assert not Alert.objects.filter(code="mtu-mismatch").exists()  # spark-b not sampled yet
        poll_and_store(spark_ids=ids("spark-b"))
        poll_and_store(spark_ids=ids("spark-a", "spark-b"))
    alert = Alert.objects.get(code="mtu-mismatch")
    assert alert.spark.name == "spark-a" and alert.about == ["spark-a:p0", "spark-b:p0"]
    assert "1500" in alert.message and "9000" in alert.message


def test_stale_opens_after_three_intervals_and_a_sample_closes_it(fleet_key, tmp_path, settings):
    settings.FLEET_POLL_INTERVAL_S = 30
    with sim_lab(pair(), fleet_key, tmp_path, settings):
        poll_and_store(spark_ids=ids("spark-a"))
        later = datetime.now(UTC) + timedelta(seconds=95)
        services.stale_check(now=later)
        assert open_codes("spark-a") == {"stale"}
        assert NodeState.objects.get(spark__name="spark-a").status == "unknown"
        services.stale_check(now=later)
        assert Alert.objects.filter(code="stale").count() == 1
        poll_and_store(spark_ids=ids("spark-a"))
    assert open_codes("spark-a") == set()
    assert NodeState.objects.get(spark__name="spark-a").status == "ok"


def _row(spark: Spark, at: datetime, used: int) -> NodeSample:
    return NodeSample(
        spark=spark,
        at=at,
        reachable=True,
        mem_total_bytes=100,
        mem_used_bytes=used,
        mem_available_bytes=100 - used,
        twins_up=2,
        twins=[["enp1s0f0np0", "p0", "rocep1s0f0", True, 200000, 9000, []]],
        disk_total_bytes=4_000_000_000_000,
        disk_free_bytes=2_000_000_000_000 - used * 1_000_000_000,
    )


def test_downsample_folds_old_rows_into_five_minute_buckets_once(fleet_key, tmp_path, settings):
    with sim_lab(pair(), fleet_key, tmp_path, settings):
        pass
    spark = Spark.objects.get(name="spark-a")
    now = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
    old = datetime(2026, 5, 30, 9, 0, tzinfo=UTC)  # 51 h before now
    NodeSample.objects.bulk_create([_row(spark, old + timedelta(seconds=30 * i), 10 + i) for i in range(20)])
    recent = NodeSample.objects.create(
        **{
            f: getattr(_row(spark, now - timedelta(hours=1), 50), f)
            for f in ("spark", "at", "reachable", "mem_total_bytes", "mem_used_bytes")
        }
    )
    ancient = NodeAggregate.objects.create(spark=spark, bucket=now - timedelta(days=91), samples=1, reachable=1)
    report = retention.downsample(now=now)
    assert report.folded == 20 and report.buckets == 2 and report.aggregates_deleted == 1
    aggs = list(NodeAggregate.objects.filter(spark=spark).order_by("bucket"))
    assert [a.samples for a in aggs] == [10, 10]
    assert aggs[0].mem_used_max_bytes == 19 and aggs[0].mem_used_avg_bytes == 14
    assert aggs[0].speed_min_mbps == 200000 and aggs[0].twins_up_min == 2
    # the disk: its size, and the least free space of the five minutes (used 19 of 100 at worst)
    assert aggs[0].disk_total_bytes == 4_000_000_000_000 and aggs[0].disk_free_min_bytes == 1_981_000_000_000
    assert list(NodeSample.objects.filter(spark=spark)) == [recent]
    assert not NodeAggregate.objects.filter(pk=ancient.pk).exists()
    # A late raw row in an existing bucket merges by count; nothing is counted twice.
    NodeSample.objects.bulk_create([_row(spark, old + timedelta(seconds=10), 40)])
    retention.downsample(now=now)
    retention.downsample(now=now)
    first = NodeAggregate.objects.filter(spark=spark).order_by("bucket").first()
    assert first.samples == 11 and first.mem_used_max_bytes == 40


def test_expectations_of_the_demo_lab_in_a_fixed_number_of_queries(import_lab, django_assert_max_num_queries):
    import_lab("demo.yaml")
    every = list(Spark.objects.values_list("pk", flat=True))
    with django_assert_max_num_queries(2):
        exp = expectations_for(every)
    nodes = exp.nodes
    assert nodes["spark-01"].cabled_ports["p0"].peer == "spark-02:p0"
    assert nodes["spark-01"].cabled_ports["p0"].gbps == 200
    assert nodes["spark-05"].cabled_ports["p1"].gbps == 100  # QSFP28 cable caps the link
    assert nodes["spark-07"].cabled_ports["p0"].peer == "sw-804:1"  # a breakout leg names its trunk's port
    assert nodes["spark-07"].cabled_ports["p0"].gbps == 200  # 400G port split in two
    assert set(nodes["spark-04"].cabled_ports) == {"p0", "p1"}
    assert "spark-17" not in nodes  # no cable
    assert (("spark-01", "p0"), ("spark-02", "p0")) in exp.links
    assert all(a[0] != "sw-804" and b[0] != "sw-804" for a, b in exp.links)


def test_a_chunk_reads_its_expectations_again_only_when_the_inventory_changed(import_lab, django_assert_num_queries):
    from core.actor import Actor
    from inventory.models import Cable
    from inventory.services import cable_delete
    from telemetry.expectations import expectations_cached

    import_lab("demo.yaml")
    chunk = list(Spark.objects.filter(name__in=["spark-01", "spark-02"]).values_list("pk", flat=True))
    first = expectations_cached(chunk)
    with django_assert_num_queries(1):  # the inventory's mark, nothing else
        assert expectations_cached(chunk) is first
    assert first.nodes["spark-01"].cabled_ports["p0"].peer == "spark-02:p0"
    cable = Cable.objects.get(ends__port__spark__name="spark-01", ends__port__name="p0")
    cable_delete(actor=Actor(source="command"), cable=cable)
    again = expectations_cached(chunk)
    assert "p0" not in (again.nodes.get("spark-01") or health_expectation("spark-01")).cabled_ports
    assert again == expectations_for(chunk)


def _paired(prefix: str, count: int) -> list[SimNode]:
    nodes = []
    for i in range(0, count, 2):
        a, b = f"{prefix}-{i:02d}", f"{prefix}-{i + 1:02d}"
        nodes.append(SimNode(a, cabled_ports={"p0": (b, "p0")}, faults={"twin-down"} if i % 4 == 0 else set()))
        nodes.append(SimNode(b, cabled_ports={"p0": (a, "p0")}))
    return nodes


def test_a_chunk_is_stored_in_a_fixed_number_of_statements_whatever_its_size():
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tests.telemetry.stored import register, store_round

    small, large = _paired("small", 4), _paired("large", 16)
    register(small + large)
    start = datetime.now(UTC) - timedelta(minutes=5)
    counts = {}
    for nodes in (small, large):
        store_round(nodes, now=start)  # the first round opens the twin-down alerts
        with CaptureQueriesContext(connection) as steady:
            report = store_round(nodes, now=start + timedelta(seconds=30))
        assert report.stored == len(nodes) and report.opened == report.closed == 0
        # An executemany is logged as "N times: SQL": one statement sent with N parameter sets.
        counts[len(nodes)] = [q["sql"].split(" times: ", 1)[-1] for q in steady.captured_queries]
    assert len(counts[4]) == len(counts[16]), counts[16]
    # Spark ids, node states (locked), open alerts, seen alerts refreshed, the sample rows
    # (ids + COPY on PostgreSQL, one INSERT on SQLite), node states written, savepoint handling.
    writes = [q for q in counts[16] if q.lstrip().upper().startswith(("INSERT", "UPDATE", "COPY"))]
    assert len([q for q in writes if "telemetry_nodestate" in q]) == 1
    # PostgreSQL: the ids drawn in one query, the rows sent by COPY (not seen by Django's query log).
    samples = [q for q in counts[16] if "telemetry_nodesample" in q and "nextval" in q] or writes
    assert len([q for q in samples if "telemetry_nodesample" in q]) == 1
    assert len([q for q in writes if "telemetry_alert" in q]) == 1  # last seen of the open ones
    assert Alert.objects.filter(ended_at__isnull=True).count() == 2 * (1 + 4)  # two per faulty Spark
    assert NodeSample.objects.count() == 2 * 20


def test_a_spark_keeps_the_boot_its_polls_saw_and_the_targets_read_no_sample():
    """``NodeState.boot_at``: set by a poll with an uptime, kept through a poll's own jitter,
    moved by a reboot; the poll round's targets read it instead of each Spark's latest sample."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from telemetry.poll_round import targets_for
    from tests.telemetry.stored import register, store_round

    nodes = pair()
    register(nodes)
    a = Spark.objects.get(name="spark-a")
    start = datetime.now(UTC) - timedelta(minutes=10)
    store_round(nodes, now=start)
    first = NodeState.objects.get(spark=a).boot_at
    latest = NodeState.objects.select_related("latest").get(spark=a).latest
    assert first == latest.at - timedelta(seconds=latest.uptime_s)
    # The simulator answers the same uptime again: 30 s later that is a boot 30 s later, within the slack.
    store_round(nodes, now=start + timedelta(seconds=30))
    assert NodeState.objects.get(spark=a).boot_at == first
    # An uptime ten minutes shorter than the boot it knows says it rebooted.
    store_round(nodes, now=start + timedelta(minutes=10))
    rebooted = NodeState.objects.get(spark=a).boot_at
    assert rebooted == first + timedelta(minutes=10)
    with CaptureQueriesContext(connection) as queries:
        targets, known, held = targets_for([a.pk])
    assert [t.name for t in targets] == ["spark-a"] and held == [] and known["spark-a"] is None
    assert len(queries.captured_queries) == 1
    assert "telemetry_nodesample" not in queries.captured_queries[0]["sql"]
