"""What telemetry observed, as the group pages need it: open alerts of a
group's nodes as topology findings, and measured memory use per node.

Topology stands on telemetry, so it reads telemetry's tables here and
registers both readers in its own hook lists (``topology.apps``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from telemetry.health import HEALTH_CODES
from telemetry.models import Alert, NodeState

from .engine import Finding, register_finding_code

SEVERITY = {"critical": "error", "warning": "warning", "info": "info"}


def alert_findings(group: Any, nodes: Iterable[str]) -> list[Finding]:
    """Open alerts of a group's nodes, as topology findings."""
    rows = Alert.objects.filter(spark__name__in=list(nodes), ended_at__isnull=True).order_by("spark__name", "code")
    return [Finding(a.code, SEVERITY.get(a.severity, "warning"), a.message, tuple(a.about))  # type: ignore[arg-type]
            for a in rows]


def memory_used(nodes: Iterable[str]) -> dict[str, int | None]:
    """Unified memory in use per node (bytes), from each node's latest sample."""
    rows = NodeState.objects.filter(spark__name__in=list(nodes), latest__mem_used_bytes__isnull=False)
    return dict(rows.values_list("spark__name", "latest__mem_used_bytes"))


def register_health_codes() -> None:
    """Health rules' codes become finding codes (severity and description for the pages)."""
    for code, info in HEALTH_CODES.items():
        register_finding_code(code, severity=SEVERITY[info.severity], description=info.description)  # type: ignore[arg-type]
