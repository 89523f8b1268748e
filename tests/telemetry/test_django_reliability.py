"""Misbehaving nodes and a misbehaving database, end to end: real asyncssh
servers on 127.0.0.1, the real poller, the real store and database."""

from __future__ import annotations

import time

import pytest
from django.core.management import call_command
from django.db import OperationalError

from core.actor import Actor
from inventory.models import Spark
from simfleet.simulator import SimNode
from telemetry import poll_round, services, tasks
from telemetry.models import Alert, NodeSample, NodeState
from telemetry.poll_round import poll_and_store
from tests.telemetry import django_sim
from tests.telemetry.django_sim import ids, sim_lab

fleet_key = django_sim.fleet_key  # the fixture, shared with the other Django-side telemetry tests

pytestmark = pytest.mark.django_db


def test_hung_node_costs_only_its_own_timeout(fleet_key, tmp_path, settings):
    settings.FLEET_COMMAND_TIMEOUT_S = 1.0
    nodes = [SimNode("spark-hung", faults={"hung"})] + [SimNode(f"spark-ok{i}") for i in range(4)]
    with sim_lab(nodes, fleet_key, tmp_path, settings):
        start = time.monotonic()
        report = poll_and_store(spark_ids=ids(*[n.name for n in nodes]))
        elapsed = time.monotonic() - start
    assert elapsed < 4.0
    assert report.stored == 5
    hung = NodeSample.objects.get(spark__name="spark-hung")
    assert hung.reachable and hung.mem_total_bytes is None and hung.error.startswith("command timed out after 1 s")
    assert NodeState.objects.get(spark__name="spark-hung").status == "down"
    assert set(Alert.objects.values_list("code", flat=True)) == {"unreachable"}
    assert all(NodeSample.objects.get(spark__name=f"spark-ok{i}").status == "ok" for i in range(4))


def test_node_closing_mid_output_is_stored_with_its_error(fleet_key, tmp_path, settings):
    with sim_lab([SimNode("spark-mid", faults={"close-mid-output"})], fleet_key, tmp_path, settings):
        poll_and_store(spark_ids=ids("spark-mid"))
    row = NodeSample.objects.get()
    assert row.error.startswith("connection lost after ")
    assert any("end marker missing" in e for e in row.errors)


def test_ten_megabytes_of_output_are_cut_at_the_bound(fleet_key, tmp_path, settings):
    settings.FLEET_MAX_OUTPUT_BYTES = 300_000
    with sim_lab([SimNode("spark-huge", faults={"huge-output"})], fleet_key, tmp_path, settings):
        start = time.monotonic()
        poll_and_store(spark_ids=ids("spark-huge"))
        assert time.monotonic() - start < 5
    row = NodeSample.objects.get()
    assert row.error == "output exceeded 300000 bytes: read stopped"
    assert row.mem_total_bytes is not None  # the sections before the flood were read
    assert len(str(row.errors)) < 10_000


def test_changed_host_key_alerts_runs_nothing_and_waits_for_an_admin(fleet_key, tmp_path, settings):
    with sim_lab([SimNode("spark-moved")], fleet_key, tmp_path, settings) as fleet:
        poll_and_store(spark_ids=ids("spark-moved"))
        assert NodeState.objects.get().status == "ok"
        execs = fleet.stats("spark-moved").execs
        fleet.set_faults("spark-moved", {"host-key-changed"})
        poll_and_store(spark_ids=ids("spark-moved"))
        state = NodeState.objects.get()
        assert state.key_status == "mismatch" and state.status == "down"
        assert state.presented_key == fleet.current_key("spark-moved") != state.host_key
        assert fleet.stats("spark-moved").execs == execs  # no command on a changed key
        assert set(Alert.objects.filter(ended_at=None).values_list("code", flat=True)) == {"host-key-mismatch"}

        connections = fleet.stats("spark-moved").connections
        report = poll_and_store(spark_ids=ids("spark-moved"))
        assert report.stored == 0 and fleet.stats("spark-moved").connections == connections  # not even contacted

        services.host_key_accept(
            actor=Actor(source="command"), spark=Spark.objects.get(), key=fleet.current_key("spark-moved")
        )
        poll_and_store(spark_ids=ids("spark-moved"))
    state = NodeState.objects.get()
    assert (state.key_status, state.status) == ("ok", "ok")
    assert not Alert.objects.filter(ended_at=None).exists()


def test_unknown_host_key_is_not_trusted_until_accepted(fleet_key, tmp_path, settings, capsys):
    with sim_lab([SimNode("spark-new")], fleet_key, tmp_path, settings, accept=False) as fleet:
        poll_and_store(spark_ids=ids("spark-new"))
        state = NodeState.objects.get()
        assert (state.key_status, state.status, state.host_key) == ("unknown", "unknown", "")
        assert state.presented_key == fleet.current_key("spark-new")
        assert fleet.stats("spark-new").auths == 0
        assert set(Alert.objects.values_list("code", flat=True)) == {"host-key-unknown"}
        call_command("hostkeys", "accept", "--all")
        poll_and_store(spark_ids=ids("spark-new"))
    assert "spark-new: accepted SHA256:" in capsys.readouterr().out
    assert NodeState.objects.get().status == "ok"


def test_a_store_interrupted_half_way_leaves_nothing_and_the_next_run_recovers(
    fleet_key, tmp_path, settings, monkeypatch
):
    def killed(*args, **kwargs):
        raise SystemExit("worker killed between the sample rows and the link alerts")

    with sim_lab([SimNode("spark-a", faults={"twin-down"})], fleet_key, tmp_path, settings):
        monkeypatch.setattr(services, "_links_check", killed)
        with pytest.raises(SystemExit):
            poll_and_store(spark_ids=ids("spark-a"))
        assert not NodeSample.objects.exists() and not Alert.objects.exists()
        state = NodeState.objects.filter(spark__name="spark-a").first()
        assert state is None or (state.latest is None and state.last_poll_at is None)
        monkeypatch.undo()
        poll_and_store(spark_ids=ids("spark-a"))
    assert NodeSample.objects.count() == 1 and NodeState.objects.get().latest is not None


def test_database_unavailable_once_the_chunk_retries_with_backoff(fleet_key, tmp_path, settings, monkeypatch):
    assert tasks.poll_chunk.acks_late and tasks.poll_chunk.max_retries == 5
    assert OperationalError in tasks.poll_chunk.autoretry_for
    assert tasks.poll_chunk.retry_backoff and tasks.poll_chunk.retry_backoff_max == 60
    real = poll_round.results_store
    calls = []

    def flaky(**kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise OperationalError("could not connect to server")
        return real(**kwargs)

    with sim_lab([SimNode("spark-a")], fleet_key, tmp_path, settings):
        monkeypatch.setattr(poll_round, "results_store", flaky)
        outcome = tasks.poll_chunk.apply(args=[ids("spark-a")])
    assert outcome.successful(), outcome.traceback
    assert len(calls) == 2 and NodeSample.objects.count() == 1
