"""Reads for bookings: which nodes a request names, what clashes with a
window, who holds what, each person's time zone, node health from
telemetry (when that app offers it). Query counts do not grow with the
number of bookings listed.

``user_holds_nodes`` and ``may_start_run`` are the entry points for the
apps above (a benchmark run, a fabric verification).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.conf import settings
from django.db.models import Prefetch, Q, QuerySet
from django.utils import timezone

from core.errors import NotFound
from core.roles import can_book, is_admin
from core.validation import as_whole_number
from inventory.models import NodeGroup, NodeGroupMember, Spark
from placement.models import SavedPlan
from placement.selectors import saved_plan_get
from telemetry.models import NodeState
from topology.live import down_in_groups, down_mark
from topology.services import NotSplittable, refuse_split

from .errors import BookingError
from .models import Allocation, Booking, MaintenanceWindow, Preference
from .rules import Clash, Holding, splittable

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from core.types import Visitor

LIVE = (Booking.Status.BOOKED, Booking.Status.ACTIVE)


def holds_on(spark_ids: list[int]) -> list[str]:
    """The bookings that have not ended and hold any of these Sparks, in words
    (inventory.services.DELETE_HOLDS: a held Spark is not deleted)."""
    rows = list(
        Booking.objects.filter(allocations__spark_id__in=spark_ids, status__in=LIVE, end__gt=timezone.now())
        .select_related("owner")
        .distinct()
        .order_by("start", "pk")[:4]
    )
    said = [
        f"booking {b.pk} of {b.owner.get_username()} "
        f"({b.start.astimezone(UTC):%Y-%m-%d %H:%M} to {b.end.astimezone(UTC):%Y-%m-%d %H:%M} UTC)"
        for b in rows[:3]
    ]
    return said + (["more bookings"] if len(rows) > 3 else [])


# ---------------------------------------------------------------- time zones


def zone(name: str | None) -> ZoneInfo:
    """The named zone, or the site's TIME_ZONE when the name is unknown (a
    name too long for a file name is unknown too: ZoneInfo raises OSError)."""
    for candidate in (name, settings.TIME_ZONE, "UTC"):
        if candidate:
            try:
                return ZoneInfo(candidate)
            except (ZoneInfoNotFoundError, ValueError, OSError):
                continue
    return ZoneInfo("UTC")


TZ_CACHE = "_booking_tz"  # where user_tz keeps a user's zone for the request


def user_tz(user: Visitor | None) -> ZoneInfo:
    if user is None or not user.pk:
        return zone(None)
    # Cached on the instance: one query per request.
    cached = user.__dict__.get(TZ_CACHE)
    if cached is None:
        cached = zone(Preference.objects.filter(user_id=user.pk).values_list("time_zone", flat=True).first())
        user.__dict__[TZ_CACHE] = cached
    return cached


# ---------------------------------------------------------------- telemetry


def node_health(spark_ids: Iterable[int]) -> dict[int, str]:
    """Health per Spark id (ok, degraded, down, unknown) as telemetry last saw it;
    Sparks never polled are left out."""
    return dict(NodeState.objects.filter(spark_id__in=list(spark_ids)).values_list("spark_id", "status"))


# ---------------------------------------------------------------- what a request names


@dataclass(frozen=True)
class Target:
    """The Sparks a booking request resolves to, in id order (the order
    allocations are inserted, so racing group bookings cannot deadlock)."""

    group: NodeGroup
    sparks: tuple[tuple[int, str], ...]
    whole: bool

    @property
    def ids(self) -> list[int]:
        return [pk for pk, _ in self.sparks]

    @property
    def names(self) -> list[str]:
        return sorted(name for _, name in self.sparks)


def group_find(ref: Any, path: str = "group") -> NodeGroup:
    """A live group by id or by name."""
    ref = as_whole_number(ref, strip=True)
    if isinstance(ref, bool) or not isinstance(ref, int | str) or ref == "":
        raise BookingError("name a group by id or name", path)
    rows = NodeGroup.objects.select_related("parent")
    group = rows.filter(pk=ref).first() if isinstance(ref, int) else rows.filter(name=ref, retired_at=None).first()
    if group is None:
        raise BookingError(f"no group {ref!r}", path)
    if group.retired_at is not None:
        raise BookingError(f"group {group.name} was retired on {group.retired_at:%Y-%m-%d}: its cabling is gone", path)
    return group


def _members(group: NodeGroup) -> dict[str, tuple[int, str]]:
    rows = NodeGroupMember.objects.filter(group=group).values_list("spark__name", "spark_id", "spark__status")
    return {name: (pk, status) for name, pk, status in rows}


def _auto_root(spark_ids: list[int], names: dict[int, str]) -> NodeGroup:
    rows = NodeGroupMember.objects.filter(spark_id__in=spark_ids, group__auto=True, group__retired_at=None)
    found: dict[int, list[str]] = {}
    groups: dict[int, NodeGroup] = {}
    for m in rows.select_related("group"):
        found.setdefault(m.group_id, []).append(names[m.spark_id])
        groups[m.group_id] = m.group
    if len(groups) > 1:
        parts = "; ".join(f"{groups[g].name}: {', '.join(sorted(n))}" for g, n in sorted(found.items()))
        raise BookingError(f"the nodes belong to different groups ({parts}); a booking is one group", "nodes")
    if not groups:
        raise BookingError("these Sparks are in no live group yet", "nodes")
    return next(iter(groups.values()))


def target_resolve(*, group: Any = None, nodes: Any = None) -> Target:
    """A whole group, or a list of Spark names that is itself a valid group
    (any part of a switched group; only the whole of a ring, chain or pair).
    ``group`` and ``nodes`` together: those nodes of that group."""
    if group in (None, "") and not nodes:
        raise BookingError("name a group, or the Sparks to book", "group")
    chosen_group = group_find(group) if group not in (None, "") else None
    if nodes in (None, [], ()):
        assert chosen_group is not None
        members = _members(chosen_group)
        if not members:
            raise BookingError(f"group {chosen_group.name} has no Sparks", "group")
        _check_status(members, list(members))
        return Target(chosen_group, tuple(sorted(v[:1] + (k,) for k, v in members.items())), True)
    if not isinstance(nodes, list | tuple) or not all(isinstance(n, str) for n in nodes):
        raise BookingError("nodes: give a list of Spark names", "nodes")
    errors = [(f"nodes[{i}]", f"{n} is named twice") for i, n in enumerate(nodes) if n in nodes[:i]]
    known = dict(Spark.objects.filter(name__in=nodes).values_list("name", "id"))
    errors += [(f"nodes[{i}]", f"no Spark is named {n!r}") for i, n in enumerate(nodes) if n not in known]
    if errors:
        raise BookingError(errors)
    if chosen_group is not None:
        pool = _members(chosen_group)
        root = chosen_group if chosen_group.auto or chosen_group.parent is None else chosen_group.parent
        outside = [n for n in nodes if n not in pool]
        if outside:
            raise BookingError(
                f"{', '.join(outside)} {'is' if len(outside) == 1 else 'are'} not in group "
                f"{chosen_group.name} ({', '.join(sorted(pool))})",
                "nodes",
            )
    else:
        root = _auto_root(list(known.values()), {pk: n for n, pk in known.items()})
        pool = _members(root)
        chosen_group = root
    whole = set(nodes) == set(pool)
    if not whole and not splittable(root.kind, _members(root), nodes):
        try:
            refuse_split(root)
            message = f"{root.name} cannot be split"
        except NotSplittable as exc:
            message = str(exc.errors[0][1])
        raise BookingError(message, "nodes")
    _check_status(pool, list(nodes))
    return Target(chosen_group, tuple(sorted((pool[n][0], n) for n in nodes)), whole)


def _check_status(pool: dict[str, tuple[int, str]], nodes: list[str]) -> None:
    errors = []
    for n in nodes:
        status = pool[n][1]
        if status == Spark.Status.RETIRED:
            errors.append(("nodes", f"{n} is retired"))
        elif status == Spark.Status.MAINTENANCE:
            errors.append(("nodes", f"{n} is in maintenance (its inventory status); a lab admin sets it active"))
    if errors:
        raise BookingError(errors)


# ---------------------------------------------------------------- clashes


def clashes(*, spark_ids: Iterable[int], start: datetime, end: datetime, exclude: int | None = None) -> list[Clash]:
    """Live bookings and maintenance windows holding any of these Sparks in
    [start, end). Two queries."""
    ids = list(spark_ids)
    held = Allocation.objects.filter(spark_id__in=ids, live=True, end__gt=start, start__lt=end)
    if exclude is not None:
        held = held.exclude(booking_id=exclude)
    out = [
        Clash("booking", ref, node, who, what, a, b)
        for ref, node, who, what, a, b in held.values_list(
            "booking_id", "spark__name", "booking__owner__username", "booking__purpose", "start", "end"
        )
    ]
    through = MaintenanceWindow.sparks.through.objects.filter(
        spark_id__in=ids, maintenancewindow__start__lt=end, maintenancewindow__end__gt=start
    )
    out += [
        Clash("maintenance", ref, node, who or "a lab admin", what, a, b)
        for ref, node, who, what, a, b in through.values_list(
            "maintenancewindow_id",
            "spark__name",
            "maintenancewindow__created_by__username",
            "maintenancewindow__reason",
            "maintenancewindow__start",
            "maintenancewindow__end",
        )
    ]
    return out


def under_maintenance(*, spark_ids: Iterable[int], start: datetime, end: datetime) -> dict[int, MaintenanceWindow]:
    """Spark id -> a maintenance window overlapping [start, end)."""
    through = MaintenanceWindow.sparks.through.objects.select_related("maintenancewindow").filter(
        spark_id__in=list(spark_ids), maintenancewindow__start__lt=end, maintenancewindow__end__gt=start
    )
    return {row.spark_id: row.maintenancewindow for row in through}


# ---------------------------------------------------------------- bookings


def _with_nodes(qs: QuerySet[Booking]) -> QuerySet[Booking]:
    return qs.select_related("owner", "group").prefetch_related(
        Prefetch("allocations", queryset=Allocation.objects.select_related("spark").order_by("spark__name")),
        "maintenance_windows",
    )


def booking_get(booking_id: int) -> Booking:
    booking = _with_nodes(Booking.objects.filter(pk=booking_id)).first() if isinstance(booking_id, int) else None
    if booking is None:
        raise NotFound(f"no booking with id {booking_id}", "id")
    return booking


def maintenance_get(window_id: int) -> MaintenanceWindow:
    window = MaintenanceWindow.objects.filter(pk=window_id).first()
    if window is None:
        raise NotFound(f"no maintenance window with id {window_id}", "id")
    return window


def bookings_list(
    *,
    start: datetime | None = None,
    end: datetime | None = None,
    node: str = "",
    group: Any = None,
    owner: str = "",
    statuses: Iterable[str] = (),
) -> QuerySet[Booking]:
    qs = Booking.objects.all()
    if start is not None:
        qs = qs.filter(end__gt=start)
    if end is not None:
        qs = qs.filter(start__lt=end)
    if node:
        qs = qs.filter(pk__in=Allocation.objects.filter(spark__name=node).values("booking_id"))
    if group not in (None, ""):
        members = NodeGroupMember.objects.filter(group=group_find(group)).values("spark_id")
        qs = qs.filter(pk__in=Allocation.objects.filter(spark_id__in=members).values("booking_id"))
    if owner:
        qs = qs.filter(owner__username=owner)
    if statuses := list(statuses):
        qs = qs.filter(status__in=statuses)
    return _with_nodes(qs.order_by("start", "id"))


@dataclass(frozen=True)
class GroupBookings:
    group: NodeGroup
    current: list[Booking]
    upcoming: list[Booking]


def group_bookings(*, group: NodeGroup, now: datetime, limit: int = 5) -> GroupBookings:
    """Who holds (any node of) this group now, and the next bookings."""
    members = NodeGroupMember.objects.filter(group=group).values("spark_id")
    qs = _with_nodes(
        Booking.objects.filter(
            status__in=LIVE,
            end__gt=now,
            pk__in=Allocation.objects.filter(spark_id__in=members, live=True).values("booking_id"),
        ).order_by("start", "id")
    )
    rows = list(qs[: limit + 20])
    current = [b for b in rows if b.start <= now]
    return GroupBookings(group, current, [b for b in rows if b.start > now][:limit])


def active_count(*, user: User, now: datetime) -> int:
    return Booking.objects.filter(owner=user, status__in=LIVE, end__gt=now).count()


def may_start_run(user: Visitor | None, group: NodeGroup) -> tuple[bool, str]:
    """Whether ``user`` may run a command on ``group`` now (a benchmark, a fabric
    verification), and why not: lab admins always; members only on a group
    booked for them now."""
    if is_admin(user):
        return True, ""
    if not can_book(user):
        return False, "starting a run needs the member or lab admin role"
    spark_ids = list(group.members.values_list("spark_id", flat=True))
    if user_holds_nodes(user, spark_ids, timezone.now()):
        return True, ""
    return False, f"book {group.name} first: a member starts runs only on a group booked for them now"


def user_holds_nodes(user: Visitor | None, spark_ids: Iterable[int], at: datetime) -> bool:
    """True when ``user`` holds a booked or active booking covering every
    one of these Sparks at ``at`` (several bookings together may cover them)."""
    wanted = set(spark_ids)
    if not wanted or user is None or not user.pk:
        return False
    held = Allocation.objects.filter(
        booking__owner_id=user.pk,
        booking__status__in=LIVE,
        live=True,
        spark_id__in=wanted,
        start__lte=at,
        end__gt=at,
    ).values_list("spark_id", flat=True)
    return set(held) == wanted


def holdings_at(*, nodes: Iterable[str], at: datetime) -> list[Holding]:
    rows = Allocation.objects.filter(
        spark__name__in=list(nodes),
        live=True,
        booking__status__in=LIVE,
        start__lte=at,
        end__gt=at,
    ).values_list("spark__name", "booking__owner__username", "booking_id")
    return [Holding(node, owner, ref) for node, owner, ref in rows]


def maintenance_list(*, since: datetime) -> QuerySet[MaintenanceWindow]:
    return (
        MaintenanceWindow.objects.filter(end__gt=since)
        .select_related("created_by", "group")
        .prefetch_related("sparks", Prefetch("bookings", queryset=Booking.objects.select_related("owner")))
    )


def bookable_groups() -> list[NodeGroup]:
    """Live groups with at least one Spark, auto groups first then their sub-groups."""
    rows = NodeGroup.objects.filter(retired_at=None).filter(~Q(members=None)).select_related("parent").distinct()
    return sorted(rows, key=lambda g: ((g.parent.name if g.parent else g.name), g.parent_id is not None, g.name))


def group_options() -> list[tuple[NodeGroup, str]]:
    """The bookable groups, each with the words marking its down Sparks ("" when none is down)."""
    down = down_in_groups()
    return [(g, down_mark(down.get(g.pk, ()))) for g in bookable_groups()]


# ---------------------------------------------------------------- timeline


@dataclass(frozen=True)
class TimelineData:
    rows: list[tuple[int, str, str, str]]  # spark id, name, group name, inventory status
    bookings: list[tuple[Any, ...]]  # id, start, end, owner id, owner, purpose, status, group name
    windows: list[tuple[Any, ...]]  # maintenance id, start, end, reason
    held: dict[int, list[int]]  # booking or maintenance window id -> Spark ids (windows under -id)
    flagged: set[int]  # bookings that maintenance overlaps


def timeline_data(*, start: datetime, end: datetime, group: NodeGroup | None = None) -> TimelineData:
    """Everything the timeline draws, in seven queries whatever the fleet's
    size. Times are read once per booking, not per Spark: converting
    datetimes is most of the cost of a month of a big fleet."""
    auto = dict(
        NodeGroupMember.objects.filter(group__auto=True, group__retired_at=None).values_list("spark_id", "group__name")
    )
    sparks = Spark.objects.exclude(status=Spark.Status.RETIRED)
    if group is not None:
        sparks = sparks.filter(group_memberships__group=group)
    rows = [
        (pk, name, auto.get(pk, "(no group)"), status)
        for pk, name, status in sparks.values_list("id", "name", "status")
    ]
    rows.sort(key=lambda r: (r[2] == "(no group)", r[2], r[1]))
    ids = [r[0] for r in rows]
    held_rows = Allocation.objects.filter(live=True, start__lt=end, end__gt=start)
    windows_through = MaintenanceWindow.sparks.through.objects.filter(
        maintenancewindow__start__lt=end, maintenancewindow__end__gt=start
    )
    if group is not None:
        held_rows = held_rows.filter(spark_id__in=ids)
        windows_through = windows_through.filter(spark_id__in=ids)
    held: dict[int, list[int]] = {}
    for spark, ref in held_rows.values_list("spark_id", "booking_id"):
        held.setdefault(ref, []).append(spark)
    for spark, ref in windows_through.values_list("spark_id", "maintenancewindow_id"):
        held.setdefault(-ref, []).append(spark)
    # The same window again rather than "id IN (thousands of ids)", which costs more to build than to run.
    bookings = [
        b
        for b in Booking.objects.filter(start__lt=end, end__gt=start)
        .exclude(status=Booking.Status.CANCELLED)
        .values_list("id", "start", "end", "owner_id", "owner__username", "purpose", "status", "group_name")
        if b[0] in held
    ]
    windows = [
        m
        for m in MaintenanceWindow.objects.filter(start__lt=end, end__gt=start).values_list(
            "id", "start", "end", "reason"
        )
        if -m[0] in held
    ]
    flagged = set(
        MaintenanceWindow.bookings.through.objects.filter(booking__start__lt=end, booking__end__gt=start).values_list(
            "booking_id", flat=True
        )
    )
    return TimelineData(rows, bookings, windows, held, flagged)


def saved_plan_ref(pk: Any, path: str = "saved_plan") -> SavedPlan:
    """The plan kept on the plan page that a booking names (placement's
    ``saved_plan_get``); a plan that does not exist is bad input naming ``path``."""
    try:
        return saved_plan_get(pk, path)
    except NotFound as exc:
        raise BookingError(exc.text, path) from None
