"""Telemetry pages: the fleet dashboard (refreshed by htmx), a node's page
with history charts and its host key, the alerts list with acknowledgement.
Pages read stored samples only, never SSH."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET, require_POST

from accounts.decorators import admin_required, booker_required
from core import live
from core.actor import Actor
from core.htmx import partial
from telemetry import conf, drift, history, selectors, services, software_store
from telemetry.expectations import expectations_for
from telemetry.health import HEALTH_CODES
from telemetry.keys import fingerprint

RANGES = {
    "1h": timedelta(hours=1),
    "6h": timedelta(hours=6),
    "48h": timedelta(hours=48),
    "7d": timedelta(days=7),
    "30d": timedelta(days=30),
}


@require_GET
def dashboard(request: HttpRequest) -> HttpResponse:
    tiles = selectors.fleet_tiles()
    recent = list(selectors.alerts_list(open=True)[:8])
    return render(
        request,
        partial(request, "telemetry/dashboard.html", "fleet"),
        {
            "tiles": tiles,
            "counts": selectors.status_counts(tiles),
            "recent": recent,
            "now": timezone.now(),
        },
    )


@require_GET
def node(request: HttpRequest, name: str) -> HttpResponse:
    spark = selectors.spark_get(name)
    range_key = request.GET.get("range", "1h")
    if range_key not in RANGES:
        range_key = "1h"
    end = timezone.now()
    start = selectors.history_start(spark=spark, earliest=end - RANGES[range_key], end=end)
    exp = expectations_for([spark.pk]).nodes.get(spark.name)
    cabled = tuple(sorted(exp.cabled_ports)) if exp else ()
    state = selectors.state_of(spark)
    charts = history.node_charts(spark=spark, start=start, end=end, cabled_ports=cabled)
    return render(
        request,
        partial(request, "telemetry/node.html", "live"),
        {
            "spark": spark,
            "state": state,
            "one": live.spark_states([spark.name]).get(spark.name),  # the one state: health and why
            "latest": state.latest if state else None,
            "charts": {k: mark_safe(v) for k, v in charts.items()},  # noqa: S308 - built by charts.py, text escaped
            "range": range_key,
            "ranges": list(RANGES),
            "expected": exp.cabled_ports if exp else {},
            "open_alerts": selectors.open_alerts(spark=spark),
            "closed_alerts": list(selectors.alerts_list(open=False, node=spark.name)[:10]),
            "accepted_fp": fingerprint(state.host_key) if state else "",
            "presented_fp": fingerprint(state.presented_key) if state else "",
            "now": end,
            # the page shows it beside the latest poll's disk only: no query on every refresh without one
            "disk_full_in": selectors.disk_full_in(spark=spark, end=end)
            if state and state.latest and state.latest.disk_total_bytes
            else None,
        },
    )


@require_POST
@admin_required
def hostkey_accept(request: HttpRequest, name: str) -> HttpResponse:
    spark = selectors.spark_get(name)
    try:
        state = services.host_key_accept(
            actor=Actor.from_request(request, "page"), spark=spark, key=request.POST.get("key") or None
        )
    except services.TelemetryError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(
            request,
            f"Host key {fingerprint(state.host_key)} accepted for {spark.name}; it will be polled from the next round.",
        )
    return redirect("telemetry:node", name=spark.name)


@require_GET
def alerts(request: HttpRequest) -> HttpResponse:
    state = request.GET.get("state", "open")
    code = request.GET.get("code", "")
    node_name = request.GET.get("node", "").strip()
    is_open = {"open": True, "closed": False}.get(state)
    qs = selectors.alerts_list(open=is_open, code=code, node=node_name)
    page = Paginator(qs, 50).get_page(request.GET.get("page"))
    template = partial(request, "telemetry/alerts.html", "rows", target="rows")
    return render(
        request,
        template,
        {
            "page": page,
            "state": state,
            "code": code,
            "node": node_name,
            "codes": sorted(set(HEALTH_CODES) | set(selectors.alert_codes_in_use())),
            "query": request.GET.urlencode(),
            "pager_query": "".join(
                f"&{k}={v}" for k, v in (("state", state), ("code", code), ("node", node_name)) if v
            ),
        },
    )


@require_POST
@booker_required
def alert_ack(request: HttpRequest, alert_id: int) -> HttpResponse:
    alert = selectors.alert_get(alert_id)
    services.alert_acknowledge(actor=Actor.from_request(request, "page"), alert=alert)
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
        target = "/telemetry/alerts/"
    return redirect(target)


def context_for_home() -> dict[str, Any]:
    tiles = selectors.fleet_tiles()
    return {
        "counts": selectors.status_counts(tiles),
        "total": len(tiles),
        "open_alerts": sum(t.open_alerts for t in tiles),
    }


@require_GET
def software(request: HttpRequest) -> HttpResponse:
    """The fleet's software: each Spark's versions side by side, the odd ones
    marked, filterable by group (a plain GET form; htmx swaps the table)."""
    groups = software_store.group_names()
    group = request.GET.get("group", "")
    if group not in groups:
        group = ""
    quantities, rows = software_store.fleet_rows(group)
    return render(
        request,
        partial(request, "telemetry/software.html", "table", target="software-table"),
        {
            "groups": groups,
            "group": group,
            "columns": [(q, drift.label(q)) for q in quantities],
            "rows": [(r, [(q, r.cells[q]) for q in quantities]) for r in rows],
            "drifting": sum(1 for r in rows if r.drift),
            "read": sum(1 for r in rows if r.read_at),
            "pins": software_store.pins(),
            "quantities": [(q, drift.LABELS[q]) for q in drift.LABELS],
            "launch_images": conf.launch_images(),
            "interval_h": conf.software_interval_s() / 3600,
        },
    )


@require_POST
@admin_required
def software_expected(request: HttpRequest) -> HttpResponse:
    """Pin (or unpin, empty) the versions the lab expects: the form's fields are the quantities."""
    fields = [*drift.LABELS, *(f"image:{ref}" for ref in conf.launch_images())]
    values = {q: request.POST.get(q, "") for q in fields if q in request.POST}
    try:
        pins = services.software_pins_set(actor=Actor.from_request(request, "page"), values=values)
    except services.TelemetryError as exc:
        messages.error(request, str(exc))
    else:
        listed = ", ".join(f"{drift.label(q)} {v}" for q, v in pins.items()) or "none"
        messages.success(request, f"Expected versions saved: {listed}.")
    return redirect("telemetry:software")
