"""The shipped monitoring, end to end with the real programs: Debian's
Prometheus scrapes a live Spark Fleet (the test's server) whose fleet has
faults (tests/deploy/faulty.py), evaluates deploy/prometheus/alerts.yml, and
sends to Debian's Alertmanager, configured by ``manage.py
alertmanager_config`` from the app's own webhook setting, which posts to a
local webhook receiver.

What is changed for a test that must finish in a minute, and nothing else:
the addresses (web:8000 and alertmanager:9093 become this machine's ports),
the scrape, evaluation and discovery intervals (1 s), each rule's ``for`` (1 s) and
Alertmanager's grouping waits (1 s). The rules' expressions, labels and
texts, the scrape job with its bearer token file, and the routes are the
shipped ones.

    m-01 ===== m-02   fabric measured 11 GB/s, expected 20 and up: FabricBelowExpected; m-02's
                      Docker daemon did not answer its software reading: SparkDockerUnusable
    m-03 ===== m-04   one twin down: SparkLinkHalf (100 of 200 Gb/s); fabric measured 5.6 GB/s
                      over TCP sockets: FabricOnTcpSockets, its FabricBelowExpected inhibited; the
                      model served there has both ranks on sockets: ServingOnTcpSockets
    m-05 ===== m-06   m-06 does not answer: SparkUnreachable, and no SparkLinkDown

Prometheus finds the served models' engines through the app's
/metrics/serving-targets (the shipped job spark-fleet-engines): the one on
m-03 does not answer (ServingEngineDown); a simulated engine serving on m-01
does, and its vLLM series carry the serving's labels.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.core.management import call_command

from serving.models import Serving
from tests.deploy import faulty
from tests.notifications.receivers import http_receiver
from tests.telemetry.stored import store_round
from tests.tools import free_port, tool

ROOT = Path(__file__).resolve().parent.parent.parent
TOKEN = "sfm_live-alerts-0123456789abcdef"
HOOK_SECRET = "live-alerts-hook-secret-0123"


@contextmanager
def running(argv: list[str], log: Path, ready_url: str) -> Iterator[subprocess.Popen[bytes]]:
    import urllib.request

    with log.open("wb") as out:
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while True:
            assert proc.poll() is None, f"{argv[0]} exited:\n{log.read_text()[-2000:]}"
            try:
                with urllib.request.urlopen(ready_url, timeout=1) as response:  # noqa: S310 - local test server
                    if response.status == 200:
                        break
            except OSError:
                pass
            assert time.monotonic() < deadline, f"{argv[0]} never became ready:\n{log.read_text()[-2000:]}"
            time.sleep(0.2)
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def prometheus_files(folder: Path, app: str, alertmanager: str, prometheus: str) -> Path:
    config = yaml.safe_load((ROOT / "deploy" / "prometheus" / "prometheus.yml").read_text())
    config["global"] = {"scrape_interval": "1s", "evaluation_interval": "1s"}
    config["alerting"]["alertmanagers"][0]["static_configs"][0]["targets"] = [alertmanager]
    targets = {"spark-fleet": app, "alertmanager": alertmanager, "prometheus": prometheus}
    for job in config["scrape_configs"]:
        for found in job.get("http_sd_configs", []):
            found["url"] = found["url"].replace("web:8000", app)
            found["refresh_interval"] = "1s"
        if "static_configs" in job:
            job["static_configs"][0]["targets"] = [targets[job["job_name"]]]
    (folder / "prometheus.yml").write_text(yaml.safe_dump(config))
    (folder / "fleet_metrics_token").write_text(TOKEN + "\n")  # where compose mounts the secret
    rules = yaml.safe_load((ROOT / "deploy" / "prometheus" / "alerts.yml").read_text())
    for group in rules["groups"]:
        for rule in group["rules"]:
            rule["for"] = "1s"
    (folder / "alerts.yml").write_text(yaml.safe_dump(rules))
    return folder / "prometheus.yml"


def alertmanager_file(folder: Path, settings: Any, receiver_url: str) -> Path:
    settings.FLEET_ALERT_WEBHOOKS = json.dumps(
        [{"name": "ops", "url": f"{receiver_url}/alerts", "min_severity": "warning", "secret": HOOK_SECRET}]
    )
    settings.FLEET_MONITORING_EMAIL = ""
    path = folder / "alertmanager.yml"
    call_command("alertmanager_config", "--output", str(path), stdout=open("/dev/null", "w"))  # noqa: SIM115
    config = yaml.safe_load(path.read_text())
    config["route"].update(group_wait="1s", group_interval="1s", repeat_interval="1h")
    path.write_text(yaml.safe_dump(config))
    return path


def every(receiver: Any) -> list[dict[str, Any]]:
    """Every alert of every notification, in arrival order."""
    return [alert for _, body in receiver.requests for alert in body["alerts"]]


def received(receiver: Any) -> dict[tuple[str, str], dict[str, Any]]:
    """Alertmanager's notifications as they arrived: (alertname, status) -> the alert's labels and texts."""
    out = {}
    for _, body in receiver.requests:
        for alert in body["alerts"]:
            out[(alert["labels"]["alertname"], alert["status"])] = alert
    return out


@contextmanager
def engine_serving(model: str) -> Iterator[int]:
    """A simulated vLLM engine on a free loopback port (its own event loop in a thread); yields the port."""
    import asyncio
    import threading

    from simfleet.engine import SimEngine

    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    engine = SimEngine(model, 20.0)
    try:
        yield asyncio.run_coroutine_threadsafe(engine.start("127.0.0.1", 0), loop).result(10)
    finally:
        asyncio.run_coroutine_threadsafe(engine.stop(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
        loop.close()


def served_on_m01(port: int) -> int:
    """A one-node serving on m-01, its engine at ``port``: the Serving and its address, as serving writes them."""
    from inventory.models import Spark
    from placement.models import LlmModel
    from serving.models import Serving, ServingPort

    head = Spark.objects.get(name="m-01")
    served = Serving.objects.create(
        model=LlmModel.objects.get(slug="llama-3.1-8b"), quantization="bf16", group_name=faulty.pair_group_name(),
        plan={"label": "1 node"}, launcher="vllm-container", owner_name="member", status=Serving.Status.SERVING,
    )  # fmt: skip
    ServingPort.objects.create(serving=served, spark=head, host=head.ssh_host, port=port, kind="engine")
    return served.pk


def prometheus_api(base: str, path: str) -> Any:
    import urllib.request

    with urllib.request.urlopen(f"{base}{path}", timeout=5) as response:  # noqa: S310 - local test server
        return json.loads(response.read())["data"]


@pytest.mark.django_db(transaction=True)
def test_shipped_alerts_fire_and_reach_a_webhook_through_alertmanager(live_server, settings, tmp_path):
    settings.FLEET_METRICS_TOKEN = TOKEN
    fleet = faulty.build()
    pair = faulty.pair_group_name()
    app = live_server.url.removeprefix("http://")
    am_port, prom_port = free_port(), free_port()
    with http_receiver() as receiver, engine_serving("llama-3.1-8b") as engine_port:
        answering = served_on_m01(engine_port)
        am_config = alertmanager_file(tmp_path, settings, receiver.url)
        prom_config = prometheus_files(tmp_path, app, f"127.0.0.1:{am_port}", f"127.0.0.1:{prom_port}")
        (tmp_path / "am").mkdir()
        (tmp_path / "tsdb").mkdir()
        alertmanager = [
            tool("prometheus-alertmanager"), f"--config.file={am_config}", f"--storage.path={tmp_path / 'am'}",
            f"--web.listen-address=127.0.0.1:{am_port}", "--cluster.listen-address=",
        ]  # fmt: skip
        prometheus = [
            tool("prometheus"), f"--config.file={prom_config}", f"--storage.tsdb.path={tmp_path / 'tsdb'}",
            f"--web.listen-address=127.0.0.1:{prom_port}", "--rules.alert.resend-delay=1s",
        ]  # fmt: skip
        with (
            running(alertmanager, tmp_path / "alertmanager.log", f"http://127.0.0.1:{am_port}/-/ready"),
            running(prometheus, tmp_path / "prometheus.log", f"http://127.0.0.1:{prom_port}/-/ready"),
        ):
            wanted = {("SparkUnreachable", "firing"), ("SparkLinkHalf", "firing"), ("FabricBelowExpected", "firing")}
            wanted |= {("FabricOnTcpSockets", "firing"), ("ServingOnTcpSockets", "firing")}
            wanted |= {("SparkDockerUnusable", "firing"), ("ServingEngineDown", "firing")}
            deadline = time.monotonic() + 60
            while not wanted <= set(received(receiver)):
                assert time.monotonic() < deadline, (
                    f"arrived: {sorted(received(receiver))}\n{(tmp_path / 'prometheus.log').read_text()[-2000:]}"
                )
                time.sleep(0.5)
            got = received(receiver)
            unreachable = got[("SparkUnreachable", "firing")]
            assert unreachable["labels"]["node"] == "m-06" and unreachable["labels"]["severity"] == "critical"
            assert unreachable["annotations"]["summary"] == "Spark m-06 does not answer its polls over SSH"
            half = got[("SparkLinkHalf", "firing")]
            assert (half["labels"]["a"], half["labels"]["b"]) == ("m-03:p0", "m-04:p0")
            assert (
                half["annotations"]["summary"]
                == "Link m-03:p0 to m-04:p0 carries 100 Gb/s, under what its cabling allows"
            )
            assert half["annotations"]["description"].startswith("The cabling allows 200 Gb/s on ")
            fabric = got[("FabricBelowExpected", "firing")]
            assert fabric["labels"]["group"] == pair
            assert (
                fabric["annotations"]["summary"]
                == f"Group {pair}'s fabric measured 11.0 GB/s, under what its links should give"
            )
            sockets = got[("FabricOnTcpSockets", "firing")]
            over_sockets = faulty.pair_group_name("m-03")
            assert sockets["labels"]["group"] == over_sockets and sockets["labels"]["severity"] == "critical"
            assert (
                sockets["annotations"]["summary"]
                == f"Group {over_sockets}'s NCCL fell back to TCP sockets on 2 node(s)"
            )
            served = got[("ServingOnTcpSockets", "firing")]
            assert (served["labels"]["group"], served["labels"]["severity"]) == (over_sockets, "warning")
            assert served["annotations"]["summary"] == (
                f"Serving {served['labels']['serving']} (llama-3.1-8b on {over_sockets}) runs NCCL over TCP sockets "
                "on 2 rank(s)"
            )
            docker = got[("SparkDockerUnusable", "firing")]
            assert (docker["labels"]["node"], docker["labels"]["state"]) == ("m-02", "unreachable")
            assert docker["annotations"]["summary"] == "Docker on Spark m-02 does not answer"
            down = got[("ServingEngineDown", "firing")]
            silent = str(Serving.objects.exclude(pk=answering).get().pk)
            keys = ("serving", "model", "group", "plan", "node", "kind", "severity")
            assert {k: down["labels"][k] for k in keys} == {
                "serving": silent, "model": "llama-3.1-8b", "group": over_sockets, "plan": "TP2 on 2 nodes",
                "node": "m-03", "kind": "engine", "severity": "critical",
            }  # fmt: skip
            assert down["annotations"]["summary"] == (
                f"The engine of serving {silent} (llama-3.1-8b on {over_sockets}) does not answer on m-03"
            )
            # the engine that answers is scraped, its vLLM series labelled with its serving
            base = f"http://127.0.0.1:{prom_port}"
            series = prometheus_api(base, "/api/v1/query?query=vllm:num_requests_running")["result"]
            assert [(r["metric"]["serving"], r["metric"]["node"], r["metric"]["kind"]) for r in series] == [
                (str(answering), "m-01", "engine")
            ]
            assert series[0]["metric"]["instance"] == f"127.0.0.1:{engine_port}"
            # One cause, one alert: that group's bandwidth is low because of the sockets; Alertmanager holds it back.
            below = {a["labels"]["group"] for a in every(receiver) if a["labels"]["alertname"] == "FabricBelowExpected"}
            assert below == {pair}
            # One outage, one alert: m-06's link is down only because m-06 is; no SparkLinkDown.
            assert not [key for key in got if key[0] == "SparkLinkDown"]
            # Alertmanager authenticated itself with the webhook's secret.
            assert {headers.get("Authorization") for _, _, headers, _ in receiver.raw} == {f"Bearer {HOOK_SECRET}"}

            # m-06 answers again: the alert resolves, and the resolution arrives too.
            store_round(fleet)
            deadline = time.monotonic() + 60
            while ("SparkUnreachable", "resolved") not in received(receiver):
                assert time.monotonic() < deadline, f"arrived: {sorted(received(receiver))}"
                time.sleep(0.5)
            # the silent serving is stopped: its target goes, and its alert resolves
            Serving.objects.filter(pk=silent).update(status=Serving.Status.STOPPED)
            deadline = time.monotonic() + 60
            while ("ServingEngineDown", "resolved") not in received(receiver):
                assert time.monotonic() < deadline, f"arrived: {sorted(received(receiver))}"
                time.sleep(0.5)
            active = prometheus_api(base, "/api/v1/targets?state=active")["activeTargets"]
            engines = [t["labels"]["serving"] for t in active if t["labels"]["job"] == "spark-fleet-engines"]
            assert engines == [str(answering)]
    shutil.rmtree(tmp_path / "tsdb", ignore_errors=True)
