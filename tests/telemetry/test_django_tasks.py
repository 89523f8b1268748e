"""Celery tasks: the fan-out in chunks, stale checks and retention as called
by beat, the beat schedule rows, and one real round trip through the
configured broker (filesystem by default, Redis in CI) to a worker."""

from __future__ import annotations

import time
import uuid
from datetime import timedelta

import pytest
from django.utils import timezone
from django_celery_beat.models import PeriodicTask

from core.actor import Actor
from fleet.celery import app
from inventory.models import Spark
from inventory.services import spark_update
from simfleet.simulator import SimNode
from telemetry import tasks
from telemetry.models import NodeSample
from tests.telemetry import django_sim
from tests.telemetry.django_sim import ids, sim_lab

fleet_key = django_sim.fleet_key  # the fixture, shared with the other Django-side telemetry tests


@pytest.mark.django_db
def test_poll_fleet_splits_active_sparks_into_chunks(import_lab, settings, monkeypatch):
    import_lab("demo.yaml")
    spark_update(actor=Actor(source="command"), spark=Spark.objects.get(name="spark-03"), status="retired")
    settings.FLEET_POLL_CHUNK = 5
    settings.FLEET_POLL_INTERVAL_S = 30
    sent = []
    monkeypatch.setattr(tasks.poll_chunk, "apply_async", lambda args, **kw: sent.append((args[0], kw)))
    assert tasks.poll_fleet() == 4
    chunks = [ids_ for ids_, _ in sent]
    assert [len(c) for c in chunks] == [5, 5, 5, 1]
    flat = [i for c in chunks for i in c]
    assert sorted(flat) == sorted(Spark.objects.exclude(name="spark-03").values_list("pk", flat=True))
    # Nothing expires unpolled: each chunk carries its round's start and end instead.
    assert all("expires" not in kw for _, kw in sent)
    rounds = [kw["kwargs"] for _, kw in sent]
    assert len({r["round_at"] for r in rounds}) == 1
    assert all(r["deadline"] - r["round_at"] == 30 for r in rounds)
    # New connections are spread over half the interval, in fleet order: chunk k starts
    # its key exchanges where chunk k-1's end, 16 nodes over 15 s.
    spreads = [kw["kwargs"] for _, kw in sent]
    assert all(s["slot_s"] == pytest.approx(15 / 16) for s in spreads)
    starts = [s["connect_start"] - spreads[0]["connect_start"] for s in spreads]
    assert starts == pytest.approx([0, 5 * 15 / 16, 10 * 15 / 16, 15 * 15 / 16])
    assert all("queue" not in kw for _, kw in sent)  # no shards: the default queue

    # With shards, the same chunk goes to the same queue every round.
    settings.FLEET_POLL_SHARDS = 3
    for _ in range(2):
        sent.clear()
        tasks.poll_fleet()
        assert [kw["queue"] for _, kw in sent] == [
            "telemetry.poll.0",
            "telemetry.poll.1",
            "telemetry.poll.2",
            "telemetry.poll.0",
        ]
        assert [ids_ for ids_, _ in sent] == chunks
        assert [kw["kwargs"]["queue"] for _, kw in sent] == [kw["queue"] for _, kw in sent]  # where hand-ons go


@pytest.mark.django_db
def test_a_chunk_whose_time_runs_out_hands_the_rest_on_and_nothing_is_polled_twice(
    fleet_key, tmp_path, settings, monkeypatch
):
    """Real simulated Sparks: each answers after 0.6 s, one poll at a time, and the
    chunk's round ends 0.3 s after it starts: the first Spark is polled, the other
    three are handed on as one chunk to the same queue, not dropped; the handed-on
    chunk polls them; the round's next chunk for the same Sparks polls none again."""
    settings.FLEET_SSH_CONCURRENCY = 1
    settings.FLEET_SSH_POOL = False
    settings.FLEET_POLL_INTERVAL_S = 30
    names = ["spark-h1", "spark-h2", "spark-h3", "spark-h4"]
    sent: list[tuple[list[int], dict]] = []
    monkeypatch.setattr(tasks.poll_chunk, "apply_async", lambda args, **kw: sent.append((args[0], kw)))
    with sim_lab([SimNode(n, faults={"slow"}) for n in names], fleet_key, tmp_path, settings, slow_s=0.6):
        chunk = ids(*names)
        round_at = time.time()
        first = tasks.poll_chunk(chunk, round_at=round_at, deadline=round_at + 0.3, queue="telemetry.poll.1")
        assert first["stored"] == 1 and first["handed_on"] == 3
        polled = set(NodeSample.objects.values_list("spark__name", flat=True))
        assert len(polled) == 1
        assert len(sent) == 1
        handed, kw = sent[0]
        assert sorted(handed) == sorted(Spark.objects.exclude(name__in=polled).values_list("pk", flat=True))
        assert kw["queue"] == "telemetry.poll.1" and kw["kwargs"]["queue"] == "telemetry.poll.1"
        assert kw["kwargs"]["round_at"] == round_at and kw["kwargs"]["deadline"] >= round_at + 30
        sent.clear()
        second = tasks.poll_chunk(handed, **kw["kwargs"])
        assert second["stored"] == 3 and second["handed_on"] == 0 and sent == []
        assert sorted(NodeSample.objects.values_list("spark__name", flat=True)) == names
        # The same round's chunk run again (redelivered, or queued behind): nothing polled twice.
        again = tasks.poll_chunk(chunk, round_at=round_at, deadline=time.time() + 30)
        assert again["stored"] == 0 and again["polled_already"] == 4
    assert NodeSample.objects.count() == 4


@pytest.mark.django_db
def test_beat_schedule_rows_exist_and_are_editable():
    rows = {p.task: p for p in PeriodicTask.objects.filter(task__startswith="telemetry.")}
    assert set(rows) == {"telemetry.poll_fleet", "telemetry.check_stale", "telemetry.downsample"}
    assert rows["telemetry.downsample"].interval.every == 3600
    rows["telemetry.poll_fleet"].enabled = False
    rows["telemetry.poll_fleet"].save()
    from telemetry.apps import schedule_create

    schedule_create()  # runs after every migrate: must not undo an admin's change
    assert not PeriodicTask.objects.get(task="telemetry.poll_fleet").enabled


@pytest.mark.django_db
def test_check_stale_and_downsample_tasks_run_eagerly():
    assert tasks.check_stale.apply().successful()
    from telemetry import partitions, retention

    # on PostgreSQL the empty day partitions wholly past retention are dropped too
    cutoff = retention.bucket_of(timezone.now() - timedelta(hours=48))
    past = [p for p in partitions.day_partitions() if p.end <= cutoff] if partitions.partitioned() else []
    assert tasks.downsample.apply().get() == {
        "folded": 0,
        "buckets": 0,
        "aggregates_deleted": 0,
        "partitions_dropped": len(past),
        "twin_sets_deleted": 0,
    }


@pytest.mark.django_db(transaction=True)
def test_a_chunk_sent_through_the_broker_is_polled_and_stored_by_a_worker(fleet_key, tmp_path, settings, real_broker):
    from celery.contrib.testing.worker import start_worker

    queue = f"telemetry-test-{uuid.uuid4().hex[:8]}"  # never steal another run's messages
    with sim_lab([SimNode("spark-a"), SimNode("spark-b")], fleet_key, tmp_path, settings):
        targets = ids("spark-a", "spark-b")
        with start_worker(app, pool="solo", perform_ping_check=False, queues=[queue], shutdown_timeout=15):
            tasks.poll_chunk.apply_async((targets,), queue=queue)
            deadline = time.monotonic() + 15
            while NodeSample.objects.count() < 2 and time.monotonic() < deadline:
                time.sleep(0.2)
    assert sorted(NodeSample.objects.values_list("spark__name", flat=True)) == ["spark-a", "spark-b"]
