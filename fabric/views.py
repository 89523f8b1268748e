"""Fabric pages: start a verification from the group page (htmx), the panel
that polls while a run is under way, one run's page, netplan downloads."""

from __future__ import annotations

import io
import zipfile
from typing import TYPE_CHECKING, Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_POST

from accounts.decorators import booker_required
from core.actor import Actor
from core.errors import FleetError
from core.htmx import htmx_asks
from inventory.models import NodeGroup

from . import selectors, services
from .command import SWEEP_SIZES
from .models import FabricRun
from .nccl import networks_of

if TYPE_CHECKING:
    from core.types import Visitor


def panel_context(group: NodeGroup, user: Visitor | None, *, error: str = "", nodes: Any = None) -> dict[str, Any]:
    runs = list(selectors.runs_for_group(group.pk, limit=5))
    active = next((r for r in runs if r.active), None)
    allowed, why = services.may_verify(user, group)
    nodes = sorted(nodes if nodes is not None else group.members.values_list("spark__name", flat=True))
    if allowed and len(nodes) < 2:  # no button that can only be refused
        allowed, why = False, "a group of one Spark has no cable between Sparks to verify"
    return {
        "group": group,
        "runs": runs,
        "active": active,
        "latest": runs[0] if runs else None,
        "may_verify": allowed,
        "why_not": why,
        "error": error,
        "sizes": len(SWEEP_SIZES),
        "netplan_nodes": nodes,
    }


def _group(group_id: int) -> NodeGroup:
    return selectors.group_get(group_id)


@require_GET
def panel(request: HttpRequest, group_id: int) -> HttpResponse:
    """The verification card alone (htmx polls it while a run is under way), with the
    measured exchange of the group's four numbers beside it (htmx out of band): a run
    that just finished refreshes that figure without a reload."""
    group = _group(group_id)
    context = panel_context(group, request.user)
    if htmx_asks(request):
        context.update(oob=True, measured=selectors.latest_measurement(group.pk))
    return render(request, "fabric/_panel.html", context)


@booker_required
@require_POST
def verify(request: HttpRequest, group_id: int) -> HttpResponse:
    group = _group(group_id)
    error, status = "", 200
    try:
        services.verification_start(actor=Actor.from_request(request, "page"), group_id=group.pk)
    except FleetError as exc:
        error, status = exc.text, exc.status
    if not htmx_asks(request):
        if error:
            return render(
                request,
                "403.html" if status == 403 else "fabric/error.html",
                {"need": error, "error": error, "group": group},
                status=status,
            )
        return HttpResponse(status=303, headers={"Location": f"/groups/{group.pk}/#fabric"})
    # 200 with the reason in the panel: htmx swaps no 4xx answer, so a refusal said nothing on the page
    return render(request, "fabric/_panel.html", panel_context(group, request.user, error=error))


@require_GET
def run_page(request: HttpRequest, run_id: int) -> HttpResponse:
    run = selectors.run_get(run_id)
    return render(
        request,
        "fabric/run.html",
        {
            "run": run,
            "rows": (run.result or {}).get("rows", []),
            "sizes": len(SWEEP_SIZES),
            "group": run.group,
            "networks": networks_of(run.result),
        },
    )


def _download(text: bytes, filename: str, content_type: str) -> HttpResponse:
    return HttpResponse(
        text, content_type=content_type, headers={"Content-Disposition": f'attachment; filename="{filename}"'}
    )


@require_GET
def spark_netplan(request: HttpRequest, name: str) -> HttpResponse:
    text, _ = services.spark_netplan(name)
    return _download(text.encode(), f"{name}-40-cx7.yaml", "application/yaml; charset=utf-8")


@require_GET
def group_netplan(request: HttpRequest, group_id: int) -> HttpResponse:
    """Every Spark's file of the group in one zip: <spark>/40-cx7.yaml."""
    netplan = services.group_netplan(_group(group_id).pk)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in netplan.files.items():
            archive.writestr(f"{name}/40-cx7.yaml", text)
    return _download(buffer.getvalue(), f"{netplan.group.name}-netplan.zip", "application/zip")


__all__ = ["FabricRun", "group_netplan", "panel", "run_page", "spark_netplan", "verify"]
