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
    """One entry per engine (and router metrics port) of every serving that serves now, in serving order."""
    rows = (
        ServingPort.objects.filter(live=True, kind__in=list(SCRAPED), serving__status=Serving.Status.SERVING)
        .select_related("spark", "serving__model")
        .order_by("serving_id", "id")
    )
    out: list[dict[str, object]] = []
    for row in rows:
        serving = row.serving
        label = serving.plan.get("label") if isinstance(serving.plan, dict) else None
        labels = {
            "serving": str(serving.pk),
            "model": serving.model.slug,
            "quantization": serving.quantization,
            "group": serving.group_name,
            "plan": str(label or ""),
            "node": row.spark.name,
            "kind": SCRAPED[ServingPort.Kind(row.kind)],
        }
        out.append({"targets": [address(row.host, row.port)], "labels": labels})
    return out


@for_scrapers
def scrape_targets(request: HttpRequest) -> HttpResponse:
    """/metrics/serving-targets: the list for Prometheus's http_sd_configs."""
    return HttpResponse(json.dumps(targets()), content_type="application/json")
