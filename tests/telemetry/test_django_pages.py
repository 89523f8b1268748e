"""Telemetry pages, API and /metrics, read from stored polls with the
simulated fleet already stopped: nothing here may touch SSH."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client

from inventory.models import Change
from simfleet.simulator import SimNode
from telemetry import poller
from telemetry.models import Alert, NodeState
from telemetry.poll_round import poll_and_store
from tests.conftest import ApiClient
from tests.telemetry import django_sim
from tests.telemetry.django_sim import ids, sim_lab

fleet_key = django_sim.fleet_key
pytestmark = pytest.mark.django_db


@pytest.fixture
def polled(fleet_key, tmp_path, settings, monkeypatch):
    """Three Sparks polled twice (one with a down twin, one unreachable), then the simulator stopped."""
    nodes = [
        SimNode("spark-01", cabled_ports={"p0": ("spark-02", "p0")}, faults={"twin-down"}),
        SimNode("spark-02", cabled_ports={"p0": ("spark-01", "p0")}),
        SimNode("spark-03", faults={"down"}),
    ]
    with sim_lab(nodes, fleet_key, tmp_path, settings):
        poll_and_store(spark_ids=ids("spark-01", "spark-02", "spark-03"))
        poll_and_store(spark_ids=ids("spark-01", "spark-02", "spark-03"))

    def no_ssh(*args, **kwargs):
        raise AssertionError("a page or API call tried to reach a node over SSH")

    for name in ("poll_nodes", "poll_nodes_sync", "fetch_host_key"):
        monkeypatch.setattr(poller, name, no_ssh)
    monkeypatch.setattr("telemetry.poll_round.poll_nodes_sync", no_ssh)


def test_dashboard_shows_every_node_from_stored_polls(polled, admin_client):
    page = admin_client.get("/telemetry/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'hx-trigger="every 5s"' in html
    tile = re.search(r'id="tile-spark-01".*?</a>', html, re.S).group(0)
    assert 'data-status="degraded"' in tile and "link-down" in tile and "twins 1/2" in tile
    assert 'data-status="down"' in re.search(r'id="tile-spark-03".*?</a>', html, re.S).group(0)
    # htmx asks for the partial only: no layout around it.
    partial = admin_client.get("/telemetry/", headers={"HX-Request": "true"}).content.decode()
    assert partial.lstrip().startswith('<div id="fleet"') and "<html" not in partial


def test_home_shows_the_health_summary_and_the_spark_page_links_telemetry(polled, admin_client):
    home = admin_client.get("/").content.decode()
    assert 'id="health-summary"' in home and "open alerts" in home
    spark = admin_client.get("/sparks/spark-01/").content.decode()
    assert 'href="/sparks/spark-01/telemetry/"' in spark and "degraded" in spark


def test_old_telemetry_node_addresses_redirect_permanently(polled, admin_client):
    response = admin_client.get("/telemetry/nodes/spark-01/?range=6h")
    assert response.status_code == 301 and response["Location"] == "/sparks/spark-01/telemetry/?range=6h"
    response = admin_client.post("/telemetry/nodes/spark-02/hostkey/accept/", {"key": "x"})
    assert response.status_code == 308 and response["Location"] == "/sparks/spark-02/telemetry/hostkey/accept/"
    tab = admin_client.get("/sparks/spark-01/telemetry/").content.decode()
    assert 'class="tabs"' in tab and 'href="/sparks/spark-01/"' in tab


def test_node_page_has_charts_twins_and_host_key(polled, admin_client):
    html = admin_client.get("/sparks/spark-01/telemetry/?range=6h").content.decode()
    assert html.count("<svg") >= 3 and "<polyline" in html
    assert "enP2p1s0f0np0" in html and "spark-02:p0 at 200 Gb/s" in html
    assert "Verified" in html and "SHA256:" in html
    assert admin_client.get("/sparks/nope/telemetry/").status_code == 404
    # A node never answering still renders, with an empty chart.
    assert "no samples in this range" in admin_client.get("/sparks/spark-03/telemetry/").content.decode()


def test_alerts_page_filters_and_members_acknowledge(polled, users):
    member, viewer = Client(), Client()
    member.force_login(users["member"])
    viewer.force_login(users["viewer"])
    rows = viewer.get(
        "/telemetry/alerts/?state=open&code=unreachable", headers={"HX-Request": "true", "HX-Target": "rows"}
    ).content.decode()
    assert rows.lstrip().startswith('<div id="rows">')  # the filter form swaps only the rows
    assert "spark-03" in rows and "link-down" not in rows and "Acknowledge</button>" not in rows
    assert "spark-01" in viewer.get("/telemetry/alerts/?state=all&node=spark-01").content.decode()
    alert = Alert.objects.get(code="unreachable")
    assert viewer.post(f"/telemetry/alerts/{alert.pk}/ack/").status_code == 403
    response = member.post(f"/telemetry/alerts/{alert.pk}/ack/", {"next": "https://evil.example/"})
    assert response.status_code == 302 and response["Location"] == "/telemetry/alerts/"
    alert.refresh_from_db()
    assert alert.acknowledged_by_name == "member1" and alert.acknowledged_at is not None


def test_accepting_a_host_key_is_admin_only_and_needs_csrf(polled, users):
    state = NodeState.objects.get(spark__name="spark-02")
    state.key_status = "mismatch"
    state.presented_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOoGJ2Eqy5bz9jsXvnHL3d64i6Vp7B53N2m8lbqNPYpb"
    state.save()
    url = "/sparks/spark-02/telemetry/hostkey/accept/"
    member = Client()
    member.force_login(users["member"])
    assert member.post(url, {"key": state.presented_key}).status_code == 403
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(users["lab-admin"])
    assert strict.post(url, {"key": state.presented_key}).status_code == 403  # no CSRF token
    admin = Client()
    admin.force_login(users["lab-admin"])
    assert "Accept this host key" in admin.get("/sparks/spark-02/telemetry/").content.decode()
    assert admin.post(url, {"key": "ssh-ed25519 AAAAother"}).status_code == 302
    assert NodeState.objects.get(spark__name="spark-02").key_status == "mismatch"  # not the key shown
    # text that is no key is said to be one, not "has not presented a host key yet"
    refused = admin.post(url, {"key": "abc"}, follow=True)
    assert "not an SSH public key: send it as the Spark&#x27;s page shows it (ssh-ed25519 AAAA...)" in (
        refused.content.decode()
    )
    assert NodeState.objects.get(spark__name="spark-02").key_status == "mismatch"
    admin.post(url, {"key": state.presented_key})
    after = NodeState.objects.get(spark__name="spark-02")
    assert (after.key_status, after.host_key, after.host_key_accepted_by) == ("ok", state.presented_key, "admin1")


# ------------------------------------------------------------------ API


def test_api_accepting_a_key_nobody_presented_is_a_400_naming_the_key(polled, api_admin, api_member):
    state = NodeState.objects.get(spark__name="spark-02")
    state.key_status = "mismatch"
    state.presented_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOoGJ2Eqy5bz9jsXvnHL3d64i6Vp7B53N2m8lbqNPYpb"
    state.save()
    url = "/api/sparks/spark-02/hostkey/accept"
    assert api_member.post(url + "?key=x").status_code == 403
    refused = api_admin.post(url + "?key=ssh-ed25519%20AAAAother")
    assert refused.status_code == 400
    body = refused.json()
    assert body["message"].startswith("the request was not applied: key: ")
    assert body["errors"] == [{"path": "key", "message": body["errors"][0]["message"]}]
    assert "another key than the one shown" in body["errors"][0]["message"]
    assert NodeState.objects.get(spark__name="spark-02").key_status == "mismatch"
    accepted = api_admin.post(url + "?key=" + state.presented_key.replace(" ", "%20"))
    assert accepted.status_code == 200 and accepted.json()["host_key"]["status"] == "ok"
    # the same key accepted again (a second click): nothing changes, nothing is recorded, a down node stays down
    NodeState.objects.filter(spark__name="spark-02").update(status="down")
    changes = Change.objects.filter(object_name="spark-02").count()
    again = api_admin.post(url + "?key=" + state.presented_key.replace(" ", "%20"))
    assert again.status_code == 200 and again.json()["host_key"]["status"] == "ok"
    assert NodeState.objects.get(spark__name="spark-02").status == "down"
    assert Change.objects.filter(object_name="spark-02").count() == changes


def test_api_latest_sample_has_the_documented_fields(polled, api_viewer):
    body = api_viewer.get("/api/sparks/spark-01/telemetry").json()
    assert set(body) >= {"at", "reachable", "memory", "gpu", "twins", "errors"}
    assert set(body["memory"]) == {
        "total_bytes",
        "available_bytes",
        "used_bytes",
        "swap_total_bytes",
        "swap_free_bytes",
    }
    assert set(body["gpu"]) == {"util_pct", "temp_c", "power_w"}
    twin = body["twins"][0]
    assert set(twin) == {"name", "port", "rdma", "up", "speed_mbps", "mtu", "addresses", "rdma_state", "rdma_rate_gbps"}
    assert twin["rdma_state"] == "ACTIVE" and twin["rdma_rate_gbps"] == 200.0
    assert twin["port"] in ("p0", "p1") and isinstance(twin["addresses"], list)
    assert datetime.fromisoformat(body["at"]).tzinfo is not None
    down = api_viewer.get("/api/sparks/spark-03/telemetry").json()
    assert down["reachable"] is False and down["memory"] is None and down["errors"] == ["connection refused"]


def test_api_history_and_bad_times(polled, api_viewer):
    start = (datetime.now(UTC) - timedelta(hours=1)).isoformat()  # "+00:00": sent unencoded on purpose
    body = api_viewer.get(f"/api/sparks/spark-02/telemetry?from={start}").json()
    assert len(body["samples"]) == 2 and body["samples"][0]["at"] < body["samples"][1]["at"]
    assert body["aggregates"] == []
    for query, field in (
        ("from=yesterday", "from"),
        ("from=2026-01-01T00:00:00", "from"),
        (f"from={start}&to=2000-01-01T00:00:00Z", "to"),
        ("to=2026-01-01T00:00:00Z", "from"),
    ):
        bad = api_viewer.get(f"/api/sparks/spark-02/telemetry?{query}")
        assert bad.status_code == 400, query  # the service reads the times: 400, not the schema's 422
        assert bad.json()["errors"][0]["path"] == field, query
    assert api_viewer.get("/api/sparks/nope/telemetry").status_code == 404


def test_api_health_and_alerts(polled, api_viewer, api_member):
    health = api_viewer.get("/api/sparks/spark-01/health").json()
    assert health["status"] == "degraded"
    assert {a["code"] for a in health["alerts"]} == {"link-down", "single-half"}
    assert all(set(a) >= {"code", "since", "message"} for a in health["alerts"])
    listed = api_viewer.get("/api/alerts?open=true").json()
    assert listed["count"] == 3 and all(a["open"] for a in listed["items"])
    assert api_viewer.get("/api/alerts?open=false").json()["count"] == 0
    assert api_viewer.get("/api/alerts?node=spark-01").json()["count"] == 2
    typo = api_viewer.get("/api/alerts?node=spark-1")  # listed no alerts, as if all were well
    assert typo.status_code == 400
    assert typo.json()["errors"] == [{"path": "node", "message": "no Spark is named 'spark-1'"}]
    alert_id = listed["items"][0]["id"]
    assert api_viewer.post(f"/api/alerts/{alert_id}/ack").status_code == 403
    acked = api_member.post(f"/api/alerts/{alert_id}/ack").json()
    assert acked["acknowledged_by"] == "member1"
    assert ApiClient(None).get("/api/alerts").status_code == 401


# ------------------------------------------------------------------ /metrics


def test_metrics_exposition(polled, settings):
    from prometheus_client.parser import text_string_to_metric_families

    settings.FLEET_METRICS_TOKEN = ""
    response = Client().get("/metrics")  # no login needed for scraping
    assert response.status_code == 200 and response["Content-Type"].startswith("text/plain; version=0.0.4")
    text = response.content.decode()
    families = re.findall(r"^# TYPE (\S+) (\S+)$", text, re.M)
    assert ("fleet_node_up", "gauge") in families and ("fleet_alerts_open", "gauge") in families
    for name, _ in families:
        assert f"# HELP {name} " in text
    assert 'fleet_node_up{node="spark-03"} 0.0' in text
    assert 'fleet_node_health{node="spark-01",status="degraded"} 1.0' in text
    assert 'fleet_twin_up{node="spark-01",port="p0",twin="enP2p1s0f0np0"} 0.0' in text
    assert 'fleet_twin_speed_bytes_per_second{node="spark-02",port="p0",twin="enp1s0f0np0"} 2.5e+10' in text
    assert re.search(r'^fleet_node_memory_used_bytes\{node="spark-02"\} [0-9.e+]+$', text, re.M)
    assert 'fleet_alerts_open{code="unreachable",severity="critical"} 1.0' in text
    # Prometheus's own parser reads all of it back.
    parsed = {f.name: f for f in text_string_to_metric_families(text)}
    assert {s.labels["node"] for s in parsed["fleet_node_up"].samples} == {"spark-01", "spark-02", "spark-03"}


def test_metrics_token(polled, settings):
    settings.FLEET_METRICS_TOKEN = "s3cret"
    assert Client().get("/metrics").status_code == 401
    assert Client().get("/metrics", headers={"Authorization": "Bearer nope"}).status_code == 401
    assert Client().get("/metrics", headers={"Authorization": "Bearer s3cret"}).status_code == 200


def test_admin_lists_telemetry_and_accepts_a_presented_key(polled, django_user_model):
    root = django_user_model.objects.create_superuser("root", password="root-pass-123")
    client = Client()
    client.force_login(root)
    for model in ("nodesample", "nodeaggregate", "nodestate", "alert"):
        assert client.get(f"/admin/telemetry/{model}/").status_code == 200, model
    state = NodeState.objects.get(spark__name="spark-03")
    state.key_status = "mismatch"
    state.presented_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOoGJ2Eqy5bz9jsXvnHL3d64i6Vp7B53N2m8lbqNPYpb"
    state.save()
    response = client.post(
        "/admin/telemetry/nodestate/", {"action": "accept_presented_key", "_selected_action": [state.pk]}
    )
    assert response.status_code == 302
    assert NodeState.objects.get(spark__name="spark-03").key_status == "ok"
    alert = Alert.objects.filter(ended_at=None).first()
    client.post("/admin/telemetry/alert/", {"action": "acknowledge", "_selected_action": [alert.pk]})
    alert.refresh_from_db()
    assert alert.acknowledged_by_name == "root"
