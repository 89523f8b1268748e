"""Calendar feeds: per-user feed tokens and the ``.ics`` views.

A calendar app cannot sign in, so the URL carries a token: the user id and
an HMAC (under SECRET_KEY) of that id and a random nonce stored in
``FeedToken``. The URL can be shown again at any time, the database alone
cannot forge it, and rotating or deleting the nonce revokes it.
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac
from django.views.decorators.http import require_GET

from accounts.throttle import wrong_secret
from core.config import site_host
from core.errors import NotFound, TooManyRequests
from core.roles import can_read
from core.validation import whole_number

from . import ical, selectors
from .errors import BookingError
from .models import Booking, BookingEvent, FeedToken

if TYPE_CHECKING:
    from django.contrib.auth.models import User

SALT = "bookings.feed"
PAST_DAYS = 30  # how far back a feed reaches; calendars keep older events themselves


def _mac(user_id: int, nonce: str) -> str:
    return salted_hmac(SALT, f"{user_id}:{nonce}", secret=settings.SECRET_KEY, algorithm="sha256").hexdigest()[:40]


def feed_token(user: User) -> str | None:
    row = FeedToken.objects.filter(user_id=user.pk).first()
    return f"{user.pk}-{_mac(user.pk, row.nonce)}" if row else None


def feed_token_rotate(*, user: User) -> str:
    FeedToken.objects.update_or_create(user=user, defaults={"nonce": secrets.token_hex(16)})
    token = feed_token(user)
    assert token is not None
    return token


def feed_token_revoke(*, user: User) -> bool:
    deleted, _ = FeedToken.objects.filter(user=user).delete()
    return deleted > 0


def feed_user(token: str) -> User | None:
    head, _, mac = token.partition("-")
    user_id = whole_number(head)
    if user_id is None or len(token) > 80:
        return None
    row = FeedToken.objects.select_related("user").filter(user_id=user_id).first()
    if row is None or not constant_time_compare(mac, _mac(row.user_id, row.nonce)) or not can_read(row.user):
        return None
    FeedToken.objects.filter(pk=row.pk).update(last_used_at=timezone.now())
    return row.user


def feed_urls(request: HttpRequest, user: User) -> dict[str, str] | None:
    token = feed_token(user)
    if token is None:
        return None
    mine = request.build_absolute_uri(reverse("feeds:mine", args=[token]))
    return {"mine": mine, "group": mine.replace("/mine.ics", "/groups/GROUP-ID.ics")}


# ---------------------------------------------------------------- views


def _events(bookings: list[Booking], request: HttpRequest) -> list[ical.Event]:
    host = site_host()  # FLEET_SITE_URL's: one UID per booking whatever Host the calendar asked with
    # changes after the booking was made (its history, less the "book" line), in one query
    changes = dict(
        BookingEvent.objects.filter(booking__in=bookings)
        .exclude(action="book")
        .values("booking")
        .annotate(n=Count("id"))
        .values_list("booking", "n")
    )
    out = []
    for b in bookings:
        nodes = ", ".join(a.spark.name for a in b.allocations.all())
        maintenance = [f"maintenance {m.pk}: {m.reason}" for m in b.maintenance_windows.all()]
        description = "\n".join(
            [
                f"Owner: {b.owner.username}",
                f"Nodes: {nodes}",
                f"Purpose: {b.purpose}",
                *([f"Plan: {b.plan}"] if b.plan else []),
                *maintenance,
            ]
        )
        out.append(
            ical.Event(
                uid=f"booking-{b.pk}@{host}",
                start=b.start,
                end=b.end,
                summary=f"{b.group_name}: {b.purpose} ({b.owner.username})",
                description=description,
                location=b.group_name,
                url=request.build_absolute_uri(reverse("bookings:detail", args=[b.pk])),
                cancelled=b.status == Booking.Status.CANCELLED,
                # Grows with every change, as SEQUENCE must: the seconds updated_at moved (what
                # calendars were sent so far, never to go down) plus the changes, so that a change
                # within a second of booking (a cancel) still moves it.
                sequence=max(0, int((b.updated_at - b.created_at).total_seconds())) + changes.get(b.pk, 0),
                modified=b.updated_at,
            )
        )
    return out


def _respond(request: HttpRequest, bookings: list[Booking], name: str) -> HttpResponse:
    body = ical.calendar(_events(bookings, request), name=name, stamp=timezone.now())
    response = HttpResponse(body, content_type="text/calendar; charset=utf-8")
    response["Content-Disposition"] = 'inline; filename="bookings.ics"'
    response["Cache-Control"] = "private, max-age=300"
    return response


def _window() -> dict[str, Any]:
    return {"start": timezone.now() - timedelta(days=PAST_DAYS)}


def _feed_user_or_404(request: HttpRequest, token: str) -> Any:
    """The token's user; a wrong token is counted against its address and
    answered 404, or 429 (with Retry-After) while wrong ones from there are paused."""
    user = feed_user(token)
    if user is None:
        wrong_secret(request, "feed", token)
        raise NotFound("no such feed", "token")
    return user


def _paused(exc: TooManyRequests) -> HttpResponse:
    response = HttpResponse(exc.text + "\n", status=429, content_type="text/plain; charset=utf-8")
    response["Retry-After"] = str(exc.retry_after)
    return response


@require_GET
def mine(request: HttpRequest, token: str) -> HttpResponse:
    try:
        user = _feed_user_or_404(request, token)
    except TooManyRequests as exc:
        return _paused(exc)
    rows = list(selectors.bookings_list(**_window(), owner=user.get_username()))
    return _respond(request, rows, f"Spark Fleet: bookings of {user.get_username()}")


@require_GET
def group(request: HttpRequest, token: str, group_id: int) -> HttpResponse:
    try:
        _feed_user_or_404(request, token)
    except TooManyRequests as exc:
        return _paused(exc)
    try:
        row = selectors.group_find(group_id)
    except BookingError:
        raise NotFound("no such group", "group_id") from None
    # Cancelled bookings stay in the feed as STATUS:CANCELLED, so calendars drop them.
    rows = list(selectors.bookings_list(**_window(), group=row.pk))
    return _respond(request, rows, f"Spark Fleet: {row.name}")
