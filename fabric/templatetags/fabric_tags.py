"""Template tags other apps' pages use: the group page's measured exchange
path and its verification card (``{% load fabric_tags %}``)."""
from __future__ import annotations

from typing import Any

from django import template

from .. import selectors
from ..views import panel_context

register = template.Library()


@register.inclusion_tag("fabric/_measured.html")
def fabric_measured(group: Any) -> dict[str, Any]:
    """The latest measured bus bandwidth of a group, with its date and run."""
    return {"run": selectors.latest_measurement(group.pk) if getattr(group, "pk", None) else None}


@register.inclusion_tag("fabric/_panel.html", takes_context=True)
def fabric_panel(context: Any, group: Any) -> dict[str, Any]:
    return panel_context(group, context["request"].user)
