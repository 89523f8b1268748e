"""Reads of fabric runs: a group's runs, its latest measurement, and the one
figures the planner reads (``latest_measured_busbw``, ``latest_exchange``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.db.models import OuterRef, QuerySet, Subquery

from core.errors import NotFound
from core.validation import INT64
from inventory.models import NodeGroup
from topology.engine import Finding, Severity
from topology.state import MeasuredExchange

from .models import FabricRun
from .nccl import socket_hosts_of


def group_get(group_id: int, *, live: bool = True) -> NodeGroup:
    """The group a path names, or NotFound (404) naming it: retired ones too
    when ``live`` (they have no cabling left to verify or address)."""
    rows = NodeGroup.objects.filter(pk=group_id) if 1 <= group_id <= INT64 else NodeGroup.objects.none()
    group = (rows.filter(retired_at__isnull=True) if live else rows).first()
    if group is None:
        raise NotFound(f"no {'live ' if live else ''}group with id {group_id}", "group_id")
    return group


def active_runs_on(names: Iterable[str], *, exclude_group: int | None = None) -> list[tuple[FabricRun, set[str]]]:
    """The verifications queued or running on any of these Sparks, each with the
    Sparks it shares with them (a run keeps its nodes by name)."""
    wanted = set(names)
    rows = FabricRun.objects.filter(status__in=FabricRun.ACTIVE).order_by("pk")
    if exclude_group is not None:
        rows = rows.exclude(group_id=exclude_group)
    found = []
    for run in rows:
        shared = wanted & {str(n.get("name")) for n in run.nodes if isinstance(n, dict)}
        if shared:
            found.append((run, shared))
    return found


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
    return _exchange(run.avg_busbw, run.pk, run.finished_at, run.expected_low, run.result)


def _exchange(
    busbw: float | None, run_id: int, finished_at: Any, expected_low: float | None, result: object
) -> MeasuredExchange:
    return MeasuredExchange(
        float(busbw or 0.0),
        run_id,
        finished_at,
        float(expected_low) if expected_low is not None else None,
        socket_hosts_of(result),
    )


def latest_exchange(group_id: int | None) -> MeasuredExchange | None:
    """The group's latest measured exchange (the run ``latest_measured_busbw``
    reads), with the nodes whose NCCL chose TCP sockets there: what one
    group's plans read."""
    found = latest_measured_busbw(group_id)
    return exchange_of(found[1]) if found is not None else None


def _latest_runs(group_ids: Sequence[int] | None, *, measured: bool) -> QuerySet[FabricRun]:
    """Each group's latest finished run (``measured``: its latest finished one
    with a bus bandwidth, the run ``latest_measurement`` picks), of these groups
    or of every group, in one query: the latest is looked up once per group (an
    index seek), not once per stored run, so a long history costs nothing."""
    if measured:
        runs = FabricRun.objects.filter(group=OuterRef("pk"), status=FabricRun.Status.DONE, avg_busbw__isnull=False)
        runs = runs.order_by("-finished_at", "-pk")
    else:
        finished = [FabricRun.Status.DONE, FabricRun.Status.FAILED]
        runs = FabricRun.objects.filter(group=OuterRef("pk"), status__in=finished).order_by("-created_at", "-pk")
    groups = NodeGroup.objects.all() if group_ids is None else NodeGroup.objects.filter(pk__in=list(group_ids))
    latest = groups.annotate(latest=Subquery(runs.values("pk")[:1])).values("latest")
    return FabricRun.objects.filter(pk__in=latest)


def measured_exchanges(group_ids: Sequence[int]) -> dict[int, MeasuredExchange]:
    """Each group's latest measured bus bandwidth (the run ``latest_measurement``
    picks), by group id, in one query whatever the number of groups or of their
    runs: the group state's measured figure (registered with ``topology.live``
    by the app)."""
    # the networks NCCL chose, not the whole parsed result: a fleet's worth of rows is not decoded
    rows = (
        _latest_runs(group_ids, measured=True)
        .order_by()
        .values_list("group_id", "pk", "avg_busbw", "finished_at", "expected_low", "result__networks")
    )
    return {
        group_id: _exchange(busbw, pk, finished_at, low, {"networks": networks})
        for group_id, pk, busbw, finished_at, low, networks in rows
        if busbw is not None and group_id is not None
    }


def fabric_findings(group: Any, nodes: Iterable[str]) -> list[Finding]:
    """The findings of each group's latest finished verification, naming the
    run's nodes, for the group pages' findings list (one query for the fleet)."""
    wanted = set(nodes)
    found: list[Finding] = []
    runs = _latest_runs(None, measured=False)
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
