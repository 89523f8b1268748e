"""Booking services: what may be booked, clashes, cancel / release / move,
limits, health confirmation, and nothing half-written on refusal."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bookings import selectors, services
from bookings.errors import BookingConflict, BookingError, NeedsConfirmation, NotAllowed
from bookings.models import Allocation, Booking, BookingEvent, MaintenanceWindow
from inventory.models import Spark
from tests.bookings.conftest import actor, hours

pytestmark = pytest.mark.django_db


def state():
    """Everything a refused request must leave as it was."""
    return {
        "bookings": list(Booking.objects.order_by("id").values_list("id", "status", "start", "end", "purpose")),
        "allocations": list(Allocation.objects.order_by("id").values_list("id", "spark_id", "start", "end", "live")),
        "events": BookingEvent.objects.count(),
        "maintenance": MaintenanceWindow.objects.count(),
    }


def book(user, *, group=None, nodes=None, start=1, end=3, purpose="tests", **kw):
    if start < 0:  # a booking that is already running was made before it started
        kw.setdefault("now", hours(start))
    return services.booking_create(
        actor=actor(user), group=group, nodes=nodes, start=hours(start), end=hours(end), purpose=purpose, **kw
    )


def test_a_group_booking_stores_one_allocation_per_spark(lab, member_user):
    b = book(member_user, group=lab["ring"].pk, plan={"engine": "vllm", "tp": 4})
    assert b.status == "booked" and b.whole_group and b.group_name == lab["ring"].name
    assert sorted(Allocation.objects.filter(booking=b).values_list("spark__name", flat=True)) == [
        "ring-1",
        "ring-2",
        "ring-3",
        "ring-4",
    ]
    assert b.plan == {"engine": "vllm", "tp": 4}
    assert BookingEvent.objects.get(booking=b).action == "book"


def test_back_to_back_bookings_do_not_clash(lab, member_user, member2):
    book(member_user, group=lab["ring"].pk, start=1, end=3)
    book(member2, group=lab["ring"].pk, start=3, end=5)
    book(member2, group=lab["ring"].pk, start=0.5, end=1)
    assert Booking.objects.count() == 3


def test_an_overlap_is_refused_naming_the_booking_its_owner_and_the_overlap(lab, member_user, member2):
    first = book(member2, nodes=["node-01", "node-02", "node-03"], start=1, end=4, purpose="fine-tune")
    before = state()
    with pytest.raises(BookingConflict) as exc:
        book(member_user, group=lab["switched"].pk, start=3, end=6)
    (clash,) = exc.value.clashes
    assert (clash.ref, clash.who, clash.nodes) == (first.pk, "member2", ("node-01", "node-02", "node-03"))
    assert (clash.overlap_start, clash.overlap_end) == (hours(3), hours(4))
    assert "held by member2" in exc.value.message() and f"booking {first.pk}: fine-tune" in exc.value.message()
    assert state() == before


def test_a_switched_group_splits_but_a_ring_and_a_pair_do_not(lab, member_user, member2):
    book(member_user, nodes=["node-01", "node-02"])
    book(member2, nodes=["node-03"], start=1, end=3)  # other Sparks of the same switch, same time
    for nodes, kind in ((["ring-1", "ring-2"], "a ring"), (["pair-a"], "a direct pair")):
        before = state()
        with pytest.raises(BookingError) as exc:
            book(member_user, nodes=nodes)
        assert kind in str(exc.value) and exc.value.errors[0][0] == "nodes"
        assert state() == before
    whole = book(member_user, nodes=["ring-4", "ring-1", "ring-3", "ring-2"])
    assert whole.whole_group and whole.group_id == lab["ring"].pk


def test_node_lists_that_are_not_a_group(lab, member_user):
    cases = [
        (["node-01", "ring-1"], "different groups"),
        (["node-01", "node-01"], "named twice"),
        (["nope-9"], "no Spark is named 'nope-9'"),
        ("node-01", "list of Spark names"),
    ]
    for nodes, message in cases:
        with pytest.raises(BookingError, match=message):
            book(member_user, nodes=nodes)
    with pytest.raises(BookingError, match="not in group"):
        book(member_user, group=lab["switched"].pk, nodes=["ring-1"])
    with pytest.raises(BookingError, match="no group 999"):
        book(member_user, group=999)
    assert Booking.objects.count() == 0


def test_bad_windows_change_nothing(lab, member_user):
    before = state()
    for start, end in ((3, 1), (1, 1), (1, 1 + 24 * 365), (-5, -2), (24 * 100, 24 * 100 + 1)):
        with pytest.raises(BookingError):
            book(member_user, group=lab["ring"].pk, start=start, end=end, now=None)
    with pytest.raises(BookingError, match="no time zone"):
        services.booking_create(
            actor=actor(member_user),
            group=lab["ring"].pk,
            start=hours(1).replace(tzinfo=None),
            end=hours(2),
            purpose="x",
        )
    with pytest.raises(BookingError, match="say what the booking is for"):
        book(member_user, group=lab["ring"].pk, purpose="  ")
    assert state() == before


def test_a_viewer_cannot_book(lab, viewer_user):
    with pytest.raises(NotAllowed):
        book(viewer_user, group=lab["ring"].pk)


def test_sparks_in_maintenance_or_retired_are_refused(lab, member_user):
    Spark.objects.filter(name="ring-2").update(status="maintenance")
    with pytest.raises(BookingError, match="ring-2 is in maintenance"):
        book(member_user, group=lab["ring"].pk)


def test_the_limit_per_person(lab, member_user, settings):
    settings.FLEET_BOOKING_MAX_ACTIVE_PER_USER = 2
    book(member_user, group=lab["ring"].pk, start=1, end=2)
    book(member_user, group=lab["ring"].pk, start=2, end=3)
    with pytest.raises(BookingConflict, match="limit is 2"):
        book(member_user, group=lab["ring"].pk, start=3, end=4)


def test_unhealthy_nodes_need_a_confirmation(lab, member_user):
    from telemetry.models import NodeState

    # its last poll did not reach it (a key accepted earlier): down
    NodeState.objects.create(
        spark=Spark.objects.get(name="pair-b"), status="down", key_status="ok", last_poll_at=hours(-1)
    )
    with pytest.raises(NeedsConfirmation) as exc:
        book(member_user, group=lab["direct"].pk)
    assert exc.value.warnings == ["pair-b is down (telemetry)"]
    b = book(member_user, group=lab["direct"].pk, confirm=True)
    assert "confirmed despite: pair-b is down" in b.events.get().detail


def test_cancel_then_cancel_again(lab, member_user, member2, admin_user):
    b = book(member_user, group=lab["ring"].pk)
    with pytest.raises(NotAllowed, match="belongs to member1"):
        services.booking_cancel(actor=actor(member2), booking=b)
    services.booking_cancel(actor=actor(member_user), booking=b)
    assert Booking.objects.get(pk=b.pk).status == "cancelled"
    assert not Allocation.objects.filter(booking=b, live=True).exists()
    before = state()
    with pytest.raises(BookingConflict, match="already cancelled"):
        services.booking_cancel(actor=actor(admin_user), booking=b)
    assert state() == before
    book(member2, group=lab["ring"].pk)  # the time is free again


def test_releasing_a_running_booking_ends_it_now(lab, member_user, member2):
    b = book(member_user, group=lab["ring"].pk, start=-0.05, end=3)
    assert b.status == "active"
    services.booking_cancel(actor=actor(member_user), booking=b)
    b.refresh_from_db()
    assert b.status == "finished" and b.end <= hours(0.1)
    book(member2, group=lab["ring"].pk, start=0.1, end=2)


def test_extend_and_shorten(lab, member_user, member2, admin_user):
    b = book(member_user, group=lab["ring"].pk, start=1, end=3)
    book(member2, group=lab["ring"].pk, start=4, end=6)
    services.booking_update(actor=actor(member_user), booking=b, end=hours(4))
    with pytest.raises(BookingConflict, match="held by member2"):
        services.booking_update(actor=actor(member_user), booking=b, end=hours(5))
    with pytest.raises(NotAllowed):
        services.booking_update(actor=actor(member2), booking=b, end=hours(2))
    services.booking_update(actor=actor(admin_user), booking=b, end=hours(2), purpose="shorter")
    b.refresh_from_db()
    assert (b.end, b.purpose) == (hours(2), "shorter")
    assert set(Allocation.objects.filter(booking=b).values_list("end", flat=True)) == {hours(2)}
    assert [e.action for e in b.events.all()] == ["book", "extend", "shorten"]


def test_a_running_booking_keeps_its_start(lab, member_user):
    b = book(member_user, group=lab["ring"].pk, start=-1, end=2)
    with pytest.raises(BookingError, match="has started"):
        services.booking_update(actor=actor(member_user), booking=b, start=hours(0.5))
    services.booking_update(actor=actor(member_user), booking=b, end=hours(1))


def test_maintenance_over_a_booking_still_lets_it_shrink_but_not_grow(lab, member_user, admin_user):
    b = book(member_user, group=lab["ring"].pk, start=1, end=5)
    services.maintenance_create(
        actor=actor(admin_user), nodes=["ring-2"], start=hours(6), end=hours(7), reason="swap cable"
    )
    services.booking_update(actor=actor(member_user), booking=b, end=hours(4))
    with pytest.raises(BookingConflict, match="under maintenance"):
        services.booking_update(actor=actor(member_user), booking=b, end=hours(6.5))


def test_user_holds_nodes(lab, member_user, member2):
    ids = dict(Spark.objects.values_list("name", "id"))
    book(member_user, nodes=["node-01", "node-02"], start=1, end=3)
    book(member_user, nodes=["node-03"], start=2, end=3)
    at = hours(2.5)
    assert selectors.user_holds_nodes(member_user, [ids["node-01"], ids["node-03"]], at)
    assert not selectors.user_holds_nodes(member_user, [ids["node-01"], ids["node-03"]], hours(1.5))
    assert not selectors.user_holds_nodes(member_user, [ids["node-01"], ids["node-04"]], at)
    assert not selectors.user_holds_nodes(member2, [ids["node-01"]], at)
    assert not selectors.user_holds_nodes(member_user, [ids["node-01"]], hours(3))  # half-open
    assert not selectors.user_holds_nodes(member_user, [], at)


def test_the_clock_starts_finishes_and_reminds_once(lab, member_user, mailoutbox, django_capture_on_commit_callbacks):
    member_user.email = "m1@example.org"
    member_user.save()
    b = book(member_user, group=lab["ring"].pk, start=0.2, end=1)
    report = services.bookings_tick(now=hours(0.3))
    assert report == {"started": 1, "finished": 0, "reminded": 0}
    with django_capture_on_commit_callbacks(execute=True):  # reminders are queued once the tick commits
        assert services.bookings_tick(now=hours(0.6))["reminded"] == 1
        assert services.bookings_tick(now=hours(0.7))["reminded"] == 0
    assert len(mailoutbox) == 1 and "ends soon" in mailoutbox[0].subject and "ring-1" in mailoutbox[0].body
    assert services.bookings_tick(now=hours(1))["finished"] == 1
    b.refresh_from_db()
    assert b.status == "finished"


def test_a_new_end_earns_a_new_reminder(lab, member_user, mailoutbox, django_capture_on_commit_callbacks):
    member_user.email = "m1@example.org"
    member_user.save()
    b = book(member_user, group=lab["ring"].pk, start=-0.5, end=0.25)
    with django_capture_on_commit_callbacks(execute=True):
        services.bookings_tick()
        services.booking_update(actor=actor(member_user), booking=b, end=hours(0.4))
        services.bookings_tick()
    assert len(mailoutbox) == 2
    assert timedelta(0) < Booking.objects.get(pk=b.pk).end - hours(0) <= timedelta(hours=0.4)


def test_an_admin_cancelling_tells_the_owner(
    lab, member_user, admin_user, mailoutbox, django_capture_on_commit_callbacks
):
    member_user.email = "m1@example.org"
    member_user.save()
    b = book(member_user, group=lab["ring"].pk)
    with django_capture_on_commit_callbacks(execute=True):
        services.booking_cancel(actor=actor(admin_user), booking=b)
    assert len(mailoutbox) == 1 and "admin1 (lab admin) cancelled your booking" in mailoutbox[0].body
    assert [e.action for e in b.events.all()] == ["book", "cancel", "notified"]


def test_owners_without_an_email_address_are_noted_not_mailed(
    lab, member_user, admin_user, mailoutbox, django_capture_on_commit_callbacks
):
    b = book(member_user, group=lab["ring"].pk, start=1, end=4)
    with django_capture_on_commit_callbacks(execute=True):
        services.maintenance_create(
            actor=actor(admin_user), group=lab["ring"].pk, start=hours(2), end=hours(3), reason="fans"
        )
    assert mailoutbox == []
    assert "member1 has no email address" in b.events.last().detail


def test_removing_cables_of_booked_sparks_tells_each_owner_once_with_every_cable(
    lab, member_user, member2, admin_user, mailoutbox, django_capture_on_commit_callbacks
):
    """A cable or a switch deleted under a booking left its owner's group without
    the link, without a word. Each owner is emailed once per deletion, naming
    every cable of their Sparks it removed; the delete pages say so first."""
    from django.test import Client

    from core.actor import Actor
    from inventory import services as inventory
    from inventory.models import Cable, Switch

    member_user.email, member2.email = "m1@example.org", "m2@example.org"
    member_user.save()
    member2.save()
    parted = book(member_user, nodes=["node-01", "node-02", "node-03", "node-04"], start=0, end=3)
    ring = book(member2, group=lab["ring"].pk, start=1, end=3)
    page = Client()
    page.force_login(admin_user)
    switch = Switch.objects.get(name="sw-804")
    shown = page.get(f"/switches/{switch.name}/delete/").content.decode()
    assert 'id="delete-in-use"' in shown and f"booking {parted.pk} of member1" in shown
    assert f"booking {ring.pk}" not in shown
    admin = Actor(user=admin_user, source="api")
    with django_capture_on_commit_callbacks(execute=True):
        inventory.switch_delete(actor=admin, switch=switch)
    assert [m.to for m in mailoutbox] == [["m1@example.org"]]
    body = mailoutbox[0].body
    assert mailoutbox[0].subject == f"[Spark Fleet] A cable of your booking {parted.pk} was removed"
    # lab8-crs804 cables two Sparks a breakout: bo-1 (node-01, node-02) and bo-2 (node-03, node-04)
    assert "admin1 removed from the inventory 2 cables of the Sparks your booking" in body
    assert all(f"node-0{i}" in body for i in range(1, 5)) and "node-05" not in body
    assert [e.action for e in parted.events.all()] == ["book", "cable removed", "notified"]

    ring_cable = Cable.objects.filter(ends__port__spark__name="ring-1").first()
    shown = page.get(f"/cables/{ring_cable.pk}/delete/").content.decode()
    assert 'id="delete-in-use"' in shown and f"booking {ring.pk} of member2" in shown
    with django_capture_on_commit_callbacks(execute=True):
        inventory.cable_delete(actor=admin, cable=ring_cable)
    assert [m.to for m in mailoutbox][1:] == [["m2@example.org"]]
    assert "removed from the inventory a cable of the Sparks" in mailoutbox[1].body
    unused = Cable.objects.filter(ends__port__spark__name="pair-a").get()  # Sparks nobody books: no mail
    assert 'id="delete-in-use"' not in page.get(f"/cables/{unused.pk}/delete/").content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        inventory.cable_delete(actor=admin, cable=unused)
    assert len(mailoutbox) == 2
