"""Topology pages: every group with its diagram (/topology/), one group with
the four quantities that must never be merged (/groups/<id>/), memory across
the fleet (/memory/), and the admin's sub-group forms. Views parse input,
call one service or selector, and render."""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from accounts.decorators import admin_required
from core.actor import Actor
from core.errors import BadInput, NotFound
from core.htmx import htmx_asks
from core.validation import whole_number

from . import diagram, memory_chart
from . import services as svc
from .engine import finding_description, link_speed_class
from .live import Live, live_state
from .selectors import GroupView, group_detail, groups_overview
from .state import GroupState, usable_headline

# Groups above this many Sparks get a card as wide as the page (their diagram
# needs the width to stay legible).
WIDE_CARD_NODES = 4


def _notes(live: Live) -> dict[str, str]:
    """A Spark's second line in a drawing: its usable memory, labelled when expected."""
    return {name: f"{s.usable_gb:g} GB" + _SOURCE_MARK[s.usable_source] for name, s in live.fleet.sparks.items()}


# how a drawing marks a Spark's usable memory by its source (measured: unmarked)
_SOURCE_MARK = {"measured": "", "expected": " exp.", "unavailable": " down"}


def _fills(view: GroupView) -> list[tuple[GroupView, str]]:
    """Each sub-group with the fill its Sparks get in the parent's drawing."""
    fills = diagram.SUBGROUP_FILLS
    return [(sub, fills[i % len(fills)]) for i, sub in enumerate(view.subgroups)]


def _svg(view: GroupView, live: Live, notes: dict[str, str]) -> str:
    tints = {n: (sub.row.name, fill) for sub, fill in _fills(view) for n in sub.result.nodes}
    state = live.group(view)
    return diagram.responsive(
        view.result,
        notes=notes,
        tints=tints,
        states={(link.a, link.b): link for link in state.links},
        health={s.name: (s.health, s.why) for s in state.sparks},
        title=f"{view.row.name}: {view.result.kind}, {len(view.result.nodes)} Sparks, {state.health}",
    )


# Past this many groups, /topology/ and /memory/ fold the groups by kind and
# load each kind's drawings a page at a time (htmx, as a section scrolls into
# view, or by plain links): a 1,024-Spark lab's 204 drawings are about 0.9 MB.
FOLD_GROUPS = 24
PAGE_GROUPS = 12
KIND_ORDER = ("switched", "ring", "chain", "irregular", "direct", "single")


def _kinds(views: list[GroupView]) -> list[dict[str, Any]]:
    """One entry per kind present: its groups (engine order), Sparks and groups with findings."""
    by_kind: dict[str, list[GroupView]] = {}
    for v in views:
        by_kind.setdefault(v.result.kind, []).append(v)
    order = {k: i for i, k in enumerate(KIND_ORDER)}
    return [
        {"kind": kind, "views": vs, "groups": len(vs), "sparks": sum(len(v.result.nodes) for v in vs),
         "flagged": sum(1 for v in vs if v.findings)}
        for kind, vs in sorted(by_kind.items(), key=lambda kv: order.get(kv[0], len(order)))
    ]  # fmt: skip


def _page(request: HttpRequest, kinds: list[dict[str, Any]]) -> tuple[dict[str, Any] | None, int]:
    """The kind and page a request asks for (?kind=&page=); (None, 0) when none. 404 for an unknown kind."""
    kind = request.GET.get("kind", "")
    if not kind:
        return None, 0
    entry = next((k for k in kinds if k["kind"] == kind), None)
    if entry is None:
        raise NotFound(f"no groups of kind {kind!r}", "kind")
    page = whole_number(request.GET.get("page", "1"))  # digits 0 to 9: int() took "٣" and "1_0"
    if page is None:
        raise NotFound("a whole number", "page")
    return entry, max(1, page)


def _slice(entry: dict[str, Any], page: int) -> tuple[list[GroupView], int | None, int]:
    """Groups of one page, the next page number (None at the end) and how many remain after it."""
    start = (page - 1) * PAGE_GROUPS
    views = entry["views"][start : start + PAGE_GROUPS]
    remaining = max(0, entry["groups"] - start - PAGE_GROUPS)
    return views, (page + 1 if remaining else None), remaining


def _topology_card(v: GroupView, live: Live, notes: dict[str, str]) -> dict[str, Any]:
    return {
        "view": v,
        "state": live.group(v),
        "svg": _svg(v, live, notes),
        "wide": len(v.result.nodes) > WIDE_CARD_NODES,
        "subgroups": _fills(v),
    }


def _shown(kinds: list[dict[str, Any]], folded: bool, entry: dict[str, Any] | None, page: int) -> list[GroupView]:
    """Set each kind's page of groups to draw (all of them unless folded), and return them all:
    only they are read with their state."""
    drawn: list[GroupView] = []
    for k in kinds:
        shown = not folded or (entry is not None and k is entry)
        views, next_page, remaining = _slice(k, page) if folded and shown else (k["views"], None, 0)
        k.update(shown_views=views if shown else [], next_page=next_page, remaining=remaining,
                 page=page if shown else 0)  # fmt: skip
        drawn += k["shown_views"]
    return drawn


@require_GET
def topology(request: HttpRequest) -> HttpResponse:
    overview = groups_overview()
    kinds = _kinds(overview.groups)
    entry, page = _page(request, kinds)
    if entry is not None and htmx_asks(request):
        views, next_page, remaining = _slice(entry, page)
        live = live_state(overview=overview, views=views)
        notes = _notes(live)
        return render(request, "topology/topology.html#cards", {
            "cards": [_topology_card(v, live, notes) for v in views], "kind": entry["kind"],
            "next_page": next_page, "remaining": remaining,
        })  # fmt: skip
    folded = len(overview.groups) > FOLD_GROUPS
    # every Spark's state (the fleet's counts), the state of the groups drawn only
    live = live_state(overview=overview, views=_shown(kinds, folded, entry, page), every_spark=True)
    notes = _notes(live)
    for k in kinds:
        k["cards"] = [_topology_card(v, live, notes) for v in k.pop("shown_views")]
    loose = [f for g in overview.loose for f in g.findings]
    return render(request, "topology/topology.html", {
        "kinds": kinds, "folded": folded, "groups": len(overview.groups), "loose": loose,
        "legend": diagram.legend(), "sparks": len(overview.snapshot.lab.nodes), "counts": live.fleet.counts(),
    })  # fmt: skip


def _group_context(view: GroupView, live: Live) -> dict[str, Any]:
    g = view.result
    state: GroupState = live.group(view)
    refusal = ""
    if view.row.auto:
        try:
            svc.refuse_split(view.row)
        except BadInput as exc:
            refusal = str(exc)
    cabled = {(link.a, link.b): link for link in g.links}
    return {
        "view": view,
        "g": g,
        "state": state,
        "svg": _svg(view, live, _notes(live)),
        "legend": diagram.legend(),
        "reserve_gb": settings.FLEET_OS_RESERVE_GB,
        "slowest": state.slowest_gbps,
        "collective": link_speed_class(state.slowest_gbps) if g.links else 0.0,
        "links": [(link, cabled.get((link.a, link.b))) for link in state.links],
        "speeds": sorted(Counter(link.gbps for link in state.links).items(), reverse=True),
        "sparks": state.sparks,
        "findings": [(f, finding_description(f.code)) for f in view.findings],
        "refusal": refusal,
        "subgroups": _fills(view),
        "subgroup_errors": [],
        "subgroup_form": {"name": "", "nodes": []},
    }


@require_GET
def group_page(request: HttpRequest, group_id: int) -> HttpResponse:
    view, live = _detail(group_id)
    return render(request, "topology/group_detail.html", _group_context(view, live))


def _detail(group_id: int) -> tuple[GroupView, Live]:
    """One group with the state of it and its sub-groups, read from their Sparks alone."""
    view, overview = group_detail(group_id)
    return view, live_state(overview=overview, views=[view, *view.subgroups])


@admin_required
@require_POST
def subgroup_create(request: HttpRequest, group_id: int) -> HttpResponse:
    parent = svc.live_group(group_id)
    name, nodes = request.POST.get("name", "").strip(), request.POST.getlist("nodes")
    errors: list[tuple[str, str]] = []
    refused = False
    try:
        sub = svc.subgroup_create(actor=Actor.from_request(request, "page"), parent=parent, name=name, nodes=nodes)
    except BadInput as exc:
        errors, refused = exc.errors, isinstance(exc, svc.NotSplittable)
    view, live = _detail(group_id)
    context = _group_context(view, live)
    context.update(subgroup_errors=errors, subgroup_form={"name": name, "nodes": nodes})
    if not errors:
        context.update(subgroup_form={"name": "", "nodes": []}, created=sub.name)
    if htmx_asks(request):
        # htmx swaps only 2xx answers, so the form with its inline errors comes back as 200.
        return render(request, "topology/group_detail.html#subgroups", context)
    if not errors:
        messages.success(request, f"Sub-group {sub.name} created.")
        return redirect("topology:group", group_id=group_id)
    # 409: refused because of the group's cabling; 400: the input itself is wrong.
    return render(request, "topology/group_detail.html", context, status=409 if refused else 400)


@admin_required
@require_POST
def group_rename(request: HttpRequest, group_id: int) -> HttpResponse:
    group = svc.live_group(group_id)
    try:
        svc.group_rename(
            actor=Actor.from_request(request, "page"), group=group, name=request.POST.get("name", "").strip()
        )
    except BadInput as exc:
        view, live = _detail(group_id)
        context = _group_context(view, live)
        context.update(rename_errors=[m for _, m in exc.errors], rename_value=request.POST.get("name", ""))
        return render(request, "topology/group_detail.html", context, status=400)
    messages.success(request, f"Group renamed to {group.name}.")
    return redirect("topology:group", group_id=group_id)


@admin_required
@require_POST
def group_delete(request: HttpRequest, group_id: int) -> HttpResponse:
    group = svc.live_group(group_id)
    try:
        svc.subgroup_delete(actor=Actor.from_request(request, "page"), group=group)
    except BadInput as exc:
        messages.error(request, str(exc.errors[0][1]))
        return redirect("topology:group", group_id=group_id)
    messages.success(request, f"Sub-group {group.name} deleted; its Sparks are free again in {group.parent}.")
    return redirect("topology:group", group_id=group.parent_id)


def _bar(name: str, live: Live) -> memory_chart.Bar:
    spark = live.spark(name)
    return memory_chart.Bar(name, spark.capacity_gb, spark.usable_gb, spark.fresh, down=not spark.runs)


def _memory_card(view: GroupView, live: Live) -> dict[str, Any]:
    bars = [_bar(n, live) for n in view.result.nodes]
    state = live.group(view)
    svg = memory_chart.render(bars, pooled_gb=state.memory.pooled_gb, local_gb=state.memory.local_gb, uid=str(view.id))
    return {"view": view, "state": state, "svg": svg, "wide": len(bars) > 8}


@require_GET
def memory(request: HttpRequest) -> HttpResponse:
    overview = groups_overview()
    clustered = [v for v in overview.groups if len(v.result.nodes) > 1]
    singles_views = [v for v in overview.groups if len(v.result.nodes) == 1]
    kinds = _kinds(clustered)
    entry, page = _page(request, kinds)
    if entry is not None and htmx_asks(request):
        views, next_page, remaining = _slice(entry, page)
        live = live_state(overview=overview, views=views)
        return render(request, "topology/memory.html#charts", {
            "charts": [_memory_card(v, live) for v in views], "kind": entry["kind"],
            "next_page": next_page, "remaining": remaining,
        })  # fmt: skip
    folded = len(overview.groups) > FOLD_GROUPS
    # every Spark's state (the fleet's totals and the lone Sparks' bars), the state of the groups charted only
    live = live_state(overview=overview, views=_shown(kinds, folded, entry, page), every_spark=True)
    for k in kinds:
        k["charts"] = [_memory_card(v, live) for v in k.pop("shown_views")]
    singles = [(v, _bar(n, live)) for v in singles_views for n in v.result.nodes]
    single_svg = memory_chart.render([b for _, b in singles], uid="singles") if singles else ""
    states = list(live.fleet.sparks.values())
    return render(request, "topology/memory.html", {
        "kinds": kinds, "folded": folded, "singles": singles, "single_svg": single_svg,
        "legend": memory_chart.LEGEND,
        "capacity_gb": sum(s.capacity_gb for s in states), "headline": usable_headline(states),
        "sparks": len(states),
    })  # fmt: skip
