"""/metrics for Prometheus, built with ``prometheus_client``.

Three kinds of series, one registry:

- the fleet's stored state (``FleetCollector``): node up/health, memory, GPU,
  twins, links, groups (health, measured exchange), open alerts, and what the
  apps above add (``METRIC_PROVIDERS``: serving's ranks on TCP sockets). Read at
  scrape time from stored samples only (never SSH), in a fixed number of
  queries for any fleet size;
- the app's own HTTP requests (``RequestMetricsMiddleware``): count and
  duration by route pattern (bounded label values, never a raw URL);
- Celery tasks (``fleet_task_*``, recorded by signal handlers connected in
  ``TelemetryConfig.ready``): runs by outcome and duration, by task name.

Processes: each process counts its own requests and tasks. When
``PROMETHEUS_MULTIPROC_DIR`` is set (a directory shared by the web server's
and the workers' processes on one machine), /metrics adds up every
process's counters through ``prometheus_client``'s multiprocess collector.
Workers on other machines expose theirs on ``FLEET_WORKER_METRICS_PORT``.

Open for scraping unless ``FLEET_METRICS_TOKEN`` is set; then it needs
``Authorization: Bearer <token>``.
"""

from __future__ import annotations

import hmac
import os
import time
from collections.abc import Callable, Iterable, Iterator
from functools import wraps
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET
from prometheus_client import (
    CollectorRegistry,
    Counter,
    Histogram,
    disable_created_metrics,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from core import live
from core.health import HEALTH_STATUSES
from core.hooks import Hook
from telemetry import conf, selectors, software_store
from telemetry.software import DOCKER_STATES

# generate_latest writes the classic text format.
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
# Prometheus's base unit is bytes: link and twin speeds (Gb/s in the product) are exported in bytes/s.
BYTES_PER_GBIT = 1e9 / 8
disable_created_metrics()  # no *_created series: they double the output and nobody graphs them


# Series the apps above telemetry add to every scrape (serving's ranks on TCP
# sockets): each entry yields its metric families, read from stored state only.
METRIC_PROVIDERS: Hook[Callable[[], Iterable[Metric]]] = Hook("telemetry.metric_providers")


class FleetCollector(Collector):
    """The stored fleet state as gauges, computed at each scrape."""

    def describe(self) -> Iterable[Metric]:
        return []  # computed per scrape: nothing to check at registration

    def collect(self) -> Iterator[Metric]:
        tiles = selectors.fleet_tiles()
        polled = [t for t in tiles if t.latest is not None]
        yield from _nodes(tiles, polled)
        yield from _memory(tiles, polled)
        yield from _disk(polled)
        yield from _polls(polled)
        yield from _docker()
        yield from _twins(polled)
        fleet = live.fleet_state()  # links and groups from one reading of the state
        yield from _links(fleet)
        yield from _groups(fleet)
        alerts = GaugeMetricFamily(
            "fleet_alerts_open", "Open alerts by code and severity.", labels=["code", "severity"]
        )
        for row in selectors.open_alert_counts():
            alerts.add_metric([row["code"], row["severity"]], row["n"])
        yield alerts
        for provider in METRIC_PROVIDERS:
            yield from provider()


def _nodes(tiles: list[selectors.Tile], polled: list[selectors.Tile]) -> Iterator[Metric]:
    """Each node: reached by its last poll or not, and its health."""
    up = GaugeMetricFamily("fleet_node_up", "1 if the node answered its last poll over SSH, else 0.", labels=["node"])
    for t in polled:
        assert t.latest is not None
        up.add_metric([t.name], 1 if t.latest.reachable else 0)
    yield up

    health = GaugeMetricFamily(
        "fleet_node_health",
        "Node health, the one state (ok, degraded, down, unknown, new): 1 for the node's current status, "
        "0 for the others.",
        labels=["node", "status"],
    )
    for t in tiles:
        for s in selectors.STATUSES:
            health.add_metric([t.name, s], 1 if t.status == s else 0)
    yield health


def _polls(polled: list[selectors.Tile]) -> Iterator[Metric]:
    """Each polled node's GPU use and when it was last polled."""
    gpu = GaugeMetricFamily(
        "fleet_node_gpu_utilization_ratio", "GPU utilisation reported by nvidia-smi, 0 to 1.", labels=["node"]
    )
    for t in polled:
        if t.latest is not None and t.latest.gpu_util_pct is not None:
            gpu.add_metric([t.name], t.latest.gpu_util_pct / 100)
    yield gpu

    last = GaugeMetricFamily(
        "fleet_node_last_poll_timestamp_seconds", "When the node was last polled, Unix time.", labels=["node"]
    )
    for t in polled:
        assert t.latest is not None
        last.add_metric([t.name], t.latest.at.timestamp())
    yield last


def _docker() -> Iterator[Metric]:
    """Each read Spark's Docker state, as its last software reading found it."""
    family = GaugeMetricFamily(
        "fleet_node_docker_state",
        "Docker on the node as its last software reading found it (every FLEET_SOFTWARE_INTERVAL_S): ok, absent "
        "(not installed), denied (the fleet's SSH user may not use it), unreachable or error (its daemon did not "
        "answer), unread; 1 for the node's current state, 0 for the others. SparkDockerUnusable fires on denied, "
        "unreachable and error.",
        labels=["node", "state"],
    )
    for name, state in software_store.docker_states():
        for each in DOCKER_STATES:
            family.add_metric([name, each], 1 if state == each else 0)
    yield family


def _memory(tiles: list[selectors.Tile], polled: list[selectors.Tile]) -> Iterator[Metric]:
    """Unified memory as sampled, and what a model can take now (the one state)."""
    with_memory = [t for t in polled if t.latest is not None and t.latest.mem_total_bytes is not None]
    for key, help_text in (
        ("total", "Unified memory of the node (MemTotal), bytes."),
        ("used", "Unified memory in use (MemTotal - MemAvailable), bytes."),
        ("available", "Unified memory available (MemAvailable), bytes."),
    ):
        family = GaugeMetricFamily(f"fleet_node_memory_{key}_bytes", help_text, labels=["node"])
        for t in with_memory:
            family.add_metric([t.name], getattr(t.latest, f"mem_{key}_bytes") or 0)
        yield family

    usable = GaugeMetricFamily(
        "fleet_node_usable_memory_bytes",
        "What a model can take on the node now, the one state: MemAvailable of a fresh sample "
        "(source=measured), else catalogue capacity minus the OS reserve (source=expected), 0 on a down "
        "node (source=unavailable), bytes.",
        labels=["node", "source"],
    )
    for t in tiles:
        if t.health is not None:
            usable.add_metric([t.name, t.health.usable_source], round(t.health.usable_gb * 1e9))
    yield usable


def _disk(polled: list[selectors.Tile]) -> Iterator[Metric]:
    """Each node's root filesystem as its last sample read it (df -P -B1 /)."""
    with_disk = [t for t in polled if t.latest is not None and t.latest.disk_total_bytes is not None]
    for key, column, help_text in (
        ("size", "disk_total_bytes",
         "The root filesystem's size (df), bytes: Docker's images and the Hugging Face cache live there."),
        ("free", "disk_free_bytes", "The root filesystem's space a user may still write (df's Available), bytes; the "
                                    "disk-low rule fires under 10 % of the size (critical under 3 %)."),
    ):  # fmt: skip
        family = GaugeMetricFamily(f"fleet_node_disk_{key}_bytes", help_text, labels=["node"])
        for t in with_disk:
            family.add_metric([t.name], getattr(t.latest, column) or 0)
        yield family


def _twins(polled: list[selectors.Tile]) -> Iterator[Metric]:
    """Each twin interface of the last poll: up, and its negotiated speed."""
    twin_up = GaugeMetricFamily(
        "fleet_twin_up", "1 if the twin interface is up, else 0.", labels=["node", "port", "twin"]
    )
    speed = GaugeMetricFamily(
        "fleet_twin_speed_bytes_per_second",
        "Negotiated speed of an up twin interface, bytes/s (200 Gb/s = 25e9).",
        labels=["node", "port", "twin"],
    )
    for t in polled:
        assert t.latest is not None
        for tw in t.latest.twin_list:
            twin_up.add_metric([t.name, tw["port"], tw["name"]], 1 if tw["up"] else 0)
            if tw["up"] and tw["speed_mbps"]:
                speed.add_metric([t.name, tw["port"], tw["name"]], tw["speed_mbps"] * 1_000_000 / 8)
    yield twin_up
    yield speed


def _links(fleet: live.FleetLike) -> Iterator[Metric]:
    """Each cabled link: what its cabling allows, what telemetry saw, its state."""
    expected = GaugeMetricFamily(
        "fleet_link_expected_bytes_per_second",
        "What a cabled link's cabling allows (cable, Spark port, switch port), bytes/s (200 Gb/s = 25e9).",
        labels=["a", "b", "cable"],
    )
    observed = GaugeMetricFamily(
        "fleet_link_observed_bytes_per_second",
        "What a cabled link carries as telemetry saw it (twins up, addressed and RoCE-active, negotiated "
        "speed), bytes/s; absent when not observed.",
        labels=["a", "b", "cable"],
    )
    link_state = GaugeMetricFamily(
        "fleet_link_state",
        "A cabled link's state (ok, half, down, unobserved): 1 for its current state, 0 for the others.",
        labels=["a", "b", "cable", "state"],
    )
    for link in fleet.links:
        ends = [link.a, link.b, link.cable]
        expected.add_metric(ends, link.expected_gbps * BYTES_PER_GBIT)
        if link.observed_gbps is not None:
            observed.add_metric(ends, link.observed_gbps * BYTES_PER_GBIT)
        for state in ("ok", "half", "down", "unobserved"):
            link_state.add_metric([*ends, state], 1 if link.state == state else 0)
    yield expected
    yield observed
    yield link_state


def _groups(fleet: live.FleetLike) -> Iterator[Metric]:
    """Each live group: its health, and its latest fabric verification's bus bandwidth against expected."""
    group_health = GaugeMetricFamily(
        "fleet_group_health",
        "A live node group's health (ok, degraded, down, unknown, new): 1 for its current state, 0 for the others.",
        labels=["group", "status"],
    )
    measured = GaugeMetricFamily(
        "fleet_group_measured_bus_bytes_per_second",
        "A group's latest finished fabric verification's average bus bandwidth (nccl-tests all_gather), "
        "bytes/s; absent when none measured one.",
        labels=["group"],
    )
    fabric_expected = GaugeMetricFamily(
        "fleet_group_expected_bus_bytes_per_second",
        "The low end of what a group's links should give all_gather, as its latest finished fabric "
        "verification was judged (fleet_group_measured_bus_bytes_per_second below it: the fabric "
        "underperforms), bytes/s; absent when none measured one.",
        labels=["group"],
    )
    sockets = GaugeMetricFamily(
        "fleet_group_fabric_socket_nodes",
        "How many of a group's nodes had NCCL fall back to TCP sockets (no usable RoCE device) in its latest "
        "finished fabric verification; absent when none measured one.",
        labels=["group"],
    )
    for group in fleet.groups:
        for status in HEALTH_STATUSES:
            group_health.add_metric([group.name, status], 1 if group.health == status else 0)
        if group.measured_gbs is not None:
            measured.add_metric([group.name], group.measured_gbs * 1e9)
            if group.measured_expected_gbs is not None:
                fabric_expected.add_metric([group.name], group.measured_expected_gbs * 1e9)
            sockets.add_metric([group.name], group.measured_socket_nodes)
    yield group_health
    yield measured
    yield fabric_expected
    yield sockets


# --------------------------------------------------------------------------- the app's own metrics

# Registered in prometheus_client's default registry, so its multiprocess mode
# (PROMETHEUS_MULTIPROC_DIR) writes them to the shared directory.
HTTP_REQUESTS = Counter(
    "fleet_http_requests",
    "HTTP requests answered, by route pattern, method and status class.",
    ["route", "method", "status"],
)
HTTP_DURATION = Histogram(
    "fleet_http_request_duration_seconds",
    "Time to answer an HTTP request, by route pattern.",
    ["route"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
TASK_RUNS = Counter(
    "fleet_task_runs",
    "Celery task runs by task name and outcome (success, failure, retry).",
    ["task", "outcome"],
)
TASK_DURATION = Histogram(
    "fleet_task_duration_seconds",
    "Time a Celery task ran, by task name.",
    ["task"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0),
)
POLL_PHASE = Histogram(
    "fleet_poll_phase_seconds",
    "Time a poll chunk spent in each phase: ssh (fetch and parse) and store (one transaction).",
    ["phase"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0),
)
for _phase in ("ssh", "store"):
    POLL_PHASE.labels(_phase)  # both series exist (at zero) before the first poll: alert rules see them

APP_METRIC_NAMES = (
    "fleet_http_requests_total",
    "fleet_http_request_duration_seconds",
    "fleet_task_runs_total",
    "fleet_task_duration_seconds",
    "fleet_poll_phase_seconds",
)


def _route(request: HttpRequest) -> str:
    match = getattr(request, "resolver_match", None)
    if match is None:
        return "unmatched"
    return "/" + str(match.route or match.view_name or "unknown").lstrip("/")


# The method label takes these values only: anyone may send any word as a
# method, and each new label value would be a new series on an open /metrics.
KNOWN_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def method_label(method: str | None) -> str:
    method = (method or "GET").upper()
    return method if method in KNOWN_METHODS else "other"


class RequestMetricsMiddleware:
    """Counts and times every request by its route pattern (not its URL) and
    its method (the known ones, else ``other``)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        start = time.perf_counter()
        response = self.get_response(request)
        route = _route(request)
        HTTP_DURATION.labels(route).observe(time.perf_counter() - start)
        HTTP_REQUESTS.labels(route, method_label(request.method), f"{response.status_code // 100}xx").inc()
        return response


_task_started: dict[str, float] = {}


def task_started(task_id: str | None = None, **_: Any) -> None:
    if task_id:
        _task_started[task_id] = time.perf_counter()


def task_finished(task_id: str | None = None, task: Any = None, state: str | None = None, **_: Any) -> None:
    name = getattr(task, "name", None) or "unknown"
    started = _task_started.pop(task_id or "", None)
    if started is not None:
        TASK_DURATION.labels(name).observe(time.perf_counter() - started)
    outcome = {"SUCCESS": "success", "RETRY": "retry"}.get(state or "", "failure")
    TASK_RUNS.labels(name, outcome).inc()


def connect_task_signals() -> None:
    from celery.signals import task_postrun, task_prerun

    task_prerun.connect(task_started, weak=False, dispatch_uid="fleet-metrics-prerun")
    task_postrun.connect(task_finished, weak=False, dispatch_uid="fleet-metrics-postrun")


# --------------------------------------------------------------------------- the endpoint


def registry() -> CollectorRegistry:
    """The fleet collector plus this process's (or, in multiprocess mode, every process's) app metrics."""
    reg = CollectorRegistry(auto_describe=False)
    reg.register(FleetCollector())
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.MultiProcessCollector(reg)
    else:
        from prometheus_client import REGISTRY

        for collector in (HTTP_REQUESTS, HTTP_DURATION, TASK_RUNS, TASK_DURATION, POLL_PHASE):
            if collector in REGISTRY._collector_to_names:  # registered in the default registry
                reg.register(collector)
    return reg


def exposition() -> str:
    return generate_latest(registry()).decode()


def scrape_refused(request: HttpRequest) -> HttpResponse | None:
    """Why Prometheus may not read /metrics (or its other scrape endpoints)
    now, as the answer to send; None when it may: no FLEET_METRICS_TOKEN, or
    ``Authorization: Bearer <token>`` sent."""
    try:
        token = conf.metrics_token()
    except OSError as exc:
        return HttpResponse(
            f"FLEET_METRICS_TOKEN_FILE cannot be read ({exc.strerror}): /metrics refuses every scrape until it can\n",
            status=503,
            content_type="text/plain; charset=utf-8",
        )
    if token:
        sent = request.headers.get("Authorization", "")
        if not hmac.compare_digest(sent.encode(), f"Bearer {token}".encode()):
            response = HttpResponse(
                "send Authorization: Bearer <FLEET_METRICS_TOKEN>\n",
                status=401,
                content_type="text/plain; charset=utf-8",
            )
            response["WWW-Authenticate"] = 'Bearer realm="metrics"'
            return response
    return None


def for_scrapers(view: Callable[[HttpRequest], HttpResponse]) -> Callable[[HttpRequest], HttpResponse]:
    """A GET endpoint Prometheus reads, guarded by the metrics token (``scrape_refused``)."""

    @require_GET
    @wraps(view)
    def guarded(request: HttpRequest) -> HttpResponse:
        refused = scrape_refused(request)
        return refused if refused is not None else view(request)

    return guarded


@for_scrapers
def metrics(request: HttpRequest) -> HttpResponse:
    return HttpResponse(exposition(), content_type=CONTENT_TYPE)
