from __future__ import annotations

from typing import Any

from django import template

from inventory.models import NodeGroup
from notifications.models import Subscription

register = template.Library()


@register.inclusion_tag("notifications/_subscriptions.html", takes_context=True)
def alert_subscriptions(context: Any) -> dict[str, Any]:
    user = context["user"]
    return {
        "user": user,
        "csrf_token": context.get("csrf_token"),
        "subscriptions": Subscription.objects.filter(user=user).select_related("group").order_by("group__name"),
        "groups": NodeGroup.objects.filter(retired_at__isnull=True).order_by("name").only("pk", "name", "kind"),
        "severities": Subscription.Severity.choices,
    }
