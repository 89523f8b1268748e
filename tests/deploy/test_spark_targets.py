"""/metrics/spark-targets, Prometheus's service discovery from the inventory:
every active Spark at an exporter's port with its node, group and hardware;
and, end to end, Debian's Prometheus running the shipped job
(deploy/prometheus/spark-nodes.yml) against a live Spark Fleet, scraping
Debian's node_exporter for every Spark the inventory holds."""

from __future__ import annotations

import json
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
import yaml
from django.test import Client

from inventory.models import NodeGroup, Spark
from tests.deploy import faulty
from tests.deploy.test_live_alerts import running
from tests.tools import free_port, tool

ROOT = Path(__file__).resolve().parent.parent.parent
URL = "/metrics/spark-targets"
TOKEN = "sfm_spark-targets-0123456789abcdef"


def listed(query: str = "", **headers: str) -> list[dict[str, object]]:
    response = Client().get(f"{URL}{query}", **headers)
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/json"
    return response.json()


@pytest.mark.django_db
def test_every_active_spark_at_the_exporters_port_with_its_group_and_hardware(import_lab):
    import_lab("pair.yaml")
    group = NodeGroup.objects.get(auto=True, retired_at=None).name
    assert listed() == [
        {"targets": ["10.20.1.11:9100"], "labels": {"node": "pair-a", "group": group, "hardware": "dgx-spark-128"}},
        {"targets": ["10.20.1.12:9100"], "labels": {"node": "pair-b", "group": group, "hardware": "dgx-spark-128"}},
    ]
    # another exporter's port; an IPv6 host in brackets; a Spark in maintenance or retired is left out
    Spark.objects.filter(name="pair-a").update(ssh_host="fd00:20::11")
    assert [t["targets"] for t in listed("?port=9400")] == [["[fd00:20::11]:9400"], ["10.20.1.12:9400"]]
    Spark.objects.filter(name="pair-b").update(status=Spark.Status.MAINTENANCE)
    assert [t["labels"]["node"] for t in listed()] == ["pair-a"]  # type: ignore[index]


@pytest.mark.django_db
@pytest.mark.parametrize("port", ["0", "70000", "x", "", "-1", "9100.0", "\u0663"])
def test_a_port_that_is_not_one_is_refused_saying_so(port):
    response = Client().get(f"{URL}?port={port}")
    assert response.status_code == 400
    assert response.content.decode() == f"port: {port!r} is not a port (a whole number from 1 to 65535)\n"


@pytest.mark.django_db
def test_the_metrics_token_guards_it(settings):
    settings.FLEET_METRICS_TOKEN = TOKEN
    assert Client().get(URL).status_code == 401
    assert Client().get(URL, HTTP_AUTHORIZATION=f"Bearer {TOKEN[:-1]}").status_code == 401
    assert listed(HTTP_AUTHORIZATION=f"Bearer {TOKEN}") == []


def shipped_job(app: str, port: int, folder: Path) -> Path:
    """prometheus.yml with only the shipped spark-node-exporter job, pointed at this app and
    node_exporter's port; the scrape and discovery intervals at 1 s, the token file beside it."""
    (job,) = yaml.safe_load((ROOT / "deploy" / "prometheus" / "spark-nodes.yml").read_text())
    (found,) = job["http_sd_configs"]
    assert found["url"] == "http://web:8000/metrics/spark-targets?port=9100"
    found["url"] = f"http://{app}/metrics/spark-targets?port={port}"
    found["refresh_interval"] = "1s"
    (folder / "fleet_metrics_token").write_text(TOKEN + "\n")
    config = folder / "prometheus.yml"
    config.write_text(yaml.safe_dump({"global": {"scrape_interval": "1s"}, "scrape_configs": [job]}))
    return config


@pytest.mark.django_db(transaction=True)
def test_a_real_prometheus_finds_every_spark_and_scrapes_its_node_exporter(live_server, settings, tmp_path):
    """The simulated fleet's Sparks all answer on 127.0.0.1, where one
    node_exporter runs: one target per Spark, each series labelled with it."""
    settings.FLEET_METRICS_TOKEN = TOKEN
    faulty.build()
    groups = {s.name: "" for s in Spark.objects.all()}
    for g in NodeGroup.objects.filter(auto=True, retired_at=None):
        for name in g.members.values_list("spark__name", flat=True):
            groups[name] = g.name
    exporter_port, prom_port = free_port(), free_port()
    config = shipped_job(live_server.url.removeprefix("http://"), exporter_port, tmp_path)
    check = subprocess.run([tool("promtool"), "check", "config", str(config)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    exporter = [
        tool("prometheus-node-exporter"), f"--web.listen-address=127.0.0.1:{exporter_port}",
        "--collector.disable-defaults", "--collector.uname", "--collector.loadavg",
    ]  # fmt: skip
    prometheus = [
        tool("prometheus"), f"--config.file={config}", f"--storage.tsdb.path={tmp_path / 'tsdb'}",
        f"--web.listen-address=127.0.0.1:{prom_port}",
    ]  # fmt: skip
    with (
        running(exporter, tmp_path / "exporter.log", f"http://127.0.0.1:{exporter_port}/metrics"),
        running(prometheus, tmp_path / "prometheus.log", f"http://127.0.0.1:{prom_port}/-/ready"),
    ):
        query = f"http://127.0.0.1:{prom_port}/api/v1/query?query=node_uname_info"
        deadline, found = time.monotonic() + 60, []
        while len(found) < len(groups):
            assert time.monotonic() < deadline, f"found {found}\n{(tmp_path / 'prometheus.log').read_text()[-2000:]}"
            time.sleep(0.5)
            with urllib.request.urlopen(query, timeout=5) as response:  # noqa: S310 - local test server
                found = json.loads(response.read())["data"]["result"]
        labels = sorted((r["metric"]["node"], r["metric"]["group"], r["metric"]["hardware"]) for r in found)
        assert labels == [(name, groups[name], "dgx-spark-128") for name in sorted(groups)]
        assert {r["metric"]["job"] for r in found} == {"spark-node-exporter"}
        assert {r["metric"]["instance"] for r in found} == {f"127.0.0.1:{exporter_port}"}
