"""Alertmanager's configuration written from the app's receivers
(``manage.py alertmanager_config``), checked by Alertmanager's own amtool:
it accepts the file, and routes each alert to the receivers the app's own
rules would (severity, groups and their Sparks), with the webhook's secret
as its bearer token."""

from __future__ import annotations

import json
import subprocess
from io import StringIO
from pathlib import Path

import pytest
import yaml
from django.core.management import call_command

from tests.tools import tool

pytestmark = pytest.mark.django_db

HOOKS = [
    {"name": "ops", "url": "http://127.0.0.1:9/ops", "secret": "ops-secret-0123456789"},
    {"name": "chat", "url": "https://hooks.slack.com/services/T0/B0/x", "format": "slack",
     "min_severity": "critical", "groups": ["group-spark-01"]},
]  # fmt: skip


def write(settings, tmp_path: Path, hooks=HOOKS, email: str = "") -> Path:
    settings.FLEET_ALERT_WEBHOOKS = json.dumps(hooks)
    settings.FLEET_MONITORING_EMAIL = email
    out = tmp_path / "alertmanager.yml"
    said = StringIO()
    call_command("alertmanager_config", "--output", str(out), stdout=said)
    secret = any(h.get("secret") for h in hooks)  # a token inside: not for every user of the machine
    assert said.getvalue().startswith(f"Wrote {out} (mode {'640' if secret else '644'}; receivers: ")
    return out


def routes(config: Path, *labels: str) -> list[str]:
    run = subprocess.run(
        [tool("amtool"), "config", "routes", "test", f"--config.file={config}", *labels],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return sorted(run.stdout.strip().split(","))


def test_amtool_accepts_it_and_it_routes_as_the_app_does(settings, tmp_path, import_lab):
    import_lab("demo.yaml")
    config = write(settings, tmp_path, email="ops@example.org, lab@example.org")
    check = subprocess.run([tool("amtool"), "check-config", str(config)], capture_output=True, text=True)
    assert check.returncode == 0 and "SUCCESS" in check.stdout, check.stdout + check.stderr
    assert routes(config, "alertname=SparkUnreachable", "severity=critical", "node=spark-01") == [
        "email", "webhook-chat", "webhook-ops",
    ]  # fmt: skip
    # spark-03 is in no group the chat hook asks for; a warning is below its severity
    assert routes(config, "alertname=SparkUnreachable", "severity=critical", "node=spark-03") == [
        "email",
        "webhook-ops",
    ]
    assert routes(config, "alertname=SparkDegraded", "severity=warning", "node=spark-01") == ["email", "webhook-ops"]
    assert routes(config, "alertname=GroupDown", "severity=critical", "group=group-spark-01") == [
        "email", "webhook-chat", "webhook-ops",
    ]  # fmt: skip
    assert routes(config, "alertname=Info", "severity=info") == ["nobody"]
    doc = yaml.safe_load(config.read_text())
    ops = next(r for r in doc["receivers"] if r["name"] == "webhook-ops")["webhook_configs"][0]
    assert ops["http_config"]["authorization"] == {"type": "Bearer", "credentials": "ops-secret-0123456789"}
    assert ops["send_resolved"] is True
    (email,) = next(r for r in doc["receivers"] if r["name"] == "email")["email_configs"]
    assert email["to"] == "ops@example.org, lab@example.org" and email["smarthost"] == "localhost:25"
    assert {"SparkUnreachable", "FleetNotPolling", "FabricOnTcpSockets"} == {
        rule["source_matchers"][0].split('"')[1] for rule in doc["inhibit_rules"]
    }


def test_without_receivers_it_still_loads_and_says_so(settings, tmp_path):
    settings.FLEET_ALERT_WEBHOOKS = "[]"
    settings.FLEET_MONITORING_EMAIL = ""
    out = tmp_path / "alertmanager.yml"
    said = StringIO()
    call_command("alertmanager_config", "--output", str(out), stdout=said)
    assert "receivers: none: set FLEET_ALERT_WEBHOOKS or FLEET_MONITORING_EMAIL" in said.getvalue()
    check = subprocess.run([tool("amtool"), "check-config", str(out)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr


def test_a_running_alertmanager_holds_back_what_one_cause_explains(settings, tmp_path):
    """The written inhibit rules, in Debian's Alertmanager with alerts posted
    to its API: a Spark that does not answer holds back its own node alerts
    (a served engine on it too), not another Spark's; NCCL on sockets holds
    back its own group's low bandwidth; nobody polled holds back each Spark's
    staleness."""
    import time
    import urllib.request

    from tests.deploy.test_live_alerts import running
    from tests.tools import free_port

    # the node alerts a Spark's own outage explains (the rules leave SparkLinkHalf and the fabric's to their groups)
    node_alerts = ("SparkDegraded", "SparkNotPolled", "SparkMemoryPressure", "SparkDiskLow", "SparkDiskFillingUp",
                   "TwinSlow", "SparkLinkDown", "ServingEngineDown")  # fmt: skip
    config = write(settings, tmp_path, hooks=[])
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    argv = [
        tool("prometheus-alertmanager"), f"--config.file={config}", f"--storage.path={tmp_path / 'am'}",
        f"--web.listen-address=127.0.0.1:{port}", "--cluster.listen-address=",
    ]  # fmt: skip
    posted = [
        {"alertname": "SparkUnreachable", "severity": "critical", "node": "spark-01"},
        *({"alertname": name, "severity": "warning", "node": "spark-01"} for name in node_alerts),
        {"alertname": "ServingEngineDown", "severity": "critical", "node": "spark-02", "serving": "7"},
        {"alertname": "FabricOnTcpSockets", "severity": "critical", "group": "pair-1"},
        {"alertname": "FabricBelowExpected", "severity": "warning", "group": "pair-1"},
        {"alertname": "FabricBelowExpected", "severity": "warning", "group": "pair-2"},
        {"alertname": "FleetNotPolling", "severity": "critical"},
        {"alertname": "SparkNotPolled", "severity": "warning", "node": "spark-03"},
    ]  # fmt: skip
    with running(argv, tmp_path / "alertmanager.log", f"{base}/-/ready"):
        body = json.dumps([{"labels": labels} for labels in posted]).encode()
        request = urllib.request.Request(f"{base}/api/v2/alerts", body, {"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=5) as response:  # noqa: S310 - local test server
            assert response.status == 200
        deadline, held = time.monotonic() + 20, set()
        expected = {("SparkNotPolled", "spark-03")}
        expected |= {(name, "spark-01") for name in node_alerts}
        expected |= {("FabricBelowExpected", "pair-1")}
        while held != expected:
            assert time.monotonic() < deadline, f"held back: {sorted(held)}"
            time.sleep(0.3)
            with urllib.request.urlopen(f"{base}/api/v2/alerts", timeout=5) as response:  # noqa: S310
                alerts = json.loads(response.read())
            assert len(alerts) == len(posted)
            held = {
                (a["labels"]["alertname"], a["labels"].get("node") or a["labels"].get("group"))
                for a in alerts
                if a["status"]["inhibitedBy"]
            }


def test_the_file_keeps_its_secrets_from_other_users_and_odd_outputs_are_refused(settings, tmp_path):
    """It was written 644 with the mail password and the webhooks' tokens in it;
    a folder or a missing one as --output gave a traceback and left a temporary
    copy behind; a group name with a quote broke the matcher amtool reads."""
    import os

    from django.core.exceptions import ImproperlyConfigured
    from django.core.management.base import CommandError

    out = write(settings, tmp_path)
    assert out.stat().st_mode & 0o777 == 0o640
    out.chmod(0o600)  # an admin's choice is kept when it is written again
    call_command("alertmanager_config", "--output", str(out), stdout=StringIO())
    assert out.stat().st_mode & 0o777 == 0o600
    said, warned = StringIO(), StringIO()
    call_command("alertmanager_config", "--output", str(out), "--mode", "644", stdout=said, stderr=warned)
    assert out.stat().st_mode & 0o777 == 0o644
    assert "holds the mail password or a webhook token and everyone on this machine may read it" in warned.getvalue()
    settings.FLEET_ALERT_WEBHOOKS = "[]"
    plain = tmp_path / "plain.yml"
    call_command("alertmanager_config", "--output", str(plain), stdout=StringIO())
    assert plain.stat().st_mode & 0o777 == 0o644  # nothing secret in it
    for args, message in (
        ((str(tmp_path),), f"{tmp_path} is a folder: give the file to write"),
        ((str(tmp_path / "no" / "x.yml"),), f"{tmp_path / 'no'} is not a folder"),
        ((str(plain), "--mode", "rw"), "--mode 'rw': permissions in octal, e.g. 640"),
    ):
        with pytest.raises(CommandError, match=message.replace("(", r"\(")):
            call_command("alertmanager_config", "--output", *args, stdout=StringIO())
    assert sorted(os.listdir(tmp_path)) == ["alertmanager.yml", "plain.yml"]  # no temporary copy left
    settings.FLEET_ALERT_WEBHOOKS = json.dumps([{"name": "q", "url": "http://127.0.0.1:9/q", "groups": ['g"x']}])
    with pytest.raises(ImproperlyConfigured, match=r"FLEET_ALERT_WEBHOOKS\[0\]\.groups\[0\]: "):
        call_command("alertmanager_config", stdout=StringIO())
