"""What telemetry observed, as the group pages need it: open alerts of a
group's nodes as topology findings (memory is the one state's: ``topology.live``).

Topology stands on telemetry, so it reads telemetry's tables here and adds
its reader and the health rules' codes to its own hooks (``topology.apps``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from telemetry.health import HEALTH_CODES
from telemetry.models import Alert

from .engine import Finding, Severity

SEVERITY = {"critical": "error", "warning": "warning", "info": "info"}


def alert_findings(group: Any, nodes: Iterable[str]) -> list[Finding]:
    """Open alerts of a group's nodes, as topology findings."""
    rows = Alert.objects.filter(spark__name__in=list(nodes), ended_at__isnull=True).order_by("spark__name", "code")
    return [
        Finding(a.code, SEVERITY.get(a.severity, "warning"), a.message, tuple(a.about))  # type: ignore[arg-type]
        for a in rows
    ]


def health_codes() -> dict[str, tuple[Severity, str]]:
    """Health rules' codes as finding codes (severity and description for the pages)."""
    return {code: (SEVERITY[info.severity], info.description) for code, info in HEALTH_CODES.items()}  # type: ignore[misc]
