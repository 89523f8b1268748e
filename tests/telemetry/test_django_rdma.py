"""A twin whose RoCE port is down while its interface is up: polled from a
simulated Spark, raised as an alert, and shown on the node's page."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from simfleet.simulator import SimNode
from telemetry.models import Alert
from tests.telemetry import django_sim
from tests.telemetry.django_sim import sim_lab

fleet_key = django_sim.fleet_key
pytestmark = pytest.mark.django_db(transaction=True)


def test_rdma_port_down_under_an_up_interface(admin_client, fleet_key, tmp_path, settings):
    nodes = [
        SimNode("rd-a", cabled_ports={"p0": ("rd-b", "p0")}, faults={"rdma-down"}),
        SimNode("rd-b", cabled_ports={"p0": ("rd-a", "p0")}),
    ]
    with sim_lab(nodes, fleet_key, tmp_path, settings):
        call_command("poll", "--once", stdout=StringIO())
    alert = Alert.objects.get(code="rdma-port-down", ended_at__isnull=True)
    assert alert.spark.name == "rd-a" and "rocep1s0f0 is DOWN" in alert.message
    assert not Alert.objects.filter(spark__name="rd-b", code="rdma-port-down").exists()
    page = admin_client.get("/sparks/rd-a/telemetry/").content.decode()
    assert "RoCE down" in page and "RoCE active 200 Gb/s" in page
