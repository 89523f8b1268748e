"""An admin watches the fleet: the demo lab, a few simulated Sparks with
faults answering real SSH on 127.0.0.1, polls stored through the service.
The dashboard refreshes by itself when a new poll changes a node, the node
page draws its history, the alerts page filters and acknowledges."""

from __future__ import annotations

import re
import threading
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connections
from django.utils import timezone
from playwright.sync_api import expect

from core.actor import Actor
from inventory.models import Spark
from simfleet.simulator import load_scenario
from simfleet.trust import host_keys_trust
from telemetry import conf, services
from telemetry.models import NodeSample
from telemetry.poll_round import poll_and_store, targets_for
from telemetry.poller import poll_nodes_sync
from tests.e2e.conftest import fits_its_card, no_sideways_scroll, sign_in
from tests.support.catalogue import seed_catalogue
from tests.telemetry import django_sim
from tests.telemetry.django_sim import BackgroundFleet

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
fleet_key = django_sim.fleet_key
SCENARIO = Path(__file__).resolve().parents[2] / "labs" / "demo-scenario.yaml"
SIMULATED = ("spark-01", "spark-02", "spark-04", "spark-12", "spark-15", "spark-17")


def poll(names: tuple[str, ...], *, backdated: int = 0) -> None:
    """One poll round, in its own thread: Playwright's sync API owns this
    thread's event loop, and the poller runs one of its own. ``backdated``:
    first poll the nodes that many times for real and file the rounds one to
    that many minutes ago, so the charts show an hour of history."""
    errors: list[BaseException] = []

    def run() -> None:
        try:
            ids = list(Spark.objects.filter(name__in=names).values_list("pk", flat=True))
            targets, known, _ = targets_for(ids)
            now = timezone.now()
            for minutes in range(backdated, 0, -1):
                results = poll_nodes_sync(targets, client_keys=[str(conf.ssh_key_path())], known_hosts=known)
                at = now - timedelta(minutes=minutes)
                services.results_store(results=[replace(r, at=at) for r in results], now=at)
            poll_and_store(spark_ids=ids)
        except BaseException as exc:  # surfaced in the test thread
            errors.append(exc)
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(60)
    assert not errors, errors


def test_dashboard_refreshes_itself_and_node_and_alert_pages(
    live_server, page, shot, import_lab, fleet_key, tmp_path, settings
):
    seed_catalogue()
    import_lab("demo.yaml")
    settings.FLEET_SSH_KEY = fleet_key[0]
    nodes = [n for n in load_scenario(SCENARIO) if n.name in SIMULATED]
    for node in nodes:
        node.port = 0  # free ports: never clash with a running ./run demo
    fleet = BackgroundFleet(nodes, client_public=fleet_key[1], host_key_dir=tmp_path / "hk")
    try:
        for name, endpoint in fleet.endpoints.items():
            Spark.objects.filter(name=name).update(ssh_port=endpoint.port)
        host_keys_trust(actor=Actor(source="command"), keys={n: e.host_key for n, e in fleet.endpoints.items()})
        poll(SIMULATED, backdated=45)

        base = live_server.url
        sign_in(page, base, "admin1", "admin1-pass-123")
        page.goto(f"{base}/telemetry/")
        assert page.locator("#tile-spark-04").get_attribute("data-status") == "degraded"
        assert page.locator("#tile-spark-17").get_attribute("data-status") == "down"
        assert page.locator("#tile-spark-02").get_attribute("data-status") == "ok"
        assert "memory-pressure" in page.locator("#tile-spark-15").inner_text()
        shot("telemetry-dashboard")

        # A new poll finds spark-02 out of memory: the page shows it without navigating.
        page.evaluate("window.__stayed = true")
        fleet.set_faults("spark-02", {"memory-pressure"})
        poll(SIMULATED)
        page.wait_for_selector('#tile-spark-02[data-status="degraded"]', timeout=15_000)
        assert page.evaluate("window.__stayed") is True
        assert "memory-pressure" in page.locator("#tile-spark-02").inner_text()

        page.click("#tile-spark-04")
        page.wait_for_url(f"{base}/sparks/spark-04/telemetry/")
        # memory, twins up, link speed, disk free; the wide two drawn again for a phone, hidden here
        assert page.locator("svg.chart").count() == 6 and page.locator("svg.chart:visible").count() == 4
        expect(page.locator("#disk-history svg.chart:visible title")).to_have_text("spark-04 root filesystem free")
        # one twin down; its RoCE port line may say "down" too, so count the state badges
        assert page.locator("#twins .badge.down").count() == 1
        assert "Verified" in page.locator("#hostkey").inner_text()
        shot("telemetry-node")

        # Its root filesystem fills (images and weights): the next poll says so on its page.
        spark04 = next(n for n in nodes if n.name == "spark-04")
        fleet.set_faults("spark-04", {*spark04.faults, "disk-full"})
        poll(SIMULATED)
        # two more hours of its polls before these, as roomy as the first: the page forecasts
        # when the rest fills at the last six hours' rate
        first = NodeSample.objects.filter(spark__name="spark-04").earliest("at")
        NodeSample.objects.bulk_create(
            NodeSample(spark_id=first.spark_id, at=first.at - timedelta(minutes=10 * i), reachable=True,
                       disk_total_bytes=first.disk_total_bytes, disk_free_bytes=first.disk_free_bytes)
            for i in range(1, 13)
        )  # fmt: skip
        page.reload()
        viewport = page.viewport_size
        expect(page.locator("#disk-free")).to_have_text("59 GB")
        expect(page.locator("#disk-free")).to_have_class("bad")
        expect(page.locator("#disk-full-in")).to_have_text(
            re.compile(
                r"^Full in about \d+ (minutes?|hours?) at the rate of the last 6 hours \(predicted: a straight line"
            )
        )
        expect(page.locator("td.alert-text", has_text="root filesystem free")).to_have_text(
            "spark-04 has 59 GB (1.5%) of its 3.9 TB root filesystem free, where Docker's images and the Hugging Face "
            "cache live, so the next image or model download fails part-way; `docker system df` and "
            "`du -sh ~/.cache/huggingface/hub/*` show what holds it, and `docker image prune` removes images no "
            "container uses."
        )
        page.set_viewport_size({"width": 1440, "height": 900})
        shot("telemetry-node-disk-low-1440")
        page.set_viewport_size({"width": 390, "height": 844})
        no_sideways_scroll(page, slack=1)
        # on a phone the wide charts show their narrow drawing
        assert page.locator("#disk-history svg.chart.narrow").is_visible()
        assert not page.locator("#disk-history svg.chart:not(.narrow)").is_visible()
        # the twins table stacks each twin's figures instead of scrolling inside its card
        fits_its_card(page.locator("#twins"))
        expect(page.locator("#twins td[data-label=MTU]").first).to_be_visible()
        shot("telemetry-node-disk-low-390")
        page.set_viewport_size(viewport)

        page.goto(f"{base}/telemetry/alerts/")
        page.select_option("select[name=code]", "memory-pressure")
        page.wait_for_function("() => !document.querySelector('#rows').innerText.includes('spark-04')")
        rows = page.locator("#rows")
        assert "spark-15" in rows.inner_text() and "spark-02" in rows.inner_text()
        rows.locator("button", has_text="Acknowledge").first.click()
        page.wait_for_selector("#rows >> text=admin1")
        shot("telemetry-alerts")

        # The inventory's Spark page and the home page carry a health summary too.
        page.goto(f"{base}/sparks/spark-15/")
        assert page.locator("#spark-health").inner_text() == "degraded"  # the one state, as everywhere
        assert "memory-pressure" in page.locator("#spark-why").inner_text()
        assert "1 open alert" in page.locator("#spark-telemetry").inner_text()
        page.goto(f"{base}/")
        assert "open alerts" in page.locator("#health-summary").inner_text()
        shot("telemetry-home")
    finally:
        fleet.stop()
