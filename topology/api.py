"""Topology API: node groups as the engine sees them, and the admin's
sub-groups. Thin: parse, call one service or selector, return."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from django.http import HttpRequest
from ninja import Field, Router, Schema, Status

from core.actor import Actor
from core.api import ADMIN
from core.errors import BadInput
from core.health import HealthValue
from core.pages import Rows, paginated
from core.validation import PATCH_ONLY_KNOWN

from . import services as svc
from .live import group_out, live_state
from .selectors import GroupView, group_detail, groups_overview

router = Router(tags=["topology"])

KINDS = ("single", "direct", "ring", "chain", "switched", "irregular")


class LinkOut(Schema):
    a: str
    b: str
    cable: str
    gbps: int = Field(description="the speed the link runs at: observed, else expected")
    expected_gbps: int = Field(description="what the cabling allows (cable, Spark port, switch port), Gb/s")
    observed_gbps: int | None = Field(
        description="what telemetry saw at the Spark ends (twins up and addressed, "
        "negotiated speed), Gb/s; null when not observed"
    )
    state: Literal["ok", "half", "down", "unobserved"]
    why: str = Field(description="why the link is not ok, in words")
    measured_gbps: float | None = Field(description="a measured exchange over the link, when there is one")


class MemoryOut(Schema):
    local_gb: float = Field(description="the most usable memory of one node, GB (10^9 bytes)")
    pooled_gb: float = Field(
        description="usable memory summed over the nodes that can run something (not down): distributed, "
        "not one machine's"
    )
    symmetric_gb: float = Field(description="those nodes x the smallest one's usable memory")
    left_out: list[str] = Field(description="the group's down Sparks: no memory counted, nothing placed on them")
    bandwidth_gbs: float
    usable_gb_per_node: dict[str, float] = Field(
        description="each Spark's usable memory now, GB (10^9 bytes): "
        "measured (MemAvailable) or expected (capacity - OS "
        "reserve), 0 on a down Spark (unavailable)"
    )
    usable_source_per_node: dict[str, Literal["measured", "expected", "unavailable"]]


class HealthOut(Schema):
    status: HealthValue
    why: str
    unhealthy: list[str] = Field(description="the group's degraded or down Sparks")


class FindingOut(Schema):
    code: str
    severity: str
    message: str
    objects: list[str]


class GroupOut(Schema):
    id: int
    name: str
    kind: str
    nodes: list[str]
    switches: list[str]
    health: HealthOut
    links: list[LinkOut]
    slowest_gbps: int = Field(description="the slowest link still carrying traffic, Gb/s")
    slowest_source: Literal["observed", "expected"]
    exchange_gbs: float = Field(description="collective bandwidth class over the slowest link, GB/s")
    exchange_source: str
    measured_gbs: float | None = Field(
        description="latest finished fabric verification's average bus bandwidth, GB/s; null when none measured one"
    )
    measured_run: int | None = Field(description="that verification run's id")
    measured_at: datetime | None = Field(description="when that run finished")
    measured_socket_hosts: list[str] = Field(
        description="the nodes whose NCCL fell back to TCP sockets in that run (empty: none seen, or none measured)"
    )
    memory: MemoryOut
    findings: list[FindingOut]


class SubgroupIn(Schema):
    name: Any = None
    nodes: Any = None


class GroupPatch(Schema):
    model_config = PATCH_ONLY_KNOWN
    name: Any = None


def _one(group_id: int) -> dict[str, Any]:
    """One group with its state, read with the overview it belongs to."""
    view, overview = group_detail(group_id)
    return _out(view, overview)


def _out(view: GroupView, overview: Any) -> dict[str, Any]:
    return group_out(view, live_state(overview=overview, views=[view]).group(view))


@router.get("/groups", response=list[GroupOut], summary="List live node groups")
@paginated()
def groups_list(request: HttpRequest, include_subgroups: bool = True, kind: str = "") -> Rows:
    """Live groups, a page at a time (``limit``, ``offset``): only the page's
    groups are drawn with their state."""
    if kind and kind not in KINDS:
        raise BadInput(f"{kind!r} is not a group kind; one of {', '.join(KINDS)}", "kind")
    overview = groups_overview()
    views = [v for v in overview.all(include_subgroups=include_subgroups) if not kind or v.result.kind == kind]

    def page_out(page: list[GroupView]) -> list[dict[str, Any]]:
        live = live_state(overview=overview, views=page)  # the page's Sparks alone
        return [group_out(v, live.group(v)) for v in page]

    return Rows(views, page_out)


@router.get("/groups/{group_id}", response=GroupOut, summary="Read one node group")
def groups_read(request: HttpRequest, group_id: int) -> dict[str, Any]:
    return _one(group_id)


@router.post(
    "/groups/{group_id}/subgroups",
    response={201: GroupOut},
    summary="Split some Sparks of a switched group off as a named sub-group",
    auth=ADMIN,
)
def subgroups_create(request: HttpRequest, group_id: int, payload: SubgroupIn) -> Status[dict[str, Any]]:
    sub = svc.subgroup_create(
        actor=Actor.from_request(request, "api"),
        parent=svc.live_group(group_id),
        name=payload.name,
        nodes=payload.nodes,
    )
    return Status(201, _one(sub.pk))


@router.patch("/groups/{group_id}", response=GroupOut, summary="Rename a node group", auth=ADMIN)
def groups_update(request: HttpRequest, group_id: int, payload: GroupPatch) -> dict[str, Any]:
    group = svc.live_group(group_id)
    if "name" not in payload.model_fields_set:
        raise BadInput("send the new name; only a group's name can be changed", "name")
    svc.group_rename(actor=Actor.from_request(request, "api"), group=group, name=payload.name)
    return _one(group_id)


@router.delete("/groups/{group_id}", summary="Delete a sub-group (auto groups follow the cabling)", auth=ADMIN)
def groups_delete(request: HttpRequest, group_id: int) -> dict[str, Any]:
    group = svc.live_group(group_id)
    svc.subgroup_delete(actor=Actor.from_request(request, "api"), group=group)
    return {"deleted": group.pk, "name": group.name}
