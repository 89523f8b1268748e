"""What ships under deploy/ for teams on Prometheus and Grafana is valid and
speaks of metrics /metrics really exports: the alert rules and the scrape
config parse, every PromQL expression parses (promql-parser, Prometheus's
own grammar), and every metric an expression reads is in a real scrape: of
/metrics, of a served engine (vLLM's series) or of Debian's node_exporter
(node_exporter's, with the labels the dashboard matches on)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import promql_parser
import pytest
import yaml
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

from telemetry import tasks
from tests.deploy import faulty

DEPLOY = Path(__file__).resolve().parent.parent / "deploy"
# Series Prometheus writes itself for every scrape (SparkFleetDown reads it).
PROMETHEUS_OWN = {"up"}


def selectors(expr: str) -> list[promql_parser.VectorSelector]:
    """Every series selector of an expression, from its syntax tree."""
    found: list[promql_parser.VectorSelector] = []

    def walk(node: Any) -> None:
        if isinstance(node, promql_parser.VectorSelector):
            found.append(node)
        for attr in ("lhs", "rhs", "expr", "args", "vector_selector", "param"):
            value = getattr(node, attr, None)
            for child in value if isinstance(value, list) else [value]:
                if isinstance(child, promql_parser.Expr):
                    walk(child)

    walk(promql_parser.parse(expr))
    return found


def metric_names(expr: str) -> set[str]:
    """Names of every series an expression selects."""
    return {s.name for s in selectors(expr) if s.name}


@pytest.fixture
def exported(db, settings, admin_client) -> set[str]:
    settings.FLEET_METRICS_TOKEN = ""
    faulty.build()
    admin_client.get("/telemetry/")
    tasks.check_stale.apply()
    text = Client().get("/metrics").content.decode()
    return {s.name for family in text_string_to_metric_families(text) for s in family.samples}


def rules() -> list[dict[str, Any]]:
    doc = yaml.safe_load((DEPLOY / "prometheus" / "alerts.yml").read_text())
    return [rule for group in doc["groups"] for rule in group["rules"]]


def dashboard() -> dict[str, Any]:
    return json.loads((DEPLOY / "grafana" / "spark-fleet.json").read_text())  # type: ignore[no-any-return]


def dashboard_panels(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """Every panel but the rows, with those a collapsed row holds, in the file's order."""
    out: list[dict[str, Any]] = []
    for panel in doc["panels"]:
        out += panel.get("panels", []) if panel["type"] == "row" else [panel]
    return out


def dashboard_exprs() -> list[str]:
    return [t["expr"] for panel in dashboard_panels(dashboard()) for t in panel["targets"]]


def test_alert_rules_are_complete_and_parse():
    seen = set()
    for rule in rules():
        assert rule["alert"] not in seen, f"duplicate alert {rule['alert']}"
        seen.add(rule["alert"])
        assert rule["labels"]["severity"] in {"warning", "critical"}, rule["alert"]
        assert rule["annotations"]["summary"] and rule["annotations"]["description"], rule["alert"]
        assert rule["for"].endswith("m"), rule["alert"]
        assert metric_names(rule["expr"]), rule["alert"]  # parses and reads at least one series


def test_a_broken_expression_is_caught():
    with pytest.raises(ValueError):
        metric_names("sum(rate(fleet_node_up[5m])")


def test_the_scrape_config_loads_the_rules_shipped_beside_it():
    config = yaml.safe_load((DEPLOY / "prometheus" / "prometheus.yml").read_text())
    for name in config["rule_files"]:
        assert (DEPLOY / "prometheus" / name).is_file(), name
    (job,) = [j for j in config["scrape_configs"] if j["job_name"] == "spark-fleet"]
    assert job["metrics_path"] == "/metrics"
    (alertmanagers,) = config["alerting"]["alertmanagers"]
    assert alertmanagers["static_configs"][0]["targets"] == ["alertmanager:9093"]


def test_grafana_provisions_the_data_source_and_the_dashboard_compose_mounts():
    compose = yaml.safe_load((DEPLOY.parent / "docker-compose.yml").read_text())
    mounts = dict(v.split(":")[:2] for v in compose["services"]["grafana"]["volumes"] if v.startswith("./"))
    assert mounts["./deploy/grafana/provisioning"] == "/etc/grafana/provisioning"
    (source,) = yaml.safe_load((DEPLOY / "grafana" / "provisioning" / "datasources" / "prometheus.yml").read_text())[
        "datasources"
    ]
    assert source["type"] == "prometheus" and source["isDefault"] is True
    host, port = source["url"].removeprefix("http://").split(":")
    assert host in compose["services"] and compose["services"][host]["ports"] == [f"127.0.0.1:{port}:{port}"]
    (provider,) = yaml.safe_load((DEPLOY / "grafana" / "provisioning" / "dashboards" / "spark-fleet.yml").read_text())[
        "providers"
    ]
    assert mounts["./deploy/grafana/spark-fleet.json"] == f"{provider['options']['path']}/spark-fleet.json"
    doc = dashboard()
    (variable,) = doc["templating"]["list"]
    assert variable["current"]["value"] == source["uid"]
    for panel in dashboard_panels(doc):
        assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}, panel["title"]


def test_the_dashboard_has_panels_for_links_groups_memory_and_fabric():
    used = {name for expr in dashboard_exprs() for name in metric_names(expr)}
    assert {
        "fleet_link_state",
        "fleet_link_observed_bytes_per_second",
        "fleet_group_health",
        "fleet_node_usable_memory_bytes",
        "fleet_node_memory_used_bytes",
        "fleet_group_measured_bus_bytes_per_second",
        "fleet_group_expected_bus_bytes_per_second",
    } <= used


def test_the_dashboard_is_grafana_json_with_unique_panels():
    doc = dashboard()
    rows = [p for p in doc["panels"] if p["type"] == "row"]
    everything = [q for p in doc["panels"] for q in (p, *p.get("panels", []))]
    ids = [p["id"] for p in everything]
    assert ids == sorted(set(ids)), "panel ids unique and increasing in the file's order"
    assert doc["uid"] and doc["title"] == "Spark Fleet"
    for panel in dashboard_panels(doc):
        assert {"x", "y", "w", "h"} <= set(panel["gridPos"]) and panel["targets"], panel["title"]
    # laid out without overlaps on Grafana's 24 columns, a collapsed row's panels where they open, under it
    boxes = [(p["title"], p["gridPos"]) for p in everything]
    for title, g in boxes:
        assert g["x"] >= 0 and g["y"] >= 0 and g["w"] > 0 and g["h"] > 0 and g["x"] + g["w"] <= 24, title
    for i, (one, a) in enumerate(boxes):
        for other, b in boxes[i + 1 :]:
            beside = a["x"] + a["w"] <= b["x"] or b["x"] + b["w"] <= a["x"]
            assert beside or a["y"] + a["h"] <= b["y"] or b["y"] + b["h"] <= a["y"], f"{one} overlaps {other}"
    for row in rows:
        assert row["gridPos"]["w"] == 24 and row["gridPos"]["h"] == 1, row["title"]
        assert not row["collapsed"] or row["panels"], row["title"]
        for panel in row.get("panels", []):
            assert panel["gridPos"]["y"] > row["gridPos"]["y"], panel["title"]


def test_every_metric_the_rules_and_dashboard_read_is_exported(exported, tmp_path):
    """The fleet's series by /metrics; the served engines' (vLLM's names, job
    spark-fleet-engines) by an engine, as the simulated one exports them; the
    Sparks' (node_exporter's names, job spark-node-exporter) by Debian's
    node_exporter, as the live test of that job runs it, with every label the
    dashboard matches them on."""
    from simfleet.engine import SimEngine
    from tests.deploy.test_spark_targets import node_exporter_misses, node_exporter_text

    used = {name for rule in rules() for name in metric_names(rule["expr"])}
    used |= {name for expr in dashboard_exprs() for name in metric_names(expr)}
    engines = {name for name in used if name.startswith("vllm:")}
    assert engines == {"vllm:generation_tokens_total", "vllm:num_requests_running", "vllm:num_requests_waiting"}
    engine_text = SimEngine("llama-3.1-8b", 20.0).metrics_text()
    engine_exported = {s.name for family in text_string_to_metric_families(engine_text) for s in family.samples}
    assert not sorted(engines - engine_exported), f"read from the engines but not exported: {engines - engine_exported}"
    sparks = {name for name in used if name.startswith("node_")}
    assert sparks, "the dashboard's Sparks (node_exporter) row reads node_exporter's series"
    exprs = [rule["expr"] for rule in rules()] + dashboard_exprs()
    misses = node_exporter_misses(exprs, node_exporter_text(tmp_path))
    assert not misses, f"read from node_exporter but not exported by it: {misses}"
    missing = sorted(used - engines - sparks - exported - PROMETHEUS_OWN)
    assert not missing, f"read by deploy/ but not exported by /metrics: {missing}"


def test_the_polled_disk_panel_colours_at_the_products_own_thresholds():
    """The dashboard's panel of the fleet's own disk readings turns orange where the
    disk-low alert opens and red where it turns critical, and reads the same ratio as
    the SparkDiskLow rule."""
    from telemetry.health import Thresholds

    (panel,) = [p for p in dashboard_panels(dashboard()) if p["title"] == "Root filesystem free per Spark (polled)"]
    (target,) = panel["targets"]
    (rule,) = [r for r in rules() if r["alert"] == "SparkDiskLow"]
    assert rule["expr"] == f"{target['expr']} < {Thresholds().disk_free_fraction:.2f}"
    steps = panel["fieldConfig"]["defaults"]["thresholds"]["steps"]
    assert [(s["color"], s["value"]) for s in steps] == [
        ("red", None),
        ("orange", Thresholds().disk_critical_fraction),
        ("green", Thresholds().disk_free_fraction),
    ]
