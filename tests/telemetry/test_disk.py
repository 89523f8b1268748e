"""A Spark's root filesystem, polled over SSH from the simulated fleet: a
nearly full one opens ``disk-low`` (critical under 3 %) with its fix, the
page and the API show what is left, /metrics exports it for SparkDiskLow,
and making room closes the alert at the next poll."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

from simfleet.simulator import SimNode
from simfleet.spark_model import DISK_BYTES
from telemetry.models import Alert, NodeState
from telemetry.poll_round import poll_and_store
from tests.conftest import ApiClient
from tests.telemetry import django_sim
from tests.telemetry.django_sim import ids, sim_lab

fleet_key = django_sim.fleet_key
pytestmark = pytest.mark.django_db

FREE = int(DISK_BYTES * 0.015)  # what the disk-full fault leaves a user


def test_a_full_root_filesystem_is_alerted_shown_exported_and_closes_once_room_is_made(
    fleet_key, tmp_path, settings, admin_client, admin_user
):
    nodes = [SimNode("full-a", faults={"disk-full"}), SimNode("roomy-b")]
    with sim_lab(nodes, fleet_key, tmp_path, settings) as fleet:
        poll_and_store(spark_ids=ids("full-a", "roomy-b"))
        (alert,) = Alert.objects.filter(code="disk-low", ended_at=None)
        assert (alert.spark.name, alert.severity) == ("full-a", "critical")
        assert alert.message == (
            "full-a has 59 GB (1.5%) of its 3.9 TB root filesystem free, where Docker's images and the Hugging "
            "Face cache live, so the next image or model download fails part-way; `docker system df` and "
            "`du -sh ~/.cache/huggingface/hub/*` show what holds it, and `docker image prune` removes images no "
            "container uses."
        )
        assert NodeState.objects.get(spark__name="full-a").status == "degraded"

        # what the page and the API say of it, from the stored sample
        page = admin_client.get("/sparks/full-a/telemetry/").content.decode()
        assert re.search(r'<strong id="disk-free" class="bad">59 GB</strong> free of 3\.9 TB', page)
        used = round((DISK_BYTES - FREE) / DISK_BYTES * 100)  # the bar shows what is used, as memory's
        assert f'id="disk-bar"><span style="width: {used}%"></span>' in page and used == 99
        roomy = admin_client.get("/sparks/roomy-b/telemetry/").content.decode()
        assert '<strong id="disk-free" class="">' in roomy
        latest = ApiClient(admin_user).get("/api/sparks/full-a/telemetry").json()
        assert latest["disk"] == {"total_bytes": DISK_BYTES, "free_bytes": FREE}

        settings.FLEET_METRICS_TOKEN = ""
        text = Client().get("/metrics").content.decode()
        read = {
            (f.name, s.labels.get("node", s.labels.get("code"))): s.value
            for f in text_string_to_metric_families(text)
            for s in f.samples
        }
        assert read[("fleet_node_disk_size_bytes", "full-a")] == DISK_BYTES
        assert read[("fleet_node_disk_free_bytes", "full-a")] == FREE
        assert read[("fleet_node_disk_free_bytes", "roomy-b")] > 0.4 * DISK_BYTES
        assert read[("fleet_alerts_open", "disk-low")] == 1

        # room made (images pruned): the next poll closes it
        fleet.set_faults("full-a", set())
        poll_and_store(spark_ids=ids("full-a", "roomy-b"))
        assert not Alert.objects.filter(code="disk-low", ended_at=None).exists()
        assert Alert.objects.filter(code="disk-low", spark__name="full-a").exclude(ended_at=None).count() == 1
