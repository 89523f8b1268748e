"""Fixtures for the placement Django tests: the demo lab, its groups by kind,
and snapshots of the placement tables for "nothing changed" checks."""

from __future__ import annotations

import sys
import types
from typing import Any

import pytest


@pytest.fixture
def demo(import_lab: Any) -> dict[str, Any]:
    """labs/demo.yaml imported: its live groups by kind (direct pairs by first node)."""
    from inventory.models import NodeGroup

    import_lab("demo.yaml")
    groups = {g.kind: g for g in NodeGroup.objects.filter(retired_at__isnull=True).order_by("-name")}
    groups["direct"] = NodeGroup.objects.get(name="group-spark-01")
    return groups


def placement_state() -> dict[str, Any]:
    from benchmarks.models import BenchmarkRun
    from placement.models import LlmModel

    return {
        "models": sorted(LlmModel.objects.values_list("slug", "params_b", "layers", "kv_heads")),
        "runs": sorted(BenchmarkRun.objects.values_list("id", "status", "decode_tps")),
    }


@pytest.fixture
def fake_module(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Install a stand-in module (e.g. ``bookings.selectors``) for one test."""

    def install(name: str, **attrs: Any) -> types.ModuleType:
        module = types.ModuleType(name)
        for key, value in attrs.items():
            setattr(module, key, value)
        monkeypatch.setitem(sys.modules, name, module)
        parent, _, child = name.rpartition(".")
        if parent in sys.modules:
            monkeypatch.setattr(sys.modules[parent], child, module, raising=False)
        return module

    return install
