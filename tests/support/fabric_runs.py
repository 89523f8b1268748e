"""A finished fabric verification stored as the fabric app's task stores it:
for tests that need a group's measured exchange without running one."""

from __future__ import annotations

from typing import Any

from django.utils import timezone


def verified(group: Any, busbw: float, network: str, verdict: str, expected_low: float | None = None) -> Any:
    """``group``'s latest verification: ``busbw`` GB/s measured, every member's
    NCCL on ``network`` ("IB" or "Socket", as "Using network ..." said)."""
    from fabric.models import FabricRun

    names = list(group.members.values_list("spark__name", flat=True))
    return FabricRun.objects.create(
        group=group,
        group_name=group.name,
        kind=group.kind,
        link_gbps=200,
        status=FabricRun.Status.DONE,
        verdict=verdict,
        avg_busbw=busbw,
        expected_low=expected_low,
        expected_high=None if expected_low is None else expected_low + 4.0,
        finished_at=timezone.now(),
        result={"rows": [], "networks": dict.fromkeys(names, network)},
    )
