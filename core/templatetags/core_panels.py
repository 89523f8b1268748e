"""``{% panels "slot" obj %}``: what the apps registered for this slot (core.panels)."""

from __future__ import annotations

from typing import Any, cast

from django import template
from django.utils.safestring import SafeString, mark_safe

from core import panels as registry

register = template.Library()


@register.simple_tag(takes_context=True)
def panels(context: template.Context, slot: str, obj: Any) -> SafeString:
    # Each panel is rendered from an autoescaped template (core.panels).
    return mark_safe(registry.render(slot, cast(dict[str, Any], context.flatten()), obj))  # noqa: S308
