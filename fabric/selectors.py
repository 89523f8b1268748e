"""Reads of fabric runs: a group's runs, its latest measurement, and the one
figures the planner reads (``latest_measured_busbw``, ``latest_exchange``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.db.models import OuterRef, QuerySet, Subquery

from core.errors import NotFound
from topology.engine import Finding, Severity
from topology.state import MeasuredExchange

from .models import FabricRun


def runs_for_group(group_id: int, *, limit: int = 20) -> QuerySet[FabricRun]:
    return FabricRun.objects.filter(group_id=group_id).order_by("-created_at", "-pk")[:limit]


def run_get(run_id: int) -> FabricRun:
    run = FabricRun.objects.select_related("group").filter(pk=run_id).first()
    if run is None:
        raise NotFound(f"no fabric verification with id {run_id}", "run_id")
    return run


def latest_measurement(group_id: int) -> FabricRun | None:
    """The latest completed run that measured a bus bandwidth (a failed run measured nothing)."""
    return (
        FabricRun.objects.filter(group_id=group_id, status=FabricRun.Status.DONE, avg_busbw__isnull=False)
        .order_by("-finished_at", "-pk")
        .first()
    )


def latest_measured_busbw(group_id: int | None) -> tuple[float, FabricRun] | None:
    """The group's latest measured all_gather bus bandwidth (GB/s) and its run,
    or None: what the planner's communication term uses when present."""
    if group_id is None:
        return None
    run = latest_measurement(group_id)
    return (run.avg_busbw, run) if run is not None and run.avg_busbw is not None else None


def exchange_of(run: FabricRun) -> MeasuredExchange:
    """A finished run with a measurement as the group state reads it."""
    return MeasuredExchange(
        float(run.avg_busbw or 0.0),
        run.pk,
        run.finished_at,
        float(run.expected_low) if run.expected_low is not None else None,
        run.socket_hosts,
    )


def latest_exchange(group_id: int | None) -> MeasuredExchange | None:
    """The group's latest measured exchange (the run ``latest_measured_busbw``
    reads), with the nodes whose NCCL chose TCP sockets there: what one
    group's plans read."""
    found = latest_measured_busbw(group_id)
    return exchange_of(found[1]) if found is not None else None


def measured_exchanges(group_ids: Sequence[int]) -> dict[int, MeasuredExchange]:
    """Each group's latest measured bus bandwidth (the run ``latest_measurement``
    picks), by group id, in one query whatever the number of groups: the group
    state's measured figure (registered with ``topology.live`` by the app)."""
    latest = (
        FabricRun.objects.filter(group=OuterRef("group"), status=FabricRun.Status.DONE, avg_busbw__isnull=False)
        .order_by("-finished_at", "-pk")
        .values("pk")[:1]
    )
    runs = FabricRun.objects.filter(group_id__in=list(group_ids), pk=Subquery(latest)).only(
        "group_id", "pk", "avg_busbw", "finished_at", "expected_low", "result"
    )
    return {run.group_id: exchange_of(run) for run in runs if run.avg_busbw is not None and run.group_id is not None}


def fabric_findings(group: Any, nodes: Iterable[str]) -> list[Finding]:
    """The findings of each group's latest finished verification, naming the
    run's nodes, for the group pages' findings list (one query for the fleet)."""
    latest = FabricRun.objects.filter(group=OuterRef("group")).order_by("-created_at", "-pk").values("pk")[:1]
    wanted = set(nodes)
    found: list[Finding] = []
    runs = FabricRun.objects.filter(pk=Subquery(latest), status__in=[FabricRun.Status.DONE, FabricRun.Status.FAILED])
    for run in runs.exclude(findings=[]).only("pk", "group_name", "nodes", "findings"):
        names = tuple(n["name"] for n in run.nodes if n["name"] in wanted)
        for f in run.findings:
            severity: Severity = "error" if f["severity"] == "critical" else "warning"
            found.append(
                Finding(
                    f["code"],
                    severity,
                    f"Fabric verification #{run.pk} of {run.group_name}: {f['message']} Fix: {f['fix']}",
                    names,
                )
            )
    return found
