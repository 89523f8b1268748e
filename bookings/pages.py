"""What the timeline page shows: the window (a week or a month in the
person's zone, with previous / next / today), the rows and bars handed to
``timeline.render``, and who holds what right now."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode
from django.utils.safestring import mark_safe

from . import selectors
from .errors import BookingError
from .rules import effective_status, fmt_span
from .timeline import Item, Row, Window, render

VIEWS = ("week", "month")
# The timeline shows days in this span; a date outside it is shown as its nearest end.
FIRST_DAY, LAST_DAY = date(2000, 1, 3), date(2099, 12, 28)


def _day(value: str, today: date) -> date:
    try:
        day = date.fromisoformat(value)
    except ValueError:
        return today
    return min(max(day, FIRST_DAY), LAST_DAY)


def window_of(view: str, day: date, tz: Any) -> tuple[datetime, datetime, date, date]:
    """[start, end) of the week (from Monday) or month holding ``day``, plus
    a day in the previous and the next window.

    A month is shown as whole weeks, Monday to Sunday, from the week of its
    first day to the week of its last, and always at least a week past
    ``day``: on 30 November the first days of December are in view, so a
    booking on 1 December is never hidden by the month's edge."""
    if view == "month":
        month = day.replace(day=1)
        nxt = (month + timedelta(days=32)).replace(day=1)
        prev = (month - timedelta(days=1)).replace(day=1)
        first = month - timedelta(days=month.weekday())
        last = nxt + timedelta(days=(7 - nxt.weekday()) % 7)  # the Monday on or after the next month's first
        if (last - day).days < 7:
            last += timedelta(days=7)
    else:
        first = day - timedelta(days=day.weekday())
        nxt, prev = first + timedelta(days=7), first - timedelta(days=7)
        last = nxt
    start = datetime(first.year, first.month, first.day, tzinfo=tz)
    end = datetime(last.year, last.month, last.day, tzinfo=tz)
    return start, end, prev, nxt


def timeline_context(request: HttpRequest) -> dict[str, Any]:
    tz = selectors.user_tz(request.user)
    now = timezone.now()
    today = now.astimezone(tz).date()
    view = request.GET.get("view", "week") if request.GET.get("view") in VIEWS else "week"
    day = _day(request.GET.get("date", ""), today)
    start, end, prev, nxt = window_of(view, day, tz)
    group = None
    if request.GET.get("group"):
        try:
            group = selectors.group_find(request.GET["group"])
        except BookingError:
            group = None
    data = selectors.timeline_data(start=start, end=end, group=group)
    rows = [Row(pk, name, gname, "" if status == "active" else status) for pk, name, gname, status in data.rows]
    names = {pk: name for pk, name, _, _ in data.rows}
    items: list[Item] = []
    holders: list[dict[str, Any]] = []
    detail = reverse("bookings:detail", args=[0])[:-2]  # "/bookings/": one reverse(), not one per bar
    for ref, a, b, owner_id, owner, purpose, status, gname in data.bookings:
        state = effective_status(status, a, b, now)
        mine = "mine" if owner_id == request.user.pk else "other"
        flagged = " flagged" if ref in data.flagged else ""
        title = f"Booking {ref} · {owner} · {purpose}\n{gname}\n{fmt_span(a, b, tz)}\n{state}" + (
            "\nMaintenance overlaps this booking" if flagged else ""
        )
        items.append(
            Item(
                tuple(data.held[ref]),
                ref,
                "booking",
                a,
                b,
                f"{owner} · {purpose}",
                title,
                f"bk {mine} {state}{flagged}",
                f"{detail}{ref}/",
            )
        )
        if a <= now < b:
            holders.append(
                {
                    "ref": ref,
                    "owner": owner,
                    "purpose": purpose,
                    "group": gname,
                    "end": b,
                    "nodes": sorted(names.get(s, "?") for s in data.held[ref]),
                }
            )
    maintenance = reverse("bookings:maintenance")
    for ref, a, b, reason in data.windows:
        items.append(
            Item(
                tuple(data.held[-ref]),
                ref,
                "maintenance",
                a,
                b,
                f"maintenance: {reason}",
                f"Maintenance {ref}: {reason}\n{fmt_span(a, b, tz)}",
                "mt",
                maintenance,
            )
        )
    month = day.replace(day=1) if view == "month" else None
    svg = render(rows, items, Window(start, end, tz, now, month=month))

    def link(**change: Any) -> str:
        params = {"view": view, "date": day.isoformat(), **({"group": group.pk} if group else {}), **change}
        return "?" + urlencode(params)

    return {
        "svg": mark_safe(svg),  # noqa: S308 - timeline.render escapes every text it writes
        "view": view,
        "start": start,
        "last": end - timedelta(seconds=1),
        "tz": tz.key,
        "group": group,
        "shown_month": month,
        "day": day,
        "groups": selectors.bookable_groups(),
        "rows": len(rows),
        "bookings": len({i.ref for i in items if i.kind == "booking"}),
        "holders": sorted(holders, key=lambda h: (h["group"], h["nodes"])),
        "prev": link(date=prev.isoformat()),
        "next": link(date=nxt.isoformat()),
        "today": link(date=today.isoformat()),
        "week": link(view="week"),
        "month": link(view="month"),
    }
