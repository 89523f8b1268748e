"""The Django admin for servings: read-only (a serving starts and stops
through its service, which runs and stops the engines on the nodes)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from .models import Serving


@admin.register(Serving)
class ServingAdmin(admin.ModelAdmin[Serving]):
    list_display = ("id", "model", "quantization", "group_name", "owner_name", "status", "url", "created_at")
    list_filter = ("status", "launcher")
    search_fields = ("group_name", "owner_name", "url")

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
