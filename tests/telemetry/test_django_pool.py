"""Workers keep SSH connections between polls: the second round costs no new
handshake, a node whose accepted key changes gets a new connection, and a
dropped connection is reopened."""

from __future__ import annotations

import pytest

from simfleet.simulator import SimNode
from telemetry.models import NodeSample
from telemetry.poll_round import poll_and_store
from tests.telemetry import django_sim
from tests.telemetry.django_sim import ids, sim_lab

fleet_key = django_sim.fleet_key
pytestmark = pytest.mark.django_db


def test_pooled_polls_reuse_one_connection_per_node(fleet_key, tmp_path, settings):
    nodes = [
        SimNode("pool-a", cabled_ports={"p0": ("pool-b", "p0")}),
        SimNode("pool-b", cabled_ports={"p0": ("pool-a", "p0")}),
    ]
    with sim_lab(nodes, fleet_key, tmp_path, settings) as fleet:
        for _ in range(3):
            report = poll_and_store(spark_ids=ids("pool-a", "pool-b"), pooled=True)
            assert report.stored == 2
        assert fleet.stats("pool-a").connections == 1 and fleet.stats("pool-a").execs == 3
        # A polling process collects its young objects less often (telemetry.runtime.GC_THRESHOLDS).
        import gc

        from telemetry.runtime import GC_THRESHOLDS

        assert gc.get_threshold() == GC_THRESHOLDS

        # The one-off path opens a fresh connection every time.
        poll_and_store(spark_ids=ids("pool-a"), pooled=False)
        assert fleet.stats("pool-a").connections == 2
    assert NodeSample.objects.filter(spark__name="pool-a").count() == 4


def test_a_dropped_node_is_reconnected_on_the_next_pooled_poll(fleet_key, tmp_path, settings):
    with sim_lab([SimNode("pool-c")], fleet_key, tmp_path, settings) as fleet:
        poll_and_store(spark_ids=ids("pool-c"), pooled=True)
        fleet.set_faults("pool-c", {"down"})
        down = poll_and_store(spark_ids=ids("pool-c"), pooled=True)
        fleet.set_faults("pool-c", set())
        poll_and_store(spark_ids=ids("pool-c"), pooled=True)
        assert fleet.stats("pool-c").connections == 2 and fleet.stats("pool-c").execs == 2
    reach = list(NodeSample.objects.filter(spark__name="pool-c").order_by("at").values_list("reachable", flat=True))
    assert reach == [True, False, True] and down.stored == 1
