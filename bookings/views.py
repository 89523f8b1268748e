"""Booking pages: the timeline, my bookings, the booking form with its
live availability check (htmx), a booking's page with cancel / extend /
shorten, maintenance windows, a group's holders. Thin: parse, call one
service or selector, render. Times are shown in the person's zone."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from functools import wraps
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.decorators import admin_required, booker_required
from core.actor import Actor
from core.errors import NotFound
from core.roles import is_admin
from core.types import AuthedRequest

from . import feeds, selectors, services
from .availability import availability_check
from .errors import BookingConflict, BookingError, NeedsConfirmation, NotAllowed
from .forms import booking_request, local_input, maintenance_request, node_picker, read_local
from .pages import timeline_context


def in_user_tz(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Render the page in the person's time zone (their preference, else TIME_ZONE)."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        with timezone.override(selectors.user_tz(request.user)):
            return view(request, *args, **kwargs)

    return wrapped


def _quarter(now: datetime) -> datetime:
    base = now.replace(second=0, microsecond=0)
    return base + timedelta(minutes=(15 - base.minute % 15) % 15 or 15)


# ---------------------------------------------------------------- timeline and lists


@require_GET
@in_user_tz
def timeline(request: HttpRequest) -> HttpResponse:
    return render(request, "bookings/timeline.html", timeline_context(request))


@require_GET
@in_user_tz
def mine(request: AuthedRequest) -> HttpResponse:
    now = timezone.now()
    rows = list(selectors.bookings_list(start=now - timedelta(days=30), owner=request.user.get_username()))
    current = [b for b in rows if b.state in ("booked", "active")]
    past = [b for b in reversed(rows) if b.state not in ("booked", "active")]
    return render(
        request,
        "bookings/mine.html",
        {
            "current": current,
            "past": past[:30],
            "feeds": feeds.feed_urls(request, request.user),
            "tz": selectors.user_tz(request.user).key,
            "zones": _zones(),
        },
    )


def _zones() -> list[str]:
    from zoneinfo import available_timezones

    return sorted(z for z in available_timezones() if "/" in z and not z.startswith(("Etc/", "SystemV/")))


@require_GET
@in_user_tz
def detail(request: HttpRequest, booking_id: int) -> HttpResponse:
    booking = selectors.booking_get(booking_id)
    may = booking.owner_id == request.user.pk or is_admin(request.user)
    return render(
        request,
        "bookings/detail.html",
        {
            "b": booking,
            "may_change": may and booking.state in ("booked", "active"),
            "end_input": local_input(booking.end, selectors.user_tz(request.user)),
            "start_input": local_input(booking.start, selectors.user_tz(request.user)),
            "events": booking.events.all(),
        },
    )


@require_GET
@in_user_tz
def group_page(request: AuthedRequest, group_id: int) -> HttpResponse:
    try:
        group = selectors.group_find(group_id)
    except BookingError as exc:
        raise NotFound(exc.text, "group_id") from None
    urls = feeds.feed_urls(request, request.user)
    return render(
        request,
        "bookings/group.html",
        {
            "group_bookings": selectors.group_bookings(group=group, now=timezone.now()),
            "group_feed": urls["group"].replace("GROUP-ID", str(group.pk)) if urls else None,
        },
    )


# ---------------------------------------------------------------- booking form


def field_errors(errors: list[tuple[str, str]]) -> dict[str, list[str]]:
    """Messages by form field: ``nodes[2]`` belongs to ``nodes``; unknown paths to ``all``."""
    out: dict[str, list[str]] = {}
    for path, message in errors:
        name = path.split("[")[0].split(".")[0]
        out.setdefault(name if name in FIELDS else "all", []).append(message)
    return out


FIELDS = ("group", "nodes", "start", "end", "purpose", "plan", "saved_plan")


def _form_context(request: HttpRequest, req: Any, tz: Any) -> dict[str, Any]:
    picker = node_picker(req.group, None if req.group_changed else req.nodes, req.start, req.end, tz)
    saved_plan = _saved_plan(req)  # first: a bad reference is a field error below
    ctx: dict[str, Any] = {
        "req": req,
        "picker": picker,
        "groups": selectors.bookable_groups(),
        "group_options": selectors.group_options(),
        "tz": tz.key,
        "errors": field_errors(req.errors),
        "check": None,
        "warnings": [],
        "saved_plan": saved_plan,
    }
    if req.group:
        ctx["check"] = availability_check(
            user=request.user, group=req.group, nodes=req.nodes, start=req.start, end=req.end
        )
        ctx["warnings"] = ctx["check"].warnings
    return _blocked(ctx)


def _blocked(ctx: dict[str, Any]) -> dict[str, Any]:
    """``blocked``: something no confirmation can lift (a clash, the limit, a bad
    field), so unhealthy Sparks are then only mentioned, never offered as "Book anyway"."""
    check = ctx.get("check")
    ctx["blocked"] = bool(
        ctx.get("conflict")
        or any(ctx["errors"].values())
        or (check is not None and (check.clashes or check.limit or check.errors))
    )
    return ctx


def _saved_plan(req: Any) -> Any:
    """The plan kept on the plan page that this booking is for, or None; a
    reference to no plan becomes a field error."""
    if not req.saved_plan:
        return None
    try:
        return selectors.saved_plan_ref(req.saved_plan)
    except BookingError as exc:
        req.errors.extend(exc.errors)
        return None


@require_http_methods(["GET", "POST"])
@booker_required
@in_user_tz
def new(request: HttpRequest) -> HttpResponse:
    tz = selectors.user_tz(request.user)
    if request.method == "GET":
        data = request.GET.copy()
        start = _quarter(timezone.now())
        data.setdefault("start", local_input(start, tz))
        data.setdefault("end", local_input(start + timedelta(hours=2), tz))
        data["shown_group"] = data.get("group", "")
        req = booking_request(data, tz)
        req.errors = []
        return render(request, "bookings/form.html", _form_context(request, req, tz))
    req = booking_request(request.POST, tz)
    # The availability line stays under a refused form: it says what to change.
    ctx = {**_form_context(request, req, tz), "refused": True}
    if not req.errors:
        try:
            booking = services.booking_create(
                actor=Actor.from_request(request, "page"),
                group=req.group or None,
                nodes=req.nodes,
                start=req.start,
                end=req.end,
                purpose=req.purpose,
                plan=req.plan or None,
                confirm=req.confirm,
                saved_plan=ctx["saved_plan"],
            )
        except BookingError as exc:
            ctx["errors"] = field_errors(exc.errors)
        except NeedsConfirmation as exc:
            ctx["warnings"] = exc.warnings
            ctx["unconfirmed"] = True  # the form says it was not booked, and why
        except BookingConflict as exc:
            if not (ctx["check"] is not None and ctx["check"].clashes):  # taken since the check: say so here
                ctx["conflict"] = exc.message(tz)
                ctx["clashes"] = [c.message(tz) for c in exc.clashes]
        except NotAllowed as exc:
            ctx["errors"] = {"all": [str(exc)]}
        else:
            messages.success(request, f"Booked {booking.group_name} for {booking.purpose}.")
            return redirect("bookings:detail", booking.pk)
    return render(request, "bookings/form.html", _blocked(ctx), status=400)


@require_POST
@booker_required
@in_user_tz
def check(request: HttpRequest) -> HttpResponse:
    """The live check under the booking form (htmx); redraws the node boxes
    out of band when the group changed."""
    tz = selectors.user_tz(request.user)
    req = booking_request(request.POST, tz)
    ctx = _form_context(request, req, tz)
    ctx["oob_nodes"] = req.group_changed
    return render(request, "bookings/_check.html", ctx)


# ---------------------------------------------------------------- changes


def _apply(request: HttpRequest, booking_id: int, change: Callable[[Any], Any], done: str) -> HttpResponse:
    booking = selectors.booking_get(booking_id)
    tz = selectors.user_tz(request.user)
    try:
        change(booking)
    except BookingError as exc:
        messages.error(request, "Not changed: " + "; ".join(m for _, m in exc.errors))
    except BookingConflict as exc:
        messages.error(request, "Not changed: " + exc.message(tz))
    except NotAllowed as exc:
        return render(request, "403.html", {"need": str(exc)}, status=403)
    else:
        messages.success(request, done)
    return redirect("bookings:detail", booking_id)


@require_POST
@booker_required
def cancel(request: HttpRequest, booking_id: int) -> HttpResponse:
    actor = Actor.from_request(request, "page")
    return _apply(
        request,
        booking_id,
        lambda b: services.booking_cancel(actor=actor, booking=b),
        "Booking cancelled." if request.POST.get("what") != "release" else "Sparks released.",
    )


@require_POST
@booker_required
def resize(request: HttpRequest, booking_id: int) -> HttpResponse:
    tz = selectors.user_tz(request.user)

    def change(b: Any) -> Any:
        minutes = request.POST.get("minutes", "")
        if minutes.lstrip("-").isdigit():
            return services.booking_update(
                actor=Actor.from_request(request, "page"), booking=b, end=b.end + timedelta(minutes=int(minutes))
            )
        start, start_problem = read_local(request.POST.get("start", ""), tz)
        end, end_problem = read_local(request.POST.get("end", ""), tz)
        if start_problem or end_problem:
            raise BookingError([(n, p) for n, p in (("start", start_problem), ("end", end_problem)) if p])
        if end is None:
            raise BookingError("give the new end as a date and time", "end")
        return services.booking_update(
            actor=Actor.from_request(request, "page"),
            booking=b,
            end=end,
            start=start if start and start != b.start else None,
        )

    return _apply(request, booking_id, change, "Booking changed.")


# ---------------------------------------------------------------- maintenance


@require_http_methods(["GET", "POST"])
@in_user_tz
def maintenance(request: HttpRequest) -> HttpResponse:
    tz = selectors.user_tz(request.user)
    ctx: dict[str, Any] = {"groups": selectors.bookable_groups(), "errors": [], "form": request.POST, "tz_name": tz.key}
    if request.method == "POST":
        if not is_admin(request.user):
            return render(request, "403.html", {"need": "the lab admin role"}, status=403)
        req = maintenance_request(request.POST, tz)
        try:
            if req.errors:
                raise BookingError(req.errors)
            window = services.maintenance_create(
                actor=Actor.from_request(request, "page"),
                group=req.group or None,
                nodes=req.nodes or None,
                start=req.start,
                end=req.end,
                reason=req.reason,
            )
        except BookingError as exc:
            ctx["errors"] = exc.errors
        else:
            hit = window.bookings.count()
            messages.success(
                request, f"Maintenance planned; {hit} booking{'s' if hit != 1 else ''} marked and their owners emailed."
            )
            return redirect("bookings:maintenance")
    ctx["windows"] = selectors.maintenance_list(since=timezone.now())
    return render(request, "bookings/maintenance.html", ctx, status=400 if ctx["errors"] else 200)


@require_POST
@admin_required
def maintenance_delete(request: HttpRequest, window_id: int) -> HttpResponse:
    window = selectors.maintenance_get(window_id)
    services.maintenance_delete(actor=Actor.from_request(request, "page"), window=window)
    messages.success(request, "Maintenance window lifted.")
    return redirect("bookings:maintenance")


# ---------------------------------------------------------------- settings


@require_POST
def feed_token(request: AuthedRequest) -> HttpResponse:
    if request.POST.get("action") == "revoke":
        feeds.feed_token_revoke(user=request.user)
        messages.success(request, "Calendar links revoked: subscribed calendars stop updating.")
    else:
        feeds.feed_token_rotate(user=request.user)
        messages.success(request, "New calendar links made; any older links no longer work.")
    return redirect("bookings:mine")


@require_POST
def time_zone(request: AuthedRequest) -> HttpResponse:
    try:
        name = services.preference_set(user=request.user, time_zone=request.POST.get("time_zone"))
    except BookingError as exc:
        messages.error(request, exc.errors[0][1])
    else:
        messages.success(request, f"Times are now shown in {name}.")
    back = request.POST.get("next", "")
    # Only our own pages: a posted "next" must not send people elsewhere.
    return redirect(back if back.startswith("/bookings/") and "//" not in back else "bookings:mine")
