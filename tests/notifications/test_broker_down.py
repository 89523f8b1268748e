"""A broker that is down when an email is queued fails nothing: the booking
change stands, the delivery stays recorded, and the resender queues it again
once the broker is back (every 5 minutes, for deliveries never tried)."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerDown

from bookings import services
from bookings.models import Booking
from notifications import tasks
from notifications.models import Delivery
from tests.bookings.conftest import (
    actor,
    hours,
    lab,  # noqa: F401 - the fixture
)

pytestmark = pytest.mark.django_db


def test_an_email_queued_while_the_broker_is_down_is_sent_later(
    lab,  # noqa: F811 - the fixture imported above
    member_user,
    admin_user,
    mailoutbox,
    django_capture_on_commit_callbacks,
    monkeypatch,
):
    member_user.email = "m1@example.org"
    member_user.save()
    b = services.booking_create(
        actor=actor(member_user), group=lab["ring"].pk, start=hours(1), end=hours(3), purpose="tests"
    )
    real = tasks.deliver_email.delay

    def down(pk):
        raise BrokerDown("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(tasks.deliver_email, "delay", down)
    with django_capture_on_commit_callbacks(execute=True):
        services.booking_cancel(actor=actor(admin_user), booking=b)  # no exception: the cancel stands
    assert Booking.objects.get(pk=b.pk).status == "cancelled" and mailoutbox == []
    delivery = Delivery.objects.get(target="m1@example.org")
    assert delivery.state == "queued" and delivery.attempts == 0
    monkeypatch.setattr(tasks.deliver_email, "delay", real)
    assert tasks.resend_unsent.apply().get() == 0  # too young: its message may still be on its way
    with time_machine.travel(timezone.now() + timedelta(seconds=tasks.UNSENT_AFTER_S + 1)):
        with django_capture_on_commit_callbacks(execute=True):
            assert tasks.resend_unsent.apply().get() == 1
    assert len(mailoutbox) == 1 and "cancelled your booking" in mailoutbox[0].body
    delivery.refresh_from_db()
    assert delivery.state == "sent" and delivery.attempts == 1
