"""Telemetry in the admin: samples and aggregates read-only, node states with
an "accept the presented host key" action, alerts with acknowledgement.
Actions go through the same services as pages, API and commands. The beat
schedule itself is edited under django-celery-beat's *Periodic tasks*."""

from __future__ import annotations

from typing import Any, TypeVar

from django.contrib import admin, messages
from django.db.models import Model, QuerySet
from django.http import HttpRequest

from core.actor import Actor
from telemetry import services
from telemetry.keys import fingerprint
from telemetry.models import Alert, NodeAggregate, NodeSample, NodeState

_Row = TypeVar("_Row", bound=Model)


class ReadOnly(admin.ModelAdmin[_Row]):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(NodeSample)
class NodeSampleAdmin(ReadOnly[NodeSample]):
    list_display = ("spark", "at", "status", "reachable", "mem_used_bytes", "twins_up", "error")
    list_filter = ("status", "reachable")
    search_fields = ("spark__name",)
    date_hierarchy = "at"
    list_select_related = ("spark",)


@admin.register(NodeAggregate)
class NodeAggregateAdmin(ReadOnly[NodeAggregate]):
    list_display = ("spark", "bucket", "samples", "reachable", "mem_used_avg_bytes", "twins_up_min")
    search_fields = ("spark__name",)
    list_select_related = ("spark",)


@admin.register(NodeState)
class NodeStateAdmin(ReadOnly[NodeState]):
    list_display = ("spark", "status", "key_status", "accepted", "presented", "last_poll_at")
    list_filter = ("status", "key_status")
    search_fields = ("spark__name",)
    list_select_related = ("spark",)
    actions = ["accept_presented_key"]

    @admin.display(description="accepted key")
    def accepted(self, obj: NodeState) -> str:
        return fingerprint(obj.host_key)

    @admin.display(description="presented key")
    def presented(self, obj: NodeState) -> str:
        return fingerprint(obj.presented_key)

    @admin.action(description="Accept the host key each selected node presented")
    def accept_presented_key(self, request: HttpRequest, queryset: QuerySet[NodeState]) -> None:
        done = 0
        for state in queryset.select_related("spark"):
            try:
                services.host_key_accept(
                    actor=Actor.from_request(request, "admin"), spark=state.spark, key=state.presented_key or None
                )
                done += 1
            except services.TelemetryError as exc:
                self.message_user(request, str(exc), messages.ERROR)
        self.message_user(request, f"accepted {done} host key(s)", messages.SUCCESS)


@admin.register(Alert)
class AlertAdmin(ReadOnly[Alert]):
    list_display = ("spark", "code", "severity", "started_at", "ended_at", "acknowledged_by_name")
    list_filter = ("code", "severity", ("ended_at", admin.EmptyFieldListFilter))
    search_fields = ("spark__name", "message")
    list_select_related = ("spark",)
    actions = ["acknowledge"]

    @admin.action(description="Acknowledge the selected alerts")
    def acknowledge(self, request: HttpRequest, queryset: QuerySet[Alert]) -> None:
        for alert in queryset:
            services.alert_acknowledge(actor=Actor.from_request(request, "admin"), alert=alert)
        self.message_user(request, f"acknowledged {queryset.count()} alert(s)", messages.SUCCESS)
