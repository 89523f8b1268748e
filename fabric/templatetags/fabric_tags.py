"""What fabric shows on the group page (topology's), through its panel slots
(``core.panels``, registered in ``fabric.apps``): the measured exchange path
("group-exchange") and the verification card ("group")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import template
from django.template.loader import render_to_string

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


def exchange_panel(context: Mapping[str, Any], group: Any) -> str:
    return render_to_string("fabric/_measured.html", fabric_measured(group), request=context.get("request"))


def verification_panel(context: Mapping[str, Any], group: Any) -> str:
    analysed = context.get("g")
    request = context.get("request")
    if not getattr(analysed, "links", None) or request is None:
        return ""
    nodes = getattr(analysed, "nodes", None)  # the page knows the Sparks: no query for them
    return render_to_string("fabric/_panel.html", panel_context(group, request.user, nodes=nodes), request=request)
