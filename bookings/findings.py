"""Busy without a booking, as topology findings on the group pages.

The rule itself is pure (``rules.busy_findings``); this module feeds it the
GPU compute processes telemetry saw last and the bookings holding the nodes
now, and adds itself to ``topology.services.GROUP_FINDING_PROVIDERS``
(bookings stand on topology and telemetry; both are plain imports).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from django.utils import timezone

from core.hooks import Hook
from telemetry import selectors as telemetry_selectors
from topology.engine import Finding
from topology.engine.data import Severity
from topology.engine.findings import FINDING_CATALOGUES, make_finding
from topology.services import GROUP_FINDING_PROVIDERS

from . import selectors
from .rules import BUSY_OTHER_USER, BUSY_UNBOOKED, GpuProcess, busy_findings

DESCRIPTIONS = {
    BUSY_UNBOOKED: "GPU compute processes run on a Spark that nobody has booked",
    BUSY_OTHER_USER: "GPU compute processes of someone other than the holder run on a booked Spark",
}


# Sparks serving a model this app started are booked by definition (serving
# adds itself: the names of those of the given Sparks that serve through it now).
SERVED_NODES: Hook[Callable[[Iterable[str]], set[str]]] = Hook("bookings.served_nodes")


def latest_processes(nodes: list[str]) -> list[GpuProcess]:
    """GPU compute processes per node from telemetry's latest samples."""
    return [
        GpuProcess(node, int(p.pid), str(p.name), getattr(p, "user", None))
        for node, procs in telemetry_selectors.latest_processes(nodes).items()
        for p in procs or ()
    ]


def busy_provider(group: Any, nodes: list[str]) -> list[Finding]:
    """A ``GROUP_FINDING_PROVIDERS`` entry: (group or None, node names) -> findings."""
    procs = latest_processes(nodes)
    served = {name for entry in SERVED_NODES for name in entry(sorted({p.node for p in procs}))}
    procs = [p for p in procs if p.node not in served]
    if not procs:
        return []
    holdings = selectors.holdings_at(nodes=sorted({p.node for p in procs}), at=timezone.now())
    return [make_finding(b.code, b.message, [b.node]) for b in busy_findings(procs, holdings)]


def busy_codes() -> dict[str, tuple[Severity, str]]:
    return {code: ("warning", description) for code, description in DESCRIPTIONS.items()}


def register() -> None:
    FINDING_CATALOGUES.add(busy_codes)
    GROUP_FINDING_PROVIDERS.add(busy_provider)
