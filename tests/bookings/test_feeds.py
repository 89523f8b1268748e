"""Calendar feeds: a per-user token in the URL (an HMAC, revocable), the
person's bookings and a group's bookings as RFC 5545 text."""

from __future__ import annotations

import pytest
from django.test import Client

from bookings import feeds, services
from bookings.models import FeedToken
from tests.bookings.conftest import actor, hours

pytestmark = pytest.mark.django_db


def test_feeds_need_a_valid_token(lab, member_user, member2):
    services.booking_create(
        actor=actor(member_user), group=lab["ring"].pk, start=hours(1), end=hours(3), purpose="sweep, TP=4; long"
    )
    services.booking_create(
        actor=actor(member2), group=lab["direct"].pk, start=hours(1), end=hours(3), purpose="theirs"
    )
    token = feeds.feed_token_rotate(user=member_user)
    assert not FeedToken.objects.filter(nonce__contains=token.split("-")[1]).exists()  # only the nonce is stored
    anon = Client()
    r = anon.get(f"/feeds/bookings/{token}/mine.ics")
    assert r.status_code == 200 and r["Content-Type"].startswith("text/calendar")
    text = r.content.decode()
    assert text.startswith("BEGIN:VCALENDAR\r\n") and text.endswith("END:VCALENDAR\r\n")
    unfolded = text.replace("\r\n ", "")
    assert "SUMMARY:group-ring-1: sweep\\, TP=4\\; long (member1)" in unfolded
    assert "theirs" not in unfolded
    group = anon.get(f"/feeds/bookings/{token}/groups/{lab['direct'].pk}.ics").content.decode()
    assert "theirs" in group and "sweep" not in group

    for bad in (token[:-1] + ("0" if token[-1] != "0" else "1"), f"{member2.pk}-{token.split('-')[1]}", "x-y"):
        assert anon.get(f"/feeds/bookings/{bad}/mine.ics").status_code == 404
    new = feeds.feed_token_rotate(user=member_user)
    assert anon.get(f"/feeds/bookings/{token}/mine.ics").status_code == 404
    assert anon.get(f"/feeds/bookings/{new}/mine.ics").status_code == 200
    feeds.feed_token_revoke(user=member_user)
    assert anon.get(f"/feeds/bookings/{new}/mine.ics").status_code == 404


def test_the_links_are_made_and_revoked_on_my_bookings(member_user):
    c = Client()
    c.force_login(member_user)
    assert "Make calendar links" in c.get("/bookings/mine/").content.decode()
    c.post("/bookings/feed-token/", {"action": "rotate"})
    page = c.get("/bookings/mine/").content.decode()
    token = feeds.feed_token(member_user)
    assert f"/feeds/bookings/{token}/mine.ics" in page
    c.post("/bookings/feed-token/", {"action": "revoke"})
    assert feeds.feed_token(member_user) is None


def test_an_inactive_user_loses_the_feed(lab, member_user):
    token = feeds.feed_token_rotate(user=member_user)
    member_user.is_active = False
    member_user.save()
    assert Client().get(f"/feeds/bookings/{token}/mine.ics").status_code == 404


def test_calendar_uids_come_from_the_site_url_whatever_the_host(lab, member_user, settings):
    """One calendar subscribed through two addresses shows each booking once."""
    settings.FLEET_SITE_URL = "https://fleet.lab.example.org"
    settings.ALLOWED_HOSTS = ["localhost", "127.0.0.1"]
    booking = services.booking_create(
        actor=actor(member_user), group=lab["direct"].pk, start=hours(1), end=hours(3), purpose="uid"
    )
    token = feeds.feed_token_rotate(user=member_user)
    uids = set()
    for host in ("localhost", "127.0.0.1"):
        text = Client().get(f"/feeds/bookings/{token}/mine.ics", HTTP_HOST=host).content.decode()
        uids |= {line for line in text.split("\r\n") if line.startswith("UID:")}
    assert uids == {f"UID:booking-{booking.pk}@fleet.lab.example.org"}


def test_a_booking_cancelled_at_once_moves_its_sequence(lab, member_user):
    """SEQUENCE once counted the seconds between making and changing a booking:
    a cancel within that second kept SEQUENCE:0, and a calendar that had the
    booking could keep it. Each change now moves it, on top of those seconds."""
    booking = services.booking_create(
        actor=actor(member_user), group=lab["direct"].pk, start=hours(1), end=hours(3), purpose="quick"
    )
    token = feeds.feed_token_rotate(user=member_user)

    def sequence() -> str:
        text = Client().get(f"/feeds/bookings/{token}/mine.ics").content.decode()
        return next(line for line in text.split("\r\n") if line.startswith("SEQUENCE:"))

    assert sequence() == "SEQUENCE:0"
    services.booking_cancel(actor=actor(member_user), booking=booking)
    booking.refresh_from_db()
    seconds = int((booking.updated_at - booking.created_at).total_seconds())  # 0 when the cancel came at once
    assert sequence() == f"SEQUENCE:{seconds + 1}"
