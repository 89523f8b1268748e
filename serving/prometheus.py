"""Prometheus's HTTP service discovery for what serving started: each served
model's engines (vLLM's own /metrics on the engine's port) and, for several
copies, the router's metrics port, as ``http_sd_configs`` reads them
(https://prometheus.io/docs/prometheus/latest/http_sd/): a JSON list of
``{"targets": ["host:port"], "labels": {...}}``.

A lab's Prometheus then scrapes every engine Spark Fleet starts, with the
serving, model, group and node as labels, and stops when it stops; the
shipped job (``spark-fleet-engines`` in deploy/prometheus/prometheus.yml)
reads this list, and ``ServingEngineDown`` fires on a target that stops
answering. Only servings that serve now are listed: a starting engine does
not answer yet, and a stopped one's address may be handed out again.

Guarded like /metrics (FLEET_METRICS_TOKEN): the list names hosts and ports."""

from __future__ import annotations

import json

from django.http import HttpRequest, HttpResponse

from telemetry.discovery import address
from telemetry.metrics import for_scrapers

from .models import Serving, ServingPort

# ServingPort's kinds Prometheus scrapes, and the ``kind`` label each target gets
SCRAPED = {ServingPort.Kind.ENGINE: "engine", ServingPort.Kind.METRICS: "router"}


def targets() -> list[dict[str, object]]:
    """One entry per engine (and router metrics port) of every serving that serves now, in serving order.

    Reads only the columns it lists: a serving's steps (scripts and their
    output) and its plan are large, and none of them is a label."""
    rows = (
        ServingPort.objects.filter(live=True, kind__in=list(SCRAPED), serving__status=Serving.Status.SERVING)
        .order_by("serving_id", "id")
        .values_list(
            "host",
            "port",
            "kind",
            "spark__name",
            "serving_id",
            "serving__model__slug",
            "serving__quantization",
            "serving__group_name",
            "serving__plan__label",
        )
    )
    out: list[dict[str, object]] = []
    for host, port, kind, node, serving, model, quantization, group, label in rows:
        labels = {
            "serving": str(serving),
            "model": model,
            "quantization": quantization,
            "group": group,
            "plan": label if isinstance(label, str) else "",
            "node": node,
            "kind": SCRAPED[ServingPort.Kind(kind)],
        }
        out.append({"targets": [address(host, port)], "labels": labels})
    return out


@for_scrapers
def scrape_targets(request: HttpRequest) -> HttpResponse:
    """/metrics/serving-targets: the list for Prometheus's http_sd_configs."""
    return HttpResponse(json.dumps(targets()), content_type="application/json")
