"""Small display filters shared by the pages."""

from __future__ import annotations

from typing import Any

from django import template

register = template.Library()


@register.filter
def diffval(value: Any) -> str:
    """A change-log value for people: lists as 'a – b', None as a dash."""
    if value is None or value == "":
        return "—"
    if isinstance(value, list | tuple):
        return " – ".join(str(v) for v in value)
    return str(value)
