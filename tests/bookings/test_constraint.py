"""PostgreSQL's exclusion constraint on its own: it refuses an overlapping
live allocation however it is written, and the booking service answers such
a refusal as a clash naming the booking that holds the Spark."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction

from bookings import services
from bookings.errors import BookingConflict
from bookings.models import Allocation, Booking
from tests.bookings.conftest import actor, hours

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.postgres,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="the exclusion constraint exists on PostgreSQL only"),
]


def test_the_database_refuses_an_overlap_written_behind_the_services_back(lab, member_user):
    b = services.booking_create(
        actor=actor(member_user), group=lab["direct"].pk, start=hours(1), end=hours(3), purpose="first"
    )
    spark = b.allocations.first().spark
    other = Booking.objects.create(owner=member_user, group_name="x", start=hours(2), end=hours(4), purpose="raw")
    with pytest.raises(IntegrityError), transaction.atomic():
        Allocation.objects.create(booking=other, spark=spark, start=hours(2), end=hours(4))
    # Back to back is fine, and so is an overlap with a cancelled (not live) allocation.
    Allocation.objects.create(booking=other, spark=spark, start=hours(3), end=hours(4))
    b.allocations.update(live=False)
    Allocation.objects.filter(booking=other).update(start=hours(1))


def test_a_refused_insert_becomes_a_conflict_naming_the_holder(lab, member_user, member2, monkeypatch):
    first = services.booking_create(
        actor=actor(member2), group=lab["ring"].pk, start=hours(1), end=hours(3), purpose="first"
    )
    calls = []
    real = services._clash_check

    def blind_once(*args, **kwargs):
        calls.append(args)
        if len(calls) > 1:  # the second look, after the database refused the insert
            real(*args, **kwargs)

    monkeypatch.setattr(services, "_clash_check", blind_once)
    with pytest.raises(BookingConflict) as exc:
        services.booking_create(
            actor=actor(member_user), group=lab["ring"].pk, start=hours(2), end=hours(4), purpose="second"
        )
    assert exc.value.clashes[0].ref == first.pk and exc.value.clashes[0].who == "member2"
    assert Booking.objects.count() == 1
