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
        assert latest["disk"] == {
            "total_bytes": DISK_BYTES,
            "free_bytes": FREE,
            "full_in_s": None,
        }  # one poll: no trend

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


def test_the_disk_chart_draws_free_space_against_the_line_where_disk_low_opens():
    """Free space in TB on a 4 TB drive (2 TB, then 1 TB), on an axis topped at the
    drive's size, with the 10 % line dashed across the range; a gap where no poll
    read the disk."""
    from datetime import UTC, datetime, timedelta

    from telemetry.history import Row, disk_chart

    start = datetime(2026, 6, 1, 8, 0, tzinfo=UTC)
    rows = [
        Row(start + timedelta(hours=1), None, None, None, None, {}, 2 * 10**12, 4 * 10**12),
        Row(start + timedelta(hours=2), None, None, None, None, {}, 1 * 10**12, 4 * 10**12),
    ]
    svg = disk_chart("spark-01", rows, start, start + timedelta(hours=4))
    assert "<title>spark-01 root filesystem free</title>" in svg and ">free on /, TB</text>" in svg
    # plot 1116 x 130 px from (52, 26): 2 TB of 4 at y 91, 1 TB at 123.5, 0.4 TB (10 %) at 143
    assert '<polyline points="331.0,91.0 610.0,123.5" fill="none" stroke="#6a4fb3"' in svg
    assert '<polyline points="52.0,143.0 1168.0,143.0" fill="none" stroke="#c0392b"' in svg
    assert 'stroke-dasharray="5 4"' in svg and ">disk-low opens</text>" in svg
    assert ">4.0</text>" in svg  # the axis's top: the drive's size

    unread = [Row(start + timedelta(hours=1), None, None, None, None, {})]
    svg = disk_chart("spark-01", unread, start, start + timedelta(hours=4))
    assert "no samples in this range" in svg and "disk-low opens" not in svg


def test_the_node_page_charts_the_disk_from_raw_polls_and_five_minute_averages(import_lab, admin_client):
    """A week's range: two five-minute averages three days back (their least free
    space) drawn as a line, and the latest raw poll, an hour ago, as a point after the gap."""
    from datetime import timedelta

    from django.utils import timezone

    from inventory.models import Spark
    from telemetry.models import NodeAggregate, NodeSample

    import_lab("pair.yaml")
    spark = Spark.objects.order_by("name").first()
    now = timezone.now()
    for minutes, free in ((0, 3 * 10**12), (5, 2 * 10**12)):
        NodeAggregate.objects.create(
            spark=spark, bucket=now - timedelta(days=3) + timedelta(minutes=minutes), samples=10, reachable=10,
            disk_total_bytes=4 * 10**12, disk_free_min_bytes=free,
        )  # fmt: skip
    NodeSample.objects.create(
        spark=spark, at=now - timedelta(hours=1), reachable=True, disk_total_bytes=4 * 10**12, disk_free_bytes=10**11
    )
    page = admin_client.get(f"/sparks/{spark.name}/telemetry/?range=7d").content.decode()
    chart = page.split('id="disk-history"', 1)[1].split("</svg>", 1)[0]
    (points,) = re.findall(r'<polyline points="([^"]+)" fill="none" stroke="#6a4fb3"', chart)
    assert [float(p.split(",")[1]) for p in points.split()] == [58.5, 91.0]  # 3 TB of 4, then 2 TB
    (latest,) = re.findall(r'<circle cx="[0-9.]+" cy="([0-9.]+)" r="2.5" fill="#6a4fb3"/>', chart)
    assert latest == "152.8"  # 0.1 TB, under the 10 % line at 143.0


def test_a_phones_drawing_takes_at_most_a_point_a_pixel_and_keeps_every_gap():
    """48 hours of polls every 30 s (5,760) thinned for the 540-px drawing: evenly taken,
    the last kept, and the gap where polls stopped still breaks the line."""
    from datetime import UTC, datetime, timedelta

    from telemetry.history import PHONE_WIDTH, Row, _thin

    start = datetime(2026, 6, 1, tzinfo=UTC)
    rows = [Row(start + timedelta(seconds=30 * i), 10.0, 90.0, 121.7, 4, {}, 10**12, 4 * 10**12) for i in range(5760)]
    rows[3001] = Row(rows[3001].at, None, None, None, None, {})  # the gap _with_gaps leaves
    few = _thin(rows, PHONE_WIDTH)
    assert len(few) == 524 + 1 + 3  # every 11th, the last, and the gap with a row either side
    assert few[0] is rows[0] and few[-1] is rows[-1]
    assert [r for r in few if r.used is None] == [rows[3001]]
    assert rows[3000] in few and rows[3002] in few
    assert _thin(rows[:500], PHONE_WIDTH) == rows[:500]


def test_the_disks_forecast_is_the_line_through_its_last_polls():
    """Free space falling 10 GB an hour, 40 GB left at the last poll: full in 4 hours.
    Rising, flat, under an hour of polls or further than 30 days away: no forecast."""
    from telemetry.health import FILL_HORIZON_S, disk_full_in, duration_words

    t0 = 1_800_000_000.0
    falling = [(t0 + 1800 * i, int(100e9 - 5e9 * i)) for i in range(13)]  # six hours, 10 GB an hour
    assert disk_full_in(falling) == pytest.approx(4 * 3600)
    noisy = [(t, f + (3e9 if i % 2 else -3e9)) for i, (t, f) in enumerate(falling)]
    assert disk_full_in(noisy) == pytest.approx(3.7 * 3600)  # the last poll's 37 GB at the line's 10 GB an hour
    assert disk_full_in([(t, int(100e9 - f + 40e9)) for t, f in falling]) is None  # rising
    assert disk_full_in([(t, 50 * 10**9) for t, _ in falling]) is None  # flat
    assert disk_full_in(falling[:2]) is None  # two polls
    assert disk_full_in([(t0 + 1500 * i, int(100e9 - 5e9 * i)) for i in range(3)]) is None  # 50 minutes of them
    slow = [(t, int(3e12 - 1e9 * i)) for i, (t, _) in enumerate(falling)]  # 2 GB an hour of 3 TB: 62 days
    assert disk_full_in(slow) is None and 2 * 3e12 / 1e9 * 1800 > FILL_HORIZON_S
    step = [(t, 2 * 10**12) for t, _ in falling[:-1]] + [(falling[-1][0], 20 * 10**9)]  # filled at the last poll
    # the line falls 1.98 TB x 6 / (1,800 s x 182) a second; the 20 GB left last about 9 minutes
    assert disk_full_in(step) == pytest.approx(20e9 / (1.98e12 * 6 / (1800 * 182)))
    assert duration_words(disk_full_in(step) or 0) == "9 minutes"
    assert disk_full_in(falling[:-1] + [(falling[-1][0], 0)]) == 0.0  # full already
    assert [duration_words(s) for s in (30, 59 * 60, 61 * 60, 3 * 3600 + 100, 47 * 3600, 2 * 86400, 10.4 * 86400)] == [
        "1 minute", "59 minutes", "1 hour", "3 hours", "47 hours", "2 days", "10 days",
    ]  # fmt: skip


def test_the_node_page_says_when_a_filling_disk_is_full(import_lab, admin_client, admin_user):
    """Three hours of polls losing 10 GB an hour, 40 GB left: the page forecasts 4 hours,
    named as predicted, and the API's latest sample carries the same seconds; a Spark
    whose disk holds steady gets no forecast."""
    from datetime import timedelta

    from django.utils import timezone

    from inventory.models import Spark
    from telemetry.models import NodeSample, NodeState

    import_lab("pair.yaml")
    filling, steady = Spark.objects.order_by("name")[:2]
    now = timezone.now()
    for spark, loss in ((filling, 10e9), (steady, 0.0)):
        rows = [
            NodeSample(
                spark=spark, at=now - timedelta(minutes=180 - 10 * i), reachable=True,
                disk_total_bytes=4 * 10**12, disk_free_bytes=int(70e9 - loss * i / 6),
            )
            for i in range(19)
        ]  # fmt: skip
        NodeSample.objects.bulk_create(rows)
        NodeState.objects.update_or_create(
            spark=spark, defaults={"latest": NodeSample.objects.filter(spark=spark).latest("at")}
        )
    page = admin_client.get(f"/sparks/{filling.name}/telemetry/").content.decode()
    (said,) = re.findall(r'<span class="small warn" id="disk-full-in">(.*?) <span class="muted">\((.*?)\)</span>', page)
    assert said == (
        "Full in about 4 hours at the rate of the last 6 hours",
        "predicted: a straight line through its polls",
    )
    assert 'id="disk-full-in"' not in admin_client.get(f"/sparks/{steady.name}/telemetry/").content.decode()
    api = ApiClient(admin_user)
    assert api.get(f"/api/sparks/{filling.name}/telemetry").json()["disk"]["full_in_s"] == pytest.approx(4 * 3600)
    assert api.get(f"/api/sparks/{steady.name}/telemetry").json()["disk"] == {
        "total_bytes": 4 * 10**12, "free_bytes": 70 * 10**9, "full_in_s": None,
    }  # fmt: skip
