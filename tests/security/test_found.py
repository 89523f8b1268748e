"""Each thing a probe of the running app found, as a test that fails if it
comes back: a clear answer (4xx, or a page clamped to a sane window) and
nothing changed."""
from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


@pytest.fixture
def member_client(member_user):
    c = Client()
    c.force_login(member_user)
    return c


@pytest.mark.parametrize(("view", "day", "next_window"), [
    ("week", "0001-01-01", "2000-01-10"), ("month", "0001-01-01", "2000-02-01"),
    ("week", "9999-12-31", "2100-01-04"), ("month", "9999-12-31", "2100-01-01"),
])
def test_a_timeline_date_far_out_is_clamped_not_a_crash(member_client, view, day, next_window):
    r = member_client.get(f"/bookings/?view={view}&date={day}")
    assert r.status_code == 200
    assert f"date={next_window}" in r.content.decode()  # the window shown is the nearest sane one
