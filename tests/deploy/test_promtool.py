"""promtool (Debian's prometheus package, the real tool) on what ships under
deploy/prometheus/: the configuration as compose mounts it, the alert rules,
their unit tests (tests/deploy/alerts_test.yml), and a live /metrics."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from django.test import Client

from tests.deploy import faulty
from tests.tools import tool

ROOT = Path(__file__).resolve().parent.parent.parent
PROMETHEUS = ROOT / "deploy" / "prometheus"
RULE_TESTS = Path(__file__).resolve().parent / "alerts_test.yml"


def promtool(*args: str, stdin: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([tool("promtool"), *args], input=stdin, capture_output=True, text=True, check=False, cwd=cwd)


def compose_layout(root: Path, token: str | None) -> Path:
    """/etc/prometheus as docker-compose.yml's prometheus service lays it out: its
    mounted files, and the metrics-token secret at its target (``token`` None: not mounted)."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    service = compose["services"]["prometheus"]
    for volume in service["volumes"]:
        source, _, rest = volume.partition(":")
        target = rest.split(":")[0]
        if source.startswith("./"):
            dest = root / target.lstrip("/")
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / source, dest)
    if token is not None:
        for secret in service["secrets"]:
            target = secret["target"] if isinstance(secret, dict) else f"/run/secrets/{secret}"
            dest = root / target.lstrip("/")
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(token)
    config = next(arg for arg in service["command"] if arg.startswith("--config.file="))
    return root / config.removeprefix("--config.file=").lstrip("/")


@pytest.mark.parametrize("token", ["sfm_0123456789abcdef0123456789abcdef\n", ""])
def test_promtool_accepts_the_shipped_config_where_compose_mounts_it(token, tmp_path):
    """With a token in the secret, and with the secret left empty (the token is optional)."""
    config = compose_layout(tmp_path, token)
    run = promtool("check", "config", str(config))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "SUCCESS: 1 rule files found" in run.stdout and "SUCCESS: 22 rules found" in run.stdout


def test_without_the_mounted_token_promtool_refuses_the_config(tmp_path):
    """The check is not blind: the failure the issue reported, a token file nothing mounts."""
    config = compose_layout(tmp_path, None)
    run = promtool("check", "config", str(config))
    assert run.returncode == 1
    assert "fleet_metrics_token: no such file or directory" in run.stdout + run.stderr


def test_promtool_accepts_the_rules_and_their_unit_tests_pass():
    run = promtool("check", "rules", str(PROMETHEUS / "alerts.yml"))
    assert run.returncode == 0 and "SUCCESS: 22 rules found" in run.stdout, run.stdout + run.stderr
    run = promtool("test", "rules", str(RULE_TESTS))
    assert run.returncode == 0 and "SUCCESS" in run.stdout, run.stdout + run.stderr


def test_every_shipped_alert_has_a_unit_test_that_fires_it():
    rules = yaml.safe_load((PROMETHEUS / "alerts.yml").read_text())
    names = {rule["alert"] for group in rules["groups"] for rule in group["rules"]}
    cases = yaml.safe_load(RULE_TESTS.read_text())
    fired = {check["alertname"] for case in cases["tests"] for check in case["alert_rule_test"] if check["exp_alerts"]}
    assert names == fired, f"alerts without a firing test: {sorted(names - fired)}"


def test_a_failing_rule_test_is_reported(tmp_path):
    """promtool's unit tests can fail: an expectation the rule does not meet."""
    cases = yaml.safe_load(RULE_TESTS.read_text())
    cases["rule_files"] = [str(PROMETHEUS / "alerts.yml")]
    cases["tests"] = cases["tests"][:1]
    cases["tests"][0]["alert_rule_test"][1]["exp_alerts"][0]["exp_labels"]["node"] = "spark-01"
    broken = tmp_path / "broken_test.yml"
    broken.write_text(yaml.safe_dump(cases))
    run = promtool("test", "rules", str(broken))
    assert run.returncode == 1 and "FAILED" in run.stdout + run.stderr


@pytest.mark.django_db
def test_promtool_accepts_a_live_metrics_scrape_of_a_faulty_fleet(settings):
    settings.FLEET_METRICS_TOKEN = ""
    faulty.build()
    response = Client().get("/metrics")
    assert response.status_code == 200
    text = response.content.decode()
    for family in (
        "fleet_link_state",
        "fleet_link_expected_bytes_per_second",
        "fleet_link_observed_bytes_per_second",
        "fleet_twin_speed_bytes_per_second",
        "fleet_group_health",
        "fleet_group_measured_bus_bytes_per_second",
        "fleet_group_expected_bus_bytes_per_second",
        "fleet_group_fabric_socket_nodes",
        "fleet_node_docker_state",
    ):
        assert f"\n{family}{{" in text, f"{family} has no sample: the check would not cover it"
    run = promtool("check", "metrics", stdin=text)
    assert run.returncode == 0 and run.stdout.strip() == "" and run.stderr.strip() == "", run.stdout + run.stderr


def test_promtool_check_metrics_reports_a_bits_unit():
    """The check is not blind: the names /metrics used to export fail it."""
    text = (
        "# HELP fleet_link_expected_bits_per_second x\n# TYPE fleet_link_expected_bits_per_second gauge\n"
        'fleet_link_expected_bits_per_second{a="x"} 2e+11\n'
    )
    run = promtool("check", "metrics", stdin=text)
    assert run.returncode == 3 and 'use base unit "bytes" instead of "bits"' in run.stdout + run.stderr
