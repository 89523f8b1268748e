from django.contrib import admin

from .models import ApiToken


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin[ApiToken]):
    list_display = ("user", "name", "prefix", "created_at", "last_used_at")
    readonly_fields = ("user", "name", "prefix", "digest", "created_at", "last_used_at")

    def has_add_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False
