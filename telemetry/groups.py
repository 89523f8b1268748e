"""Telemetry on the group pages: open alerts of a group's nodes as topology
findings, and measured memory use per node.

The topology layer (``inventory.groups``) owns the hook lists; this module
only appends to them, and does nothing while that module does not exist, so
either side may land first.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

SEVERITY = {"critical": "error", "warning": "warning", "info": "info"}


def alert_findings(group: Any, nodes: Iterable[str]) -> list[Any]:
    """Open alerts of a group's nodes, as ``inventory.topology.Finding``."""
    from inventory.topology import Finding
    from telemetry.models import Alert

    rows = Alert.objects.filter(spark__name__in=list(nodes), ended_at__isnull=True).order_by("spark__name", "code")
    return [Finding(a.code, SEVERITY.get(a.severity, "warning"), a.message, tuple(a.about)) for a in rows]  # type: ignore[arg-type]


def memory_used(nodes: Iterable[str]) -> dict[str, int | None]:
    """Unified memory in use per node (bytes), from each node's latest sample."""
    from telemetry.models import NodeState

    rows = NodeState.objects.filter(spark__name__in=list(nodes), latest__mem_used_bytes__isnull=False)
    return dict(rows.values_list("spark__name", "latest__mem_used_bytes"))


def register() -> None:
    try:
        from inventory import groups
    except ImportError:
        return
    from inventory.topology import register_finding_code
    from telemetry.health import HEALTH_CODES

    for code, info in HEALTH_CODES.items():
        register_finding_code(code, severity=SEVERITY[info.severity], description=info.description)  # type: ignore[arg-type]
    providers = getattr(groups, "GROUP_FINDING_PROVIDERS", None)
    if providers is not None and alert_findings not in providers:
        providers.append(alert_findings)
    memory = getattr(groups, "NODE_MEMORY_USED", None)
    if memory is not None and memory_used not in memory:
        memory.append(memory_used)
