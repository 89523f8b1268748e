"""Telemetry API: the latest sample or the history of a Spark, its health
with open alerts, and alerts fleet-wide (with acknowledgement).

The field names are a contract with outside scripts: ``at``, ``reachable``,
``memory`` (``total_bytes`` ...), ``gpu`` (``util_pct`` ...), ``twins``
(``name``, ``port``, ``rdma``, ``up``, ``speed_mbps``, ``mtu``,
``addresses``), ``errors``. Times are ISO 8601 with a time zone.
"""

from __future__ import annotations

# The edge types (core.validation) are built by functions, which mypy cannot read as types.
# mypy: disable-error-code="valid-type"
from datetime import datetime
from typing import Any

from django.http import HttpRequest
from django.utils import timezone
from ninja import Field, Router, Schema
from ninja.params import functions as param

from core import live
from core.actor import Actor
from core.api import ADMIN, BOOK
from core.errors import BadInput, NotFound
from core.pages import Rows, paginated
from core.validation import INT64, CleanStr, Int, datetime_problem, whole_number
from inventory.models import Spark
from telemetry import selectors, services, software_store
from telemetry.keys import fingerprint
from telemetry.models import Alert, NodeAggregate, NodeSample

router = Router(tags=["telemetry"])

Name = CleanStr(63, min_length=1)
AlertId = Int(1, INT64)


class AlertOut(Schema):
    id: int
    node: str
    code: str
    severity: str
    message: str
    objects: Any
    since: str
    last_seen: str
    ended_at: str | None
    open: bool
    acknowledged_at: str | None
    acknowledged_by: str | None


class BadTime(BadInput):
    pass


def parse_time(value: str | None, field: str) -> datetime | None:
    """ISO 8601 with a time zone; a '+' that a query string turned into a space is put back."""
    if value is None or value == "":
        return None
    text = value.strip()
    if " " in text and "T" in text:
        text = text.replace(" ", "+")
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise BadTime(f"{value!r} is not an ISO 8601 time like 2026-01-31T12:00:00+00:00", field) from None
    if parsed.tzinfo is None:
        raise BadTime(f"{value!r} has no time zone: add Z or +00:00", field)
    problem = datetime_problem(parsed)
    if problem:
        raise BadTime(f"{value!r}: {problem}", field)
    return parsed


def sample_out(row: NodeSample) -> dict[str, Any]:
    memory = None
    if row.mem_total_bytes is not None:
        memory = {
            "total_bytes": row.mem_total_bytes,
            "available_bytes": row.mem_available_bytes,
            "used_bytes": row.mem_used_bytes,
            "swap_total_bytes": row.swap_total_bytes,
            "swap_free_bytes": row.swap_free_bytes,
        }
    gpu = None
    if any(v is not None for v in (row.gpu_util_pct, row.gpu_temp_c, row.gpu_power_w)):
        gpu = {"util_pct": row.gpu_util_pct, "temp_c": row.gpu_temp_c, "power_w": row.gpu_power_w}
    twins = None
    if row.twins is not None:
        twins = [{**t, "addresses": list(t.get("addresses") or [])} for t in row.twin_list]
    errors = list(row.errors or [])
    if row.error:
        errors.insert(0, row.error)
    return {
        "at": row.at.isoformat(),
        "reachable": row.reachable,
        "status": row.status,
        "memory": memory,
        "gpu": gpu,
        "twins": twins,
        "load1": row.load1,
        "uptime_s": row.uptime_s,
        # the root filesystem (df -P -B1 /); None: not read (a poll from before the poll asked)
        "disk": None
        if row.disk_total_bytes is None
        else {"total_bytes": row.disk_total_bytes, "free_bytes": row.disk_free_bytes},
        "errors": errors,
        "duration_ms": row.duration_ms,
    }


def aggregate_out(row: NodeAggregate) -> dict[str, Any]:
    return {
        "bucket": row.bucket.isoformat(),
        "samples": row.samples,
        "reachable": row.reachable,
        "mem_total_bytes": row.mem_total_bytes,
        "mem_used_avg_bytes": row.mem_used_avg_bytes,
        "mem_used_max_bytes": row.mem_used_max_bytes,
        "mem_available_min_bytes": row.mem_available_min_bytes,
        "gpu_util_avg_pct": row.gpu_util_avg_pct,
        "gpu_temp_max_c": row.gpu_temp_max_c,
        "twins_up_min": row.twins_up_min,
        "speed_min_mbps": row.speed_min_mbps,
        "disk_total_bytes": row.disk_total_bytes,
        "disk_free_min_bytes": row.disk_free_min_bytes,
    }


def alert_out(a: Alert) -> dict[str, Any]:
    return {
        "id": a.pk,
        "node": a.spark.name,
        "code": a.code,
        "severity": a.severity,
        "message": a.message,
        "objects": a.about,
        "since": a.started_at.isoformat(),
        "last_seen": a.last_seen_at.isoformat(),
        "ended_at": a.ended_at.isoformat() if a.ended_at else None,
        "open": a.ended_at is None,
        "acknowledged_at": a.acknowledged_at.isoformat() if a.acknowledged_at else None,
        "acknowledged_by": a.acknowledged_by_name or None,
    }


@router.get("/sparks/{name}/telemetry", summary="The latest sample of a Spark, or its history with ?from=&to=")
def spark_telemetry(
    request: HttpRequest,
    name: Name,
    from_: CleanStr(40) | None = param.Query(None, alias="from", description="ISO 8601 with time zone"),  # noqa: B008
    to: CleanStr(40) | None = param.Query(None, description="ISO 8601 with time zone; default now"),  # noqa: B008
) -> dict[str, Any]:
    start = parse_time(from_, "from")
    end = parse_time(to, "to")
    spark = selectors.spark_get(name)
    if start is None and end is None:
        state = selectors.state_of(spark)
        if state is None or state.latest is None:
            raise NotFound(f"{name} has not been polled yet", "name")
        latest = sample_out(state.latest)
        if latest["disk"] is not None:
            # predicted, as the Spark's page says it: the last six hours' rate (telemetry.health.disk_full_in)
            latest["disk"]["full_in_s"] = selectors.disk_full_in(spark=spark, end=timezone.now())
        return {"name": spark.name, **latest}
    end = end or timezone.now()
    if start is None:
        raise BadTime("give 'from' too when asking for history", "from")
    if start > end:
        raise BadTime("'to' is before 'from'", "to")
    samples = selectors.samples_between(spark=spark, start=start, end=end)
    aggregates = selectors.aggregates_between(spark=spark, start=start, end=end)
    return {
        "name": spark.name,
        "from": start.isoformat(),
        "to": end.isoformat(),
        "samples": [sample_out(s) for s in samples],
        "aggregates": [aggregate_out(a) for a in aggregates],
        "truncated": len(samples) >= selectors.HISTORY_LIMIT,
    }


@router.get("/sparks/{name}/health", summary="A Spark's health and its open alerts")
def spark_health(request: HttpRequest, name: Name) -> dict[str, Any]:
    spark = selectors.spark_get(name)
    state = selectors.state_of(spark)
    alerts = selectors.open_alerts(spark=spark)
    one = live.spark_states([spark.name]).get(spark.name)
    return {
        "name": spark.name,
        "status": one.health if one else (state.status if state else "unknown"),
        "why": one.why if one else "",
        "usable_gb": one.usable_gb if one else None,
        "usable_source": one.usable_source if one else None,
        "last_poll_at": state.last_poll_at.isoformat() if state and state.last_poll_at else None,
        "last_sample_at": state.last_sample_at.isoformat() if state and state.last_sample_at else None,
        "host_key": {
            "status": state.key_status if state else "unknown",
            "accepted": fingerprint(state.host_key) if state else "",
            "presented": fingerprint(state.presented_key) if state else "",
        },
        "alerts": [
            {
                "id": a.pk,
                "code": a.code,
                "severity": a.severity,
                "since": a.started_at.isoformat(),
                "message": a.message,
                "objects": a.about,
            }
            for a in alerts
        ],
    }


@router.get("/alerts", response=list[AlertOut], summary="Alerts fleet-wide; ?open=true for the open ones, &code=&node=")
@paginated()
def alerts_list(
    request: HttpRequest, open: bool | None = None, code: CleanStr(40) = "", node: CleanStr(63) = ""
) -> Rows:
    if node and not Spark.objects.filter(name=node).exists():  # a typo listed no alerts, as if all were well
        raise BadInput(f"no Spark is named {node!r}", "node")
    return Rows.each(selectors.alerts_list(open=open, code=code, node=node), alert_out)


@router.post(
    "/alerts/{alert_id}/ack", response=AlertOut, summary="Acknowledge an alert (member or lab admin)", auth=BOOK
)
def alert_ack(request: HttpRequest, alert_id: AlertId) -> dict[str, Any]:
    alert = services.alert_acknowledge(actor=Actor.from_request(request, "api"), alert=selectors.alert_get(alert_id))
    return alert_out(selectors.alert_get(alert.pk))


@router.post("/sparks/{name}/hostkey/accept", summary="Accept the host key a Spark presented (lab admin)", auth=ADMIN)
def hostkey_accept(
    request: HttpRequest,
    name: Name,
    # an OpenSSH public key line (an 8192-bit RSA key is about 1,400 characters); fits a request line encoded
    key: CleanStr(2048) = "",
) -> dict[str, Any]:
    spark = selectors.spark_get(name)
    state = services.host_key_accept(actor=Actor.from_request(request, "api"), spark=spark, key=key or None)
    return {"name": spark.name, "host_key": {"status": state.key_status, "accepted": fingerprint(state.host_key)}}


# ---------------------------------------------------------------- software


class SoftwareCellOut(Schema):
    value: str | None
    odd: bool = Field(description="differs from its group's most common version, or from the lab's pin")
    target: str | None = Field(description="what it should run, when odd (None for a tie of digests)")


class SoftwareRowOut(Schema):
    name: str
    group: str
    read_at: str | None
    versions: dict[str, SoftwareCellOut] = Field(description='quantity ("driver", "image:<ref>", ...) -> its value')
    drift: str = Field(description="the software-drift finding's message, '' when it agrees")
    notes: list[str]


class PinsIn(Schema):
    pins: dict[CleanStr(300), CleanStr(300) | None] = Field(
        description='quantity -> the version the lab expects ("" or null removes the pin); quantities: dgx_os, '
        'kernel, driver, cuda, connectx_firmware, nccl, or "image:<ref>" for a launch image\'s digest'
    )


@router.get("/software", response=list[SoftwareRowOut], summary="Each Spark's software, odd ones marked; ?group=")
def software_list(
    request: HttpRequest,
    group: CleanStr(63) = param.Query("", description="a cabled group's name or id, as the other filters take it"),  # noqa: B008
) -> list[dict[str, Any]]:
    if (number := whole_number(group)) is not None:
        group = next((name for pk, name in software_store.group_ids() if pk == number), group)
    if group and group not in software_store.group_names():
        # a query filter that names nothing is bad input (400), as the schema documents; 404 is for paths
        raise BadInput(f"no live cabled group named {group!r}", "group")
    _, rows = software_store.fleet_rows(group)
    return [
        {
            "name": r.name,
            "group": r.group,
            "read_at": r.read_at.isoformat() if r.read_at else None,
            "versions": {q: {"value": c.value, "odd": c.odd, "target": c.target} for q, c in r.cells.items()},
            "drift": r.drift,
            "notes": list(r.notes),
        }
        for r in rows
    ]


@router.get("/software/expected", summary="The versions the lab expects (its pins)")
def software_expected(request: HttpRequest) -> dict[str, Any]:
    return {"pins": software_store.pins()}


@router.post("/software/expected", summary="Pin or unpin expected versions (lab admin)", auth=ADMIN)
def software_expected_set(request: HttpRequest, payload: PinsIn) -> dict[str, Any]:
    pins = services.software_pins_set(actor=Actor.from_request(request, "api"), values=payload.pins)
    return {"pins": pins}
