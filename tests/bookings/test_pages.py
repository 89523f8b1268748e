"""Reservation pages: the timeline (flat query count), the live check under
the form, inline errors, times in the person's zone, maintenance marks,
the group fragment."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from bookings import services
from bookings.models import Booking
from tests.bookings.conftest import actor, hours

pytestmark = pytest.mark.django_db


@pytest.fixture
def member_client(member_user):
    c = Client()
    c.force_login(member_user)
    return c


def local(at, tz=None):
    """``at`` as a datetime-local field shows it in ``tz`` (the site's zone, a
    member's default, unless named)."""
    from zoneinfo import ZoneInfo

    from django.conf import settings

    return at.astimezone(ZoneInfo(tz or settings.TIME_ZONE)).strftime("%Y-%m-%dT%H:%M")


def test_the_timeline_costs_the_same_queries_for_few_or_many_bookings(
    lab, member_client, member_user, member2, settings
):
    settings.FLEET_BOOKING_MAX_ACTIVE_PER_USER = 50

    def queries():
        with CaptureQueriesContext(connection) as ctx:
            assert member_client.get("/bookings/?view=month").status_code == 200
        return len(ctx.captured_queries)

    services.booking_create(actor=actor(member2), group=lab["ring"].pk, start=hours(1), end=hours(2), purpose="a")
    few = queries()
    for i in range(2, 12):
        services.booking_create(
            actor=actor(member2 if i % 2 else member_user),
            group=lab["ring"].pk,
            start=hours(i),
            end=hours(i + 1),
            purpose=f"run {i}",
        )
    assert queries() == few


def test_the_timeline_draws_bars_and_marks_mine(lab, member_client, member_user, member2):
    mine = services.booking_create(
        actor=actor(member_user), group=lab["ring"].pk, start=hours(1), end=hours(3), purpose="my <sweep>"
    )
    services.booking_create(actor=actor(member2), nodes=["node-01"], start=hours(1), end=hours(3), purpose="theirs")
    html = member_client.get(f"/bookings/?date={hours(1).date()}").content.decode()
    assert f'href="/bookings/{mine.pk}/"' in html and 'class="bk mine booked"' in html
    assert 'class="bk other booked"' in html
    assert "my &lt;sweep&gt;" in html and "my <sweep>" not in html


def test_the_live_check_names_the_clash(lab, member_client, member2):
    services.booking_create(actor=actor(member2), nodes=["node-02"], start=hours(2), end=hours(4), purpose="sweep")
    r = member_client.post(
        "/bookings/check/",
        {"group": lab["switched"].pk, "shown_group": "", "start": local(hours(3)), "end": local(hours(5))},
    )
    html = r.content.decode()
    assert "node-02 is held by member2" in html and "sweep" in html
    assert 'hx-swap-oob="true"' in html  # the group changed: its Sparks are drawn afresh
    r = member_client.post(
        "/bookings/check/",
        {
            "group": lab["switched"].pk,
            "shown_group": lab["switched"].pk,
            "pick_nodes": "1",
            "nodes": ["node-01", "node-03"],
            "start": local(hours(3)),
            "end": local(hours(5)),
        },
    )
    html = r.content.decode()
    assert "2 Sparks free" in html and "hx-swap-oob" not in html


def test_the_form_shows_errors_inline_and_books_nothing(lab, member_client):
    r = member_client.post(
        "/bookings/new/",
        {
            "group": lab["ring"].pk,
            "shown_group": lab["ring"].pk,
            "start": local(hours(3)),
            "end": local(hours(1)),
            "purpose": "",
        },
    )
    assert r.status_code == 400
    html = r.content.decode()
    assert 'id="field-end"' in html and "is before the start" in html and "say what the booking is for" in html
    assert Booking.objects.count() == 0


def test_a_refused_form_keeps_its_availability_line(lab, member_client):
    r = member_client.post(
        "/bookings/new/",
        {
            "group": lab["ring"].pk,
            "shown_group": lab["ring"].pk,
            "start": local(hours(1)),
            "end": local(hours(3)),
            "purpose": "",
        },
    )
    assert r.status_code == 400
    html = r.content.decode()
    assert "say what the booking is for" in html
    assert 'class="bk-free"' in html and "4 Sparks free" in html  # still says what is free


def test_a_hard_clash_is_never_offered_as_book_anyway(lab, member_client, member2):
    from inventory.models import Spark
    from telemetry.models import NodeState

    # its last poll did not reach it (a key accepted earlier): down
    NodeState.objects.create(
        spark=Spark.objects.get(name="pair-b"), status="down", key_status="ok", last_poll_at=hours(-1)
    )
    services.booking_create(
        actor=actor(member2), group=lab["direct"].pk, start=hours(1), end=hours(3), purpose="theirs", confirm=True
    )
    form = {
        "group": lab["direct"].pk,
        "shown_group": lab["direct"].pk,
        "start": local(hours(2)),
        "end": local(hours(4)),
        "purpose": "mine",
    }
    for r in (member_client.post("/bookings/check/", form), member_client.post("/bookings/new/", form)):
        html = r.content.decode()
        assert "held by member2" in html and "pair-b is down" in html
        assert 'name="confirm"' not in html and "Book anyway" not in html
    assert "Not booked" in html and Booking.objects.count() == 1
    # Free but unhealthy: then, and only then, the person may confirm.
    form.update(start=local(hours(5)), end=local(hours(6)))
    html = member_client.post("/bookings/new/", form).content.decode()
    assert 'name="confirm"' in html and "Book anyway" in html
    assert member_client.post("/bookings/new/", {**form, "confirm": "on"}).status_code == 302


def test_booking_through_the_form_in_the_persons_time_zone(lab, member_client, member_user):
    r = member_client.post("/bookings/time-zone/", {"time_zone": "Asia/Tokyo"})
    assert r.status_code == 302
    start = hours(2)
    r = member_client.post(
        "/bookings/new/",
        {
            "group": lab["direct"].pk,
            "shown_group": lab["direct"].pk,
            "start": local(start, "Asia/Tokyo"),
            "end": local(hours(4), "Asia/Tokyo"),
            "purpose": "from Tokyo",
            "plan": "plan-3",
        },
    )
    assert r.status_code == 302, r.content.decode()[:800]
    b = Booking.objects.get()
    assert (b.start, b.end, b.plan) == (start, hours(4), "plan-3")  # stored in UTC
    page = member_client.get(f"/bookings/{b.pk}/").content.decode()
    assert start.astimezone(__import__("zoneinfo").ZoneInfo("Asia/Tokyo")).strftime("%H:%M") in page
    assert "JST" in page
    r = member_client.post("/bookings/time-zone/", {"time_zone": "Mars/Olympus"})
    assert r.status_code == 302


def _next_spring_forward(zone_name):
    """The first wall-clock hour that ``zone_name`` skips after now (within a year)."""
    from datetime import UTC, datetime, timedelta
    from zoneinfo import ZoneInfo

    zone = ZoneInfo(zone_name)
    at = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
    for _ in range(24 * 366):
        before, after = at.astimezone(zone), (at + timedelta(hours=1)).astimezone(zone)
        if after.utcoffset() > before.utcoffset():
            return (before + timedelta(hours=1)).replace(tzinfo=None, minute=30)  # a skipped wall time
        at += timedelta(hours=1)
    raise AssertionError(f"{zone_name} changes no clock within a year")


def test_a_wall_time_the_clocks_skip_is_refused_by_name(lab, member_client, admin_client, member_user):
    member_client.post("/bookings/time-zone/", {"time_zone": "Europe/Berlin"})
    skipped = _next_spring_forward("Europe/Berlin")
    fields = {
        "start": skipped.strftime("%Y-%m-%dT%H:%M"),
        "end": (skipped.replace(minute=0) + __import__("datetime").timedelta(hours=1, minutes=30)).strftime(
            "%Y-%m-%dT%H:%M"
        ),
    }
    r = member_client.post(
        "/bookings/new/", {"group": lab["direct"].pk, "shown_group": lab["direct"].pk, "purpose": "p", **fields}
    )
    assert r.status_code == 400
    text = r.content.decode()
    assert f"{skipped:%d %b %Y %H:%M} does not exist in Europe/Berlin" in text
    assert Booking.objects.count() == 0
    admin_client.post("/bookings/time-zone/", {"time_zone": "Europe/Berlin"})
    r = admin_client.post(
        "/bookings/maintenance/", {"group": lab["switched"].pk, "nodes": "node-07", "reason": "firmware", **fields}
    )
    assert r.status_code == 400
    assert f"{skipped:%d %b %Y %H:%M} does not exist in Europe/Berlin" in r.content.decode()
    from bookings.models import MaintenanceWindow

    assert MaintenanceWindow.objects.count() == 0


def test_extend_shorten_and_cancel_buttons(lab, member_client, member_user):
    b = services.booking_create(
        actor=actor(member_user), group=lab["ring"].pk, start=hours(1), end=hours(3), purpose="p"
    )
    member_client.post(f"/bookings/{b.pk}/resize/", {"minutes": "60"})
    member_client.post(f"/bookings/{b.pk}/resize/", {"minutes": "-30"})
    b.refresh_from_db()
    assert b.end == hours(3.5)
    r = member_client.post(
        f"/bookings/{b.pk}/resize/", {"end": local(hours(0.5)), "start": local(hours(1))}, follow=True
    )
    assert "Not changed" in r.content.decode() and "before the start" in r.content.decode()
    member_client.post(f"/bookings/{b.pk}/cancel/")
    b.refresh_from_db()
    assert b.status == "cancelled"
    r = member_client.post(f"/bookings/{b.pk}/cancel/", follow=True)
    assert "already cancelled" in r.content.decode()


def test_maintenance_is_marked_and_its_sparks_are_not_offered(lab, member_client, member_user, admin_client):
    b = services.booking_create(
        actor=actor(member_user), group=lab["switched"].pk, start=hours(1), end=hours(5), purpose="p"
    )
    r = admin_client.post(
        "/bookings/maintenance/",
        {
            "group": lab["switched"].pk,
            "nodes": "node-07 node-08",
            "start": local(hours(2)),
            "end": local(hours(3)),
            "reason": "firmware",
        },
    )
    assert r.status_code == 302
    assert "maintenance" in member_client.get(f"/bookings/{b.pk}/").content.decode()
    assert "firmware" in member_client.get("/bookings/mine/").content.decode()
    form = member_client.get(
        f"/bookings/new/?group={lab['switched'].pk}&start={local(hours(2))}&end={local(hours(2.5))}"
    ).content.decode()
    assert form.count("disabled") == 2 and "maintenance until" in form
    bad = admin_client.post("/bookings/maintenance/", {"group": "", "nodes": "", "start": "", "end": "", "reason": ""})
    assert bad.status_code == 400 and "give the start time" in bad.content.decode()


def test_the_group_fragment_shows_the_holder_and_what_comes_next(lab, member_client, member_user, member2):
    services.booking_create(
        actor=actor(member2), group=lab["ring"].pk, start=hours(-1), end=hours(1), purpose="now running", now=hours(-1)
    )
    services.booking_create(
        actor=actor(member_user), group=lab["ring"].pk, start=hours(2), end=hours(3), purpose="next up"
    )
    html = member_client.get(f"/bookings/groups/{lab['ring'].pk}/").content.decode()
    assert "held now" in html and "member2" in html and "now running" in html and "next up" in html
    from django.template import Context, Template

    text = Template("{% load bookings_tags %}{% group_bookings group %}").render(Context({"group": lab["direct"]}))
    assert "free now" in text and "Nothing booked ahead" in text
