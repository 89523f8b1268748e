"""/metrics through prometheus_client: the stored fleet state in a fixed
number of queries, plus the app's own request and task metrics."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from prometheus_client.parser import text_string_to_metric_families

from simfleet.simulator import make_nodes
from telemetry import tasks
from tests.telemetry.stored import register, store_round

pytestmark = pytest.mark.django_db


def scrape() -> dict[str, list]:
    response = Client().get("/metrics")
    assert response.status_code == 200
    by_name: dict[str, list] = {}
    for family in text_string_to_metric_families(response.content.decode()):
        for sample in family.samples:
            by_name.setdefault(sample.name, []).append(sample)
    return by_name


def test_scrape_costs_the_same_queries_for_4_or_40_sparks(settings):
    settings.FLEET_METRICS_TOKEN = ""
    small = make_nodes(4, prefix="small-")
    register(small)
    store_round(small, down={"small-02"})
    with CaptureQueriesContext(connection) as few:
        metrics = scrape()
    assert {s.labels["node"] for s in metrics["fleet_node_up"]} == {f"small-0{i}" for i in range(1, 5)}

    big = make_nodes(36, prefix="big-")
    register(big)
    store_round(big, down={"big-07", "big-08"})
    with CaptureQueriesContext(connection) as many:
        metrics = scrape()
    assert len(metrics["fleet_node_up"]) == 40
    down = {s.labels["node"] for s in metrics["fleet_node_up"] if s.value == 0}
    assert down == {"small-02", "big-07", "big-08"}
    assert len(many.captured_queries) == len(few.captured_queries)


def test_requests_and_tasks_are_counted(settings, admin_client):
    settings.FLEET_METRICS_TOKEN = ""

    def value(metrics: dict[str, list], name: str, **labels: str) -> float:
        return sum(s.value for s in metrics.get(name, []) if all(s.labels.get(k) == v for k, v in labels.items()))

    before = scrape()
    assert admin_client.get("/telemetry/").status_code == 200
    assert admin_client.get("/sparks/no-such-spark/").status_code == 404
    tasks.check_stale.apply()  # the real task through Celery's tracer: its signals fire
    after = scrape()

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert grew("fleet_http_requests_total", route="/telemetry/", method="GET", status="2xx") == 1
    assert grew("fleet_http_requests_total", route="/sparks/<str:name>/", status="4xx") == 1
    assert grew("fleet_http_request_duration_seconds_count", route="/telemetry/") == 1
    assert grew("fleet_task_runs_total", task="telemetry.check_stale", outcome="success") == 1
    assert grew("fleet_task_duration_seconds_count", task="telemetry.check_stale") == 1


def test_each_read_sparks_docker_state_is_a_state_set(settings):
    """fleet_node_docker_state: 1 for the state the Spark's last software
    reading found, 0 for the others; a Spark never read has no series, and a
    stored reading that makes no sense reads as unread."""
    from telemetry.models import SoftwareState
    from telemetry.software import DOCKER_STATES
    from tests.support.software import store_software

    settings.FLEET_METRICS_TOKEN = ""
    register(make_nodes(5, prefix="d-"))
    faults = {"d-01": (), "d-02": {"docker-denied"}, "d-03": {"docker-down"}, "d-04": {"no-docker"}}
    store_software({name: ({}, f) for name, f in faults.items()})
    SoftwareState.objects.filter(spark__name="d-04").update(reading=["not", "a", "reading"])
    samples = scrape()["fleet_node_docker_state"]
    current = {s.labels["node"]: s.labels["state"] for s in samples if s.value == 1}
    assert current == {"d-01": "ok", "d-02": "denied", "d-03": "unreachable", "d-04": "unread"}
    assert len(samples) == 4 * len(DOCKER_STATES)  # d-05 was never read
