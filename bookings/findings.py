"""Busy without a booking, as topology findings on the group pages.

The rule itself is pure (``rules.busy_findings``); this module feeds it the
GPU compute processes telemetry saw last and the bookings holding the nodes
now, and registers itself in ``inventory.groups.GROUP_FINDING_PROVIDERS``.
Telemetry is read through a guarded import: without a
``telemetry.selectors.latest_processes`` the provider finds nothing.
"""
from __future__ import annotations

import importlib
from typing import Any

from django.utils import timezone

from . import selectors
from .rules import BUSY_OTHER_USER, BUSY_UNBOOKED, GpuProcess, busy_findings

DESCRIPTIONS = {
    BUSY_UNBOOKED: "GPU compute processes run on a Spark that nobody has booked",
    BUSY_OTHER_USER: "GPU compute processes of someone other than the holder run on a booked Spark",
}


def latest_processes(nodes: list[str]) -> list[GpuProcess]:
    """GPU compute processes per node from telemetry's latest samples.

    Expects ``telemetry.selectors.latest_processes(nodes) -> {node: [process]}``
    where a process has ``pid``, ``name`` and ``user`` (telemetry's
    ``ComputeProcess``)."""
    try:
        tel = importlib.import_module("telemetry.selectors")
    except ImportError:
        return []
    offered = getattr(tel, "latest_processes", None)
    if not callable(offered):
        return []
    out = []
    for node, procs in (offered(nodes) or {}).items():
        for p in procs or ():
            out.append(GpuProcess(node, int(p.pid), str(p.name), getattr(p, "user", None)))
    return out


def busy_provider(group: Any, nodes: list[str]) -> list[Any]:
    """A ``GROUP_FINDING_PROVIDERS`` entry: (group or None, node names) -> findings."""
    from inventory.topology.findings import make_finding

    procs = latest_processes(nodes)
    if not procs:
        return []
    holdings = selectors.holdings_at(nodes=sorted({p.node for p in procs}), at=timezone.now())
    return [make_finding(b.code, b.message, [b.node]) for b in busy_findings(procs, holdings)]


def register() -> None:
    try:
        groups = importlib.import_module("inventory.groups")
        from inventory.topology.findings import register_finding_code
    except ImportError:
        return
    for code, description in DESCRIPTIONS.items():
        register_finding_code(code, severity="warning", description=description)
    providers = getattr(groups, "GROUP_FINDING_PROVIDERS", None)
    if providers is not None and busy_provider not in providers:
        providers.append(busy_provider)
