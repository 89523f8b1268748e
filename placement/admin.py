"""The Django admin for placement: the catalogue is checked with the same
rules as the pages (``ModelSpec.validate``)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin

from .models import LlmModel
from .services import MODEL_FIELDS, OPTIONAL_FIELDS, spec_from_fields


class LlmModelForm(forms.ModelForm[LlmModel]):
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
class LlmModelAdmin(admin.ModelAdmin[LlmModel]):
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
