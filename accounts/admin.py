from django.contrib import admin
from django.http import HttpRequest

from .models import ApiToken


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin[ApiToken]):
    list_display = ("user", "name", "prefix", "created_at", "last_used_at")
    readonly_fields = ("user", "name", "prefix", "digest", "created_at", "last_used_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
