from django.contrib import admin

from .models import Delivery, Subscription


@admin.register(Subscription)
class SubscriptionAdmin(admin.ModelAdmin[Subscription]):
    list_display = ("user", "group", "min_severity", "created_at")
    list_filter = ("min_severity",)


@admin.register(Delivery)
class DeliveryAdmin(admin.ModelAdmin[Delivery]):
    list_display = ("created_at", "channel", "target", "event", "alert", "state", "attempts", "last_error")
    list_filter = ("channel", "state", "event")
    readonly_fields = [f.name for f in Delivery._meta.fields]
