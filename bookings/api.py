"""Bookings API (``/api/bookings``; ``/api/reservations`` is a deprecated
alias): book, list, change, cancel or release, check availability, and
maintenance windows. Thin: parse, call one service or selector, answer.
Times are ISO 8601 with a zone; answers are in UTC."""

from __future__ import annotations

# The edge types (core.validation) are built by functions, which mypy cannot read as types.
# mypy: disable-error-code="valid-type"
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone
from ninja import Field, Query, Router, Schema, Status
from ninja.params import functions as param
from pydantic import StrictBool

from core.actor import Actor
from core.api import ADMIN, BOOK
from core.errors import NotFound, error_items
from core.pages import Rows, paginated
from core.validation import (
    INT64,
    PATCH_ONLY_KNOWN,
    CleanStr,
    IdOrName,
    Int,
    JsonData,
    SaneDatetime,
    merge_patch,
    zone_missing,
)

from . import selectors, services
from .availability import availability_check
from .errors import BookingConflict, BookingError
from .models import Booking, MaintenanceWindow
from .rules import effective_status

F = TypeVar("F", bound=Callable[..., Any])

router = Router(tags=["bookings"])
# The old name of the same operations, kept for scripts written against it; it
# goes away in a later version (marked deprecated in /api/openapi.json).
router_deprecated = Router(tags=["reservations (deprecated: use /api/bookings)"])


def _route(method: str, path: str, **options: Any) -> Callable[[F], F]:
    """Register an operation under ``/bookings<path>`` and, deprecated, under ``/reservations<path>``."""

    def register(func: F) -> F:
        getattr(router, method)("/bookings" + path, **options)(func)
        getattr(router_deprecated, method)(
            "/reservations" + path,
            deprecated=True,
            operation_id=f"{func.__name__}_deprecated",
            url_name=f"{func.__name__}_deprecated",
            **options,
        )(func)
        return func

    return register


# Field types with the lengths of their columns (bookings/models.py).
Name = CleanStr(63, min_length=1)
Purpose = CleanStr(200)
RowId = Int(1, INT64)
GroupRef = IdOrName
Nodes = list[Name]


class BookingIn(Schema):
    group: GroupRef | None = Field(None, description="group id or name; or give nodes")
    nodes: Nodes | None = Field(None, max_length=256, description="Spark names that form a valid group")
    start: SaneDatetime
    end: SaneDatetime
    purpose: Purpose
    plan: JsonData = Field(None, description="the placement plan to run: a reference string or a summary object")
    saved_plan: RowId | None = Field(None, description="a plan kept on the plan page (its id): the booking links it")
    confirm: StrictBool = Field(False, description="book although some nodes are down or degraded")


class BookingPatch(Schema):
    model_config = PATCH_ONLY_KNOWN
    start: SaneDatetime | None = None
    end: SaneDatetime | None = None
    purpose: Purpose | None = None
    plan: JsonData = None


class BookingFilter(Schema):
    from_: SaneDatetime | None = Field(None, alias="from", description="bookings ending after this (default: now)")
    to: SaneDatetime | None = Field(None, description="bookings starting before this")
    node: CleanStr(63) = ""
    group: CleanStr(63) = Field("", description="group id or name: bookings of any of its nodes")
    owner: CleanStr(150) = ""
    status: list[CleanStr(12)] = Field([], max_length=8, description="booked, active, finished, cancelled")


class MaintenanceIn(Schema):
    group: GroupRef | None = None
    nodes: Nodes | None = Field(None, max_length=256)
    start: SaneDatetime
    end: SaneDatetime
    reason: CleanStr(200)


class MaintenanceRef(Schema):
    id: int
    reason: str
    start: str
    end: str


class BookingOut(Schema):
    id: int
    owner: str
    group: int | None
    group_name: str
    whole_group: bool
    nodes: list[str]
    start: str
    end: str
    status: str
    holds_now: bool
    purpose: str
    plan: Any
    saved_plan: int | None
    maintenance: list[MaintenanceRef]
    url: str


class BookingRef(Schema):
    id: int
    owner: str


class MaintenanceOut(Schema):
    id: int
    start: str
    end: str
    reason: str
    group: str | None
    nodes: list[str]
    bookings: list[BookingRef]
    planned_by: str | None


class Problem(Schema):
    path: str
    message: str


class AvailabilityOut(Schema):
    free: bool
    nodes: list[str]
    errors: list[Problem]
    conflicts: list[dict[str, Any]]
    warnings: list[Any]
    limit: Any


def _iso(at: datetime) -> str:
    return at.astimezone(UTC).isoformat().replace("+00:00", "Z")


def booking_out(b: Booking, request: HttpRequest, now: datetime) -> dict[str, Any]:
    status = effective_status(b.status, b.start, b.end, now)
    return {
        "id": b.pk,
        "owner": b.owner.username,
        "group": b.group_id,
        "group_name": b.group_name,
        "whole_group": b.whole_group,
        "nodes": [a.spark.name for a in b.allocations.all()],
        "start": _iso(b.start),
        "end": _iso(b.end),
        "status": status,
        "holds_now": status == "active",
        "purpose": b.purpose,
        "plan": b.plan,
        "saved_plan": b.saved_plan_id,
        "maintenance": [
            {"id": m.pk, "reason": m.reason, "start": _iso(m.start), "end": _iso(m.end)}
            for m in b.maintenance_windows.all()
        ],
        "url": request.build_absolute_uri(reverse("bookings:detail", args=[b.pk])),
    }


@_route("post", "", response={201: BookingOut}, summary="Book a group, or Sparks that form a valid group", auth=BOOK)
def bookings_create(request: HttpRequest, payload: BookingIn) -> Status[dict[str, Any]]:
    saved_plan = None
    if payload.saved_plan is not None:
        saved_plan = selectors.saved_plan_ref(payload.saved_plan)
    booking = services.booking_create(
        actor=Actor.from_request(request, "api"),
        group=payload.group,
        nodes=payload.nodes,
        start=payload.start,
        end=payload.end,
        purpose=payload.purpose,
        plan=payload.plan,
        confirm=payload.confirm,
        saved_plan=saved_plan,
    )
    return Status(201, booking_out(selectors.booking_get(booking.pk), request, timezone.now()))


@_route("get", "", response=list[BookingOut], summary="List bookings in a time window")
@paginated(default_limit=200)
def bookings_list(request: HttpRequest, filters: Query[BookingFilter]) -> Rows:
    now = timezone.now()
    start = filters.from_ or (None if filters.to else now)
    for name, value in (("from", start), ("to", filters.to)):
        if value is not None and (missing := zone_missing(value)):
            raise BookingError(missing, name)
    unknown = [s for s in filters.status if s not in Booking.Status.values]
    if unknown:
        raise BookingError(f"unknown status {unknown[0]!r}; one of {', '.join(Booking.Status.values)}", "status")
    qs = selectors.bookings_list(
        start=start,
        end=filters.to,
        node=filters.node,
        group=filters.group or None,
        owner=filters.owner,
        statuses=filters.status,
    )
    return Rows.each(qs, lambda b: booking_out(b, request, now))


@_route("get", "/availability", response=AvailabilityOut, summary="Check a window without booking")
def bookings_availability(
    request: HttpRequest,
    start: SaneDatetime,
    end: SaneDatetime,
    group: CleanStr(63) = "",
    # 2,560 characters: 256 names of ten, and even percent-encoded whole it fits gunicorn's request line
    nodes: CleanStr(2560) = param.Query("", description="comma-separated Spark names"),
) -> dict[str, Any]:
    names = [n.strip() for n in nodes.split(",") if n.strip()] or None
    out = availability_check(user=request.user, group=group or None, nodes=names, start=start, end=end)
    return {
        "free": out.free,
        "nodes": out.target.names if out.target else [],
        "errors": error_items(out.errors),
        "conflicts": BookingConflict("", out.clashes).details(UTC) if out.clashes else [],
        "warnings": out.warnings,
        "limit": out.limit,
    }


@_route("get", "/{booking_id}", response=BookingOut, summary="Read one booking")
def bookings_read(request: HttpRequest, booking_id: RowId) -> dict[str, Any]:
    return booking_out(selectors.booking_get(booking_id), request, timezone.now())


@_route("patch", "/{booking_id}", response=BookingOut, summary="Move a booking's start or end, or edit it", auth=BOOK)
def bookings_update(request: HttpRequest, booking_id: RowId, payload: BookingPatch) -> dict[str, Any]:
    changes = payload.dict(exclude_unset=True)
    if not changes:
        raise BookingError("send start, end, purpose or plan", "")
    changes = merge_patch(changes, cleared=("plan",))  # null clears the plan ("": none)
    services.booking_update(
        actor=Actor.from_request(request, "api"), booking=selectors.booking_get(booking_id), **changes
    )
    return booking_out(selectors.booking_get(booking_id), request, timezone.now())


@_route(
    "delete",
    "/{booking_id}",
    response=BookingOut,
    summary="Cancel a booking that has not started, or release a running one now",
    auth=BOOK,
)
def bookings_delete(request: HttpRequest, booking_id: RowId) -> dict[str, Any]:
    services.booking_cancel(actor=Actor.from_request(request, "api"), booking=selectors.booking_get(booking_id))
    return booking_out(selectors.booking_get(booking_id), request, timezone.now())


# ---------------------------------------------------------------- maintenance


def maintenance_out(m: MaintenanceWindow) -> dict[str, Any]:
    return {
        "id": m.pk,
        "start": _iso(m.start),
        "end": _iso(m.end),
        "reason": m.reason,
        "group": m.group.name if m.group else None,
        "nodes": sorted(s.name for s in m.sparks.all()),
        "bookings": [{"id": b.pk, "owner": b.owner.username} for b in m.bookings.all()],
        "planned_by": m.created_by.username if m.created_by else None,
    }


@router.get("/maintenance-windows", response=list[MaintenanceOut], summary="Maintenance windows not yet over")
def maintenance_list(request: HttpRequest) -> list[dict[str, Any]]:
    return [maintenance_out(m) for m in selectors.maintenance_list(since=timezone.now())]


@router.post(
    "/maintenance-windows",
    response={201: MaintenanceOut},
    auth=ADMIN,
    summary="Plan maintenance (lab admins); overlapped bookings are marked and their owners emailed",
)
def maintenance_create(request: HttpRequest, payload: MaintenanceIn) -> Status[dict[str, Any]]:
    actor = Actor.from_request(request, "api")
    window = services.maintenance_create(
        actor=actor,
        group=payload.group,
        nodes=payload.nodes,
        start=payload.start,
        end=payload.end,
        reason=payload.reason,
    )
    return Status(201, maintenance_out(selectors.maintenance_list(since=window.start).get(pk=window.pk)))


@router.delete("/maintenance-windows/{window_id}", response=dict, summary="Lift a maintenance window", auth=ADMIN)
def maintenance_delete(request: HttpRequest, window_id: RowId) -> dict[str, Any]:
    window = MaintenanceWindow.objects.filter(pk=window_id).first()
    if window is None:
        raise NotFound(f"no maintenance window with id {window_id}", "id")
    services.maintenance_delete(actor=Actor.from_request(request, "api"), window=window)
    return {"deleted": window_id}
