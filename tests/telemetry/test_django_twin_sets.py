"""A poll's twins are stored once per distinct list (``TwinSet``) and each
sample points at its set: polls that read the same twins share one row, a
change adds one, readers get the twins back whether a row points at a set or
still carries them inline (stored before twin sets), retention forgets the
sets no kept poll points at, and a store that rolls back or a flushed
database never leaves a set assumed stored."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection, transaction
from django.db.models.signals import post_migrate
from django.test.utils import CaptureQueriesContext

from inventory.models import Spark
from simfleet.simulator import SimNode
from telemetry import retention, sample_rows, selectors
from telemetry.models import NodeSample, NodeState, TwinSet
from tests.telemetry.stored import register, store_round

pytestmark = pytest.mark.django_db

START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _nothing_known():
    sample_rows.twin_sets_forget()
    yield
    sample_rows.twin_sets_forget()


def pair(*faults_a: str) -> list[SimNode]:
    return [
        SimNode("spark-a", cabled_ports={"p0": ("spark-b", "p0")}, faults=set(faults_a)),
        SimNode("spark-b", cabled_ports={"p0": ("spark-a", "p0")}),
    ]


def twin_set_statements(queries: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in queries.captured_queries if TwinSet._meta.db_table in q["sql"]]


def test_polls_that_read_the_same_twins_share_one_set_and_a_change_adds_one(django_capture_on_commit_callbacks):
    nodes = pair()
    register(nodes)
    with django_capture_on_commit_callbacks(execute=True):
        store_round(nodes, now=START)
    assert TwinSet.objects.count() == 2  # one per Spark: their addresses differ
    for i in (1, 2):
        with CaptureQueriesContext(connection) as queries, django_capture_on_commit_callbacks(execute=True):
            report = store_round(nodes, now=START + timedelta(seconds=30 * i))
        assert report.stored == 2
        assert twin_set_statements(queries) == []  # known stored: the rows name their set, nothing more
    assert TwinSet.objects.count() == 2
    assert NodeSample.objects.count() == 6
    assert not NodeSample.objects.filter(twin_set__isnull=True).exists()
    assert not NodeSample.objects.filter(twins_inline__isnull=False).exists()
    a = Spark.objects.get(name="spark-a")
    shared = set(NodeSample.objects.filter(spark=a).values_list("twin_set_id", flat=True))
    assert len(shared) == 1

    # One twin goes down on spark-a: its next poll reads other twins, a set of their own.
    down = pair("twin-down")
    with CaptureQueriesContext(connection) as queries, django_capture_on_commit_callbacks(execute=True):
        store_round(down, now=START + timedelta(seconds=90))
    assert len(twin_set_statements(queries)) == 1
    assert TwinSet.objects.count() == 3
    latest = selectors.latest_samples(["spark-a", "spark-b"])
    assert latest["spark-a"].twin_set_id not in shared
    assert sum(1 for t in latest["spark-a"].twin_list if t["up"]) == latest["spark-a"].twins_up == 1  # of p0's two
    assert latest["spark-b"].twin_set_id == NodeSample.objects.filter(spark__name="spark-b").first().twin_set_id


def test_a_spark_reads_its_twins_back_from_its_set_and_a_row_stored_before_from_the_row(api_viewer):
    nodes = pair()
    register(nodes)
    store_round(nodes, now=START)
    a = Spark.objects.get(name="spark-a")
    stored = NodeState.objects.select_related("latest", "latest__twin_set").get(spark=a).latest
    assert stored.twin_set_id is not None and stored.twins_inline is None
    answer = api_viewer.get("/api/sparks/spark-a/telemetry")
    assert answer.status_code == 200
    twins = answer.json()["twins"]
    assert [t["name"] for t in twins] == [row[0] for row in stored.twin_set.twins]
    assert twins[0]["addresses"] == stored.twin_set.twins[0][6]

    # A poll stored before twin sets: its twins inline in the row, no set.
    inline = [["enp1s0f0np0", "p0", "rocep1s0f0", True, 200000, 9000, ["192.168.100.1/24"]]]
    old = NodeSample.objects.create(
        spark=a, at=START + timedelta(seconds=30), reachable=True, mem_total_bytes=10, twins_up=1, twins=inline
    )
    NodeState.objects.filter(spark=a).update(latest=old)
    answer = api_viewer.get("/api/sparks/spark-a/telemetry")
    assert answer.status_code == 200
    assert answer.json()["twins"] == [
        {
            "name": "enp1s0f0np0", "port": "p0", "rdma": "rocep1s0f0", "up": True, "speed_mbps": 200000,
            "mtu": 9000, "addresses": ["192.168.100.1/24"],
        }
    ]  # fmt: skip
    # And a row pointing at a set that is gone reads as the poll's own (none) rather than failing.
    NodeSample.objects.filter(pk=old.pk).update(twin_set_id=12345, twins_inline=None)
    assert NodeSample.objects.get(pk=old.pk).twins is None
    assert api_viewer.get("/api/sparks/spark-a/telemetry").status_code == 200


def test_reading_the_fleet_takes_the_twins_in_the_same_query():
    nodes = pair()
    register(nodes)
    store_round(nodes, now=START)
    with CaptureQueriesContext(connection) as queries:
        tiles = selectors.fleet_tiles()
        assert [t.twins_up_cabled for t in tiles] == [2, 2]
        latest = selectors.latest_samples(["spark-a", "spark-b"])
        assert all(sample.twins for sample in latest.values())
    table = connection.ops.quote_name(TwinSet._meta.db_table)
    assert not [q for q in queries.captured_queries if f"FROM {table}" in q["sql"]]  # no query per Spark
    assert [q for q in queries.captured_queries if f"JOIN {table}" in q["sql"]]  # joined where they are read


def test_retention_forgets_the_sets_no_kept_poll_points_at(settings):
    nodes = pair()
    register(nodes)
    store_round(nodes, now=START)
    a, b = (Spark.objects.get(name=n) for n in ("spark-a", "spark-b"))
    kept_latest = NodeState.objects.get(spark=a).latest.twin_set_id
    # An old set nothing points at any more, one used a moment ago, and spark-a's own, unused for a week.
    now = START + timedelta(days=7)
    old_twins, new_twins = [["x", "p0", None, True, 1, 1500, []]], [["y", "p0", None, True, 1, 1500, []]]
    gone = TwinSet.objects.create(id=1, twins=old_twins, used_at=now - timedelta(days=4))
    recent = TwinSet.objects.create(id=2, twins=new_twins, used_at=now - timedelta(hours=1))
    TwinSet.objects.filter(pk=kept_latest).update(used_at=now - timedelta(days=7))
    # spark-b's latest poll is a newer one whose twins were read inline: its first set is unused too.
    b_first = NodeState.objects.get(spark=b).latest.twin_set_id
    newer = NodeSample.objects.create(spark=b, at=now - timedelta(minutes=1), reachable=True, twins=[])
    NodeState.objects.filter(spark=b).update(latest=newer)
    TwinSet.objects.filter(pk=b_first).update(used_at=now - timedelta(days=7))

    report = retention.downsample(now=now)

    assert report.twin_sets_deleted == 2
    assert set(TwinSet.objects.values_list("pk", flat=True)) == {kept_latest, recent.pk}
    assert not TwinSet.objects.filter(pk__in=[gone.pk, b_first]).exists()
    assert NodeState.objects.select_related("latest__twin_set").get(spark=a).latest.twins is not None


def test_a_store_that_rolls_back_leaves_no_set_assumed_stored(django_capture_on_commit_callbacks):
    nodes = pair()
    register(nodes)
    with pytest.raises(RuntimeError), django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        store_round(nodes, now=START)
        raise RuntimeError("the chunk's transaction fails after the store")
    assert TwinSet.objects.count() == 0 and NodeSample.objects.count() == 0
    with CaptureQueriesContext(connection) as queries, django_capture_on_commit_callbacks(execute=True):
        store_round(nodes, now=START + timedelta(seconds=30))
    assert len(twin_set_statements(queries)) == 1
    assert TwinSet.objects.count() == 2
    assert all(s.twins for s in NodeSample.objects.select_related("twin_set"))


def test_a_flushed_database_makes_the_process_forget_its_sets(django_capture_on_commit_callbacks):
    nodes = pair()
    register(nodes)
    with django_capture_on_commit_callbacks(execute=True):
        store_round(nodes, now=START)
    assert len(sample_rows._twin_sets_known) == 2
    from django.apps import apps

    post_migrate.send(sender=apps.get_app_config("telemetry"), app_config=apps.get_app_config("telemetry"))
    assert sample_rows._twin_sets_known == {}


def test_a_set_is_named_by_its_content():
    twins = [["enp1s0f0np0", "p0", "rocep1s0f0", True, 200000, 9000, ["10.0.0.1/24"]]]
    text = json.dumps(twins)
    assert sample_rows.twin_set_key(text) == sample_rows.twin_set_key(json.dumps(json.loads(text)))
    assert sample_rows.twin_set_key(text) != sample_rows.twin_set_key(text.replace("10.0.0.1", "10.0.0.2"))
    assert -(2**63) <= sample_rows.twin_set_key(text) < 2**63
