"""The booking rules that need no database: is a time window acceptable,
may these nodes be booked apart from their group, what does a clash say,
what state is a booking in, and is a Spark busy without a booking.

Plain data in, plain data out; no Django import.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Literal

from core.validation import datetime_problem

Errors = list[tuple[str, str]]


def fmt_span(start: datetime, end: datetime, tz: tzinfo) -> str:
    """'from 2026-12-01 10:00 to 12:00 UTC' (the date repeated only when it changes)."""
    a, b = start.astimezone(tz), end.astimezone(tz)
    zone = b.tzname() or ""
    if a.date() == b.date():
        return f"from {a:%Y-%m-%d %H:%M} to {b:%H:%M} {zone}"
    return f"from {a:%Y-%m-%d %H:%M} to {b:%Y-%m-%d %H:%M} {zone}"


def _hours(delta: timedelta) -> str:
    hours = delta.total_seconds() / 3600
    return f"{hours:g} h" if hours < 48 else f"{hours:g} h ({hours / 24:.3g} days)"


def window_errors(
    start: datetime | None,
    end: datetime | None,
    *,
    now: datetime,
    max_hours: int,
    max_ahead_days: int,
    grace: timedelta = timedelta(minutes=5),
    started: bool = False,
) -> Errors:
    """Why a booking window [start, end) is refused; empty when acceptable.

    ``started``: the booking is already running, so its start may lie in the
    past (only its end is being moved).
    """
    errors: Errors = []
    for name, value in (("start", start), ("end", end)):
        if value is None:
            errors.append((name, f"give the {name} time"))
        elif value.tzinfo is None or value.utcoffset() is None:
            errors.append((name, f"{value.isoformat()} has no time zone: add Z or an offset such as +01:00"))
        elif datetime_problem(value):
            errors.append((name, f"{value.isoformat()}: {datetime_problem(value)}"))
    if errors or start is None or end is None:
        return errors
    # As instants: aware datetimes sharing a zone compare by wall clock.
    start, end, now = start.astimezone(UTC), end.astimezone(UTC), now.astimezone(UTC)
    if end == start:
        return [("end", "the window is empty: the end equals the start")]
    if end < start:
        return [("end", f"the end ({end.isoformat()}) is before the start ({start.isoformat()})")]
    if end - start > timedelta(hours=max_hours):
        errors.append(
            (
                "end",
                f"the window lasts {_hours(end - start)}; the longest booking is {max_hours} h "
                f"(FLEET_BOOKING_MAX_HOURS)",
            )
        )
    if end <= now:
        errors.append(("end", f"the window ended in the past ({end.isoformat()})"))
    elif not started and start < now - grace:
        errors.append(("start", f"the start ({start.isoformat()}) is in the past; start now or later"))
    if start > now + timedelta(days=max_ahead_days):
        errors.append(("start", f"the start is more than {max_ahead_days} days ahead (FLEET_BOOKING_MAX_AHEAD_DAYS)"))
    return errors


def splittable(kind: str, group_nodes: Iterable[str], chosen: Iterable[str]) -> bool:
    """A booking is a whole group, or any part of a switched group (every node
    has its own cable to the switch). A ring, chain or direct pair cannot be
    split: each node carries its neighbours' traffic."""
    whole, part = set(group_nodes), set(chosen)
    return bool(part) and part <= whole and (part == whole or kind == "switched")


Status = Literal["booked", "active", "finished", "cancelled"]


def effective_status(stored: str, start: datetime, end: datetime, now: datetime) -> Status:
    """The state by the clock, whatever the minute task has written so far."""
    if stored == "cancelled":
        return "cancelled"
    if stored == "finished" or now >= end:
        return "finished"
    return "active" if now >= start else "booked"


# ---------------------------------------------------------------- clashes


@dataclass(frozen=True)
class Clash:
    """Something already holding a node in the wanted window."""

    kind: Literal["booking", "maintenance"]
    ref: int  # booking or maintenance window id
    node: str
    who: str  # the booking's owner, or the admin who planned the maintenance
    what: str  # purpose or reason
    start: datetime
    end: datetime


@dataclass(frozen=True)
class ClashGroup:
    """The clashes of one booking (or maintenance window), all its nodes together."""

    kind: Literal["booking", "maintenance"]
    ref: int
    nodes: tuple[str, ...]
    who: str
    what: str
    start: datetime
    end: datetime
    overlap_start: datetime
    overlap_end: datetime

    def message(self, tz: tzinfo) -> str:
        nodes = ", ".join(self.nodes)
        verb = "is" if len(self.nodes) == 1 else "are"
        if self.kind == "maintenance":
            head = f"{nodes} {verb} under maintenance ({self.what}) {fmt_span(self.start, self.end, tz)}"
        else:
            head = (
                f"{nodes} {verb} held by {self.who} {fmt_span(self.start, self.end, tz)} "
                f"(booking {self.ref}: {self.what})"
            )
        return f"{head}; overlap {fmt_span(self.overlap_start, self.overlap_end, tz)}"


def group_clashes(clashes: Iterable[Clash], start: datetime, end: datetime) -> list[ClashGroup]:
    by_ref: dict[tuple[str, int], list[Clash]] = defaultdict(list)
    for clash in clashes:
        by_ref[(clash.kind, clash.ref)].append(clash)
    out = []
    for (_, _), items in by_ref.items():
        first = items[0]
        out.append(
            ClashGroup(
                first.kind,
                first.ref,
                tuple(sorted({c.node for c in items})),
                first.who,
                first.what,
                first.start,
                first.end,
                max(start, first.start),
                min(end, first.end),
            )
        )
    return sorted(out, key=lambda g: (g.start, g.kind, g.ref))


# ---------------------------------------------------------------- busy without a booking

BUSY_UNBOOKED = "busy-without-booking"
BUSY_OTHER_USER = "busy-by-other-user"


@dataclass(frozen=True)
class GpuProcess:
    node: str
    pid: int
    name: str
    user: str | None  # None: the poller could not tell


@dataclass(frozen=True)
class Holding:
    node: str
    owner: str
    booking: int


@dataclass(frozen=True)
class Busy:
    code: str
    node: str
    message: str


def _procs(procs: list[GpuProcess], limit: int = 3) -> str:
    shown = [f"{p.name} (pid {p.pid}{', ' + p.user if p.user else ''})" for p in procs[:limit]]
    more = len(procs) - limit
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def busy_findings(
    processes: Iterable[GpuProcess], holdings: Iterable[Holding], *, anonymous_users: Iterable[str] = ("root",)
) -> list[Busy]:
    """GPU work that no booking covers.

    ``holdings`` are the bookings holding each node now. A node with compute
    processes and no holding is busy without a booking. On a held node, a
    process whose owner is known, is not the holder, and is not one of the
    ``anonymous_users`` (containers often run as root, which says nothing
    about who started them) is somebody else's work. User names are compared
    without case.
    """
    anonymous = {u.lower() for u in anonymous_users}
    held: dict[str, Holding] = {h.node: h for h in holdings}
    by_node: dict[str, list[GpuProcess]] = defaultdict(list)
    for proc in processes:
        by_node[proc.node].append(proc)
    out: list[Busy] = []
    for node in sorted(by_node):
        procs = sorted(by_node[node], key=lambda p: p.pid)
        holding = held.get(node)
        if holding is None:
            count = f"{len(procs)} GPU compute process{'es' if len(procs) > 1 else ''}"
            out.append(
                Busy(
                    BUSY_UNBOOKED,
                    node,
                    f"{node} runs {count} ({_procs(procs)}) but nobody has booked it: "
                    "book it on the Bookings page, or stop the work.",
                )
            )
            continue
        strangers = [
            p for p in procs if p.user and p.user.lower() not in anonymous and p.user.lower() != holding.owner.lower()
        ]
        if strangers:
            users = ", ".join(sorted({p.user for p in strangers if p.user}))
            out.append(
                Busy(
                    BUSY_OTHER_USER,
                    node,
                    f"{node} is booked by {holding.owner} (booking {holding.booking}) but runs GPU work of "
                    f"{users}: {_procs(strangers)}; ask them to stop, or to book their own Sparks.",
                )
            )
    return out
