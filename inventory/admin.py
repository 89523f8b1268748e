"""The Django admin, wired through the same services so that every change
made here is validated and lands in the change log."""

from __future__ import annotations

from typing import Any, TypeVar

from django.contrib import admin, messages
from django.db.models import Model
from django.http import HttpRequest

from core.actor import Actor

from . import services
from .errors import InventoryError
from .models import Cable, CableEnd, CatalogueEntry, Change, Spark, Switch

_Row = TypeVar("_Row", bound=Model)


class ServiceAdmin(admin.ModelAdmin[_Row]):
    """Saves go through the services; a rule broken shows as an error message."""

    def _fields(self, form: Any) -> dict[str, Any]:
        return {k: form.cleaned_data[k] for k in form.changed_data if k in form.cleaned_data}

    def delete_queryset(self, request: HttpRequest, queryset: Any) -> None:
        for obj in queryset:
            self.delete_model(request, obj)


@admin.register(Spark)
class SparkAdmin(ServiceAdmin[Spark]):
    list_display = ("name", "hardware", "ssh_host", "status")
    search_fields = ("name", "ssh_host", "serial")
    list_filter = ("status", "hardware")
    fields = ("name", "hardware", "vendor", "serial", "ssh_host", "ssh_port", "ssh_user", "status")

    def save_model(self, request: HttpRequest, obj: Spark, form: Any, change: bool) -> None:
        try:
            if change:
                services.spark_update(
                    actor=Actor.from_request(request, "admin"), spark=Spark.objects.get(pk=obj.pk), **self._fields(form)
                )
            else:
                data = {f: form.cleaned_data[f] for f in self.fields if f in form.cleaned_data}
                created = services.spark_create(actor=Actor.from_request(request, "admin"), **data)
                obj.pk = created.pk
        except InventoryError as exc:
            messages.error(request, str(exc))

    def delete_model(self, request: HttpRequest, obj: Spark) -> None:
        services.spark_delete(actor=Actor.from_request(request, "admin"), spark=obj)


@admin.register(Switch)
class SwitchAdmin(ServiceAdmin[Switch]):
    list_display = ("name", "hardware")
    fields = ("name", "hardware", "serial")

    def save_model(self, request: HttpRequest, obj: Switch, form: Any, change: bool) -> None:
        try:
            if change:
                services.switch_update(
                    actor=Actor.from_request(request, "admin"),
                    switch=Switch.objects.get(pk=obj.pk),
                    **self._fields(form),
                )
            else:
                actor = Actor.from_request(request, "admin")
                created = services.switch_create(
                    actor=actor,
                    name=form.cleaned_data["name"],
                    hardware=form.cleaned_data["hardware"],
                    serial=form.cleaned_data.get("serial", ""),
                )
                obj.pk = created.pk
        except InventoryError as exc:
            messages.error(request, str(exc))

    def delete_model(self, request: HttpRequest, obj: Switch) -> None:
        services.switch_delete(actor=Actor.from_request(request, "admin"), switch=obj)


class CableEndInline(admin.TabularInline[CableEnd, Cable]):
    model = CableEnd
    extra = 0
    can_delete = False
    readonly_fields = ("position", "port")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Cable)
class CableAdmin(ServiceAdmin[Cable]):
    list_display = ("__str__", "type", "coded_for", "length_m")
    fields = ("type", "label", "length_m", "coded_for")
    inlines = [CableEndInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # plugging ends in happens on the cable page, which offers only free ports

    def save_model(self, request: HttpRequest, obj: Cable, form: Any, change: bool) -> None:
        try:
            services.cable_update(
                actor=Actor.from_request(request, "admin"), cable=Cable.objects.get(pk=obj.pk), **self._fields(form)
            )
        except InventoryError as exc:
            messages.error(request, str(exc))

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        pass

    def delete_model(self, request: HttpRequest, obj: Cable) -> None:
        services.cable_delete(actor=Actor.from_request(request, "admin"), cable=obj)


@admin.register(CatalogueEntry)
class CatalogueAdmin(ServiceAdmin[CatalogueEntry]):
    list_display = ("slug", "kind", "name", "memory_gb", "port_count", "speed_gbps", "breakout", "price", "currency")
    list_filter = ("kind",)

    def save_model(self, request: HttpRequest, obj: CatalogueEntry, form: Any, change: bool) -> None:
        if change:
            before = services.snapshot(CatalogueEntry.objects.get(pk=obj.pk))
            obj.save()
            services.change_record(
                actor=Actor.from_request(request, "admin"),
                action="update",
                obj=obj,
                before=before,
                after=services.snapshot(obj),
            )
            return
        try:
            created = services.catalogue_create(actor=Actor.from_request(request, "admin"), **form.cleaned_data)
            obj.pk = created.pk
        except InventoryError as exc:
            messages.error(request, str(exc))

    def delete_model(self, request: HttpRequest, obj: CatalogueEntry) -> None:
        try:
            services.catalogue_delete(actor=Actor.from_request(request, "admin"), entry=obj)
        except InventoryError as exc:
            messages.error(request, str(exc))


@admin.register(Change)
class ChangeAdmin(admin.ModelAdmin[Change]):
    list_display = ("at", "username", "source", "action", "object_type", "object_name")
    list_filter = ("object_type", "action", "source")
    search_fields = ("object_name", "username")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
