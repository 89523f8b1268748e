"""Admin views of bookings: for looking and for fixing by hand. Writes
here bypass the booking services' clash checks; PostgreSQL's exclusion
constraint still refuses an overlap."""

from django.contrib import admin

from .models import Allocation, Booking, BookingEvent, FeedToken, MaintenanceWindow, Preference


class AllocationInline(admin.TabularInline[Allocation, Booking]):
    model = Allocation
    extra = 0
    raw_id_fields = ("spark",)


class EventInline(admin.TabularInline[BookingEvent, Booking]):
    model = BookingEvent
    extra = 0
    readonly_fields = ("at", "username", "source", "action", "detail")


@admin.register(Booking)
class BookingAdmin(admin.ModelAdmin[Booking]):
    list_display = ("id", "group_name", "owner", "start", "end", "status", "purpose")
    list_filter = ("status",)
    search_fields = ("group_name", "owner__username", "purpose")
    date_hierarchy = "start"
    raw_id_fields = ("owner", "group")
    inlines = [AllocationInline, EventInline]


@admin.register(MaintenanceWindow)
class MaintenanceAdmin(admin.ModelAdmin[MaintenanceWindow]):
    list_display = ("id", "start", "end", "reason", "created_by")
    filter_horizontal = ("sparks",)
    raw_id_fields = ("bookings", "group", "created_by")


admin.site.register(FeedToken, list_display=("user", "created_at", "last_used_at"), exclude=("nonce",))
admin.site.register(Preference, list_display=("user", "time_zone"))
