"""Fabric API: start a verification of a group, list its runs, read one, and
the netplan files per group and per Spark."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from ninja import Router

from core.actor import Actor
from core.api import BOOK, READ
from core.validation import Id
from telemetry.selectors import software_drift_of

from . import selectors, services
from .models import FabricRun
from .nccl import networks_of

router = Router(tags=["fabric"], auth=READ)


def run_out(run: FabricRun, *, output: bool = False) -> dict[str, Any]:
    result = run.result or {}
    data: dict[str, Any] = {
        "id": run.pk,
        "group": run.group_id,
        "group_name": run.group_name,
        "kind": run.kind,
        "link_gbps": run.link_gbps,
        "nodes": [n["name"] for n in run.nodes],
        "status": run.status,
        "verdict": run.verdict or None,
        "measured_busbw_gbs": run.avg_busbw,
        "expected": {"low_gbs": run.expected_low, "high_gbs": run.expected_high, "source": run.expected_source},
        "rows": result.get("rows", []),
        "wrong": result.get("wrong"),
        "nccl_version": result.get("nccl_version"),
        # the network each rank's NCCL chose and its devices ([] for runs before it was kept)
        "networks": [
            {"network": n.network, "hosts": list(n.hosts), "devices": list(n.devices)} for n in networks_of(result)
        ],
        "findings": run.findings,
        "error": run.error,
        "command": run.command,
        "created_by": run.created_by_name,
        "created_at": run.created_at,
        "started_at": run.started_at,
        "finished_at": run.finished_at,
        "url": f"/fabric/runs/{run.pk}/",
    }
    if output:
        data["output"] = run.output
    return data


@router.post("/groups/{group_id}/verify", response={202: dict}, auth=BOOK)
def verify(request: HttpRequest, group_id: Id) -> Any:
    """Start "Verify fabric": nccl-tests all_gather_perf across the group (lab
    admins; members on a group booked for them now). 409 while one runs; 404
    for a group that is not (or no longer) there."""
    group = selectors.group_get(group_id)
    run = services.verification_start(actor=Actor.from_request(request, "api"), group_id=group.pk)
    # Said before it runs: nodes that run other software make NCCL hang or slow down.
    drift = [{"node": name, "message": message} for name, message in software_drift_of(n["name"] for n in run.nodes)]
    return 202, {**run_out(run), "software_drift": drift}


@router.get("/groups/{group_id}/verifications")
def verifications(request: HttpRequest, group_id: Id) -> Any:
    """The group's runs, newest first (the latest 20); a retired group's too."""
    return [run_out(r) for r in selectors.runs_for_group(selectors.group_get(group_id, live=False).pk)]


@router.get("/verifications/{run_id}")
def verification(request: HttpRequest, run_id: Id) -> Any:
    """One run with its raw output."""
    return run_out(selectors.run_get(run_id), output=True)


@router.get("/groups/{group_id}/netplan")
def group_netplan(request: HttpRequest, group_id: Id) -> Any:
    """Every Spark's netplan file of the group, and where its addresses come from."""
    netplan = services.group_netplan(selectors.group_get(group_id).pk)
    return {
        "group": netplan.group.pk,
        "files": netplan.files,
        "sources": netplan.plan.sources,
        "subnets": {k: list(v) for k, v in netplan.plan.subnets.items()},
    }


@router.get("/sparks/{name}/netplan", response={200: None})
def spark_netplan(request: HttpRequest, name: str) -> Any:
    """One Spark's netplan file as YAML (/etc/netplan/40-cx7.yaml)."""
    text, _ = services.spark_netplan(name)
    return HttpResponse(text, content_type="application/yaml; charset=utf-8")
