"""The Django admin for placement: the catalogue is checked with the same
rules as the pages (``ModelSpec.validate``); benchmark records are read-only
here (they are measurements, entered through the pages, the API or a run)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.http import HttpRequest

from .models import BenchmarkRun, LlmModel
from .services import MODEL_FIELDS, OPTIONAL_FIELDS, spec_from_fields


class LlmModelForm(forms.ModelForm):
    class Meta:
        model = LlmModel
        fields = (*MODEL_FIELDS, *OPTIONAL_FIELDS, "estimated_fields", "origin", "created_by")

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        fields = {k: data.get(k) for k in (*MODEL_FIELDS, *OPTIONAL_FIELDS)}
        if not self.errors:
            for name, message in spec_from_fields({k: v for k, v in fields.items() if v is not None}).validate():
                self.add_error(name if name in self.fields else None, message)
        return data


@admin.register(LlmModel)
class LlmModelAdmin(admin.ModelAdmin):
    form = LlmModelForm
    list_display = (
        "slug",
        "name",
        "params_b",
        "active_params_b",
        "quantization",
        "weights_gb",
        "max_context",
        "origin",
    )
    search_fields = ("slug", "name", "hf_repo")
    list_filter = ("quantization", "origin")


@admin.register(BenchmarkRun)
class BenchmarkRunAdmin(admin.ModelAdmin):
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
