"""The Serve button on placement's pages (``core.panels`` slots
"plan-actions", one per plan row, and "saved-plan-actions"): shown to the
member holding the group's booking now and to lab admins; anyone else sees
why they cannot serve there. A group that already serves shows what, instead."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.template.loader import render_to_string

from bookings.selectors import may_start_run
from core.roles import can_book
from inventory.models import NodeGroup
from placement.selectors import vllm_image
from telemetry.software_store import launch_readiness

from .models import LIVE, Serving
from .selectors import last_measured

_CACHE = "_serving_panel"
_PLAN_FIELDS = ("model", "group", "context_tokens", "concurrency", "goal", "variant")


def _group_state(request: Any, group: NodeGroup) -> tuple[bool, str, list[Serving]]:
    """(may serve, why not, what serves there now), once per request and group."""
    cached: dict[int, tuple[bool, str, list[Serving]]] = getattr(request, _CACHE, None) or {}
    if group.pk not in cached:
        user = getattr(request, "user", None)
        allowed, why = may_start_run(user, group)
        if not can_book(user):
            why = "serving a model needs the member or lab admin role"
        elif not allowed:
            why = f"book {group.name} first: a member serves only on a group booked for them now"
        serving = list(Serving.objects.filter(group=group, status__in=LIVE).select_related("model"))
        for row in serving:
            row.measured = last_measured(row)  # type: ignore[attr-defined]
        cached[group.pk] = (allowed, why, serving)
        setattr(request, _CACHE, cached)
    return cached[group.pk]


def _render(
    context: Mapping[str, Any],
    group: NodeGroup | None,
    fields: list[tuple[str, Any]],
    engine: str,
    before: list[str] | None = None,
) -> str:
    request = context.get("request")
    if group is None or request is None:
        return ""
    allowed, why, serving = _group_state(request, group)
    if engine not in ("", "vllm"):
        why, allowed = f"serving starts vLLM plans; this one is for {engine}", False
    return render_to_string(
        "serving/_serve_button.html",
        {
            "allowed": allowed,
            "why": why,
            "serving": serving,
            "fields": fields,
            "back": request.get_full_path(),
            "before": before or [],
        },
        request=request,
    )


def plan_actions(context: Mapping[str, Any], row: Mapping[str, Any]) -> str:
    """The plan page's row: serve this plan (its index among the plans for these inputs)."""
    planning = context.get("planning")
    group = getattr(getattr(planning, "group", None), "group", None)
    given = dict(context.get("book_fields") or [])
    fields = [
        (k, v) for k, v in given.items() if k in ("model", "group", "context_tokens", "concurrency", "goal", "variant")
    ]
    fields.append(("plan", row.get("index")))
    return _render(context, group, fields, str(given.get("engine", "")))


def saved_plan_actions(context: Mapping[str, Any], saved: Any) -> str:
    """A saved plan's page: serve it on its group, planned again as it was
    saved, with what its Sparks' last software readings say stands in the way
    of Docker starting the engine (the plan page says it in its launch section)."""
    fields = [("group", saved.group_id), ("saved_plan", saved.pk)]
    nodes = [n for n in saved.nodes if isinstance(n, str)] if isinstance(saved.nodes, list) else []
    before = launch_readiness(nodes, image=vllm_image())["docker"] if nodes and saved.engine == "vllm" else []
    return _render(context, saved.group, fields, saved.engine, before)
