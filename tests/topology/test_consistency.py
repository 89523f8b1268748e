"""One truth: every page and API endpoint that shows a Spark's usable memory,
a link's speed or a group's health shows the same value for it.

The scenario lab (``scenario``) has a half-speed twin, a 100G negotiation, a
down Spark, a new Spark awaiting its key and a 128+64 GB pair, served by
real simulated Sparks and polled by the real poller. Then every reader is
asked, and each quantity must have exactly one value across all of them
(and it is the one the state selector computes). Runs on whichever database
``DATABASE_URL`` names: CI runs it on PostgreSQL and on SQLite.
"""

from __future__ import annotations

import html as htmllib
import re
from collections import defaultdict
from typing import Any

import pytest
from django.test import Client

from inventory.models import NodeGroup
from telemetry import poller
from tests.conftest import ApiClient
from tests.support.fabric_runs import verified as verified_run
from tests.telemetry import django_sim
from tests.topology.scenario import NAMES, scenario
from topology.live import live_state

fleet_key = django_sim.fleet_key
pytestmark = pytest.mark.django_db(transaction=True)


class Seen:
    """Every value each reader showed, per quantity: ("usable", "spark-a") -> {where: value}."""

    def __init__(self) -> None:
        self.values: dict[tuple[str, str], dict[str, Any]] = defaultdict(dict)

    def add(self, quantity: str, key: str, where: str, value: Any) -> None:
        self.values[(quantity, key)][where] = value

    def readers(self, quantity: str, key: str) -> set[str]:
        return set(self.values[(quantity, key)])

    def disagreements(self) -> list[str]:
        out = []
        for (quantity, key), by_reader in sorted(self.values.items()):
            if len(set(by_reader.values())) > 1:
                out.append(f"{quantity} of {key}: {by_reader}")
        return out


def text(html: str) -> str:
    return htmllib.unescape(html)


def _gb(value: str) -> float:
    return round(float(value.replace(",", "")), 1)


@pytest.fixture
def polled(fleet_key, tmp_path, settings, monkeypatch):
    with scenario(fleet_key, tmp_path, settings):
        pass

    def no_ssh(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a page or API call tried to reach a node over SSH")

    for name in ("poll_nodes", "poll_nodes_sync", "fetch_host_key"):
        monkeypatch.setattr(poller, name, no_ssh)


def read_sparks_api(seen: Seen, api: ApiClient) -> None:
    listed = api.get("/api/sparks?limit=1000").json()["items"]
    for item in listed:
        name = item["name"]
        one = api.get(f"/api/sparks/{name}").json()
        health = api.get(f"/api/sparks/{name}/health").json()
        for where, data in (("/api/sparks", item), (f"/api/sparks/{name}", one)):
            seen.add("health", name, where, data["health"]["status"])
            seen.add("alerts", name, where, tuple(data["health"]["alerts"]))
            seen.add("last seen", name, where, data["health"]["last_seen"])
            seen.add("usable", name, where, round(data["usable_gb"], 1))
            seen.add("usable source", name, where, data["usable_source"])
        seen.add("health", name, "/api/sparks/{name}/health", health["status"])
        seen.add("usable", name, "/api/sparks/{name}/health", round(health["usable_gb"], 1))
    for status in ("ok", "degraded", "down", "unknown", "new"):
        for item in api.get(f"/api/sparks?health={status}").json()["items"]:
            seen.add("health", item["name"], "/api/sparks?health=", status)


def read_metrics(seen: Seen, client: Client) -> None:
    body = client.get("/metrics").content.decode()
    for name, status in re.findall(r'fleet_node_health\{node="([^"]+)",status="(\w+)"\} 1\.0', body):
        seen.add("health", name, "/metrics", status)
    for name, source, value in re.findall(
        r'fleet_node_usable_memory_bytes\{node="([^"]+)",source="(\w+)"\} ([\d.e+]+)', body
    ):
        seen.add("usable", name, "/metrics", round(float(value) / 1e9, 1))
        seen.add("usable source", name, "/metrics", source)
    for a, b, state in re.findall(
        r'fleet_link_state\{a="([^"]+)",b="([^"]+)",cable="[^"]*",state="(\w+)"\} 1\.0', body
    ):
        seen.add("link state", f"{a}—{b}", "/metrics", state)
    observed = dict.fromkeys(
        (
            f"{a}—{b}"
            for a, b in re.findall(
                r'fleet_link_expected_bytes_per_second\{a="([^"]+)",'
                r'b="([^"]+)"',
                body,
            )
        )
    )
    for a, b, value in re.findall(
        r'fleet_link_observed_bytes_per_second\{a="([^"]+)",b="([^"]+)",cable="[^"]*"\} '
        r"([\d.e+]+)",
        body,
    ):
        observed[f"{a}—{b}"] = int(float(value) * 8 / 1e9)
    for key, value in observed.items():
        seen.add("link observed", key, "/metrics", value)
    for name, status in re.findall(r'fleet_group_health\{group="([^"]+)",status="(\w+)"\} 1\.0', body):
        seen.add("group health", name, "/metrics", status)
    for name, value in re.findall(r'fleet_group_measured_bus_bytes_per_second\{group="([^"]+)"\} ([\d.e+]+)', body):
        seen.add("measured", name, "/metrics", round(float(value) / 1e9, 1))
    for name, value in re.findall(r'fleet_group_fabric_socket_nodes\{group="([^"]+)"\} ([\d.]+)', body):
        seen.add("socket nodes", name, "/metrics", int(float(value)))


def read_api(seen: Seen, api: ApiClient) -> None:
    for g in api.get("/api/groups").json()["items"]:
        for where, item in (("/api/groups", g), (f"/api/groups/{g['id']}", api.get(f"/api/groups/{g['id']}").json())):
            seen.add("group health", g["name"], where, item["health"]["status"])
            for node, gb in item["memory"]["usable_gb_per_node"].items():
                seen.add("usable", node, where, round(gb, 1))
                seen.add("usable source", node, where, item["memory"]["usable_source_per_node"][node])
            for link in item["links"]:
                key = f"{link['a']}—{link['b']}"
                seen.add("link state", key, where, link["state"])
                seen.add("link gbps", key, where, link["gbps"])
                seen.add("link observed", key, where, link["observed_gbps"])
            seen.add("slowest", g["name"], where, item["slowest_gbps"])
            seen.add("measured", g["name"], where, item["measured_gbs"])
            if item["measured_gbs"] is not None:
                seen.add("socket nodes", g["name"], where, len(item["measured_socket_hosts"]))
        plans = api.post("/api/plans", {"model": "llama-3.1-8b", "group": g["id"]}).json()
        assert "group" in plans, plans
        for node, gb in plans["group"]["usable_gb"].items():
            seen.add("usable", node, "POST /api/plans", round(gb, 1))
        seen.add("slowest", g["name"], "POST /api/plans", int(plans["group"]["link_gbps"]))
        seen.add("group health", g["name"], "POST /api/plans", plans["group"]["health"])
        for w in plans["warnings"]:
            seen.add("health", w["node"], "POST /api/plans", w["health"])


LINK_G = re.compile(
    r'<g class="link state-(\w+)" data-gbps="(\d+)" data-state="\w+" tabindex="0" role="button" '
    r'aria-label="([^"]*)"'
)
NODE_A = re.compile(r'<a href="/sparks/([a-z0-9-]+)/" aria-label="([^"]*)"')


def read_diagram(seen: Seen, page: str, where: str) -> None:
    for state, gbps, label in LINK_G.findall(page):
        ends = text(label).split(", cable")[0].replace(" — ", "—")
        seen.add("link state", ends, where, state)
        seen.add("link gbps", ends, where, int(gbps))
    for name, label in NODE_A.findall(page):
        detail = text(label)
        health = re.search(r"health: (\w+)", detail)
        if health:
            seen.add("health", name, where, health.group(1))
        memory = re.search(r" · ([\d.,]+) GB( exp\.| down)?", detail)
        if memory:
            seen.add("usable", name, where, _gb(memory.group(1)))
            mark = {" exp.": "expected", " down": "unavailable"}.get(memory.group(2) or "", "measured")
            seen.add("usable source", name, where, mark)


def read_pages(seen: Seen, client: Client) -> None:
    read_topology_page(seen, client)
    for group in NodeGroup.objects.filter(retired_at__isnull=True):
        read_group_pages(seen, client, group)
    read_spark_pages(seen, client)
    read_overview_pages(seen, client)


def read_topology_page(seen: Seen, client: Client) -> None:
    page = client.get("/topology/").content.decode()
    read_diagram(seen, page, "/topology/")
    cards = r'<section class="card topo-card[^"]*" id="group-\d+">.*?<a href="/groups/\d+/">([a-z0-9-]+)</a>'
    for name, health in re.findall(cards + r'.*?<span class="health h-(\w+)"', page, re.S):
        seen.add("group health", name, "/topology/", health)


def read_group_pages(seen: Seen, client: Client, group: NodeGroup) -> None:
    """The group's page and its plans page."""
    where = f"/groups/{group.pk}/"
    page = client.get(where).content.decode()
    read_diagram(seen, page, where + " diagram")
    seen.add("group health", group.name, where, re.search(r'id="group-health">(\w+)<', page).group(1))
    measured = re.search(r'id="q-exchange-measured">.*?<strong>([\d.]+) GB/s</strong>', page, re.S)
    if 'id="q-exchange-measured"' in page:
        seen.add("measured", group.name, where, float(measured.group(1)) if measured else None)
    if measured:
        sockets = re.search(r'class="bad small measured-network">over TCP sockets on ([^:<]+):', page)
        seen.add("socket nodes", group.name, where, len(sockets.group(1).split(", ")) if sockets else 0)
    slowest = re.search(r'<span id="slowest">(\d+)</span>', page)
    if slowest:
        seen.add("slowest", group.name, where, int(slowest.group(1)))
    rows = (
        r'<tr id="spark-([a-z0-9-]+)">.*?<span class="health h-(\w+)".*?'
        r'<span class="usable">([\d.,]+)</span> GB <span class="src-label">(\w+)</span>'
    )
    for name, health, usable, source in re.findall(rows, page, re.S):
        seen.add("health", name, where, health)
        seen.add("usable", name, where, _gb(usable))
        seen.add("usable source", name, where, source)
    links = r'<tr data-a="([^"]+)" data-b="([^"]+)">.*?<td class="num observed">(.*?)</td>'
    for a, b, observed in re.findall(links, page, re.S):
        value = re.search(r"(\d+) Gb/s", observed)
        seen.add("link observed", f"{a}—{b}", where, int(value.group(1)) if value else None)
    plans = client.get(f"/plans/?group={group.pk}&model=llama-3.1-8b").content.decode()
    link = re.search(r'<span id="plan-link">slowest link (\d+) Gb/s', plans)
    if link and 'id="plan-left-out"' not in plans:  # else the link of the part that works, not the group's
        seen.add("slowest", group.name, f"/plans/?group={group.pk}", int(link.group(1)))
    for name, usable in re.findall(r'<div class="memlabel small">([a-z0-9-]+): ([\d.,]+) GB usable', plans):
        seen.add("usable", name, f"/plans/?group={group.pk}", _gb(usable))


def read_spark_pages(seen: Seen, client: Client) -> None:
    """The memory page, the Sparks list (whole and filtered by health) and each Spark's page."""
    page = text(client.get("/memory/").content.decode())
    for name, usable, how in re.findall(r"<title>([a-z0-9-]+): ([\d.,]+) GB usable(,| now|; down)", page):
        seen.add("usable", name, "/memory/", _gb(usable))
        seen.add("usable source", name, "/memory/", {",": "expected", " now": "measured"}.get(how, "unavailable"))

    page = client.get("/sparks/").content.decode()
    for name, health, usable, source in re.findall(
        r'<tr id="row-([a-z0-9-]+)">.*?<span class="health h-(\w+)".*?<span class="usable">([\d.,]+)</span> GB '
        r'<span class="src-label">(\w+)</span>',
        page,
        re.S,
    ):
        seen.add("health", name, "/sparks/", health)
        seen.add("usable", name, "/sparks/", _gb(usable))
        seen.add("usable source", name, "/sparks/", source)
    for status in ("ok", "degraded", "down", "unknown", "new"):
        for name in re.findall(r'<tr id="row-([a-z0-9-]+)">', client.get(f"/sparks/?health={status}").content.decode()):
            seen.add("health", name, "/sparks/?health=", status)
    for name in NAMES:
        page = client.get(f"/sparks/{name}/").content.decode()
        health = re.search(r'id="spark-health">(\w+)<', page)
        seen.add("health", name, f"/sparks/{name}/", health.group(1) if health else None)
        usable = re.search(r'id="spark-usable">([\d.,]+) GB<', page)
        seen.add("usable", name, f"/sparks/{name}/", _gb(usable.group(1)) if usable else None)
        # its ports table: each cabled port's link as it runs now (a 200 Gb/s port at 100 says so)
        ports = r'data-link="([^"]+)" data-state="(\w+)">(.*?)</span>(?:</td>|<br>)'
        for key, state, label in re.findall(ports, text(page), re.S):
            seen.add("link state", key, f"/sparks/{name}/", state)
            observed = re.search(r'<span class="gbps">(\d+)</span>', label)
            if observed:
                seen.add("link observed", key, f"/sparks/{name}/", int(observed.group(1)))


def read_overview_pages(seen: Seen, client: Client) -> None:
    """The telemetry overview and the home page."""
    page = client.get("/telemetry/").content.decode()
    for name, status, usable in re.findall(
        r'id="tile-([a-z0-9-]+)" data-status="(\w+)".*?(?:([\d.]+) GB usable|</a>)', page, re.S
    ):
        seen.add("health", name, "/telemetry/", status)
        if usable:
            seen.add("usable", name, "/telemetry/", _gb(usable))

    page = client.get("/").content.decode()
    for name, health in re.findall(
        r'<tr><td class="nowrap"><a href="/groups/\d+/">([a-z0-9-]+)</a>.*?'
        r'<span class="health h-(\w+)"',
        page,
        re.S,
    ):
        seen.add("group health", name, "/", health)


def test_every_reader_shows_one_value_per_quantity(polled, viewer_user, client):
    client.force_login(viewer_user)
    # the 128+64 GB pair's fabric was verified (the fabric app's run, as its task stores it), and both its
    # nodes' NCCL fell back to TCP sockets there; no other group's was
    pair_row = NodeGroup.objects.get(auto=True, retired_at__isnull=True, members__spark__name="spark-a")
    verified = verified_run(pair_row, 5.6, "Socket", "failed")
    seen = Seen()
    read_api(seen, ApiClient(viewer_user))
    read_sparks_api(seen, ApiClient(viewer_user))
    read_pages(seen, client)
    read_metrics(seen, client)
    assert not seen.disagreements(), "\n".join(seen.disagreements())

    # ... and that value is the state's, for each fault of the scenario
    live = live_state()
    for name in NAMES:
        spark = live.spark(name)
        assert set(seen.values[("usable", name)].values()) == {spark.usable_gb}, name
        assert set(seen.values[("health", name)].values()) == {spark.health}, name
        assert len(seen.readers("usable", name)) >= 10, seen.values[("usable", name)]
        assert len(seen.readers("health", name)) >= 9, seen.values[("health", name)]
    health = {n: live.spark(n).health for n in NAMES}
    assert health == {
        "spark-a": "ok",
        "spark-b": "ok",
        "spark-c": "ok",
        "spark-d": "degraded",
        "spark-e": "degraded",
        "spark-f": "ok",
        "spark-g": "down",
        "spark-h": "new",
        "spark-i": "down",
        "spark-j": "ok",
    }
    # the unreachable Spark whose key was never seen: down, told to check its address, and no memory
    assert live.spark("spark-i").why.startswith("nothing answers on 127.0.0.1:")
    assert live.spark("spark-i").usable_gb == 0 and live.spark("spark-i").usable_source == "unavailable"
    assert set(seen.values[("usable source", "spark-i")].values()) == {"unavailable"}
    assert set(seen.values[("link state", "spark-i:p0—spark-j:p0")].values()) == {"down"}
    assert live.spark("spark-h").usable_source == "expected" and live.spark("spark-a").usable_source == "measured"
    assert live.spark("spark-b").usable_gb < live.spark("spark-a").usable_gb  # the 64 GB one of the pair
    half = "spark-c:p0—spark-d:p0"
    assert seen.values[("link state", half)] and set(seen.values[("link state", half)].values()) == {"half"}
    assert set(seen.values[("link gbps", half)].values()) == {100}
    # the half-speed port reads the same on its Spark's ports table as everywhere
    assert "/sparks/spark-d/" in seen.readers("link state", half) and "/sparks/spark-c/" in seen.readers(
        "link state", half
    )
    assert seen.values[("link observed", half)]["/sparks/spark-d/"] == 100
    assert set(seen.values[("link state", "spark-e:p0—sw-1:1")].values()) == {"half"}
    assert set(seen.values[("link state", "spark-g:p0—sw-1:2")].values()) == {"down"}
    assert set(seen.values[("link state", "spark-h:p0—sw-1:2")].values()) == {"unobserved"}
    switched = next(v.row.name for v in live.overview.groups if "spark-e" in v.result.nodes)
    assert set(seen.values[("group health", switched)].values()) == {"degraded"}
    assert set(seen.values[("slowest", switched)].values()) == {100}
    assert len(seen.readers("group health", switched)) >= 5
    # the measured exchange: the verified pair's run average in API and page, null for a group without a run
    assert set(seen.values[("measured", pair_row.name)].values()) == {verified.avg_busbw}
    assert {"/api/groups", f"/api/groups/{pair_row.pk}", f"/groups/{pair_row.pk}/", "/metrics"} <= seen.readers(
        "measured", pair_row.name
    )
    # and the nodes that went over TCP sockets there, alike in the API, the group's page and /metrics
    assert set(seen.values[("socket nodes", pair_row.name)].values()) == {2}
    assert {f"/api/groups/{pair_row.pk}", f"/groups/{pair_row.pk}/", "/metrics"} <= seen.readers(
        "socket nodes", pair_row.name
    )
    assert "/metrics" in seen.readers("group health", switched)
    assert set(seen.values[("measured", switched)].values()) == {None}
