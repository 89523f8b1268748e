"""The booking and maintenance forms: read what the browser sent (local
times in the person's zone) and say which Sparks a group offers.

Plain functions rather than Django forms: the checks live in
``services``/``rules`` and the page shows their messages by field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from typing import Any

from django.http import QueryDict

from core.validation import datetime_problem
from inventory.models import NodeGroup, NodeGroupMember, Spark

from . import selectors

INPUT_FORMAT = "%Y-%m-%dT%H:%M"


def local_input(at: datetime | None, tz: tzinfo) -> str:
    """A value for <input type=datetime-local> in the person's zone."""
    return at.astimezone(tz).strftime(INPUT_FORMAT) if at else ""


def read_local(value: str, tz: tzinfo) -> tuple[datetime | None, str]:
    """A datetime-local value read in the person's zone, as an instant in UTC,
    or why it cannot be read ("" when the field is empty: the window check
    then asks for it).

    In UTC because two datetimes that share a zone compare by their wall
    clocks, not as instants: across a daylight saving change "02:30" and
    "03:30" are the same instant. A wall time that the zone skips (the hour
    the clocks spring forward) is refused; one it repeats (the hour they fall
    back) is its first occurrence."""
    value = (value or "").strip()
    if not value:
        return None, ""
    malformed = f"{value!r} is not a date and time between 2000 and 2100 (with an offset, within +/-14:00)"
    try:
        naive = datetime.fromisoformat(value)
    except ValueError:
        return None, malformed
    if naive.tzinfo is not None:
        return (None, malformed) if datetime_problem(naive) else (naive.astimezone(UTC), "")
    at = naive.replace(tzinfo=tz)
    if datetime_problem(at):
        return None, malformed
    if at.astimezone(UTC).astimezone(tz).replace(tzinfo=None) != naive:
        zone_name = getattr(tz, "key", str(tz))
        return None, (
            f"{naive:%d %b %Y %H:%M} does not exist in {zone_name}: the clocks skip that hour for daylight "
            "saving time; pick a time outside it"
        )
    return at.astimezone(UTC), ""


@dataclass
class BookingRequest:
    group: str = ""
    nodes: list[str] | None = None  # None: the whole group
    start_text: str = ""
    end_text: str = ""
    start: datetime | None = None
    end: datetime | None = None
    purpose: str = ""
    plan: str = ""
    saved_plan: str = ""  # the id of a plan kept on the plan page
    confirm: bool = False
    group_changed: bool = False
    errors: list[tuple[str, str]] = field(default_factory=list)


def booking_request(data: QueryDict, tz: tzinfo) -> BookingRequest:
    req = BookingRequest(
        group=data.get("group", "").strip(),
        start_text=data.get("start", ""),
        end_text=data.get("end", ""),
        purpose=data.get("purpose", ""),
        plan=data.get("plan", "").strip(),
        confirm=data.get("confirm") == "on",
        saved_plan=data.get("saved_plan", "").strip(),
    )
    (req.start, start_problem), (req.end, end_problem) = read_local(req.start_text, tz), read_local(req.end_text, tz)
    for name, problem in (("start", start_problem), ("end", end_problem)):
        if problem:
            req.errors.append((name, problem))
    # The node boxes belong to the group they were drawn for; after a group
    # change they are stale, and the whole new group is meant.
    req.group_changed = data.get("shown_group", "") != req.group
    if data.get("pick_nodes") and not req.group_changed:
        req.nodes = data.getlist("nodes")
        if not req.nodes:
            req.errors.append(("nodes", "tick at least one Spark"))
    return req


@dataclass(frozen=True)
class NodeChoice:
    name: str
    checked: bool
    disabled: bool
    note: str


@dataclass(frozen=True)
class NodePicker:
    group: NodeGroup | None
    pick: bool  # a switched group: any of its Sparks may be ticked
    choices: list[NodeChoice]


def node_picker(
    group_ref: str, chosen: list[str] | None, start: datetime | None, end: datetime | None, tz: tzinfo
) -> NodePicker:
    """The group's Sparks; those in maintenance (inventory status, or a window
    over the chosen time) are not offered."""
    try:
        group = selectors.group_find(group_ref) if group_ref else None
    except Exception:
        group = None
    if group is None:
        return NodePicker(None, False, [])
    rows = list(
        NodeGroupMember.objects.filter(group=group)
        .order_by("spark__name")
        .values_list("spark_id", "spark__name", "spark__status")
    )
    blocked: dict[int, Any] = {}
    if start and end and start.tzinfo and end.tzinfo and end > start:
        blocked = selectors.under_maintenance(spark_ids=[r[0] for r in rows], start=start, end=end)
    pick = group.kind == "switched"
    choices = []
    for pk, name, status in rows:
        note, off = "", False
        if status != Spark.Status.ACTIVE:
            note, off = f"{status} in the inventory", True
        elif pk in blocked:
            m = blocked[pk]
            note, off = f"maintenance until {m.end.astimezone(tz):%d %b %H:%M}: {m.reason}", True
        checked = not off and (chosen is None or name in chosen)
        choices.append(NodeChoice(name, checked, off or not pick, note))
    return NodePicker(group, pick, choices)


@dataclass
class MaintenanceRequest:
    group: str
    nodes: list[str]
    start: datetime | None
    end: datetime | None
    reason: str
    errors: list[tuple[str, str]] = field(default_factory=list)


def maintenance_request(data: QueryDict, tz: tzinfo) -> MaintenanceRequest:
    nodes = [n.strip() for n in data.get("nodes", "").replace(",", " ").split() if n.strip()]
    (start, start_problem), (end, end_problem) = (
        read_local(data.get("start", ""), tz),
        read_local(data.get("end", ""), tz),
    )
    errors = [(name, problem) for name, problem in (("start", start_problem), ("end", end_problem)) if problem]
    return MaintenanceRequest(data.get("group", "").strip(), nodes, start, end, data.get("reason", ""), errors)
