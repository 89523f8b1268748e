"""Bookings of node groups, one allocation row per booked
Spark, maintenance windows, the booking history, calendar feed tokens and
each person's time zone.

No Spark is ever held twice at the same time. On PostgreSQL the database
guarantees it: migration 0002 adds an exclusion constraint on
``Allocation`` (same Spark, overlapping ``[start, end)``, while ``live``).
On SQLite ``bookings.services`` checks and inserts inside one
``BEGIN IMMEDIATE`` transaction, which holds the database's write lock.
Times are stored in UTC.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone

from inventory.models import NodeGroup, Spark
from placement.models import SavedPlan

from .rules import effective_status


class Booking(models.Model):
    class Status(models.TextChoices):
        BOOKED = "booked", "Booked"
        ACTIVE = "active", "Active"
        FINISHED = "finished", "Finished"
        CANCELLED = "cancelled", "Cancelled"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="bookings")
    # The group named when booking; the nodes themselves are the allocations.
    group = models.ForeignKey(NodeGroup, on_delete=models.SET_NULL, null=True, blank=True, related_name="bookings")
    group_name = models.CharField(max_length=63)
    whole_group = models.BooleanField(default=True)
    start = models.DateTimeField()
    end = models.DateTimeField()
    purpose = models.CharField(max_length=200)
    plan = models.JSONField(null=True, blank=True, help_text="The placement plan to run: a reference or a summary")
    # The plan chosen on the plan page ("Book this group for this plan"): a real
    # reference, down a floor (bookings stand on placement).
    saved_plan = models.ForeignKey(SavedPlan, on_delete=models.SET_NULL, null=True, blank=True, related_name="bookings")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.BOOKED)
    reminded_at = models.DateTimeField(null=True, blank=True, help_text="When the end reminder went out")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["start", "id"]
        constraints = [models.CheckConstraint(name="booking_end_after_start", condition=Q(end__gt=F("start")))]
        indexes = [
            models.Index(fields=["status", "end"], name="booking_status_end"),
            models.Index(fields=["owner", "status"], name="booking_owner_status"),
        ]

    def __str__(self) -> str:
        return f"booking {self.pk} of {self.group_name}"

    @property
    def state(self) -> str:
        """The status by the clock (the minute task may not have run yet)."""
        return effective_status(self.status, self.start, self.end, timezone.now())


class Allocation(models.Model):
    """One booked Spark over the booking's period: the row the database keeps
    from overlapping. ``live`` is False once the booking is cancelled."""

    booking = models.ForeignKey(Booking, on_delete=models.CASCADE, related_name="allocations")
    spark = models.ForeignKey(Spark, on_delete=models.CASCADE, related_name="allocations")
    start = models.DateTimeField()
    end = models.DateTimeField()
    live = models.BooleanField(default=True)

    class Meta:
        ordering = ["spark_id", "start"]
        constraints = [
            models.UniqueConstraint(fields=["booking", "spark"], name="allocation_once_per_booking"),
            models.CheckConstraint(name="allocation_end_after_start", condition=Q(end__gt=F("start"))),
        ]
        indexes = [
            # "Is this Spark held between S and E?" scans a node's future only.
            models.Index(fields=["spark", "end"], name="allocation_spark_end"),
            models.Index(fields=["end", "start"], name="allocation_window"),
        ]

    def __str__(self) -> str:
        return f"{self.spark_id} in booking {self.booking_id}"


class MaintenanceWindow(models.Model):
    """Admins take Sparks out of service; a window may overlap bookings, which
    are then marked (``bookings``) and their owners told."""

    start = models.DateTimeField()
    end = models.DateTimeField()
    reason = models.CharField(max_length=200)
    group = models.ForeignKey(NodeGroup, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    sparks = models.ManyToManyField(Spark, related_name="maintenance_windows")
    bookings = models.ManyToManyField(Booking, blank=True, related_name="maintenance_windows")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["start", "id"]
        constraints = [models.CheckConstraint(name="maintenance_end_after_start", condition=Q(end__gt=F("start")))]
        indexes = [models.Index(fields=["end", "start"], name="maintenance_window")]

    def __str__(self) -> str:
        return f"maintenance {self.pk}: {self.reason}"


class BookingEvent(models.Model):
    """Who did what to a booking, and through which door (page, api, task)."""

    booking = models.ForeignKey(Booking, on_delete=models.CASCADE, related_name="events")
    at = models.DateTimeField(auto_now_add=True)
    username = models.CharField(max_length=150, blank=True)
    source = models.CharField(max_length=10)
    action = models.CharField(max_length=20)
    detail = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["at", "id"]

    def __str__(self) -> str:
        return f"{self.action} booking {self.booking_id}"


class FeedToken(models.Model):
    """A calendar feed secret. The URL token is an HMAC of the user id and
    this random nonce under SECRET_KEY: the database alone cannot forge it,
    and a new nonce (or deleting the row) revokes every old URL."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="feed_token")
    nonce = models.CharField(max_length=32)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"feed token of {self.user_id}"


class Preference(models.Model):
    """How a person wants times shown (IANA name, e.g. Europe/Berlin)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="booking_prefs")
    time_zone = models.CharField(max_length=64)

    def __str__(self) -> str:
        return f"{self.user_id}: {self.time_zone}"
