"""A member books a node group in a real browser: the form names the clash
with another member's booking before anything is submitted, the booking
goes through once the time is free, and the timeline shows its bar. Also
the timeline of a 64-Spark fleet over a month, for people to look at."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from bookings import services
from bookings.models import Allocation, Booking
from core.actor import Actor
from inventory.labio import lab_import
from inventory.models import NodeGroup
from simfleet.bookings import fill_month
from simfleet.labgen import lab_document
from tests.conftest import lab_data, make_user
from tests.e2e.conftest import fits_a_phone, sign_in
from tests.support.catalogue import seed_catalogue

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _catalogue() -> None:
    seed_catalogue()


def local(at: datetime) -> str:
    # The members' zone is the default: the site's TIME_ZONE.
    return timezone.localtime(at).strftime("%Y-%m-%dT%H:%M")


def test_member_books_a_group_and_sees_the_clash_first(live_server, page, shot):
    admin = make_user("labadmin", "lab-admin")
    member = make_user("member1", "member")
    other = make_user("member2", "member")
    lab_import(actor=Actor(user=admin, source="import"), data=lab_data("lab8-crs804.yaml"))
    lab_import(actor=Actor(user=admin, source="import"), data=lab_data("ring4.yaml"))
    switched = NodeGroup.objects.get(kind="switched", retired_at=None)
    base = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) + timedelta(days=1, hours=1)
    services.booking_create(
        actor=Actor(user=other),
        nodes=["node-03", "node-04"],
        start=base,
        end=base + timedelta(hours=4),
        purpose="NCCL all-reduce sweep",
    )
    assert member.pk

    sign_in(page, live_server.url, "member1", "member1-pass-123")
    page.goto(f"{live_server.url}/bookings/new/")
    page.select_option("#id_group", str(switched.pk))
    page.wait_for_selector("#nodes .bk-node")  # the group's Sparks arrive with the check
    page.fill("#id_start", local(base + timedelta(hours=2)))
    page.fill("#id_end", local(base + timedelta(hours=6)))
    page.locator("#id_end").dispatch_event("change")
    page.fill("#id_purpose", "TP=8 decode run")
    clash = page.locator("#availability .bk-clash")
    clash.wait_for()
    text = clash.inner_text()
    assert "node-03, node-04 are held by member2" in text and "NCCL all-reduce sweep" in text
    expect(page.locator("#nodes .bk-node.held")).to_have_count(2)  # marked once htmx settles
    assert Booking.objects.count() == 1  # nothing submitted yet
    shot("booking-form-clash")

    # Untick the held Sparks: the check says the rest is free.
    page.locator(".bk-node", has_text="node-03").locator("input").uncheck()
    page.locator(".bk-node", has_text="node-04").locator("input").uncheck()
    page.locator("#availability .bk-free").wait_for()
    assert "6 Sparks free" in page.locator("#availability").inner_text()
    shot("booking-form-free")
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r"/bookings/\d+/$"))
    assert "Booked group-node-01" in page.content()
    mine = Booking.objects.get(owner__username="member1")
    assert sorted(a.spark.name for a in mine.allocations.all()) == [
        "node-01",
        "node-02",
        "node-05",
        "node-06",
        "node-07",
        "node-08",
    ]
    shot("booking-detail")

    # the timeline of the week the booking starts in, in the members' zone (run late on a Saturday, the
    # day after tomorrow's early hours fall into the next week)
    starts = timezone.localtime(base + timedelta(hours=2)).date()
    page.goto(f"{live_server.url}/bookings/?date={starts.isoformat()}")
    bar = page.locator(f'svg.timeline a[href="/bookings/{mine.pk}/"] rect.bk.mine')
    assert bar.count() == 2  # two runs of rows: node-01..02 and node-05..08
    assert page.locator("svg.timeline rect.bk.other").count() == 1
    shot("bookings-timeline-week")

    page.goto(f"{live_server.url}/bookings/mine/")
    page.click("text=Make calendar links")
    feed = page.locator("#feed-mine").input_value()
    assert re.search(r"/feeds/bookings/\d+-[0-9a-f]+/mine\.ics$", feed)
    assert "TP=8 decode run" in page.locator("main").inner_text()
    shot("bookings-mine")

    # a lab admin cannot delete a Spark a booking holds: the page names the bookings, offers no Delete
    page.context.clear_cookies()
    sign_in(page, live_server.url, "labadmin", "labadmin-pass-123")
    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/sparks/node-03/delete/")
        held = page.locator("#delete-held")
        assert "node-03 cannot be deleted now: bookings that have not ended hold it." in held.inner_text()
        assert "of member2 (" in held.inner_text() and "of member1 (" not in held.inner_text()
        expect(page.locator("button", has_text="Delete")).to_have_count(0)
        if width == 390:
            fits_a_phone(page, held)
        shot(f"spark-delete-held-{width}")
        # a switch may go (the cable may really be gone): its page names whom it touches, who are emailed
        page.goto(f"{live_server.url}/switches/sw-804/delete/")
        in_use = page.locator("#delete-in-use")
        assert "Booked Sparks use its cables:" in in_use.inner_text()
        assert "of member1 (" in in_use.inner_text() and "of member2 (" in in_use.inner_text()
        assert "each owner is emailed" in in_use.inner_text()
        expect(page.locator("button", has_text="Delete")).to_have_count(1)
        if width == 390:
            fits_a_phone(page, in_use)
        shot(f"switch-delete-in-use-{width}")


def test_timeline_of_64_sparks_over_a_month(live_server, page, shot):
    admin = make_user("labadmin", "lab-admin")
    users = [make_user(f"member{i}", "member") for i in range(1, 9)]
    lab = lab_document(switched=4, rings=6, pairs=4, prefix="spark")
    lab_import(actor=Actor(user=admin, source="import"), data=lab)
    today = datetime.now(UTC).date()
    start = datetime(today.year, today.month, 1, tzinfo=UTC)
    made = fill_month(start - timedelta(days=3), start + timedelta(days=35), users)
    assert made > 50
    # The window starts inside a generated booking on spark-0033 that lies ahead,
    # so it overlaps one on any date and at any hour.
    ahead = (
        Allocation.objects.filter(
            spark__name="spark-0033", live=True, start__gte=datetime.now(UTC) + timedelta(hours=1)
        )
        .order_by("start")
        .select_related("booking")
        .first()
    )
    assert ahead is not None
    soon = ahead.start + timedelta(minutes=30)
    window = services.maintenance_create(
        actor=Actor(user=admin),
        nodes=["spark-0033", "spark-0034", "spark-0035", "spark-0036"],
        start=soon,
        end=soon + timedelta(hours=20),
        reason="re-cable the ring",
    )
    assert ahead.booking in window.bookings.all()
    sign_in(page, live_server.url, "member1", "member1-pass-123")
    page.goto(f"{live_server.url}/bookings/?view=month")
    assert page.locator("svg.timeline text.tl-node").count() == 64
    assert page.locator("svg.timeline .tl-now").count() == 1
    shot("bookings-timeline-month-64")
    page.goto(f"{live_server.url}/bookings/?view=week")
    shot("bookings-timeline-week-64")
