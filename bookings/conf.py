"""Booking limits, read from Django settings first (tests override them
there) and the environment second, with the defaults the issue names."""

from __future__ import annotations

from datetime import timedelta

from core.config import read_at_start, setting, whole


@read_at_start
def max_hours() -> int:
    """Longest booking (FLEET_BOOKING_MAX_HOURS, default two weeks)."""
    return setting("FLEET_BOOKING_MAX_HOURS", 336, whole(1))


@read_at_start
def max_ahead_days() -> int:
    """How far ahead a booking may start (FLEET_BOOKING_MAX_AHEAD_DAYS)."""
    return setting("FLEET_BOOKING_MAX_AHEAD_DAYS", 90, whole(0))


@read_at_start
def max_active_per_user() -> int:
    """Upcoming or running bookings one person may hold at once."""
    return setting("FLEET_BOOKING_MAX_ACTIVE_PER_USER", 5, whole(1))


@read_at_start
def remind_before() -> timedelta:
    """When the owner is told their booking is about to end (once)."""
    return timedelta(minutes=setting("FLEET_BOOKING_REMIND_MINUTES", 30, whole(0)))


# A start a few minutes in the past is "now": a form filled at 10:00 and sent
# at 10:02 must not be refused as a window in the past.
START_GRACE = timedelta(minutes=5)
