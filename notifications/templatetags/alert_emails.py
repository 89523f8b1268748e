from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from django import template
from django.template.loader import render_to_string

from inventory.models import NodeGroup
from notifications.models import Subscription

if TYPE_CHECKING:
    from core.types import Visitor

register = template.Library()


def profile_panel(context: Mapping[str, Any], user: Visitor) -> str:
    """The profile page's "profile" panel (core.panels): alert emails per group."""
    return render_to_string(
        "notifications/_subscriptions.html",
        alert_subscriptions({**context, "user": user}),
        request=context.get("request"),
    )


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
