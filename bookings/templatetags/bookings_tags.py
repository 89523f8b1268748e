"""Template tags for bookings: clash and window texts in the page's time
zone, and ``{% group_bookings group %}``, which any group page can include to
show who holds the group now and the next bookings."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from django import template
from django.template.loader import render_to_string
from django.utils import timezone

from bookings import selectors
from bookings.rules import ClashGroup, fmt_span

register = template.Library()


@register.simple_tag
def clash_message(clash: ClashGroup) -> str:
    return clash.message(timezone.get_current_timezone())


@register.simple_tag
def span(start: datetime | None, end: datetime | None) -> str:
    if start is None or end is None:
        return ""
    return fmt_span(start, end, timezone.get_current_timezone())


def group_panel(context: Mapping[str, Any], group: Any) -> str:
    """A group page's "group" panel (core.panels): who holds it now and next."""
    return render_to_string(
        "bookings/_group_bookings.html",
        {
            "group_bookings": selectors.group_bookings(group=group, now=timezone.now()),
            "can_book": context.get("can_book", False),
        },
        request=context.get("request"),
    )


@register.inclusion_tag("bookings/_group_bookings.html", takes_context=True)
def group_bookings(context: template.Context, group: Any) -> dict[str, Any]:
    """Usage: ``{% load bookings_tags %}{% group_bookings group %}`` with a NodeGroup."""
    return {
        "group_bookings": selectors.group_bookings(group=group, now=timezone.now()),
        "can_book": context.get("can_book", False),
    }
