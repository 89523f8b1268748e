"""The alert-email part of the profile page: a user's own subscriptions."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from core.types import AuthedRequest
from core.validation import whole_number
from notifications import services
from notifications.models import Subscription


@require_POST
def subscription_add(request: AuthedRequest) -> HttpResponse:
    raw_group = request.POST.get("group", "").strip()
    email = request.POST.get("email", "").strip()
    user = request.user
    group_id = whole_number(raw_group) if raw_group else None  # digits 0 to 9: int() read "٣" as 3
    if raw_group and group_id is None:
        messages.error(request, "group: choose a group from the list")
        return redirect("accounts:profile")
    try:
        services.subscription_add(
            user=user, group_id=group_id, min_severity=request.POST.get("min_severity", ""), email=email
        )
    except ValueError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, "Alert emails updated.")
    return redirect("accounts:profile")


@require_POST
def subscription_delete(request: AuthedRequest, subscription_id: int) -> HttpResponse:
    deleted, _ = Subscription.objects.filter(pk=subscription_id, user=request.user).delete()
    if deleted:
        messages.success(request, "Subscription removed.")
    return redirect("accounts:profile")
