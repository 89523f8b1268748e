"""Template helpers: byte formatting, the health summary on the home page and
the telemetry box on a Spark's inventory page (both read stored state only)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import template
from django.template.loader import render_to_string

register = template.Library()


@register.filter
def disk_size(value: Any) -> str:
    """Bytes as a disk's size (41 GB, 3.9 TB), as the disk-low rule says it; "–" when unknown."""
    from telemetry.health import disk_size as size

    return "–" if value is None or value == "" else size(int(value))


@register.filter
def disk_level(free_fraction: Any) -> str:
    """ "critical", "low" or "" by the disk-low rule's thresholds."""
    from telemetry.health import disk_level as level

    return level(free_fraction)


@register.filter
def duration_words(seconds: Any) -> str:
    """About how long, as a person says it (40 minutes, 5 hours, 3 days)."""
    from telemetry.health import duration_words as words

    return words(float(seconds))


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


@register.filter
def get_item(mapping: Any, key: str) -> Any:
    return mapping.get(key) if isinstance(mapping, Mapping) else None


@register.filter
def short_version(value: Any) -> str:
    """A version as a table shows it: digests cut to sha256: and 12 hex digits."""
    from telemetry.drift import short

    return short("", None if value is None else str(value))


@register.filter
def image_name(quantity: str) -> str:
    """image:nvcr.io/nvidia/vllm:26.05-py3 -> vllm:26.05-py3 (the column head; the title has it all)."""
    return quantity.removeprefix("image:").rsplit("/", 1)[-1]


def _at(text: str | None) -> Any:
    from django.utils.dateparse import parse_datetime

    return parse_datetime(text) if text else None


def software_panel(context: Mapping[str, Any], spark: Any) -> str:
    """The Spark page's software box (core.panels): what it runs and what changed when."""
    from telemetry import drift, software_store
    from telemetry.models import Alert, SoftwareState

    state = SoftwareState.objects.filter(spark=spark).first()
    out = software_store.software_out(state)
    finding = Alert.objects.filter(spark=spark, code=drift.CODE, ended_at__isnull=True).first()
    rows = []
    if out is not None:
        rows = [(drift.label(q), out[q]["value"], _at(out[q]["since"])) for q in software_store.SCALARS]
        for image in out["images"]["value"] or ():
            image["since_at"] = _at(image["since"])
    changes = [(c, drift.label(c.quantity)) for c in software_store.history(spark, limit=20)]
    return render_to_string(
        "telemetry/_spark_software.html",
        {"spark": spark, "sw": out, "state": state, "rows": rows, "changes": changes, "finding": finding},
        request=context.get("request"),
    )


def _names_of(target: Any) -> list[str]:
    """Spark names from a NodeGroup, or a list of names, Sparks or plan nodes."""
    members = getattr(target, "members", None)
    if members is not None and hasattr(members, "values_list"):
        return list(members.values_list("spark__name", flat=True))
    return [item if isinstance(item, str) else str(getattr(item, "name", "")) for item in target or ()]


@register.inclusion_tag("telemetry/_drift_note.html")
def software_drift_note(target: Any, before: str = "starting", serve_image: str = "") -> dict[str, Any]:
    """The open ``software-drift`` findings of these Sparks, said before a plan,
    a launch or a fabric verification starts (one query). With ``serve_image``
    (the plan page, whose Serve button starts that image): whether serving
    may go ahead anyway, because none of the drift is what a run of it uses
    (``software_store.run_drift``: an image it pulls, another image)."""
    from telemetry import software_store
    from telemetry.selectors import software_drift_of

    names = _names_of(target)
    found = software_drift_of(names)
    servable = bool(found and serve_image) and not software_store.run_drift(names, image=serve_image)
    pinned = software_store.image_pin(serve_image) if servable else ""
    return {"found": found, "before": before, "servable": servable, "serve_image": serve_image, "pinned": pinned}
