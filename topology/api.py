"""Topology API: node groups as the engine sees them, and the admin's
sub-groups. Thin: parse, call one service or selector, return."""
from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Router, Schema, Status

from core.actor import Actor
from core.api import ADMIN
from inventory.errors import InventoryError

from . import services as svc
from .selectors import group_detail, group_out, groups_overview

router = Router(tags=["topology"])

KINDS = ("single", "direct", "ring", "chain", "switched", "irregular")


class LinkOut(Schema):
    a: str
    b: str
    cable: str
    gbps: int


class MemoryOut(Schema):
    local_gb: float
    pooled_gb: float
    symmetric_gb: float
    bandwidth_gbs: float


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
    links: list[LinkOut]
    memory: MemoryOut
    findings: list[FindingOut]


class SubgroupIn(Schema):
    name: Any = None
    nodes: Any = None


class GroupPatch(Schema):
    name: Any = None


@router.get("/groups", response=list[GroupOut], summary="List live node groups")
def groups_list(request: HttpRequest, include_subgroups: bool = True, kind: str = "") -> list[dict[str, Any]]:
    if kind and kind not in KINDS:
        raise InventoryError(f"{kind!r} is not a group kind; one of {', '.join(KINDS)}", "kind")
    views = groups_overview().all(include_subgroups=include_subgroups)
    return [group_out(v) for v in views if not kind or v.result.kind == kind]


@router.get("/groups/{group_id}", response=GroupOut, summary="Read one node group")
def groups_read(request: HttpRequest, group_id: int) -> dict[str, Any]:
    view, _ = group_detail(group_id)
    return group_out(view)


@router.post("/groups/{group_id}/subgroups", response={201: GroupOut},
             summary="Split some Sparks of a switched group off as a named sub-group", auth=ADMIN)
def subgroups_create(request: HttpRequest, group_id: int, payload: SubgroupIn) -> Status:
    sub = svc.subgroup_create(actor=Actor.from_request(request, "api"), parent=svc.live_group(group_id),
                              name=payload.name, nodes=payload.nodes)
    view, _ = group_detail(sub.pk)
    return Status(201, group_out(view))


@router.patch("/groups/{group_id}", response=GroupOut, summary="Rename a node group", auth=ADMIN)
def groups_update(request: HttpRequest, group_id: int, payload: GroupPatch) -> dict[str, Any]:
    group = svc.live_group(group_id)
    if "name" not in payload.model_fields_set:
        raise InventoryError("send the new name; only a group's name can be changed", "name")
    svc.group_rename(actor=Actor.from_request(request, "api"), group=group, name=payload.name)
    view, _ = group_detail(group_id)
    return group_out(view)


@router.delete("/groups/{group_id}", summary="Delete a sub-group (auto groups follow the cabling)", auth=ADMIN)
def groups_delete(request: HttpRequest, group_id: int) -> dict[str, Any]:
    group = svc.live_group(group_id)
    svc.subgroup_delete(actor=Actor.from_request(request, "api"), group=group)
    return {"deleted": group.pk, "name": group.name}
