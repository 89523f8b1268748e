"""What ships under deploy/ for teams on Prometheus and Grafana is valid and
speaks of metrics /metrics really exports: the alert rules and the scrape
config parse, every PromQL expression parses (promql-parser, Prometheus's
own grammar), and every metric an expression reads is in a real scrape."""

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
from telemetry.simulator import make_nodes
from tests.telemetry.stored import register, store_round

DEPLOY = Path(__file__).resolve().parent.parent / "deploy"


def metric_names(expr: str) -> set[str]:
    """Names of every series an expression selects, from its syntax tree."""
    names: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, promql_parser.VectorSelector) and node.name:
            names.add(node.name)
        for attr in ("lhs", "rhs", "expr", "args", "vector_selector", "param"):
            value = getattr(node, attr, None)
            for child in value if isinstance(value, list) else [value]:
                if isinstance(child, promql_parser.Expr):
                    walk(child)

    walk(promql_parser.parse(expr))
    return names


@pytest.fixture
def exported(db, settings, admin_client) -> set[str]:
    settings.FLEET_METRICS_TOKEN = ""
    nodes = make_nodes(2, prefix="d-")
    register(nodes)
    store_round(nodes, down={"d-02"})
    admin_client.get("/telemetry/")
    tasks.check_stale.apply()
    text = Client().get("/metrics").content.decode()
    return {s.name for family in text_string_to_metric_families(text) for s in family.samples}


def rules() -> list[dict[str, Any]]:
    doc = yaml.safe_load((DEPLOY / "prometheus" / "alerts.yml").read_text())
    return [rule for group in doc["groups"] for rule in group["rules"]]


def dashboard_exprs() -> list[str]:
    doc = json.loads((DEPLOY / "grafana" / "spark-fleet.json").read_text())
    return [t["expr"] for panel in doc["panels"] for t in panel["targets"]]


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
    (job,) = config["scrape_configs"]
    assert job["metrics_path"] == "/metrics"


def test_the_dashboard_is_grafana_json_with_unique_panels():
    doc = json.loads((DEPLOY / "grafana" / "spark-fleet.json").read_text())
    ids = [p["id"] for p in doc["panels"]]
    assert len(ids) == len(set(ids)) and doc["uid"] and doc["title"] == "Spark Fleet"
    for panel in doc["panels"]:
        assert {"x", "y", "w", "h"} <= set(panel["gridPos"]) and panel["targets"], panel["title"]


def test_every_metric_the_rules_and_dashboard_read_is_exported(exported):
    used = {name for rule in rules() for name in metric_names(rule["expr"])}
    used |= {name for expr in dashboard_exprs() for name in metric_names(expr)}
    missing = sorted(used - exported)
    assert not missing, f"read by deploy/ but not exported by /metrics: {missing}"
