"""Prometheus's HTTP service discovery from the inventory: every active
Spark, at the port of an exporter the lab runs on each of them (Prometheus's
node_exporter, 9100, by default), labelled with its node, its cabled group
and its hardware, as ``http_sd_configs`` reads it
(https://prometheus.io/docs/prometheus/latest/http_sd/): a JSON list of
``{"targets": ["host:port"], "labels": {...}}``.

A lab's Prometheus then scrapes every Spark the inventory holds, and follows
it as Sparks are added, retired or re-cabled, with the labels its own
dashboards can group by (deploy/prometheus/spark-nodes.yml is the job).
Guarded like /metrics (FLEET_METRICS_TOKEN): the list names hosts."""

from __future__ import annotations

import json

from django.http import HttpRequest, HttpResponse

from core.validation import whole_number
from inventory.models import Spark
from telemetry.metrics import for_scrapers
from telemetry.software_store import group_members

NODE_EXPORTER_PORT = 9100  # Prometheus's node_exporter's own default


def address(host: str, port: int) -> str:
    """host:port as Prometheus's targets write it (an IPv6 address in brackets)."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def spark_targets(port: int = NODE_EXPORTER_PORT) -> list[dict[str, object]]:
    """One entry per active Spark, in name order: its SSH host at ``port``."""
    group_of = {name: group for group, names in group_members().items() for name in names}
    rows = (
        Spark.objects.filter(status=Spark.Status.ACTIVE)
        .order_by("name")
        .values_list("name", "ssh_host", "hardware__slug")  # only what it lists: no Spark built per row
    )
    return [
        {
            "targets": [address(host, port)],
            "labels": {"node": name, "group": group_of.get(name, ""), "hardware": hardware},
        }
        for name, host, hardware in rows
    ]


def _port(given: str | None) -> int | None:
    if given is None:
        return NODE_EXPORTER_PORT
    number = whole_number(given)
    return number if number is not None and 1 <= number <= 65535 else None


@for_scrapers
def scrape_sparks(request: HttpRequest) -> HttpResponse:
    """/metrics/spark-targets[?port=N]: the list for Prometheus's http_sd_configs."""
    if len(set(request.GET.getlist("port"))) > 1:  # one value, as the API takes a query parameter
        return HttpResponse(
            f"port: given {len(request.GET.getlist('port'))} times; give it once\n",
            status=400,
            content_type="text/plain; charset=utf-8",
        )
    port = _port(request.GET.get("port"))
    if port is None:
        return HttpResponse(
            f"port: {request.GET.get('port')!r} is not a port (a whole number from 1 to 65535)\n",
            status=400,
            content_type="text/plain; charset=utf-8",
        )
    return HttpResponse(json.dumps(spark_targets(port)), content_type="application/json")
