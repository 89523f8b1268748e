"""Every page form, one field at a time given a value nobody should send:
the answer is the form's own (a page with its error, a redirect with a
message, a 400 naming the field), never a 500. Found this way: NUL in a
choice field (a cable's type, a booking's group, a subgroup's Sparks), which
PostgreSQL refuses, and a time zone name too long for a file name."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client

from bookings import services as booking_services
from core.actor import Actor
from inventory.labio import lab_import
from inventory.models import Cable, NodeGroup
from tests.conftest import lab_data, make_user
from tests.e2e.test_accessibility import pages

ODD = ["\u00b2", "\x00x", "9" * 30, "nan", "a" * 3000, "2026-13-45T99:99", "x\u2028y"]
SKIPPED = ("delete", "logout", "cancel")  # forms that end what the sweep walks through


def forms(page: str, path: str) -> list[tuple[str, dict[str, str], list[str]]]:
    """(action, the values the page fills in, every field name) of each POST form on the page."""
    out = []
    for form in re.findall(r'<form[^>]*method="post"[^>]*>.*?</form>', page, re.S | re.I):
        action = re.search(r'action="([^"]*)"', form)
        target = html.unescape(action[1]) if action and action[1] else path
        if any(word in target for word in SKIPPED):
            continue
        given = {k: html.unescape(v) for k, v in re.findall(r'<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"', form)}
        names = set(re.findall(r'<(?:input|select|textarea)[^>]*name="([^"]+)"', form)) - {"csrfmiddlewaretoken"}
        given.pop("csrfmiddlewaretoken", None)
        out.append((target, given, sorted(names)))
    return out


@pytest.mark.django_db
def test_no_form_field_turns_an_odd_value_into_a_500():
    lab_import(actor=Actor(source="import"), data=lab_data("demo.yaml"))
    member = make_user("member", "member")
    admin = make_user("admin", "lab-admin")
    group = NodeGroup.objects.filter(retired_at__isnull=True).get(members__spark__name="spark-07").pk
    start = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
    booking = booking_services.booking_create(
        actor=Actor(user=member), group=group, start=start, end=start + timedelta(hours=3), purpose="sweep"
    )
    client = Client(raise_request_exception=False)
    client.force_login(admin)
    paths = [*pages(group, Cable.objects.order_by("pk").first().pk, booking.pk), "/design/", "/software/"]
    seen, broken = set(), []
    for path in paths:
        for target, given, names in forms(client.get(path).content.decode(), path):
            if (target, tuple(names)) in seen:
                continue
            seen.add((target, tuple(names)))
            for name in names:
                for value in ODD:
                    status = client.post(target, {**given, name: value}).status_code
                    if status >= 500:
                        broken.append(f"{target} {name}={value[:12]!r}: {status}")
    assert len(seen) >= 15, sorted(seen)  # the sweep walked the forms, not nothing
    assert broken == []


@pytest.mark.django_db
def test_a_form_field_with_a_nul_is_refused_naming_it_and_nothing_is_written(admin_client):
    from urllib.parse import urlencode

    from bookings.models import Booking

    before = Booking.objects.count()
    form = "application/x-www-form-urlencoded"
    encoded = admin_client.post("/bookings/new/", urlencode({"group": "\x00x", "purpose": "p"}), content_type=form)
    assert encoded.status_code == 400
    assert encoded.content.decode() == "Refused: form.group: contains a NUL byte; remove it.\n"
    multipart = admin_client.post("/bookings/new/", {"group": "1", "purpose": "a\x00b"})  # the client's default
    assert multipart.status_code == 400
    assert multipart.content.decode() == "Refused: form.purpose: contains a NUL byte; remove it.\n"
    # tab, CR and LF are text: the booking form answers itself (no start given)
    text = admin_client.post("/bookings/new/", {"group": "1", "purpose": "a\tb\r\nc"})
    assert text["Content-Type"].startswith("text/html") and not text.content.startswith(b"Refused:")
    assert Booking.objects.count() == before


@pytest.mark.django_db
def test_a_time_zone_name_too_long_for_a_file_is_unknown(member_user):
    from bookings.models import Preference

    client = Client()
    client.force_login(member_user)
    response = client.post("/bookings/time-zone/", {"time_zone": "a" * 3000})
    assert (response.status_code, response["Location"]) == (302, "/bookings/mine/")
    assert not Preference.objects.exists()
