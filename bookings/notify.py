"""Emails to booking owners, through Django's email backend: maintenance
planned over their booking, the end coming near, a lab admin cancelling
for them. Times are written in the owner's time zone. People without an
email address are skipped (and the booking history says so)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from core.hooks import Hook
from notifications import services as outbox
from notifications import tasks as delivery

from .models import Booking, BookingEvent, MaintenanceWindow
from .rules import fmt_span
from .selectors import user_tz

# Lines a higher app adds to a booking's end reminder (serving: what it serves there, stopped at the end).
ENDING_EXTRAS: Hook[Callable[[Booking], list[str]]] = Hook("bookings.ending_extras")


def _send(booking: Booking, subject: str, body: str, action: str) -> bool:
    owner = booking.owner
    if not owner.email:
        BookingEvent.objects.create(
            booking=booking, source="task", action=action, detail=f"not emailed: {owner.username} has no email address"
        )
        return False
    # Queued, not sent here: the request (or task) never waits for the mail
    # server, and a server that is down is retried by the delivery task.
    mail = outbox.email_queue(to=owner.email, subject=subject, body=body)
    delivery.queue([(mail.pk, mail.channel)])
    BookingEvent.objects.create(booking=booking, source="task", action=action, detail=f"email queued for {owner.email}")
    return True


def _nodes(booking: Booking) -> str:
    return ", ".join(a.spark.name for a in booking.allocations.all())


def maintenance_planned(window: MaintenanceWindow, bookings: Iterable[Booking]) -> int:
    sent = 0
    for booking in bookings:
        tz = user_tz(booking.owner)
        hit = sorted({s.name for s in window.sparks.all()} & {a.spark.name for a in booking.allocations.all()})
        body = (
            f"Hello {booking.owner.username},\n\n"
            f"A lab admin planned maintenance on {', '.join(hit)} {fmt_span(window.start, window.end, tz)}:\n"
            f"  {window.reason}\n\n"
            f"It overlaps your booking {booking.pk} ({booking.purpose}) of {booking.group_name} "
            f"{fmt_span(booking.start, booking.end, tz)}. Maintenance comes first: plan around it, "
            "or move your booking.\n"
        )
        sent += _send(booking, f"[Spark Fleet] Maintenance over your booking {booking.pk}", body, "notified")
    return sent


def ending_soon(booking: Booking) -> bool:
    tz = user_tz(booking.owner)
    body = (
        f"Hello {booking.owner.username},\n\n"
        f"Your booking {booking.pk} ({booking.purpose}) of {booking.group_name} ({_nodes(booking)}) ends at "
        f"{booking.end.astimezone(tz):%Y-%m-%d %H:%M %Z}.\n"
        "Save your work, or extend the booking on the Bookings page while the Sparks are free.\n"
    )
    extras = [line for entry in ENDING_EXTRAS for line in entry(booking)]
    if extras:
        body += "\n" + "\n".join(extras) + "\n"
    return _send(booking, f"[Spark Fleet] Booking {booking.pk} ends soon", body, "reminded")


def cables_removed(booking: Booking, cables: list[str], admin: str) -> bool:
    tz = user_tz(booking.owner)
    body = (
        f"Hello {booking.owner.username},\n\n"
        f"{admin} removed from the inventory {'a cable' if len(cables) == 1 else f'{len(cables)} cables'} of the "
        f"Sparks your booking {booking.pk} ({booking.purpose}) of {booking.group_name} holds "
        f"{fmt_span(booking.start, booking.end, tz)}:\n"
        + "".join(f"  {c}\n" for c in cables)
        + "\nIf the cable is really gone, the Sparks may no longer reach each other as planned: look at the "
        "group's page, or verify its fabric, before you run across them.\n"
    )
    return _send(booking, f"[Spark Fleet] A cable of your booking {booking.pk} was removed", body, "notified")


def cancelled_by_admin(booking: Booking, admin: str) -> bool:
    tz = user_tz(booking.owner)
    body = (
        f"Hello {booking.owner.username},\n\n"
        f"{admin} (lab admin) cancelled your booking {booking.pk} ({booking.purpose}) of {booking.group_name} "
        f"{fmt_span(booking.start, booking.end, tz)}.\n"
    )
    return _send(booking, f"[Spark Fleet] Booking {booking.pk} cancelled", body, "notified")
