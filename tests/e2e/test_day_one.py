"""A lab's first day in a real browser, each journey to its last step.

- The unreachable Spark: registered at an address where nothing answers, it
  is down with the reason in words on every page, the API and /metrics (one
  state, read everywhere); it offers no memory, its group counts only the
  Sparks that can run something, the planner places nothing on it, the plan
  and booking forms mark its group, and booking it without "Book anyway"
  says why it was not booked. A group finding about a Spark reaches the
  Sparks list and the dashboard.
- The flagship plan: Qwen3.5-397B-A17B on the demo's switched group has
  launch commands for its int4 build; the variant list follows the model.
- The import preview names each mistake once at its place; a fresh design
  never clashes with the lab's names and offers no ring of eight.
"""

from __future__ import annotations

import re
import socket
import threading
from typing import Any

import pytest
from django.db import connections

from bookings.models import Booking
from core.actor import Actor
from inventory.labio import lab_import
from inventory.models import NodeGroup, Spark
from simfleet.simulator import SimNode
from simfleet.trust import host_keys_trust
from telemetry.poll_round import poll_and_store
from tests.conftest import ApiClient, lab_data, make_user
from tests.e2e.conftest import fits_its_card, no_sideways_scroll, sign_in
from tests.support.catalogue import seed_catalogue
from tests.telemetry import django_sim
from tests.telemetry.django_sim import BackgroundFleet

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
fleet_key = django_sim.fleet_key


def in_thread(fn: Any) -> None:
    """Run Django work in its own thread: Playwright's sync API owns this thread's event loop."""
    errors: list[BaseException] = []

    def run() -> None:
        try:
            fn()
        except BaseException as exc:  # surfaced in the test thread
            errors.append(exc)
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(60)
    assert not errors, errors


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def ssh(port: int) -> dict[str, Any]:
    return {"host": "127.0.0.1", "port": port, "user": "fleet"}


@pytest.fixture
def chain(fleet_key, tmp_path, settings):
    """A chain of three: two 64 GB Sparks that answer, and the largest, a 128 GB
    one registered with a port where nothing listens (its key never seen)."""
    settings.FLEET_SSH_KEY = fleet_key[0]
    nodes = [
        SimNode("spark-x", memory_gb=64, cabled_ports={"p1": ("spark-y", "p0")}),
        SimNode("spark-y", memory_gb=64, cabled_ports={"p0": ("spark-x", "p1"), "p1": ("spark-z", "p0")}),
    ]
    fleet = BackgroundFleet(nodes, client_public=fleet_key[1], host_key_dir=tmp_path / "hk")
    dead = closed_port()
    try:
        seed_catalogue()
        lab = {
            "sparks": [
                {"name": "spark-x", "hardware": "dgx-spark-64", "ssh": ssh(fleet.endpoints["spark-x"].port)},
                {"name": "spark-y", "hardware": "dgx-spark-64", "ssh": ssh(fleet.endpoints["spark-y"].port)},
                {"name": "spark-z", "hardware": "dgx-spark-128", "ssh": ssh(dead)},
            ],
            "switches": [],
            "cables": [
                {"type": "qsfp112-dac", "ends": ["spark-x:p1", "spark-y:p0"]},
                {"type": "qsfp112-dac", "ends": ["spark-y:p1", "spark-z:p0"]},
            ],
        }
        lab_import(actor=Actor(source="import"), data=lab)
        host_keys_trust(actor=Actor(source="command"), keys={n: e.host_key for n, e in fleet.endpoints.items()})
        ids = list(Spark.objects.values_list("pk", flat=True))
        for _ in range(2):
            in_thread(lambda: poll_and_store(spark_ids=ids))
        group = NodeGroup.objects.get(retired_at__isnull=True, members__spark__name="spark-z")
        yield {"port": dead, "group": group.pk}
    finally:
        fleet.stop()


def test_an_unreachable_spark_is_down_everywhere_and_offers_nothing(live_server, page, shot, chain):
    member = make_user("member", "member")
    reason = f"nothing answers on 127.0.0.1:{chain['port']}: check the address and port"
    gid = chain["group"]

    # the API and /metrics
    api = ApiClient(member)
    one = api.get("/api/sparks/spark-z").json()
    assert one["health"]["status"] == "down" and one["health"]["why"] == reason
    assert one["usable_gb"] == 0 and one["usable_source"] == "unavailable"
    group = api.get(f"/api/groups/{gid}").json()
    assert group["memory"]["left_out"] == ["spark-z"]
    x, y = (api.get(f"/api/sparks/{n}").json()["usable_gb"] for n in ("spark-x", "spark-y"))
    assert group["memory"]["pooled_gb"] == round(x + y, 1)
    assert group["memory"]["local_gb"] == max(x, y)
    planned = api.post("/api/plans", {"model": "gpt-oss-20b", "group": gid}).json()
    assert planned["group"]["nodes"] == ["spark-x", "spark-y", "spark-z"] and planned["group"]["left_out"] == [
        "spark-z"
    ]
    assert planned["left_out"]["planned_on"]["nodes"] == ["spark-x", "spark-y"], planned["left_out"]
    assert all("spark-z" not in p["nodes"] for p in planned["plans"])
    assert planned["recommended"] is not None, (
        planned["recommendation"],
        [(p["label"], p["nodes"], p["fits"], p["memory_per_node_gb"]) for p in planned["plans"]],
    )
    best = planned["plans"][planned["recommended"]]
    assert set(best["nodes"]) <= {"spark-x", "spark-y"} and best["launch"], best
    assert planned["left_out"]["nodes"] == ["spark-z"]
    assert planned["left_out"]["when_healthy"]["nodes"] == ["spark-x", "spark-y", "spark-z"]
    assert {"node": "spark-z", "health": "down", "alerts": ["unreachable"], "why": reason} in planned["warnings"]

    base = live_server.url
    sign_in(page, base, "member", "member-pass-123")
    metrics = page.request.get(f"{base}/metrics").text()
    assert 'fleet_node_health{node="spark-z",status="down"} 1.0' in metrics
    assert re.search(r'fleet_node_usable_memory_bytes\{node="spark-z",source="unavailable"\} 0\.0', metrics)

    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{base}/sparks/")
        row = page.locator("#row-spark-z")
        assert row.locator(".health").inner_text() == "down"
        assert reason in row.inner_text() and "0.0 GB" in row.inner_text() and "unavailable" in row.inner_text()
        # a group finding about a Spark (not an alert) reaches its row: the simulated GPU process, unbooked
        assert "busy-without-booking" in page.locator("#row-spark-x").inner_text()
        shot(f"day-one-sparks-{width}")

        page.goto(f"{base}/sparks/spark-z/")
        assert page.locator("#spark-health").inner_text() == "down"
        assert page.locator("#spark-why").inner_text() == reason
        assert page.locator("#spark-usable").inner_text() == "0.0 GB"
        assert page.locator('#ports .link-speed[data-state="down"]').inner_text() == "link down"
        fits_its_card(page.locator("#ports"))
        shot(f"day-one-spark-{width}")

        page.goto(f"{base}/telemetry/alerts/")
        assert page.locator("#rows tr", has_text="spark-z").locator(".badge.sev").inner_text() == "critical"
        # the alert's message reads whole at either width: at 390 px a row is a block, the message full-width
        message = page.locator("#alerts td.wide-cell", has_text="spark-z could not be reached")
        assert message.count() == 1 and message.bounding_box()["x"] + message.bounding_box()["width"] <= width
        fits_its_card(page.locator("#alerts"))
        shot(f"day-one-alerts-{width}")

        page.goto(f"{base}/sparks/spark-z/telemetry/")
        assert page.locator("#node-status").inner_text() == "down"
        assert page.locator("#node-why").inner_text() == reason

        page.goto(f"{base}/telemetry/")
        tile = page.locator("#tile-spark-z")
        assert tile.get_attribute("data-status") == "down"
        assert "nothing answers on 127.0.0.1" in tile.inner_text()
        assert "never polled" not in tile.inner_text()
        assert "busy-without-booking" in page.locator("#tile-spark-x .nt-codes").inner_text()
        # the open alerts fit their card at either width (at 390 px each alert is a block, its message whole)
        fits_its_card(page.locator("#open-alerts"))
        shot(f"day-one-dashboard-{width}")

        page.goto(f"{base}/")
        home = page.locator("#home-groups").inner_text()
        assert "1 down, left out" in home
        assert page.locator("#health-summary .hc.st-down .num").inner_text() == "1"
        fits_its_card(page.locator("#home-groups"))
        shot(f"day-one-overview-{width}")

        page.goto(f"{base}/groups/{gid}/")
        assert "spark-z" in page.locator("#q-left-out").inner_text()
        assert "across 2 machines" in page.locator("#q-pooled").inner_text()
        # the Sparks and links tables fit their cards at either width: at 390 px a row is a block of figures
        for table in ("#sparks-table", "#links-table"):
            fits_its_card(page.locator(table))
        shot(f"day-one-group-{width}")

        page.goto(f"{base}/plans/?group={gid}&model=gpt-oss-20b")
        assert "1 down (spark-z)" in page.locator(f'#id_group option[value="{gid}"]').inner_text()
        assert "spark-z" in page.locator("#plan-left-out").inner_text()
        assert "whole group (3 Sparks) would give" in page.locator("#plan-when-healthy").inner_text()
        assert "spark-z" not in page.locator("#plans").inner_text()
        assert page.locator("#recommendation .badge.ok").count() == 1
        shot(f"day-one-plans-{width}")

        page.goto(f"{base}/bookings/new/")
        assert "1 down (spark-z)" in page.locator(f'select[name=group] option[value="{gid}"]').inner_text()

    # booking the group with "Book anyway" unticked: not booked, and the form says why
    page.select_option("#id_group", str(gid))
    page.wait_for_selector("#nodes .bk-node")
    page.fill("#id_purpose", "first model")
    page.locator("#availability .bk-warn").wait_for()
    page.click("button[type=submit]")
    page.locator("#not-booked").wait_for()
    refused = page.locator("#not-booked").inner_text()
    assert refused.startswith("Not booked:") and "Book anyway" in refused and "unhealthy" in refused
    assert "spark-z" in page.locator("#availability .bk-warn").inner_text()
    assert Booking.objects.count() == 0
    shot("day-one-not-booked-390")


@pytest.fixture
def demo() -> dict[str, int]:
    seed_catalogue()
    lab_import(actor=Actor(source="import"), data=lab_data("demo.yaml"))
    make_user("member", "member")
    live = NodeGroup.objects.filter(retired_at__isnull=True, parent__isnull=True)
    return {"switched": live.get(members__spark__name="spark-07").pk}


def variants(page: Any) -> list[str]:
    return [o.get_attribute("value") for o in page.locator("#id_variant option").all()]


def test_the_flagship_plan_launches_and_the_variants_follow_the_model(live_server, page, shot, demo):
    base = live_server.url
    sign_in(page, base, "member", "member-pass-123")
    page.goto(f"{base}/plans/?group={demo['switched']}&model=qwen3.5-397b-a17b")
    assert page.locator("#recommendation .badge.ok").count() == 1
    assert page.locator("#launch-missing").count() == 0
    page.locator("tr.plan-more.recommended summary").click()
    page.wait_for_selector("tr.plan-more.recommended .launch .copy")
    launch = page.locator("tr.plan-more.recommended .launch").inner_text()
    assert "Intel/Qwen3.5-397B-A17B-int4-AutoRound" in launch and "no Hugging Face repository" not in launch
    assert variants(page) == ["", "int4"]
    shot("day-one-flagship-1440")

    # the model changes (htmx, no reload): the variant list is the new model's
    page.evaluate("window.__stayed = true")
    page.select_option("#id_model", "llama-3.1-8b")
    page.wait_for_function("() => document.querySelector('#results').innerText.includes('Llama-3.1-8B')")
    page.wait_for_function("() => document.querySelectorAll('#id_variant option').length > 2")
    assert "Q4_K_M" in variants(page) and "int4" not in variants(page)
    page.select_option("#id_variant", "Q4_K_M")
    page.select_option("#id_engine", "llama.cpp")
    page.wait_for_function("() => document.querySelector('#results').innerText.includes('Q4_K_M')")
    page.select_option("#id_model", "qwen3.5-397b-a17b")
    page.wait_for_function("() => document.querySelector('#results').innerText.includes('Qwen3.5-397B-A17B')")
    assert variants(page) == ["", "int4"]
    assert page.locator("#id_variant").input_value() == ""
    assert page.evaluate("window.__stayed") is True
    page.set_viewport_size({"width": 390, "height": 900})
    shot("day-one-flagship-390")

    # the switched group of eight at phone width: drawn two Sparks a row on rails, their names
    # legible (>= 11 px), the whole drawing inside its card: neither it nor the page scrolls sideways
    page.goto(f"{base}/groups/{demo['switched']}/")
    drawing = page.locator("#diagram-svg svg.topo:visible")
    assert drawing.count() == 1 and "topo-narrow" in drawing.get_attribute("class")
    assert drawing.locator("g.node").count() == 8
    name = drawing.locator("text[font-weight='600']").first
    assert name.bounding_box()["height"] >= 11
    assert page.evaluate("(e => e.scrollWidth <= e.clientWidth)(document.querySelector('#diagram-svg'))")
    no_sideways_scroll(page)
    shot("day-one-switched-group-390")
    page.set_viewport_size({"width": 1440, "height": 900})  # the desktop drawing again: one row under the switch
    assert "topo-wide" in page.locator("#diagram-svg svg.topo:visible").get_attribute("class")


MISTAKES = """\
sparks:
  - {name: jx-1, hardware: dgx-spark-12, ssh: {host: 10.0.0.41}}
  - {name: jx-2, hardware: dgx-spark-128, ssh: {host: 10.0.0.42}}
switches: []
cables:
  - {type: qsfp112-dac, ends: [jx-1:p0, jx-2:p0], label: jx-a}
  - {type: qsfp112-dac, ends: [jx-1:p7, jx-2:p1], label: jx-b}
"""


def test_the_import_preview_and_the_designer_name_each_mistake_once(live_server, page, shot, demo):
    make_user("labadmin", "lab-admin")
    base = live_server.url
    sign_in(page, base, "labadmin", "labadmin-pass-123")

    # one wrong hardware slug and one bad port: each once, at its place; the cables'
    # ends on jx-1 are not "no such Spark" (the document names it)
    page.goto(f"{base}/lab/import/")
    page.fill("#id_text", MISTAKES)
    page.click("button[value=preview]")
    items = page.locator(".errors li").all_inner_texts()
    assert len(items) == 2, items
    assert items[0].startswith("sparks[0].hardware") and "dgx-spark-12" in items[0]
    assert items[1].startswith("cables[1].ends[0]") and "'p7'" in items[1]
    assert "no Spark or switch is named" not in page.locator("main").inner_text()
    shot("day-one-import-preview-1440")

    # a fresh design for eight Sparks beside the demo lab's seventeen: no ring (eight need a
    # switch), names and labels the lab does not use, so its document previews clean
    page.goto(f"{base}/design/")
    page.fill("#id_planned_1", "8")
    page.click("#design-form button[type=submit]")
    page.wait_for_load_state()
    keys = page.locator("#comparison thead th[data-design]").evaluate_all("els => els.map(e => e.dataset.design)")
    assert "ring" not in keys and keys, keys
    href = page.locator(f"#comparison a[href*='/design/document/'][href*='design={keys[0]}']").get_attribute("href")
    document = page.request.get(f"{base}{href}").text()
    lab = {f"spark-{i:02d}" for i in range(1, 18)}
    names = set(re.findall(r"name: (spark-\d+)", document))
    assert len(names) == 8 and not names & lab, names
    page.goto(f"{base}/lab/import/")
    page.fill("#id_text", document)
    page.click("button[value=preview]")
    assert page.locator(".errors").count() == 0, page.locator(".errors").inner_text()
    assert "dry run" in page.locator("#import-result").inner_text()
    page.set_viewport_size({"width": 390, "height": 900})
    shot("day-one-design-import-390")
