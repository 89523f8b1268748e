"""Template helpers: byte formatting, the health summary on the home page and
the telemetry box on a Spark's inventory page (both read stored state only)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import template
from django.template.loader import render_to_string

register = template.Library()


@register.filter
def gib(value: Any) -> str:
    """Bytes as GiB with one decimal; "–" when unknown."""
    if value is None or value == "":
        return "–"
    return f"{int(value) / 2**30:.1f}"


@register.filter
def gbps(mbps: Any) -> str:
    if not mbps:
        return "–"
    return f"{int(mbps) / 1000:g}"


@register.inclusion_tag("telemetry/_summary.html")
def health_summary() -> dict[str, Any]:
    from telemetry.views import context_for_home

    return context_for_home()


def spark_panel(context: Mapping[str, Any], spark: Any) -> str:
    """The Spark page's "spark" panel (core.panels): its health box."""
    return render_to_string("telemetry/_spark_box.html", node_health(spark), request=context.get("request"))


@register.inclusion_tag("telemetry/_spark_box.html")
def node_health(spark: Any) -> dict[str, Any]:
    from core import live
    from telemetry import selectors

    state = selectors.state_of(spark)
    open_alerts = selectors.open_alerts(spark=spark) if state else []
    return {
        "spark": spark,
        "state": state,
        "latest": state.latest if state else None,
        "open_alerts": open_alerts,
        "one": live.spark_states([spark.name]).get(spark.name),
    }


@register.filter
def gb(value: Any) -> str:
    """Bytes as GB (10^9 bytes) with one decimal; "–" when unknown."""
    if value is None or value == "":
        return "–"
    return f"{int(value) / 1e9:.1f}"
