"""/metrics/spark-targets, Prometheus's service discovery from the inventory:
every active Spark at an exporter's port with its node, group and hardware;
and, end to end, Debian's Prometheus running the shipped job
(deploy/prometheus/spark-nodes.yml) against a live Spark Fleet, scraping
Debian's node_exporter for every Spark the inventory holds, and answering
every query of the dashboard's "Sparks (node_exporter)" row for every Spark
whose exporter answers (and, in its table of exporters that do not, the others)."""

from __future__ import annotations

import math
import re
import subprocess
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import promql_parser
import pytest
import yaml
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

from inventory.models import NodeGroup, Spark
from tests.deploy import faulty
from tests.deploy.test_live_alerts import prometheus_api, running
from tests.test_deploy import dashboard, metric_names, selectors
from tests.tools import free_port, tool

ROOT = Path(__file__).resolve().parent.parent.parent
URL = "/metrics/spark-targets"
TOKEN = "sfm_spark-targets-0123456789abcdef"
ROW = "Sparks (node_exporter)"  # the dashboard's row that reads this job
# The labels Prometheus gives every series of the job beside the exporter's own: its job and
# instance, and the discovery's.
TARGET_LABELS = {"job", "instance", "node", "group", "hardware"}
# node_exporter's collectors in these tests: uname, and those the dashboard reads (Debian's
# package runs these and more). Its filesystem collector leaves overlay out by default; / is
# one in a container (a Spark's is ext4), so these tests keep it.
COLLECTORS = ("uname", "loadavg", "cpu", "meminfo", "netdev", "filesystem", "infiniband")
# A Spark's ConnectX-7 as /sys/class/infiniband shows it: each 200 Gb/s port is two PCIe
# functions (twins), each with its RoCE device. This machine has none, so node_exporter reads
# this tree instead (--path.sysfs; the other collectors read /proc and the mounts).
RDMA_DEVICES = ("rocep1s0f0", "rocep1s0f1", "roceP2p1s0f0", "roceP2p1s0f1")
FS_TYPES_EXCLUDE = (
    "^(autofs|binfmt_misc|bpf|cgroup2?|configfs|debugfs|devpts|devtmpfs|fusectl|hugetlbfs|iso9660|mqueue|nsfs"
    "|proc|procfs|pstore|rpc_pipefs|securityfs|selinuxfs|squashfs|sysfs|tracefs)$"
)


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
def test_a_port_given_twice_is_refused_not_the_last_taken():
    response = Client().get(f"{URL}?port=9100&port=9101")
    assert response.status_code == 400
    assert response.content.decode() == "port: given 2 times; give it once\n"
    assert Client().get(f"{URL}?port=9100&port=9100").status_code == 200


@pytest.mark.django_db
def test_the_metrics_token_guards_it(settings):
    settings.FLEET_METRICS_TOKEN = TOKEN
    assert Client().get(URL).status_code == 401
    assert Client().get(URL, HTTP_AUTHORIZATION=f"Bearer {TOKEN[:-1]}").status_code == 401
    assert listed(HTTP_AUTHORIZATION=f"Bearer {TOKEN}") == []


def spark_sysfs(folder: Path, words: int = 0) -> Path:
    """A sysfs holding a Spark's RoCE devices (RDMA_DEVICES), each port's data counters at
    ``words`` (the kernel counts 4-octet words; node_exporter reports bytes)."""
    root = folder / "sysfs"
    for device in RDMA_DEVICES:
        base = root / "class" / "infiniband" / device
        (base / "ports" / "1" / "counters").mkdir(parents=True, exist_ok=True)
        for name, value in {"hca_type": "MT4129", "fw_ver": "28.45.1200", "board_id": "NVD0000000033"}.items():
            (base / name).write_text(value + "\n")
        port = base / "ports" / "1"
        for name, value in {"state": "4: ACTIVE", "phys_state": "5: LinkUp", "rate": "200 Gb/sec (4X HDR)"}.items():
            (port / name).write_text(value + "\n")
        for name in ("port_rcv_data", "port_xmit_data", "port_rcv_packets", "port_xmit_packets"):
            (port / "counters" / name).write_text(f"{words}\n")
    return root


@contextmanager
def rdma_traffic(sysfs: Path) -> Iterator[Callable[[], None]]:
    """NCCL at work: every RoCE device's data counters climb 50 M words (200 MB) a second,
    each file replaced whole (node_exporter never reads one half written), until the
    function it yields is called (it returns once the last files are written)."""
    stop = threading.Event()

    def climb() -> None:
        words = 0
        while not stop.wait(0.25):
            words += 12_500_000
            for counter in sysfs.glob("class/infiniband/*/ports/1/counters/port_*_data"):
                fresh = counter.with_suffix(".new")
                fresh.write_text(f"{words}\n")
                fresh.replace(counter)

    mover = threading.Thread(target=climb, daemon=True)
    mover.start()

    def end() -> None:
        stop.set()
        mover.join()

    try:
        yield end
    finally:
        end()


def exporter_argv(port: int, sysfs: Path) -> list[str]:
    return [
        tool("prometheus-node-exporter"), f"--web.listen-address=127.0.0.1:{port}", "--collector.disable-defaults",
        *(f"--collector.{name}" for name in COLLECTORS), f"--collector.filesystem.fs-types-exclude={FS_TYPES_EXCLUDE}",
        f"--path.sysfs={sysfs}",
    ]  # fmt: skip


def node_exporter_text(folder: Path) -> str:
    """The /metrics text of Debian's node_exporter, run as the live test below runs it."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/metrics"
    with running(exporter_argv(port, spark_sysfs(folder)), folder / "node-exporter.log", url):
        with urllib.request.urlopen(url, timeout=5) as response:  # noqa: S310 - local test server
            return str(response.read().decode())


def node_exporter_misses(exprs: list[str], text: str) -> list[str]:
    """What the expressions read of node_exporter's series (node_*) that its /metrics ``text``
    does not have: a metric, or a label a selector matches on that neither the metric's series
    nor the scrape target (TARGET_LABELS) carry."""
    labels: dict[str, set[str]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels.setdefault(sample.name, set()).update(sample.labels)
    misses = []
    for expr in exprs:
        for selector in selectors(expr):
            if not (selector.name or "").startswith("node_"):
                continue
            if selector.name not in labels:
                misses.append(f"{selector.name} in {expr}")
                continue
            for matcher in selector.matchers.matchers:
                if matcher.name not in labels[selector.name] | TARGET_LABELS:
                    misses.append(f"{selector.name}'s label {matcher.name} in {expr}")
    return misses


def row_panels(title: str = ROW) -> list[dict[str, Any]]:
    (row,) = [p for p in dashboard()["panels"] if p["type"] == "row" and p["title"] == title]
    return row["panels"]  # type: ignore[no-any-return]


def test_the_node_exporter_check_catches_a_misspelt_metric_or_label(tmp_path: Path) -> None:
    text = node_exporter_text(tmp_path)
    assert node_exporter_misses(['rate(node_cpu_seconds_total{node="a", mode="idle"}[5m])'], text) == []
    assert node_exporter_misses(['rate(node_cpu_second_total{mode="idle"}[5m])', "fleet_node_up"], text) == [
        'node_cpu_second_total in rate(node_cpu_second_total{mode="idle"}[5m])'
    ]
    assert node_exporter_misses(['node_filesystem_size_bytes{mount="/"}'], text) == [
        'node_filesystem_size_bytes\'s label mount in node_filesystem_size_bytes{mount="/"}'
    ]


def test_the_node_exporter_row_reads_the_shipped_job_only() -> None:
    """Every series the row reads is the shipped job's (a lab's own node job would count twice)."""
    (job,) = yaml.safe_load((ROOT / "deploy" / "prometheus" / "spark-nodes.yml").read_text())
    exprs = [t["expr"] for panel in row_panels() for t in panel["targets"]]
    assert len(exprs) >= 6
    for expr in exprs:
        for selector in selectors(expr):
            jobs = [(m.op, m.value) for m in selector.matchers.matchers if m.name == "job"]
            assert jobs == [(promql_parser.MatchOp.Equal, job["job_name"])], f"{selector} in {expr}"


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


def query(base: str, expr: str) -> list[dict[str, Any]]:
    """An instant query's vector, through Prometheus's HTTP API."""
    return prometheus_api(base, f"/api/v1/query?query={urllib.parse.quote(expr)}")["result"]  # type: ignore[no-any-return]


@pytest.mark.django_db(transaction=True)
def test_a_real_prometheus_finds_every_spark_and_scrapes_its_node_exporter(live_server, settings, tmp_path):
    """The simulated fleet's Sparks answer on 127.0.0.1, where one node_exporter
    runs: one target per Spark, each series labelled with it; m-06, down, is at
    127.0.0.2, where nothing answers. Each query of the dashboard's node_exporter
    row then has every answering Spark (the exporters not answering: m-06), on
    the panel's own scale, with the labels its legend names."""
    settings.FLEET_METRICS_TOKEN = TOKEN
    faulty.build()
    Spark.objects.filter(name__in=faulty.DOWN).update(ssh_host="127.0.0.2")
    groups = {s.name: "" for s in Spark.objects.all()}
    for g in NodeGroup.objects.filter(auto=True, retired_at=None):
        for name in g.members.values_list("spark__name", flat=True):
            groups[name] = g.name
    answering = sorted(set(groups) - faulty.DOWN)
    exporter_port, prom_port = free_port(), free_port()
    config = shipped_job(live_server.url.removeprefix("http://"), exporter_port, tmp_path)
    check = subprocess.run([tool("promtool"), "check", "config", str(config)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    prometheus = [
        tool("prometheus"), f"--config.file={config}", f"--storage.tsdb.path={tmp_path / 'tsdb'}",
        f"--web.listen-address=127.0.0.1:{prom_port}",
    ]  # fmt: skip
    base = f"http://127.0.0.1:{prom_port}"
    sysfs = spark_sysfs(tmp_path)
    with (
        rdma_traffic(sysfs) as traffic_ends,
        running(
            exporter_argv(exporter_port, sysfs), tmp_path / "exporter.log", f"http://127.0.0.1:{exporter_port}/metrics"
        ),
        running(prometheus, tmp_path / "prometheus.log", f"{base}/-/ready"),
    ):
        deadline, found = time.monotonic() + 60, []
        while len(found) < len(answering):
            assert time.monotonic() < deadline, f"found {found}\n{(tmp_path / 'prometheus.log').read_text()[-2000:]}"
            time.sleep(0.5)
            found = query(base, "node_uname_info")
        labels = sorted((r["metric"]["node"], r["metric"]["group"], r["metric"]["hardware"]) for r in found)
        assert labels == [(name, groups[name], "dgx-spark-128") for name in answering]
        assert {r["metric"]["job"] for r in found} == {"spark-node-exporter"}
        assert {r["metric"]["instance"] for r in found} == {f"127.0.0.1:{exporter_port}"}
        # The row's queries as Grafana sends them; rate() has its two samples a scrape (1 s) later.
        deadline = time.monotonic() + 30
        for panel in row_panels():
            scale = panel["fieldConfig"]["defaults"]
            for target in panel["targets"]:
                expr = target["expr"]
                want = sorted(faulty.DOWN) if metric_names(expr) == {"up"} else answering
                while True:
                    result = query(base, expr)
                    nodes = sorted({r["metric"].get("node", "(no node)") for r in result})
                    if nodes == want or time.monotonic() > deadline:
                        break
                    time.sleep(0.25)
                assert nodes == want, f"{panel['title']}: {expr} gave {result}"
                low, high = scale.get("min", 0), scale.get("max", math.inf)  # no figure of the row is negative
                for r in result:
                    assert low <= float(r["value"][1]) <= high, f"{panel['title']}: {expr} gave {r}"
                    for label in re.findall(r"\{\{(\w+)\}\}", target.get("legendFormat", "")):
                        assert label in r["metric"], f"{panel['title']}: {expr} gave {r}, without {label}"
                if "node_infiniband_" in expr:  # every Spark's four RoCE devices, each moving data
                    assert sorted((r["metric"]["node"], r["metric"]["device"]) for r in result) == [
                        (node, device) for node in answering for device in sorted(RDMA_DEVICES)
                    ]
                    # (rate() over 5 minutes of a series seconds old is its increase over 300 s: only > 0 holds)
                    assert all(float(r["value"][1]) > 0 for r in result), f"{expr} gave {result}"
                    # in bytes, four to each of the kernel's words: once the traffic stops, the
                    # counters read exactly four times what the files hold
                    traffic_ends()
                    (counter,) = metric_names(expr)
                    words = {int(p.read_text()) for p in sysfs.glob("class/infiniband/*/ports/1/counters/port_*_data")}
                    (held,) = words
                    assert held > 0
                    until = time.monotonic() + 15
                    while True:
                        raw = {float(r["value"][1]) for r in query(base, f'{counter}{{job="spark-node-exporter"}}')}
                        if raw == {4.0 * held} or time.monotonic() > until:
                            break
                        time.sleep(0.25)
                    assert raw == {4.0 * held}, (raw, held)
