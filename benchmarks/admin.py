"""The Django admin for benchmarks: records are read-only here (they are
measurements, entered through the pages, the API or a run)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from .models import BenchmarkRun


@admin.register(BenchmarkRun)
class BenchmarkRunAdmin(admin.ModelAdmin[BenchmarkRun]):
    list_display = (
        "id",
        "model_name",
        "source",
        "group_name",
        "topology_kind",
        "node_count",
        "engine",
        "backend",
        "concurrency",
        "decode_tps",
        "status",
        "created_at",
    )
    list_filter = ("source", "status", "topology_kind", "engine", "backend")
    search_fields = ("model_name", "group_name", "reference")

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
